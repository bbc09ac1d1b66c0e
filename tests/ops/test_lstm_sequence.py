"""LSTMSequence-5: shapes and types against OpenVINO (accepted and refused inputs), kernel
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
from irrun.ops.lstm_sequence import LSTMSequence
from irrun.shape import Shape
from tests.helpers.openvino_oracle import check_shapes, model_of, parameter, run_irrun, run_openvino
from tests.helpers.strategies import bare_op, diagnostic, edited_report, op_settings, shape_around

NAMES = ("x", "h", "c", "l", "w", "r", "b")
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
    """Shapes around the seven inputs of a direction, a size now and then replaced."""
    b, t, i, h = (draw(st.integers(1, 4)) for _ in range(4))
    direction = draw(st.sampled_from(DIRECTIONS))
    d = 2 if direction == "bidirectional" else 1

    def size(value):
        return value if draw(st.integers(0, 9)) else draw(st.integers(1, 13))

    sizes = [[b, t, i], [b, d, h], [b, d, h], [b], [d, 4 * h, i], [d, 4 * h, h], [d, 4 * h]]
    shapes = []
    for one in sizes:
        if not draw(st.integers(0, 24)):
            one = one + [2]  # a wrong rank
        shapes.append(draw(shape_around([size(n) for n in one])))
    types = _types(draw, len(sizes))
    types[3] = draw(st.sampled_from(["i32", "i64"]))
    return shapes, types, direction


@op_settings(40)
@given(_inputs())
def test_lstm_sequence_shapes_match_openvino(drawn):
    shapes, types, direction = drawn
    params = [parameter(s, t, name=n) for s, t, n in zip(shapes, types, NAMES)]
    op = bare_op(LSTMSequence, {"hidden_size": "3", "direction": direction})
    infos = [_info(s, t) for s, t in zip(shapes, types)]
    try:
        node = opset5.lstm_sequence(*params, 3, direction)
    except RuntimeError:
        with pytest.raises(IRError):
            op.infer(infos)
        return
    outputs = op.infer(infos)
    expected = [(str(o.get_partial_shape()), o.get_element_type().get_type_name())
                for o in node.outputs()]  # fmt: skip
    assert [(str(o.shape), o.element_type.name) for o in outputs] == expected
    check_shapes(node)


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
    return {"x": [batch, steps, inputs], "h": [batch, directions, hidden],
            "c": [batch, directions, hidden], "w": [directions, 4 * hidden, inputs],
            "r": [directions, 4 * hidden, hidden], "b": [directions, 4 * hidden]}  # fmt: skip


def _model(shapes, hidden, direction, activations=("sigmoid", "tanh", "tanh"), clip=0.0):
    params = {n: parameter(s, name=n) for n, s in shapes.items()}
    lengths = parameter([shapes["x"][0]], "i32", name="l")
    return model_of(opset5.lstm_sequence(params["x"], params["h"], params["c"], lengths,
                                         params["w"], params["r"], params["b"], hidden,
                                         direction, list(activations), [], [], clip))  # fmt: skip


def _feed(shapes, lengths, seed):
    rng = np.random.default_rng(seed)
    feed = {n: rng.standard_normal(s).astype(np.float32) for n, s in shapes.items()}
    feed["l"] = np.array(lengths, np.int32)
    return feed


@pytest.mark.parametrize("direction", DIRECTIONS)
@pytest.mark.parametrize("lengths", [[6, 6, 6], [2, 6, 0], [6, 1, 3], [1, 1, 1]])
def test_lstm_sequence_matches_cpu_plugin(direction, lengths):
    """Past an item's length its outputs are zero and its final state is the state after its
    last step (zero for a length of 0)."""
    d = 2 if direction == "bidirectional" else 1
    shapes = _shapes(3, 6, 4, 5, d)
    model = _model(shapes, 5, direction)
    feed = _feed(shapes, lengths, 0)
    for got, expected in zip(run_irrun(model, feed), run_openvino(model, feed)):
        np.testing.assert_allclose(got, expected, **tolerance(6))


def test_forward_lengths_above_the_sequence_give_zero_final_states():
    """As the reference (``h_list[len - 1]`` out of range: zeros) and the CPU plugin."""
    shapes = _shapes(2, 4, 3, 2, 1)
    model = _model(shapes, 2, "forward")
    feed = _feed(shapes, [9, 4], 1)
    got = run_irrun(model, feed)
    for a, b in zip(got, run_openvino(model, feed)):
        np.testing.assert_allclose(a, b, **tolerance(4))
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
    feed = _feed(shapes, [20, 13], 2)
    for got, expected in zip(run_irrun(model, feed), run_openvino(model, feed)):
        np.testing.assert_allclose(got, expected, **tolerance(20))


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
    infos = [_info(s, "i32" if i == 3 else "f32") for i, s in
             enumerate(("2,3,1", "2,1,2", "2,2,2", "2", "2,8,1", "2,8,2", "2,8"))]  # fmt: skip
    with pytest.raises(IRError, match=r"initial_hidden_state \[2,1,2\] has 1 directions \(dim 1\), "
                                      r"but direction='bidirectional' means 2"):  # fmt: skip
        op.infer(infos)


def test_mismatched_batch_of_the_lengths_is_reported():
    op = bare_op(LSTMSequence, {"hidden_size": "2", "direction": "forward"})
    infos = [_info(s, "i32" if i == 3 else "f32") for i, s in
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


def onnx_recurrent_model(folder, op, gates, steps, batch, inputs, hidden, **attributes):
    """An ONNX model of one bidirectional ``op`` (LSTM, GRU or RNN) with random weights, a
    dynamic sequence length and batch, and sequence lengths, read by OpenVINO's ONNX frontend
    (which emits the Sequence op between Transposes, Splits and Concats)."""
    import onnx
    import openvino as ov
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(7)
    weights = [
        numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), name)
        for name, shape in (("W", (2, gates * hidden, inputs)), ("R", (2, gates * hidden, hidden)),
                            ("B", (2, 2 * gates * hidden)))
    ]  # fmt: skip
    outputs = ["Y", "Y_h"] + (["Y_c"] if op == "LSTM" else [])
    node = helper.make_node(op, ["X", "W", "R", "B", "L"], outputs, hidden_size=hidden,
                            direction="bidirectional", **attributes)  # fmt: skip
    graph = helper.make_graph(
        [node], "recurrent",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, ["T", "N", inputs]),
         helper.make_tensor_value_info("L", TensorProto.INT32, ["N"])],
        [helper.make_tensor_value_info(name, TensorProto.FLOAT, None) for name in outputs],
        weights,
    )  # fmt: skip
    path = f"{folder}/recurrent.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)]), path)
    model = ov.Core().read_model(path)
    feed = {"X": rng.standard_normal((steps, batch, inputs)).astype(np.float32),
            "L": np.array([steps, 2, steps - 1][:batch], np.int32)}  # fmt: skip
    return model, feed


def test_onnx_lstm_as_openvino_converts_it_is_checked_and_matches_cpu_plugin(tmp_path):
    """The layers around the LSTMSequence (gate reordering, Transposes, ShapeOf of the dynamic
    batch) are all checked; the outputs match the CPU plugin (on static shapes: with the
    converted model's dynamic shapes the CPU plugin ignores sequence_lengths, every item running
    all the steps, unlike its static-shape path and OpenVINO's reference)."""
    import irrun
    from tests.helpers.openvino_oracle import save

    model, feed = onnx_recurrent_model(tmp_path, "LSTM", 4, 5, 3, 4, 6)
    loaded = irrun.load(save(model, tmp_path))
    report = loaded.validate()
    assert report.ok and report.layers_trusted == 0, report.to_text()
    assert loaded.count_by_type()["LSTMSequence opset5"] == 1
    got = loaded.run(feed)
    # compared with the model reshaped to the fed shapes: with dynamic shapes the CPU plugin
    # ignores sequence_lengths in this converted graph (every item runs all steps)
    static = model.clone()
    static.reshape({name: list(value.shape) for name, value in feed.items()})
    for name, expected in zip(got, run_openvino(static, feed)):
        np.testing.assert_allclose(got[name], expected, **tolerance(5))


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
    shapes = _shapes(2, 4, 5, 3, 1)
    model = _model(shapes, 3, "forward")

    def edit(text):
        start = text.index('type="LSTMSequence"')
        end = text.index("</layer>", start)
        assert old in text[start:end]
        return text[:start] + text[start:end].replace(old, new, 1) + text[end:]

    report, text = edited_report(model, edit)
    found = diagnostic(report.errors, code)
    assert fragment in found.message, found.message
    start = text.index('type="LSTMSequence"')
    offset = text.index(needle, start)
    assert found.line == text.count("\n", 0, offset) + 1
