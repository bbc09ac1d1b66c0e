"""GRUSequence-5: shapes and types against OpenVINO (accepted and refused inputs), kernel
against the CPU plugin (directions, sequence lengths, linear_before_reset, activations,
clip), reported errors."""

from __future__ import annotations

import numpy as np
import openvino.opset5 as opset5
import pytest
from hypothesis import given

from irrun.errors import IRError
from irrun.ops.gru_sequence import GRUSequence
from tests.helpers import recurrent
from tests.helpers.strategies import bare_op, op_settings

NAMES = ("x", "h", "l", "w", "r", "b")
#: Mostly one element type; now and then another (refused) or dynamic (merged).
OTHER_TYPES = ("f16", "dynamic")


@op_settings(40)
@given(recurrent.sequence_inputs(3, OTHER_TYPES, largest=13, linear=True))
def test_gru_sequence_shapes_match_openvino(drawn):
    shapes, types, direction, linear = drawn
    attributes = {"hidden_size": "3", "direction": direction,
                  "linear_before_reset": str(linear).lower()}  # fmt: skip
    recurrent.check_infer_as_openvino(GRUSequence, attributes, lambda *inputs: opset5.gru_sequence(
        *inputs, 3, direction, ["sigmoid", "tanh"], [], [], 0.0, linear), shapes, types,
        NAMES)  # fmt: skip


def _case(batch, steps, inputs, hidden, direction, linear, activations, clip):
    d = 2 if direction == "bidirectional" else 1
    shapes = recurrent.gate_shapes(
        batch, inputs, hidden, 3, steps=steps, directions=d, bias_gates=4 if linear else 3
    )
    model = recurrent.built_model(
        shapes,
        lambda *inputs: opset5.gru_sequence(
            *inputs, hidden, direction, activations, [], [], clip, linear
        ),
        "i64",
    )
    return model, shapes


@pytest.mark.parametrize("direction", recurrent.DIRECTIONS)
@pytest.mark.parametrize("linear", [False, True])
@pytest.mark.parametrize("lengths", [[7, 7, 7], [3, 0, 7], [1, 7, 5]])
def test_gru_sequence_matches_cpu_plugin(direction, linear, lengths):
    model, shapes = _case(3, 7, 4, 5, direction, linear, ["sigmoid", "tanh"], 0.0)
    recurrent.matches_cpu_plugin(
        model, recurrent.random_feed(shapes, 0, lengths=np.array(lengths, np.int64)), 7
    )


@pytest.mark.parametrize(
    "activations, clip", [(["relu", "tanh"], 0.0), (["tanh", "sigmoid"], 0.0),
                          (["sigmoid", "tanh"], 0.4)],
)  # fmt: skip
def test_gru_sequence_activations_and_clip_match_cpu_plugin(activations, clip):
    model, shapes = _case(2, 16, 3, 4, "bidirectional", True, activations, clip)
    recurrent.matches_cpu_plugin(
        model, recurrent.random_feed(shapes, 1, lengths=np.array([16, 9], np.int64)), 16
    )


def test_bias_of_the_other_form_is_reported():
    """linear_before_reset needs four bias blocks."""
    op = bare_op(GRUSequence, {"hidden_size": "2", "direction": "forward",
                               "linear_before_reset": "true"})  # fmt: skip
    infos = [recurrent.tensor_info(s, "i32" if i == 2 else "f32") for i, s in
             enumerate(("2,3,1", "2,1,2", "2", "1,6,1", "1,6,2", "1,6"))]  # fmt: skip
    with pytest.raises(
        IRError, match=r"B \[1,6\] must have 4 \* hidden size = 4 \* 2 = 8 in dim 1"
    ):
        op.infer(infos)


@pytest.mark.parametrize("attributes", [{}, {"linear_before_reset": 1}])
def test_onnx_gru_as_openvino_converts_it_is_checked_and_matches_cpu_plugin(attributes, tmp_path):
    """The layers around the GRUSequence (Transposes, Splits, ShapeOf of the dynamic batch) are all
    checked; the outputs match the CPU plugin (on static shapes: with the converted model's
    dynamic shapes the CPU plugin ignores sequence_lengths, every item running all the steps,
    unlike its static-shape path and OpenVINO's reference)."""
    recurrent.check_onnx(tmp_path, "GRU", 3, 6, 3, 4, 5, **attributes)
