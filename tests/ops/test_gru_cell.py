"""GRUCell-3: shapes and types against OpenVINO (accepted and refused inputs), kernel against
the CPU plugin (linear_before_reset, activations, clip), reported errors."""

from __future__ import annotations

import numpy as np
import openvino.opset3 as opset3
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irrun.errors import IRError
from irrun.ops.gru_cell import GRUCell
from tests.helpers import recurrent
from tests.helpers.openvino_oracle import check_shapes, model_of, parameter
from tests.helpers.strategies import bare_op, op_settings

NAMES = ("x", "h", "w", "r", "b")
#: Mostly one element type; now and then another (refused) or dynamic (merged).
OTHER_TYPES = ("f16", "dynamic")


@st.composite
def _inputs(draw):
    """Shapes around ``[b, i]``, ``[b, h]``, ``[3h, i]``, ``[3h, h]``, ``[3h or 4h]``, a size
    now and then replaced by another, with element types and linear_before_reset."""
    b, i, h = (draw(st.integers(1, 4)) for _ in range(3))
    linear = draw(st.booleans())
    sizes = recurrent.gate_shapes(b, i, h, 3, bias_gates=4 if linear else 3)
    shapes = recurrent.shapes_around(draw, sizes.values(), replaced=16, wrong_rank=30, largest=13)
    return shapes, recurrent.mostly_f32(draw, len(sizes), OTHER_TYPES), linear


@op_settings(40)
@given(_inputs())
def test_gru_cell_shapes_match_openvino(drawn):
    shapes, types, linear = drawn
    attributes = {"hidden_size": "3", "linear_before_reset": str(linear).lower()}
    recurrent.check_infer_as_openvino(GRUCell, attributes, lambda *inputs: opset3.gru_cell(
        *inputs, 3, ["sigmoid", "tanh"], [], [], 0.0, linear), shapes, types, NAMES)  # fmt: skip


def test_w_of_another_type_is_accepted_as_openvino_does():
    """OpenVINO merges the types of X, H, R and B, not W's."""
    x, h = parameter([2, 3]), parameter([2, 4])
    w, r, b = parameter([12, 3], "f16"), parameter([12, 4]), parameter([12])
    check_shapes(opset3.gru_cell(x, h, w, r, b, 4))


@pytest.mark.parametrize("linear", [False, True])
@pytest.mark.parametrize(
    "activations, clip",
    [(["sigmoid", "tanh"], 0.0), (["relu", "sigmoid"], 0.0), (["tanh", "relu"], 0.0),
     (["sigmoid", "tanh"], 0.6)],
)  # fmt: skip
@pytest.mark.parametrize("batch, inputs, hidden, seed", [(3, 4, 5, 0), (1, 6, 2, 1)])
def test_gru_cell_matches_cpu_plugin(linear, activations, clip, batch, inputs, hidden, seed):
    shapes = recurrent.gate_shapes(batch, inputs, hidden, 3, bias_gates=4 if linear else 3)
    model = recurrent.built_model(
        shapes, lambda *inputs: opset3.gru_cell(*inputs, hidden, activations, [], [], clip, linear)
    )
    (_,) = recurrent.matches_cpu_plugin(model, recurrent.random_feed(shapes, seed, scale=2.0), 1)


def test_gru_cell_follows_the_equations():
    """Hidden size 1, batch 1, both forms of the candidate gate computed by hand."""
    x, h = np.array([[1.0]]), np.array([[0.5]])
    w, r = np.array([[0.1], [0.2], [0.3]]), np.array([[1.0], [-1.0], [0.5]])
    b = np.array([0.0, 0.1, 0.2, 0.4])

    def sig(v):
        return 1 / (1 + np.exp(-v))

    z = sig(0.1 + 0.5 * 1.0 + 0.0)
    reset = sig(0.2 - 0.5 + 0.1)
    for linear, candidate in ((False, np.tanh(0.3 + (reset * 0.5) * 0.5 + 0.2)),
                              (True, np.tanh(0.3 + reset * (0.5 * 0.5 + 0.4) + 0.2))):  # fmt: skip
        op = bare_op(GRUCell, {"hidden_size": "1", "linear_before_reset": str(linear).lower()})
        (got,) = op.evaluate([x, h, w, r, b if linear else b[:3]])
        np.testing.assert_allclose(got, [[(1 - z) * candidate + z * 0.5]], rtol=1e-12)


def test_mismatched_bias_is_reported():
    op = bare_op(GRUCell, {"hidden_size": "4", "linear_before_reset": "true"})
    infos = [recurrent.tensor_info(s, "f32") for s in ("2,3", "2,4", "12,3", "12,4", "12")]
    with pytest.raises(IRError, match=r"B \[12\] must have 4 \* hidden size = 4 \* 4 = 16"):
        op.infer(infos)


def test_wrong_activation_count_is_reported():
    with pytest.raises(IRError, match="GRUCell-3 needs 2, but 1 are given"):
        bare_op(GRUCell, {"hidden_size": "4", "activations": "tanh"})


@pytest.mark.parametrize(
    "old, new, code, fragment, needle",
    [
        ('linear_before_reset="false"', 'linear_before_reset="true"', "input-dims",
         "B [12] must have 4 * hidden size = 4 * 4 = 16 in dim 0, but it has 12", '<port id="4"'),
        ('activations="sigmoid, tanh"', 'activations="sigmoid"', "attribute-value",
         "GRUCell-3 needs 2, but 1 are given", "<data"),
    ],
)  # fmt: skip
def test_gru_cell_errors_are_reported_at_their_line(old, new, code, fragment, needle):
    x, h = parameter([2, 3], name="x"), parameter([2, 4], name="h")
    w, r, b = parameter([12, 3], name="w"), parameter([12, 4], name="r"), parameter([12], name="b")
    model = model_of(opset3.gru_cell(x, h, w, r, b, 4))
    recurrent.check_error_at_line(model, "GRUCell", old, new, code, fragment, needle)
