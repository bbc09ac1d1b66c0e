"""LSTMCell-1 and LSTMCell-4: shapes and types against OpenVINO (accepted and refused inputs),
kernel against the CPU plugin (activations, clip, peepholes), reported errors."""

from __future__ import annotations

import numpy as np
import openvino.opset1 as opset1
import openvino.opset4 as opset4
import pytest
from hypothesis import given
from hypothesis import strategies as st
from openvino.utils.node_factory import NodeFactory

from irrun.errors import IRError
from irrun.ops.lstm_cell import LSTMCell1, LSTMCell4
from tests.helpers import recurrent
from tests.helpers.ir_text import Net, dims, line_of
from tests.helpers.openvino_oracle import check_shapes, parameter
from tests.helpers.strategies import bare_op, diagnostic, op_settings, validated

NAMES = ("x", "h", "c", "w", "r", "b", "p")
#: Mostly one element type; now and then another (refused) or dynamic (merged).
OTHER_TYPES = ("f16", "dynamic")


def _shapes(batch, inputs, hidden, peepholes=False):
    """The inputs of an LSTMCell by name, and with ``peepholes`` LSTMCell-1's P ``[3h]``."""
    shapes = recurrent.gate_shapes(batch, inputs, hidden, 4, cell_state=True)
    if peepholes:
        shapes["p"] = [3 * hidden]
    return shapes


@st.composite
def _inputs(draw, peepholes: bool):
    """Shapes around ``[b, i]``, ``[b, h]`` twice, ``[4h, i]``, ``[4h, h]``, ``[4h]`` (and P
    ``[3h]``), each size now and then replaced by another, with element types."""
    b, i, h = (draw(st.integers(1, 4)) for _ in range(3))
    sizes = _shapes(b, i, h, peepholes)
    shapes = recurrent.shapes_around(draw, sizes.values(), replaced=16, wrong_rank=30, largest=13)
    types = recurrent.mostly_f32(draw, len(sizes), OTHER_TYPES)
    return shapes, types, draw(st.sampled_from([h, h, 1, 7]))


def _built(build):
    """``build()``, or the ``RuntimeError`` with which OpenVINO refused to build it."""
    try:
        return build()
    except RuntimeError as exc:
        return exc


@op_settings(40)
@given(_inputs(peepholes=False))
def test_lstm_cell_4_shapes_match_openvino(drawn):
    shapes, types, hidden = drawn
    recurrent.check_infer_as_openvino(LSTMCell4, {"hidden_size": str(hidden)},
                                      lambda *inputs: opset4.lstm_cell(*inputs, hidden), shapes,
                                      types, NAMES)  # fmt: skip


@op_settings(30)
@given(_inputs(peepholes=True))
def test_lstm_cell_1_shapes_match_openvino(drawn):
    """With peepholes (built by OpenVINO's node factory: the Python constructor has no P), so
    compared through ``infer`` (OpenVINO's serializer drops P)."""
    shapes, types, hidden = drawn
    attributes = {"hidden_size": hidden, "activations": ["sigmoid", "tanh", "tanh"],
                  "activations_alpha": [], "activations_beta": [], "clip": 0.0,
                  "input_forget": False, "weights_format": "fico"}  # fmt: skip
    recurrent.check_infer_as_openvino(LSTMCell1, {"hidden_size": str(hidden)}, lambda *inputs: (
        NodeFactory("opset1").create("LSTMCell", [p.output(0) for p in inputs], attributes)),
        shapes, types, NAMES, saved=False)  # fmt: skip


def test_hidden_size_falls_back_on_the_attribute():
    """Nothing fixes the hidden size: the attribute does, even against an interval."""
    x, h, c = parameter([2, 3]), parameter([2, "2..9"]), parameter("[2,?]")
    w, r, b = parameter("[?,3]"), parameter("[?,2..9]"), parameter("[?]")
    node = opset4.lstm_cell(x, h, c, w, r, b, 5)
    assert str(node.output(0).get_partial_shape()) == "[2,5]"
    check_shapes(node)


def test_hidden_size_from_w_divided_by_the_gates():
    x, h, c = parameter([2, 3]), parameter("[...]"), parameter("[...]")
    w, r, b = parameter([12, 3]), parameter("[?,?]"), parameter("[?]")
    node = opset4.lstm_cell(x, h, c, w, r, b, 7)
    assert str(node.output(0).get_partial_shape()) == "[2,3]"
    check_shapes(node)


@pytest.mark.parametrize(
    "activations, clip",
    [(["sigmoid", "tanh", "tanh"], 0.0), (["relu", "sigmoid", "relu"], 0.0),
     (["tanh", "relu", "sigmoid"], 0.0), (["sigmoid", "tanh", "tanh"], 0.7)],
)  # fmt: skip
@pytest.mark.parametrize("batch, inputs, hidden, seed", [(3, 4, 5, 0), (1, 7, 2, 1), (4, 1, 6, 2)])
def test_lstm_cell_4_matches_cpu_plugin(activations, clip, batch, inputs, hidden, seed):
    shapes = _shapes(batch, inputs, hidden)
    model = recurrent.built_model(
        shapes, lambda *inputs: opset4.lstm_cell(*inputs, hidden, activations, [], [], clip)
    )
    recurrent.matches_cpu_plugin(model, recurrent.random_feed(shapes, seed, scale=2.0), 1)


