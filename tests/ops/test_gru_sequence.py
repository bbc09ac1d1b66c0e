"""GRUSequence-5: shapes and types against OpenVINO (accepted and refused inputs), kernel
against the CPU plugin (directions, sequence lengths, linear_before_reset, activations,
clip), reported errors."""

from __future__ import annotations

import numpy as np
import openvino.opset5 as opset5
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irrun.element_types import element_type
from irrun.errors import IRError
from irrun.ops._recurrent import tolerance
from irrun.ops.base import TensorInfo
from irrun.ops.gru_sequence import GRUSequence
from irrun.shape import Shape
from tests.helpers.openvino_oracle import check_shapes, model_of, parameter, run_irrun, run_openvino
from tests.helpers.strategies import bare_op, op_settings, shape_around

NAMES = ("x", "h", "l", "w", "r", "b")
#: Mostly one element type; now and then another (refused) or dynamic (merged).
OTHER_TYPES = ("f16", "dynamic")
DIRECTIONS = ("forward", "reverse", "bidirectional")


def _types(draw, count: int) -> list[str]:
    """One element type for all inputs, one in ten of them drawn among ``OTHER_TYPES``."""
    drawn = [draw(st.sampled_from(["f32"] * 9 + ["other"])) for _ in range(count)]
    return [t if t == "f32" else draw(st.sampled_from(OTHER_TYPES)) for t in drawn]


def _info(text: str, etype: str) -> TensorInfo:
    return TensorInfo(Shape.parse(text.strip("[]")), element_type(etype))


@st.composite
def _inputs(draw):
    b, t, i, h = (draw(st.integers(1, 4)) for _ in range(4))
    direction = draw(st.sampled_from(DIRECTIONS))
    linear = draw(st.booleans())
    d = 2 if direction == "bidirectional" else 1

    def size(value):
        return value if draw(st.integers(0, 9)) else draw(st.integers(1, 13))

    sizes = [[b, t, i], [b, d, h], [b], [d, 3 * h, i], [d, 3 * h, h],
             [d, (4 if linear else 3) * h]]  # fmt: skip
    shapes = []
    for one in sizes:
        if not draw(st.integers(0, 24)):
            one = one + [2]  # a wrong rank
        shapes.append(draw(shape_around([size(n) for n in one])))
    types = _types(draw, len(sizes))
    types[2] = draw(st.sampled_from(["i32", "i64"]))
    return shapes, types, direction, linear


@op_settings(40)
@given(_inputs())
def test_gru_sequence_shapes_match_openvino(drawn):
    shapes, types, direction, linear = drawn
    params = [parameter(s, t, name=n) for s, t, n in zip(shapes, types, NAMES)]
    op = bare_op(GRUSequence, {"hidden_size": "3", "direction": direction,
                               "linear_before_reset": str(linear).lower()})  # fmt: skip
    infos = [_info(s, t) for s, t in zip(shapes, types)]
    try:
        node = opset5.gru_sequence(*params, 3, direction, ["sigmoid", "tanh"], [], [], 0.0,
                                   linear)  # fmt: skip
    except RuntimeError:
        with pytest.raises(IRError):
            op.infer(infos)
        return
    outputs = op.infer(infos)
    expected = [(str(o.get_partial_shape()), o.get_element_type().get_type_name())
                for o in node.outputs()]  # fmt: skip
    assert [(str(o.shape), o.element_type.name) for o in outputs] == expected
    check_shapes(node)


def _case(batch, steps, inputs, hidden, direction, linear, activations, clip):
    d = 2 if direction == "bidirectional" else 1
    shapes = {"x": [batch, steps, inputs], "h": [batch, d, hidden],
              "w": [d, 3 * hidden, inputs], "r": [d, 3 * hidden, hidden],
              "b": [d, (4 if linear else 3) * hidden]}  # fmt: skip
    p = {n: parameter(s, name=n) for n, s in shapes.items()}
    lengths = parameter([batch], "i64", name="l")
    node = opset5.gru_sequence(p["x"], p["h"], lengths, p["w"], p["r"], p["b"], hidden,
                               direction, activations, [], [], clip, linear)  # fmt: skip
    return model_of(node), shapes


@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("linear", [False, True])
@pytest.mark.parametrize("lengths", [[7, 7, 7], [3, 0, 7], [1, 7, 5]])
def test_gru_sequence_matches_cpu_plugin(direction, linear, lengths):
    model, shapes = _case(3, 7, 4, 5, direction, linear, ["sigmoid", "tanh"], 0.0)
    rng = np.random.default_rng(0)
    feed = {n: rng.standard_normal(s).astype(np.float32) for n, s in shapes.items()}
    feed["l"] = np.array(lengths, np.int64)
    for got, expected in zip(run_irrun(model, feed), run_openvino(model, feed)):
        np.testing.assert_allclose(got, expected, **tolerance(7))


@pytest.mark.parametrize(
    "activations, clip", [(["relu", "tanh"], 0.0), (["tanh", "sigmoid"], 0.0),
                          (["sigmoid", "tanh"], 0.4)],
)  # fmt: skip
def test_gru_sequence_activations_and_clip_match_cpu_plugin(activations, clip):
    model, shapes = _case(2, 16, 3, 4, "bidirectional", True, activations, clip)
    rng = np.random.default_rng(1)
    feed = {n: rng.standard_normal(s).astype(np.float32) for n, s in shapes.items()}
    feed["l"] = np.array([16, 9], np.int64)
    for got, expected in zip(run_irrun(model, feed), run_openvino(model, feed)):
        np.testing.assert_allclose(got, expected, **tolerance(16))


def test_bias_of_the_other_form_is_reported():
    """linear_before_reset needs four bias blocks."""
    op = bare_op(GRUSequence, {"hidden_size": "2", "direction": "forward",
                               "linear_before_reset": "true"})  # fmt: skip
    infos = [_info(s, "i32" if i == 2 else "f32") for i, s in
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
    import irrun
    from tests.helpers.openvino_oracle import save
    from tests.ops.test_lstm_sequence import onnx_recurrent_model

    model, feed = onnx_recurrent_model(tmp_path, "GRU", 3, 6, 3, 4, 5, **attributes)
    loaded = irrun.load(save(model, tmp_path))
    report = loaded.validate()
    assert report.ok and report.layers_trusted == 0, report.to_text()
    assert loaded.count_by_type()["GRUSequence opset5"] == 1
    got = loaded.run(feed)
    # compared with the model reshaped to the fed shapes: with dynamic shapes the CPU plugin
    # ignores sequence_lengths in this converted graph (every item runs all steps)
    static = model.clone()
    static.reshape({name: list(value.shape) for name, value in feed.items()})
    for output, expected in zip(got, run_openvino(static, feed)):
        np.testing.assert_allclose(got[output], expected, **tolerance(6))
