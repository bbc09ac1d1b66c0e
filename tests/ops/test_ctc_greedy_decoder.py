"""CTCGreedyDecoder-1 and CTCGreedyDecoderSeqLen-6: shapes against OpenVINO, kernels against
the CPU plugin (exact), reported errors."""

from __future__ import annotations

import numpy as np
import openvino.opset6 as opset6
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irrun.ops.ctc_greedy_decoder_seq_len import CTCGreedyDecoderSeqLen
from tests.helpers.ir_text import Net, line_of
from tests.helpers.openvino_oracle import (
    check_rejected,
    check_shapes,
    constant,
    model_of,
    parameter,
    run_irrun,
    run_openvino,
)
from tests.helpers.strategies import bare_op, built, dim_text, op_settings, shape_text, validated

DIMS = dim_text(st.sampled_from([2, 3, 5]))


@op_settings(30)
@given(shape_text(DIMS, min_rank=3, max_rank=3), shape_text(DIMS, min_rank=2, max_rank=2),
       st.booleans())  # fmt: skip
def test_greedy_decoder_shapes_match_openvino(data_shape, mask_shape, merge):
    data, mask = parameter(data_shape, name="x"), parameter(mask_shape, name="m")
    check_shapes(built(lambda: opset6.ctc_greedy_decoder(data, mask, merge)))


@op_settings(30)
@given(shape_text(DIMS, min_rank=3, max_rank=3), shape_text(DIMS, min_rank=1, max_rank=1),
       st.sampled_from([None, "scalar", "[1]"]), st.sampled_from(["i32", "i64"]),
       st.sampled_from(["i32", "i64"]))  # fmt: skip
def test_seq_len_shapes_match_openvino(data_shape, lengths_shape, blank, classes, lengths_type):
    inputs = [parameter(data_shape, name="x"), parameter(lengths_shape, "i32", name="s")]
    if blank is not None:
        inputs.append(constant(1 if blank == "scalar" else [1], "i32"))
    check_shapes(built(lambda: opset6.ctc_greedy_decoder_seq_len(
        *inputs, merge_repeated=True, classes_index_type=classes,
        sequence_length_type=lengths_type)))  # fmt: skip


def _scores(rng, shape):
    """Scores whose argmax repeats often (few classes) and without ties."""
    classes = rng.integers(0, shape[-1], shape[:-1])
    return (np.eye(shape[-1])[classes] * 2 + rng.uniform(0, 1, shape)).astype(np.float32)


@pytest.mark.parametrize("merge", [True, False])
def test_greedy_decoder_matches_cpu_plugin(merge):
    rng = np.random.default_rng(5)
    data = _scores(rng, (8, 4, 3))
    mask = np.ones((8, 4), np.float32)
    mask[5:, 1] = 0
    mask[0, 2] = 0
    mask[3, 3] = 0
    mask[5, 3] = 1  # after a 0: not decoded
    model = model_of(opset6.ctc_greedy_decoder(parameter([8, 4, 3], name="x"),
                                               parameter([8, 4], name="m"), merge))  # fmt: skip
    feed = {"x": data, "m": mask}
    got, expected = run_irrun(model, feed)[0], run_openvino(model, feed)[0]
    assert got.dtype == np.float32 and got.shape == (4, 8, 1, 1)
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("blank", [None, 0, 2])
@pytest.mark.parametrize("merge", [True, False])
def test_seq_len_matches_cpu_plugin(merge, blank):
    rng = np.random.default_rng(6)
    data = _scores(rng, (4, 9, 4))
    lengths = np.array([9, 0, 4, 7], np.int32)
    inputs = [parameter([4, 9, 4], name="x"), parameter([4], "i32", name="s")]
    if blank is not None:
        inputs.append(constant(blank, "i32"))
    model = model_of(opset6.ctc_greedy_decoder_seq_len(*inputs, merge_repeated=merge,
                                                       classes_index_type="i64"))  # fmt: skip
    feed = {"x": data, "s": lengths}
    for mine, theirs in zip(run_irrun(model, feed), run_openvino(model, feed)):
        assert mine.dtype == theirs.dtype
        np.testing.assert_array_equal(mine, theirs)


def test_known_decoding():
    op = bare_op(CTCGreedyDecoderSeqLen, {})
    steps = [0, 0, 2, 0, 1, 1, 2]  # class 2 is the blank
    data = np.eye(3, dtype=np.float32)[steps][None]
    classes, counts = op.evaluate([data, np.array([7], np.int32)])
    assert classes.tolist() == [[0, 0, 1, -1, -1, -1, -1]] and counts.tolist() == [3]
    with pytest.raises(ValueError, match=r"sequence lengths \[8\] must lie in \[0, 7\]"):
        op.evaluate([data, np.array([8], np.int32)])


def test_mismatched_batch_is_reported():
    check_rejected(lambda: opset6.ctc_greedy_decoder_seq_len(parameter([3, 10, 5]),
                                                             parameter([4], "i32")))  # fmt: skip
    net = Net()
    inputs = [net.param("x", "3,10,5"), net.param("s", "4", "i32")]
    out = net.op("d", "CTCGreedyDecoderSeqLen", "opset6", {}, inputs, [3, 10], "I32")
    net.result(out)
    (error,) = validated(net).errors
    assert error.code == "input-dims" and "the batch dims of data [3,10,5]" in error.message
    assert error.line == line_of(net.text(), '<port id="1"', within="d")


def test_mask_of_rank_1_is_reported():
    check_rejected(lambda: opset6.ctc_greedy_decoder(parameter([10, 3, 5]), parameter([10])))
    net = Net()
    out = net.op("d", "CTCGreedyDecoder", "opset1", {"ctc_merge_repeated": "true"},
                 [net.param("x", "10,3,5"), net.param("m", "10")], [3, 10, 1, 1])  # fmt: skip
    net.result(out)
    (error,) = validated(net).errors
    assert error.code == "input-rank" and "the mask must have rank 2" in error.message