@pytest.mark.parametrize("weights_format", ["fico", "ifco", "iofc"])
@pytest.mark.parametrize("input_forget", [False, True])
def test_lstm_cell_1_matches_cpu_plugin(weights_format, input_forget):
    """The CPU plugin reads fico, computes the input gate whatever weights_format and
    input_forget say and ignores the (random) P of the model it compiles; irrun reads the IR
    OpenVINO saves, which has no P."""
    shapes = _shapes(3, 4, 5, peepholes=True)
    attributes = {"hidden_size": 5, "activations": ["sigmoid", "tanh", "tanh"],
                  "activations_alpha": [], "activations_beta": [], "clip": 0.5,
                  "input_forget": input_forget, "weights_format": weights_format}  # fmt: skip
    model = recurrent.built_model(
        shapes,
        lambda *inputs: NodeFactory("opset1").create(
            "LSTMCell", [p.output(0) for p in inputs], attributes
        ),
    )
    recurrent.matches_cpu_plugin(model, recurrent.random_feed(shapes, 3), 1)


def test_lstm_cell_1_without_bias_and_peepholes_matches_cpu_plugin():
    """opset1's constructor adds a zero P, which OpenVINO's serializer leaves out."""
    shapes = _shapes(2, 3, 4)
    model = recurrent.built_model(shapes, lambda *inputs: opset1.lstm_cell(*inputs, 4))
    recurrent.matches_cpu_plugin(model, recurrent.random_feed(shapes, 4), 1)


def test_lstm_cell_1_defaults_b_to_zeros_and_ignores_p():
    op = bare_op(LSTMCell1, {"hidden_size": "2"})
    feed = recurrent.random_feed(_shapes(1, 2, 2, peepholes=True), 5)
    short = op.evaluate([feed[n] for n in "xhcwr"])
    full = op.evaluate([feed[n] for n in "xhcwr"] + [np.zeros(8, np.float32), feed["p"]])
    for a, b in zip(short, full):
        np.testing.assert_array_equal(a, b)


def test_lstm_cell_follows_the_equations():
    """One step computed by hand: f, i, c, o gates of a batch of one, hidden size 1."""
    op = bare_op(LSTMCell4, {"hidden_size": "1"})
    x, h, c = np.array([[1.0]]), np.array([[0.5]]), np.array([[2.0]])
    w = np.array([[0.1], [0.2], [0.3], [0.4]])
    r = np.array([[1.0], [-1.0], [0.5], [0.0]])
    b = np.array([0.0, 0.1, 0.2, 0.3])
    gates = w[:, 0] * 1.0 + r[:, 0] * 0.5 + b
    sig = 1 / (1 + np.exp(-gates))
    cell = sig[0] * 2.0 + sig[1] * np.tanh(gates[2])
    hidden, new_cell = op.evaluate([a.astype(np.float64) for a in (x, h, c, w, r, b)])
    np.testing.assert_allclose(new_cell, [[cell]], rtol=1e-12)
    np.testing.assert_allclose(hidden, [[sig[3] * np.tanh(cell)]], rtol=1e-12)


def test_integer_inputs_do_not_run():
    op = bare_op(LSTMCell4, {"hidden_size": "1"})
    with pytest.raises(NotImplementedError, match="floating-point inputs only"):
        op.evaluate([np.zeros(s, np.int32) for s in ([1, 1], [1, 1], [1, 1], [4, 1], [4, 1], [4])])


def _net(shapes, data, outputs=2, op_type="LSTMCell", version="opset4"):
    """An IR of Parameters of ``shapes`` (``"2,3"`` texts) feeding one recurrent layer with
    ``outputs`` outputs (dims [2,4]), each to a Result."""
    net = Net()
    refs = [net.param(name, shape) for name, shape in zip(NAMES, shapes)]
    layer = len(net.layers)
    text = [f'    <layer id="{layer}" name="cell" type="{op_type}" version="{version}">\n',
            "      <data " + " ".join(f'{k}="{v}"' for k, v in data.items()) + "/>\n",
            "      <input>\n"]  # fmt: skip
    for port, (src, src_port, in_dims, precision) in enumerate(refs):
        text.append(f'        <port id="{port}" precision="{precision}">{dims(in_dims)}</port>\n')
        net.edges.append((src, src_port, layer, port))
    text.append("      </input>\n      <output>\n")
    for k in range(outputs):
        text.append(f'        <port id="{len(refs) + k}" precision="FP32">{dims([2, 4])}</port>\n')
    text.append("      </output>\n    </layer>\n")
    net.layers.append("".join(text))
    for k in range(outputs):
        net.result((layer, len(refs) + k, [2, 4], "FP32"))
    return net


GOOD = ("2,3", "2,4", "2,4", "16,3", "16,4", "16")
DATA = {"hidden_size": "4", "activations": "sigmoid, tanh, tanh", "activations_alpha": "",
        "activations_beta": "", "clip": "0"}  # fmt: skip


