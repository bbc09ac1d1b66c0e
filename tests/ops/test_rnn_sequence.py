"""RNNSequence-5: shapes and types against OpenVINO (accepted and refused inputs), kernel
against the CPU plugin (directions, sequence lengths, activations, clip), reported errors."""

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
from irrun.ops.rnn_sequence import RNNSequence
from irrun.shape import Shape
from tests.helpers.openvino_oracle import check_shapes, model_of, parameter, run_irrun, run_openvino
from tests.helpers.strategies import bare_op, op_settings, shape_around

NAMES = ("x", "h", "l", "w", "r", "b")
#: Mostly one element type; now and then another (refused) or dynamic (merged).
OTHER_TYPES = ("f64", "dynamic")
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
    d = 2 if direction == "bidirectional" else 1

    def size(value):
        return value if draw(st.integers(0, 9)) else draw(st.integers(1, 9))

    sizes = [[b, t, i], [b, d, h], [b], [d, h, i], [d, h, h], [d, h]]
    shapes = []
    for one in sizes:
        if not draw(st.integers(0, 24)):
            one = one + [2]  # a wrong rank
        shapes.append(draw(shape_around([size(n) for n in one])))
    types = _types(draw, len(sizes))
    types[2] = draw(st.sampled_from(["i32", "i64"]))
    return shapes, types, direction


@op_settings(40)
@given(_inputs())
def test_rnn_sequence_shapes_match_openvino(drawn):
    shapes, types, direction = drawn
    params = [parameter(s, t, name=n) for s, t, n in zip(shapes, types, NAMES)]
    op = bare_op(RNNSequence, {"hidden_size": "3", "direction": direction})
    infos = [_info(s, t) for s, t in zip(shapes, types)]
    try:
        node = opset5.rnn_sequence(*params, 3, direction)
    except RuntimeError:
        with pytest.raises(IRError):
            op.infer(infos)
        return
    outputs = op.infer(infos)
    expected = [(str(o.get_partial_shape()), o.get_element_type().get_type_name())
                for o in node.outputs()]  # fmt: skip
    assert [(str(o.shape), o.element_type.name) for o in outputs] == expected
    check_shapes(node)


def _case(batch, steps, inputs, hidden, direction, activation, clip):
    d = 2 if direction == "bidirectional" else 1
    shapes = {"x": [batch, steps, inputs], "h": [batch, d, hidden], "w": [d, hidden, inputs],
              "r": [d, hidden, hidden], "b": [d, hidden]}  # fmt: skip
    p = {n: parameter(s, name=n) for n, s in shapes.items()}
    lengths = parameter([batch], "i32", name="l")
    node = opset5.rnn_sequence(p["x"], p["h"], lengths, p["w"], p["r"], p["b"], hidden,
                               direction, [activation], [], [], clip)  # fmt: skip
    return model_of(node), shapes


@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("activation, clip", [("tanh", 0.0), ("relu", 0.0), ("sigmoid", 0.3)])
@pytest.mark.parametrize("lengths", [[8, 8], [0, 5], [8, 1]])
def test_rnn_sequence_matches_cpu_plugin(direction, activation, clip, lengths):
    model, shapes = _case(2, 8, 3, 4, direction, activation, clip)
    rng = np.random.default_rng(0)
    # small weights: relu over 8 steps stays of order 1
    feed = {n: (0.5 * rng.standard_normal(s)).astype(np.float32) for n, s in shapes.items()}
    feed["l"] = np.array(lengths, np.int32)
    for got, expected in zip(run_irrun(model, feed), run_openvino(model, feed)):
        np.testing.assert_allclose(got, expected, **tolerance(8))


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
    infos = [_info(s, "i32" if i == 2 else "f32") for i, s in
             enumerate(("2,3,1", "2,1,2", "2,1", "1,2,1", "1,2,2", "1,2"))]  # fmt: skip
    with pytest.raises(IRError, match=r"sequence_lengths \(input 2\) must have rank 1"):
        op.infer(infos)


@pytest.mark.parametrize("attributes", [{}, {"activations": ["Relu", "Relu"]}])
def test_onnx_rnn_as_openvino_converts_it_is_checked_and_matches_cpu_plugin(attributes, tmp_path):
    """The layers around the RNNSequence (Transposes, Splits, ShapeOf of the dynamic batch) are all
    checked; the outputs match the CPU plugin (on static shapes: with the converted model's
    dynamic shapes the CPU plugin ignores sequence_lengths, every item running all the steps,
    unlike its static-shape path and OpenVINO's reference)."""
    import irrun
    from tests.helpers.openvino_oracle import save
    from tests.ops.test_lstm_sequence import onnx_recurrent_model

    model, feed = onnx_recurrent_model(tmp_path, "RNN", 1, 6, 3, 4, 5, **attributes)
    loaded = irrun.load(save(model, tmp_path))
    report = loaded.validate()
    assert report.ok and report.layers_trusted == 0, report.to_text()
    assert loaded.count_by_type()["RNNSequence opset5"] == 1
    got = loaded.run(feed)
    # compared with the model reshaped to the fed shapes: with dynamic shapes the CPU plugin
    # ignores sequence_lengths in this converted graph (every item runs all steps)
    static = model.clone()
    static.reshape({name: list(value.shape) for name, value in feed.items()})
    for output, expected in zip(got, run_openvino(static, feed)):
        np.testing.assert_allclose(got[output], expected, **tolerance(6))
