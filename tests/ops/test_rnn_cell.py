"""RNNCell: shapes and types against OpenVINO (accepted and refused inputs), kernel against
the CPU plugin (activations, clip) and, for hardsigmoid, against its formula; reported
errors."""

from __future__ import annotations

import numpy as np
import openvino.opset3 as opset3
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irrun.element_types import element_type
from irrun.errors import IRError
from irrun.ops._recurrent import divided_dim, tolerance
from irrun.ops.base import TensorInfo
from irrun.ops.rnn_cell import RNNCell
from irrun.shape import Dim, Shape
from tests.helpers.openvino_oracle import check_shapes, model_of, parameter, run_irrun, run_openvino
from tests.helpers.strategies import bare_op, op_settings, shape_around

NAMES = ("x", "h", "w", "r", "b")
#: Mostly one element type; now and then another (refused) or dynamic (merged).
OTHER_TYPES = ("f64", "dynamic")


def _types(draw, count: int) -> list[str]:
    """One element type for all inputs, one in ten of them drawn among ``OTHER_TYPES``."""
    drawn = [draw(st.sampled_from(["f32"] * 9 + ["other"])) for _ in range(count)]
    return [t if t == "f32" else draw(st.sampled_from(OTHER_TYPES)) for t in drawn]


def _info(text: str, etype: str) -> TensorInfo:
    return TensorInfo(Shape.parse(text.strip("[]")), element_type(etype))


@st.composite
def _inputs(draw):
    b, i, h = (draw(st.integers(1, 4)) for _ in range(3))

    def size(value):
        return value if draw(st.integers(0, 15)) else draw(st.integers(1, 9))

    sizes = [[b, i], [b, h], [h, i], [h, h], [h]]
    shapes = []
    for one in sizes:
        if not draw(st.integers(0, 29)):
            one = one + [2]  # a wrong rank
        shapes.append(draw(shape_around([size(d) for d in one])))
    return shapes, _types(draw, len(sizes))


@op_settings(40)
@given(_inputs())
def test_rnn_cell_shapes_match_openvino(drawn):
    shapes, types = drawn
    params = [parameter(s, t, name=n) for s, t, n in zip(shapes, types, NAMES)]
    op = bare_op(RNNCell, {"hidden_size": "3"})
    infos = [_info(s, t) for s, t in zip(shapes, types)]
    try:
        node = opset3.rnn_cell(*params, 3, ["tanh"], [], [], 0.0)
    except RuntimeError:
        with pytest.raises(IRError):
            op.infer(infos)
        return
    (output,) = op.infer(infos)
    expected = node.output(0)
    assert str(output.shape) == str(expected.get_partial_shape())
    assert output.element_type.name == expected.get_element_type().get_type_name()
    check_shapes(node)


def test_dimension_division_is_openvinos():
    """``Dimension / 4``: ceil of the lower and floor of the upper bound (in double), an
    unbounded one from 2**63 - 1; empty when nothing divides."""
    assert divided_dim(Dim(12), 4) == Dim(3)
    assert divided_dim(Dim(13), 4) is None
    assert divided_dim(Dim(5, 13), 4) == Dim(2, 3)
    assert divided_dim(Dim(5, None), 4) == Dim(2, 2**61)
    assert divided_dim(Dim.dynamic(), 4) is Dim.dynamic()


def _feed(shapes, seed):
    rng = np.random.default_rng(seed)
    return {n: (2 * rng.standard_normal(s)).astype(np.float32) for n, s in shapes.items()}


def _shapes(batch, inputs, hidden):
    return {"x": [batch, inputs], "h": [batch, hidden], "w": [hidden, inputs],
            "r": [hidden, hidden], "b": [hidden]}  # fmt: skip


@pytest.mark.parametrize("activation", ["tanh", "sigmoid", "relu"])
@pytest.mark.parametrize("clip", [0.0, 0.8])
@pytest.mark.parametrize("batch, inputs, hidden, seed", [(3, 4, 5, 0), (2, 1, 7, 1)])
def test_rnn_cell_matches_cpu_plugin(activation, clip, batch, inputs, hidden, seed):
    shapes = _shapes(batch, inputs, hidden)
    params = [parameter(s, name=n) for n, s in shapes.items()]
    model = model_of(opset3.rnn_cell(*params, hidden, [activation], [], [], clip))
    feed = _feed(shapes, seed)
    (got,), (expected,) = run_irrun(model, feed), run_openvino(model, feed)
    np.testing.assert_allclose(got, expected, **tolerance(1))


@pytest.mark.parametrize("alpha, beta, expected_alpha, expected_beta",
                         [("0.3", "0.4", 0.3, 0.4), ("", "", 0.2, 0.5)])  # fmt: skip
def test_hardsigmoid_is_openvinos_definition(alpha, beta, expected_alpha, expected_beta):
    """OpenVINO's CPU plugin and reference cannot run hardsigmoid ("Unsupported activation
    function"); irrun computes its core definition, ``max(0, min(1, alpha * x + beta))`` with
    default alpha 0.2 and beta 0.5."""
    op = bare_op(RNNCell, {"hidden_size": "5", "activations": "HardSigmoid",
                           "activations_alpha": alpha, "activations_beta": beta})  # fmt: skip
    feed = _feed(_shapes(3, 4, 5), 2)
    (got,) = op.evaluate([feed[n] for n in NAMES])
    pre = feed["x"] @ feed["w"].T + feed["h"] @ feed["r"].T + feed["b"]
    np.testing.assert_allclose(got, np.clip(expected_alpha * pre + expected_beta, 0, 1), rtol=1e-6)


def test_hidden_size_that_w_does_not_divide_is_reported():
    op = bare_op(RNNCell, {"hidden_size": "4"})
    infos = [_info(s, "f32") for s in ("2,3", "...", "4,3", "5,?", "...")]
    with pytest.raises(IRError, match=r"hidden size does not match: R \[5,\?\] has 5 in dim 0"):
        op.infer(infos)


def test_mixed_element_types_are_reported():
    op = bare_op(RNNCell, {"hidden_size": "4"})
    infos = [_info("2,3", "f32"), _info("2,4", "f32"), _info("4,3", "f64"), _info("4,4", "f32"),
             _info("4", "f32")]  # fmt: skip
    with pytest.raises(IRError, match=r"W \(input 2\) is f64 but X \(input 0\) is f32"):
        op.infer(infos)
