"""LSTMSequence-5: shapes and types against OpenVINO (accepted and refused inputs), kernel
against the CPU plugin (directions, sequence lengths, activations, clip), reported errors."""

from __future__ import annotations

import numpy as np
import openvino.opset5 as opset5
import pytest
from hypothesis import given

from irrun.errors import IRError
from irrun.ops.lstm_sequence import LSTMSequence
from tests.helpers import recurrent
from tests.helpers.openvino_oracle import check_shapes, model_of, parameter, run_irrun, run_openvino
from tests.helpers.strategies import bare_op, op_settings

NAMES = ("x", "h", "c", "l", "w", "r", "b")
#: Mostly one element type; now and then another (refused) or dynamic (merged).
OTHER_TYPES = ("f16", "dynamic")


@op_settings(40)
@given(recurrent.sequence_inputs(4, OTHER_TYPES, largest=13, cell_state=True))
def test_lstm_sequence_shapes_match_openvino(drawn):
    shapes, types, direction, _ = drawn
    recurrent.check_infer_as_openvino(LSTMSequence, {"hidden_size": "3", "direction": direction},
                                      lambda *inputs: opset5.lstm_sequence(*inputs, 3, direction),
                                      shapes, types, NAMES)  # fmt: skip


def test_hidden_size_from_an_open_interval_divided_as_openvino_does():
    """Dim 1 of W (``5..``) divided by 4: ``2..2**61``, OpenVINO's bound for an unbounded
    interval."""
    x, h, c = parameter([2, 3, 4]), parameter("[...]"), parameter("[...]")
    lengths = parameter([2], "i32")
    w, r, b = parameter("[1,5..,4]"), parameter("[...]"), parameter("[...]")
    node = opset5.lstm_sequence(x, h, c, lengths, w, r, b, 3, "forward")
    assert str(node.output(0).get_partial_shape()) == f"[2,1,3,2..{2**61}]"
    check_shapes(node)


def _shapes(batch, steps, inputs, hidden, directions):
    return recurrent.gate_shapes(
        batch, inputs, hidden, 4, steps=steps, directions=directions, cell_state=True
    )


def _model(shapes, hidden, direction, activations=("sigmoid", "tanh", "tanh"), clip=0.0):
    return recurrent.built_model(
        shapes,
        lambda *inputs: opset5.lstm_sequence(
            *inputs, hidden, direction, list(activations), [], [], clip
        ),
        "i32",
    )


def _feed(shapes, lengths, seed):
    return recurrent.random_feed(shapes, seed, lengths=np.array(lengths, np.int32))


@pytest.mark.parametrize("direction", recurrent.DIRECTIONS)
@pytest.mark.parametrize("lengths", [[6, 6, 6], [2, 6, 0], [6, 1, 3], [1, 1, 1]])
def test_lstm_sequence_matches_cpu_plugin(direction, lengths):
    """Past an item's length its outputs are zero and its final state is the state after its
    last step (zero for a length of 0)."""
    d = 2 if direction == "bidirectional" else 1
    shapes = _shapes(3, 6, 4, 5, d)
    model = _model(shapes, 5, direction)
    recurrent.matches_cpu_plugin(model, _feed(shapes, lengths, 0), 6)


def test_forward_lengths_above_the_sequence_give_zero_final_states():
    """As the reference (``h_list[len - 1]`` out of range: zeros) and the CPU plugin."""
    shapes = _shapes(2, 4, 3, 2, 1)
    model = _model(shapes, 2, "forward")
    got = recurrent.matches_cpu_plugin(model, _feed(shapes, [9, 4], 1), 4)
    assert not got[1][0].any() and not got[2][0].any()
    assert got[1][1].all()


@pytest.mark.parametrize(
    "activations, clip",
    [(("relu", "tanh", "sigmoid"), 0.0), (("sigmoid", "relu", "tanh"), 0.0),
     (("sigmoid", "tanh", "tanh"), 0.5)],
)  # fmt: skip
def test_lstm_sequence_activations_and_clip_match_cpu_plugin(activations, clip):
    shapes = _shapes(2, 20, 3, 4, 2)
    model = _model(shapes, 4, "bidirectional", activations, clip)
    recurrent.matches_cpu_plugin(model, _feed(shapes, [20, 13], 2), 20)


def test_a_length_above_the_sequence_cannot_be_reversed():
    """The CPU plugin's ReverseSequence refuses it too."""
    op = bare_op(LSTMSequence, {"hidden_size": "2", "direction": "reverse"})
    feed = _feed(_shapes(2, 3, 1, 2, 1), [3, 4], 3)
    with pytest.raises(ValueError, match=r"sequence_lengths\[1\] = 4 is more than the 3 steps"):
        op.evaluate([feed[n] for n in NAMES])


