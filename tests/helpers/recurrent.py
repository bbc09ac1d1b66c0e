"""What the tests of the recurrent ops share (LSTMCell, GRUCell, RNNCell and their Sequence
forms, ``tests/ops/test_{lstm,gru,rnn}_{cell,sequence}.py``).

The inputs are named ``x`` (X), ``h`` (initial_hidden_state), ``c`` (initial_cell_state, LSTM
only), ``l`` (sequence_lengths, Sequences only), ``w``, ``r`` and ``b``, in that port order.

- Drawing inputs: :func:`mostly_f32` (element types), :func:`shapes_around` (partial shapes
  around the sizes of a case, a size or a rank now and then wrong), :func:`sequence_inputs`
  (both, for a Sequence op), :func:`tensor_info`.
- Shapes against OpenVINO: :func:`check_infer_as_openvino` (irrun refuses what OpenVINO
  refuses, and infers its outputs otherwise).
- Values against the CPU plugin: :func:`gate_shapes` (the input shapes of a case),
  :func:`built_model`, :func:`random_feed`, :func:`matches_cpu_plugin`, :func:`onnx_model`
  and :func:`check_onnx` (an ONNX LSTM, GRU or RNN as OpenVINO's frontend converts it).
- Errors: :func:`check_error_at_line` (an edited attribute or port reported at its line).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pytest
from hypothesis import strategies as st

from irrun.element_types import element_type
from irrun.errors import IRError
from irrun.ops._recurrent import tolerance
from irrun.ops.base import TensorInfo
from irrun.shape import Shape
from tests.helpers.openvino_oracle import check_shapes, model_of, parameter, run_irrun, run_openvino
from tests.helpers.strategies import bare_op, diagnostic, edited_report, shape_around

__all__ = [
    "DIRECTIONS",
    "mostly_f32",
    "sequence_inputs",
    "shapes_around",
    "tensor_info",
    "check_infer_as_openvino",
    "gate_shapes",
    "built_model",
    "random_feed",
    "matches_cpu_plugin",
    "onnx_model",
    "check_onnx",
    "check_error_at_line",
]

#: The directions of a Sequence op.
DIRECTIONS = ("forward", "reverse", "bidirectional")


# -- drawing inputs -----------------------------------------------------------------------------
def mostly_f32(draw, count: int, others: Sequence[str]) -> list[str]:
    """One element type for all ``count`` inputs (f32), one in ten of them drawn among
    ``others`` (a type OpenVINO refuses, or ``dynamic``, which it merges)."""
    drawn = [draw(st.sampled_from(["f32"] * 9 + ["other"])) for _ in range(count)]
    return [t if t == "f32" else draw(st.sampled_from(others)) for t in drawn]


def shapes_around(draw, sizes: Sequence[Sequence[int]], *, replaced: int, wrong_rank: int,
                  largest: int) -> list[str]:  # fmt: skip
    """A partial shape around each list of ``sizes`` (:func:`shape_around`): one size in
    ``replaced`` drawn anew (1 to ``largest``), and one shape in ``wrong_rank`` given an extra
    dim of 2."""

    def size(value):
        return value if draw(st.integers(0, replaced - 1)) else draw(st.integers(1, largest))

    shapes = []
    for one in sizes:
        if not draw(st.integers(0, wrong_rank - 1)):
            one = [*one, 2]
        shapes.append(draw(shape_around([size(n) for n in one])))
    return shapes


@st.composite
def sequence_inputs(draw, gates: int, others: Sequence[str], *, largest: int,
                    cell_state: bool = False, linear: bool = False):  # fmt: skip
    """``(shapes, types, direction, linear_before_reset)`` for the inputs of a Sequence op of
    ``gates`` gates (LSTM with ``cell_state``; GRU with ``linear``, which draws
    linear_before_reset, else False): batch, steps, input and hidden sizes from 1 to 4, a
    direction, shapes around them (:func:`shapes_around`: one size in 10 drawn anew up to
    ``largest``, one rank in 25 wrong), :func:`mostly_f32` types with ``others``, and i32 or
    i64 sequence lengths."""
    b, t, i, h = (draw(st.integers(1, 4)) for _ in range(4))
    direction = draw(st.sampled_from(DIRECTIONS))
    linear_before_reset = draw(st.booleans()) if linear else False
    d = 2 if direction == "bidirectional" else 1
    sizes = gate_shapes(b, i, h, gates, steps=t, directions=d, cell_state=cell_state,
                        bias_gates=4 if linear_before_reset else None, lengths=True)  # fmt: skip
    shapes = shapes_around(draw, sizes.values(), replaced=10, wrong_rank=25, largest=largest)
    types = mostly_f32(draw, len(sizes), others)
    types[list(sizes).index("l")] = draw(st.sampled_from(["i32", "i64"]))
    return shapes, types, direction, linear_before_reset


def tensor_info(text: str, etype: str) -> TensorInfo:
    """An input of shape ``text`` (``"2,?"`` or ``"[2,?]"``) and element type ``etype``."""
    return TensorInfo(Shape.parse(text.strip("[]")), element_type(etype))


# -- shapes against OpenVINO --------------------------------------------------------------------
def check_infer_as_openvino(op_class, attributes: dict, build: Callable, shapes, types, names,
                            *, saved: bool = True) -> None:  # fmt: skip
    """irrun's ``infer`` of an ``op_class`` op with ``attributes``, on inputs of ``shapes``
    and ``types``, refuses them (``IRError``) when OpenVINO's ``build(*parameters)`` does
    (``RuntimeError``; the Parameters are named ``names``), and otherwise gives the partial
    shapes and element types of every output of the node built; with ``saved``, the node
    saved as IR is checked by irrun too (:func:`check_shapes`)."""
    params = [parameter(s, t, name=n) for s, t, n in zip(shapes, types, names)]
    op = bare_op(op_class, attributes)
    infos = [tensor_info(s, t) for s, t in zip(shapes, types)]
    try:
        node = build(*params)
    except RuntimeError:
        with pytest.raises(IRError):
            op.infer(infos)
        return
    outputs = op.infer(infos)
    expected = [(str(o.get_partial_shape()), o.get_element_type().get_type_name())
                for o in node.outputs()]  # fmt: skip
    assert [(str(o.shape), o.element_type.name) for o in outputs] == expected
    if saved:
        check_shapes(node)


# -- values against the CPU plugin --------------------------------------------------------------
def gate_shapes(batch: int, inputs: int, hidden: int, gates: int, *, steps: int | None = None,
                directions: int = 1, cell_state: bool = False, bias_gates: int | None = None,
                lengths: bool = False) -> dict[str, list[int]]:  # fmt: skip
    """The input shapes of a recurrent op of ``gates`` gates (LSTM 4, GRU 3, RNN 1) by name:
    X ``[batch, inputs]``, H (and with ``cell_state`` C) ``[batch, hidden]``, W
    ``[gates * hidden, inputs]``, R ``[gates * hidden, hidden]`` and B ``[bias_gates * hidden]``
    (``bias_gates`` defaults to ``gates``; GRU's linear_before_reset has 4). With ``steps``
    (a Sequence) X is ``[batch, steps, inputs]``, the states ``[batch, directions, hidden]``,
    the weights and bias have a first dim of ``directions``, and with ``lengths`` the
    sequence lengths ``l`` ``[batch]`` come before W."""
    state = [batch, hidden] if steps is None else [batch, directions, hidden]
    per_direction = [] if steps is None else [directions]
    shapes = {"x": [batch, inputs] if steps is None else [batch, steps, inputs], "h": state}
    if cell_state:
        shapes["c"] = list(state)
    if lengths:
        shapes["l"] = [batch]
    shapes["w"] = [*per_direction, gates * hidden, inputs]
    shapes["r"] = [*per_direction, gates * hidden, hidden]
    shapes["b"] = [*per_direction, (gates if bias_gates is None else bias_gates) * hidden]
    return shapes


def built_model(shapes: dict, build: Callable, lengths_type: str | None = None):
    """``model_of(build(*inputs))``: f32 Parameters named and shaped by ``shapes`` (in port
    order) and, with ``lengths_type``, the sequence lengths ``l`` ``[batch]`` of that type
    before W (a Sequence's port 2 or 3)."""
    params = {}
    for name, shape in shapes.items():
        if name == "w" and lengths_type is not None:
            params["l"] = parameter([shapes["x"][0]], lengths_type, name="l")
        params[name] = parameter(shape, name=name)
    return model_of(build(*params.values()))


def random_feed(shapes: dict, seed: int, *, scale: float = 1.0, lengths=None) -> dict:
    """Normal f32 values times ``scale`` for each of ``shapes`` (drawn in their order from
    ``numpy.random.default_rng(seed)``), and ``lengths`` (an array) as ``l`` when given."""
    rng = np.random.default_rng(seed)
    feed = {n: (scale * rng.standard_normal(s)).astype(np.float32) for n, s in shapes.items()}
    if lengths is not None:
        feed["l"] = lengths
    return feed


def matches_cpu_plugin(model, feed: dict, steps: int) -> list[np.ndarray]:
    """irrun's outputs of ``model`` on ``feed``, asserted to be as many as the CPU plugin's
    and within the recurrent ops' documented tolerance after ``steps`` time steps of them;
    returned for further checks."""
    got, expected = run_irrun(model, feed), run_openvino(model, feed)
    assert len(got) == len(expected)
    for one, reference in zip(got, expected):
        np.testing.assert_allclose(one, reference, **tolerance(steps))
    return got


def onnx_model(folder, op, gates, steps, batch, inputs, hidden, **attributes):
    """An ONNX model of one bidirectional ``op`` (LSTM, GRU or RNN) with random weights, a
    dynamic sequence length and batch, and sequence lengths, read by OpenVINO's ONNX frontend
    (which emits the Sequence op between Transposes, Splits and Concats); and a feed of it."""
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


def check_onnx(folder, op, gates, steps, batch, inputs, hidden, **attributes) -> None:
    """The model of :func:`onnx_model` is checked by irrun with every layer around
    its one ``{op}Sequence`` (none trusted), and its outputs match the CPU plugin's after
    ``steps`` steps (on the model reshaped to the fed shapes: with the converted model's
    dynamic shapes the CPU plugin ignores sequence_lengths, every item running all the steps,
    unlike its static-shape path and OpenVINO's reference)."""
    import irrun
    from tests.helpers.openvino_oracle import save

    model, feed = onnx_model(folder, op, gates, steps, batch, inputs, hidden,
                                       **attributes)  # fmt: skip
    loaded = irrun.load(save(model, folder))
    report = loaded.validate()
    assert report.ok and report.layers_trusted == 0, report.to_text()
    assert loaded.count_by_type()[f"{op}Sequence opset5"] == 1
    got = loaded.run(feed)
    static = model.clone()
    static.reshape({name: list(value.shape) for name, value in feed.items()})
    expected = run_openvino(static, feed)
    assert len(got) == len(expected)
    for name, reference in zip(got, expected):
        np.testing.assert_allclose(got[name], reference, **tolerance(steps))


# -- errors -------------------------------------------------------------------------------------
def check_error_at_line(model, layer_type: str, old: str, new: str, code: str, fragment: str,
                        needle: str) -> None:  # fmt: skip
    """``model`` saved with ``old`` replaced by ``new`` in its ``layer_type`` layer: irrun
    reports one ``code`` error whose message holds ``fragment``, at the line of the first
    ``needle`` of that layer."""
    marker = f'type="{layer_type}"'

    def edit(text):
        start = text.index(marker)
        end = text.index("</layer>", start)
        assert old in text[start:end]
        return text[:start] + text[start:end].replace(old, new, 1) + text[end:]

    report, text = edited_report(model, edit)
    found = diagnostic(report.errors, code)
    assert fragment in found.message, found.message
    offset = text.index(needle, text.index(marker))
    assert found.line == text.count("\n", 0, offset) + 1