@pytest.mark.parametrize(
    "change, data, code, fragment, needle",
    [
        ({4: "15,4"}, {}, "input-dims",
         "R [15,4] must have 4 * hidden size = 4 * 4 = 16 in dim 0, but it has 15", '<port id="4"'),
        ({1: "3,4"}, {}, "input-dims",
         "batch size does not match: initial_hidden_state [3,4] has 3 (dim 0), but it is 2 from X",
         '<port id="1"'),
        ({2: "2,5"}, {}, "input-dims",
         "hidden size does not match: initial_cell_state [2,5] has 5 (dim 1)", '<port id="2"'),
        ({5: "16,1"}, {}, "input-rank", "B (input 5) must have rank 1, but its shape is [16,1]",
         '<port id="5"'),
        ({}, {"activations": "sigmoid, tanh, swish"}, "attribute-value",
         "'swish' is not an activation OpenVINO knows", "<data"),
        ({}, {"activations": "sigmoid, tanh"}, "attribute-value",
         "LSTMCell-4 needs 3, but 2 are given", "<data"),
    ],
)  # fmt: skip
def test_lstm_cell_errors_are_reported(change, data, code, fragment, needle):
    shapes = [change.get(i, s) for i, s in enumerate(GOOD)]
    net = _net(shapes, {**DATA, **data})
    found = diagnostic(validated(net).errors, code)
    assert fragment in found.message, found.message
    assert found.line == line_of(net.text(), needle, within="cell")


def test_lstm_cell_1_peepholes_of_another_size_are_reported():
    shapes = [*GOOD, "11"]
    data = {**DATA, "weights_format": "fico", "input_forget": "false"}
    net = _net(shapes, data, version="opset1")
    found = diagnostic(validated(net).errors, "input-dims")
    assert (
        "P [11] must have 3 * hidden size elements: it has 11, not 3 * hidden size = 3 * 4 = 12"
        in (found.message)
    )
    assert found.line == line_of(net.text(), '<port id="6"', within="cell")


def test_lstm_cell_1_reads_six_inputs():
    """OpenVINO's own IR of an LSTMCell-1 (its serializer leaves P out): checked as OpenVINO
    infers it."""
    net = _net(GOOD, {**DATA, "weights_format": "fico", "input_forget": "false"},
               version="opset1")  # fmt: skip
    assert validated(net).ok
    x, h, c = parameter("[2,3]", name="x"), parameter("[?,4]", name="h"), parameter("[...]")
    w, r, b = parameter("[16,3]"), parameter("[16,1..8]"), parameter("[?]")
    check_shapes(opset1.lstm_cell(x, h, c, w, r, b, 4))


def test_mismatched_batch_is_reported():
    op = bare_op(LSTMCell4, {"hidden_size": "4"})
    infos = [recurrent.tensor_info(s, "f32") for s in ("2,3", "3,4", "2,4", "16,3", "16,4", "16")]
    with pytest.raises(IRError, match=r"batch size does not match: initial_hidden_state \[3,4\]"):
        op.infer(infos)


def test_mixed_element_types_are_reported():
    op = bare_op(LSTMCell4, {"hidden_size": "4"})
    infos = [recurrent.tensor_info(s, "f32") for s in ("2,3", "2,4", "2,4", "16,3", "16,4")]
    infos.append(recurrent.tensor_info("16", "f16"))
    with pytest.raises(IRError, match=r"B \(input 5\) is f16 but X \(input 0\) is f32"):
        op.infer(infos)


@pytest.mark.parametrize("hidden_size", [5, 4])
def test_lstm_cell_1_checks_the_peepholes_openvino_adds(hidden_size):
    """Without B and P OpenVINO adds zeros of the ``hidden_size`` attribute's sizes, so an
    attribute that contradicts the hidden size the inputs give is refused (through P)."""
    shapes = ("[2,3]", "[2,?]", "[...]", "[20,3]", "[?,?]")
    params = [parameter(s, name=n) for s, n in zip(shapes, NAMES)]
    attributes = {"hidden_size": hidden_size, "activations": ["sigmoid", "tanh", "tanh"],
                  "activations_alpha": [], "activations_beta": [], "clip": 0.0,
                  "input_forget": False, "weights_format": "fico"}  # fmt: skip
    node = _built(lambda: NodeFactory("opset1").create("LSTMCell", [p.output(0) for p in params],
                                                       attributes))  # fmt: skip
    op = bare_op(LSTMCell1, {"hidden_size": str(hidden_size)})
    if hidden_size == 4:
        assert isinstance(node, RuntimeError)
        with pytest.raises(IRError, match=r"P \[12\] must have 3 \* hidden size elements: it has "
                                          r"12, not 3 \* hidden size = 3 \* 5 = 15 \(P is left "
                                          r"out: OpenVINO adds zeros"):  # fmt: skip
            op.infer([recurrent.tensor_info(s, "f32") for s in shapes])
        return
    outputs = op.infer([recurrent.tensor_info(s, "f32") for s in shapes])
    assert [str(o.shape) for o in outputs] == [str(o.get_partial_shape()) for o in node.outputs()]
