"""RNNSequence-5: shapes and types against OpenVINO (accepted and refused inputs), kernel
against the CPU plugin (directions, sequence lengths, activations, clip), reported errors."""

from __future__ import annotations

import numpy as np
import openvino.opset5 as opset5
import pytest
from hypothesis import given

from irrun.errors import IRError
from irrun.ops.rnn_sequence import RNNSequence
from tests.helpers import recurrent
from tests.helpers.strategies import bare_op, op_settings

NAMES = ("x", "h", "l", "w", "r", "b")
#: Mostly one element type; now and then another (refused) or dynamic (merged).
OTHER_TYPES = ("f64", "dynamic")


@op_settings(40)
@given(recurrent.sequence_inputs(1, OTHER_TYPES, largest=9))
def test_rnn_sequence_shapes_match_openvino(drawn):
    shapes, types, direction, _ = drawn
    recurrent.check_infer_as_openvino(RNNSequence, {"hidden_size": "3", "direction": direction},
                                      lambda *inputs: opset5.rnn_sequence(*inputs, 3, direction),
                                      shapes, types, NAMES)  # fmt: skip


def _case(batch, steps, inputs, hidden, direction, activation, clip):
    d = 2 if direction == "bidirectional" else 1
    shapes = recurrent.gate_shapes(batch, inputs, hidden, 1, steps=steps, directions=d)
    model = recurrent.built_model(
        shapes,
        lambda *inputs: opset5.rnn_sequence(*inputs, hidden, direction, [activation], [], [], clip),
        "i32",
    )
    return model, shapes


@pytest.mark.parametrize("direction", recurrent.DIRECTIONS)
@pytest.mark.parametrize("activation, clip", [("tanh", 0.0), ("relu", 0.0), ("sigmoid", 0.3)])
@pytest.mark.parametrize("lengths", [[8, 8], [0, 5], [8, 1]])
def test_rnn_sequence_matches_cpu_plugin(direction, activation, clip, lengths):
    model, shapes = _case(2, 8, 3, 4, direction, activation, clip)
    # small weights: relu over 8 steps stays of order 1
    feed = recurrent.random_feed(shapes, 0, scale=0.5, lengths=np.array(lengths, np.int32))
    recurrent.matches_cpu_plugin(model, feed, 8)


def test_rnn_sequence_follows_the_equation_with_masking():
    """Hidden size 1, two steps of ``H' = tanh(x w + H r + b)``; the second item has length 1:
    its second output is zero and its final state the first step's."""
    op = bare_op(RNNSequence, {"hidden_size": "1", "direction": "forward"})
    x = np.array([[[1.0], [2.0]], [[3.0], [4.0]]])
    h = np.array([[[0.5]], [[0.0]]])
    w, r, b = np.array([[[0.5]]]), np.array([[[2.0]]]), np.array([[0.1]])
    y, final = op.evaluate([x, h, np.array([2, 1]), w, r, b])
    first = np.tanh(0.5 * x[:, 0, 0] + 2.0 * h[:, 0, 0] + 0.1)
    second = np.tanh(0.5 * x[0, 1, 0] + 2.0 * first[0] + 0.1)
    np.testing.assert_allclose(y[:, 0, :, 0], [[first[0], second], [first[1], 0.0]], rtol=1e-12)
    np.testing.assert_allclose(final[:, 0, 0], [second, first[1]], rtol=1e-12)


def test_wrong_rank_of_the_lengths_is_reported():
    op = bare_op(RNNSequence, {"hidden_size": "2", "direction": "forward"})
    infos = [recurrent.tensor_info(s, "i32" if i == 2 else "f32") for i, s in
             enumerate(("2,3,1", "2,1,2", "2,1", "1,2,1", "1,2,2", "1,2"))]  # fmt: skip
    with pytest.raises(IRError, match=r"sequence_lengths \(input 2\) must have rank 1"):
        op.infer(infos)


@pytest.mark.parametrize("attributes", [{}, {"activations": ["Relu", "Relu"]}])
def test_onnx_rnn_as_openvino_converts_it_is_checked_and_matches_cpu_plugin(attributes, tmp_path):
    """The layers around the RNNSequence (Transposes, Splits, ShapeOf of the dynamic batch) are all
    checked; the outputs match the CPU plugin (on static shapes: with the converted model's
    dynamic shapes the CPU plugin ignores sequence_lengths, every item running all the steps,
    unlike its static-shape path and OpenVINO's reference)."""
    recurrent.check_onnx(tmp_path, "RNN", 1, 6, 3, 4, 5, **attributes)
