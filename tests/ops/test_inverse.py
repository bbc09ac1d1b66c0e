"""Inverse-14: shapes against OpenVINO, values against the CPU plugin in f32 (well-conditioned
matrices, the module's tolerance), reported errors."""

from __future__ import annotations

import numpy as np
import openvino.opset14 as opset14
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irrun.element_types import element_type
from irrun.errors import IRError
from irrun.ops.base import TensorInfo
from irrun.ops.inverse import Inverse
from irrun.shape import Shape
from tests.helpers.openvino_oracle import (
    check_rejected,
    check_shapes,
    model_of,
    parameter,
    run_irrun,
    run_openvino,
)
from tests.helpers.strategies import bare_op, built, dim_text, op_settings, shape_text

TOL = {"rtol": 1e-4, "atol": 1e-5}


@op_settings(30)
@given(shape_text(dim_text(st.integers(0, 4)), max_rank=4), st.booleans(),
       st.sampled_from(["f32", "f16", "f64"]))  # fmt: skip
def test_inverse_shapes_match_openvino(shape, adjoint, etype):
    check_shapes(built(lambda: opset14.inverse(parameter(shape, etype), adjoint)))


def _matrices(shape, seed=0):
    rng = np.random.default_rng(seed)
    n = shape[-1]
    return (rng.uniform(-1, 1, shape) + 4 * np.eye(n)).astype(np.float32)


@pytest.mark.parametrize("adjoint", [False, True])
@pytest.mark.parametrize("shape", [[1, 1], [3, 3], [2, 4, 4], [2, 3, 5, 5]])
def test_inverse_matches_cpu_plugin(shape, adjoint):
    data = _matrices(shape)
    model = model_of(opset14.inverse(parameter(shape, name="x"), adjoint))
    expected = run_openvino(model, {"x": data})[0]
    got = run_irrun(model, {"x": data})[0]
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_allclose(got, expected, **TOL)


def test_inverse_errors_are_reported():
    check_rejected(lambda: opset14.inverse(parameter([2, 3, 4]), False))
    check_rejected(lambda: opset14.inverse(parameter([3]), False))
    check_rejected(lambda: opset14.inverse(parameter([3, 3], "i32"), False))
    op = bare_op(Inverse)
    with pytest.raises(IRError, match=r"must be square, but data \[2,3,4\] has 3 rows and 4 col"):
        op.infer([TensorInfo(Shape([2, 3, 4]), element_type("f32"))])
    with pytest.raises(IRError, match=r"data must have rank >= 2 \(matrices\), but its shape"):
        op.infer([TensorInfo(Shape([3]), element_type("f32"))])
    with pytest.raises(IRError, match="data must be a floating-point tensor, but it is i32"):
        op.infer([TensorInfo(Shape([3, 3]), element_type("i32"))])
    model = model_of(opset14.inverse(parameter([2, 2], name="x"), False))
    with pytest.raises(Exception, match=r"a matrix of data \[2, 2\] is singular"):
        run_irrun(model, {"x": np.ones((2, 2), np.float32)})