def test_a_negative_length_is_an_error():
    op = bare_op(LSTMSequence, {"hidden_size": "2", "direction": "forward"})
    feed = _feed(_shapes(2, 3, 1, 2, 1), [-1, 2], 4)
    with pytest.raises(ValueError, match=r"sequence_lengths\[0\] = -1 is negative"):
        op.evaluate([feed[n] for n in NAMES])


def test_directions_that_contradict_the_attribute_are_reported():
    op = bare_op(LSTMSequence, {"hidden_size": "2", "direction": "bidirectional"})
    infos = [recurrent.tensor_info(s, "i32" if i == 3 else "f32") for i, s in
             enumerate(("2,3,1", "2,1,2", "2,2,2", "2", "2,8,1", "2,8,2", "2,8"))]  # fmt: skip
    with pytest.raises(IRError, match=r"initial_hidden_state \[2,1,2\] has 1 directions \(dim 1\), "
                                      r"but direction='bidirectional' means 2"):  # fmt: skip
        op.infer(infos)


def test_mismatched_batch_of_the_lengths_is_reported():
    op = bare_op(LSTMSequence, {"hidden_size": "2", "direction": "forward"})
    infos = [recurrent.tensor_info(s, "i32" if i == 3 else "f32") for i, s in
             enumerate(("2,3,1", "2,1,2", "2,1,2", "3", "1,8,1", "1,8,2", "1,8"))]  # fmt: skip
    with pytest.raises(IRError, match=r"batch size does not match: sequence_lengths \[3\] has 3"):
        op.infer(infos)


def test_f16_is_computed_in_f32_and_rounded_once():
    """As the CPU plugin with the f32 precision hint (measured: equal); asserted within one f16
    ulp."""
    x, h = parameter([3, 6, 4], "f16", name="x"), parameter([3, 1, 5], "f16", name="h")
    c = parameter([3, 1, 5], "f16", name="c")
    lengths = parameter([3], "i32", name="l")
    w, r = parameter([1, 20, 4], "f16", name="w"), parameter([1, 20, 5], "f16", name="r")
    b = parameter([1, 20], "f16", name="b")
    model = model_of(opset5.lstm_sequence(x, h, c, lengths, w, r, b, 5, "forward"))
    rng = np.random.default_rng(5)
    feed = {n: rng.standard_normal(s).astype(np.float16) for n, s in
            (("x", [3, 6, 4]), ("h", [3, 1, 5]), ("c", [3, 1, 5]), ("w", [1, 20, 4]),
             ("r", [1, 20, 5]), ("b", [1, 20]))}  # fmt: skip
    feed["l"] = np.array([6, 3, 6], np.int32)
    for got, expected in zip(run_irrun(model, feed), run_openvino(model, feed)):
        assert got.dtype == np.float16
        np.testing.assert_allclose(got, expected, rtol=1e-3, atol=1e-3)


def test_onnx_lstm_as_openvino_converts_it_is_checked_and_matches_cpu_plugin(tmp_path):
    """The layers around the LSTMSequence (gate reordering, Transposes, ShapeOf of the dynamic
    batch) are all checked; the outputs match the CPU plugin (on static shapes: with the
    converted model's dynamic shapes the CPU plugin ignores sequence_lengths, every item running
    all the steps, unlike its static-shape path and OpenVINO's reference)."""
    recurrent.check_onnx(tmp_path, "LSTM", 4, 5, 3, 4, 6)


@pytest.mark.parametrize(
    "old, new, code, fragment, needle",
    [
        ('direction="forward"', 'direction="bidirectional"', "input-dims",
         "initial_hidden_state [2,1,3] has 1 directions (dim 1), but direction='bidirectional' "
         "means 2", '<port id="1"'),
        ('direction="forward"', 'direction="sideways"', "attribute-value",
         "attribute direction='sideways' is not one of forward, reverse, bidirectional", "<data"),
        ('clip="0"', 'clip="none"', "attribute-value", "attribute clip='none' is not", "<data"),
        ('activations="sigmoid, tanh, tanh"', 'activations="sigmoid, tanh, gelu"',
         "attribute-value", "'gelu' is not an activation OpenVINO knows", "<data"),
    ],
)  # fmt: skip
def test_lstm_sequence_errors_are_reported_at_their_line(old, new, code, fragment, needle):
    model = _model(_shapes(2, 4, 5, 3, 1), 3, "forward")
    recurrent.check_error_at_line(model, "LSTMSequence", old, new, code, fragment, needle)
