"""RNNCell: shapes and types against OpenVINO (accepted and refused inputs), kernel against
the CPU plugin (activations, clip) and, for hardsigmoid, against its formula; reported
errors."""

from __future__ import annotations

import numpy as np
import openvino.opset3 as opset3
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irrun.errors import IRError
from irrun.ops._recurrent import divided_dim
from irrun.ops.rnn_cell import RNNCell
from irrun.shape import Dim
from tests.helpers import recurrent
from tests.helpers.strategies import bare_op, op_settings

NAMES = ("x", "h", "w", "r", "b")
#: Mostly one element type; now and then another (refused) or dynamic (merged).
OTHER_TYPES = ("f64", "dynamic")


@st.composite
def _inputs(draw):
    b, i, h = (draw(st.integers(1, 4)) for _ in range(3))
    sizes = recurrent.gate_shapes(b, i, h, 1)
    shapes = recurrent.shapes_around(draw, sizes.values(), replaced=16, wrong_rank=30, largest=9)
    return shapes, recurrent.mostly_f32(draw, len(sizes), OTHER_TYPES)


@op_settings(40)
@given(_inputs())
def test_rnn_cell_shapes_match_openvino(drawn):
    shapes, types = drawn
    recurrent.check_infer_as_openvino(
        RNNCell, {"hidden_size": "3"},
        lambda *inputs: opset3.rnn_cell(*inputs, 3, ["tanh"], [], [], 0.0), shapes, types, NAMES,
    )  # fmt: skip


def test_dimension_division_is_openvinos():
    """``Dimension / 4``: ceil of the lower and floor of the upper bound (in double), an
    unbounded one from 2**63 - 1; empty when nothing divides."""
    assert divided_dim(Dim(12), 4) == Dim(3)
    assert divided_dim(Dim(13), 4) is None
    assert divided_dim(Dim(5, 13), 4) == Dim(2, 3)
    assert divided_dim(Dim(5, None), 4) == Dim(2, 2**61)
    assert divided_dim(Dim.dynamic(), 4) is Dim.dynamic()


@pytest.mark.parametrize("activation", ["tanh", "sigmoid", "relu"])
@pytest.mark.parametrize("clip", [0.0, 0.8])
@pytest.mark.parametrize("batch, inputs, hidden, seed", [(3, 4, 5, 0), (2, 1, 7, 1)])
def test_rnn_cell_matches_cpu_plugin(activation, clip, batch, inputs, hidden, seed):
    shapes = recurrent.gate_shapes(batch, inputs, hidden, 1)
    model = recurrent.built_model(
        shapes, lambda *inputs: opset3.rnn_cell(*inputs, hidden, [activation], [], [], clip)
    )
    (_,) = recurrent.matches_cpu_plugin(model, recurrent.random_feed(shapes, seed, scale=2.0), 1)


@pytest.mark.parametrize("alpha, beta, expected_alpha, expected_beta",
                         [("0.3", "0.4", 0.3, 0.4), ("", "", 0.2, 0.5)])  # fmt: skip
def test_hardsigmoid_is_openvinos_definition(alpha, beta, expected_alpha, expected_beta):
    """OpenVINO's CPU plugin and reference cannot run hardsigmoid ("Unsupported activation
    function"); irrun computes its core definition, ``max(0, min(1, alpha * x + beta))`` with
    default alpha 0.2 and beta 0.5."""
    op = bare_op(RNNCell, {"hidden_size": "5", "activations": "HardSigmoid",
                           "activations_alpha": alpha, "activations_beta": beta})  # fmt: skip
    feed = recurrent.random_feed(recurrent.gate_shapes(3, 4, 5, 1), 2, scale=2.0)
    (got,) = op.evaluate([feed[n] for n in NAMES])
    pre = feed["x"] @ feed["w"].T + feed["h"] @ feed["r"].T + feed["b"]
    np.testing.assert_allclose(got, np.clip(expected_alpha * pre + expected_beta, 0, 1), rtol=1e-6)


def test_hidden_size_that_w_does_not_divide_is_reported():
    op = bare_op(RNNCell, {"hidden_size": "4"})
    infos = [recurrent.tensor_info(s, "f32") for s in ("2,3", "...", "4,3", "5,?", "...")]
    with pytest.raises(IRError, match=r"hidden size does not match: R \[5,\?\] has 5 in dim 0"):
        op.infer(infos)


def test_mixed_element_types_are_reported():
    op = bare_op(RNNCell, {"hidden_size": "4"})
    infos = [
        recurrent.tensor_info(s, t)
        for s, t in (("2,3", "f32"), ("2,4", "f32"), ("4,3", "f64"), ("4,4", "f32"), ("4", "f32"))
    ]
    with pytest.raises(IRError, match=r"W \(input 2\) is f64 but X \(input 0\) is f32"):
        op.infer(infos)
