"""Inverse-14: the inverse of each square matrix of a batch.

Spec facts: input data ``[..., n, n]`` (rank >= 2, a floating-point type); attribute
``adjoint`` (default false: when true, the inverse of the matrix's conjugate transpose, for
real matrices the transpose of the inverse). The output has the data's shape and type.

Shape rule (``inverse_shape_inference.hpp``): the output is the data's shape as it is (the two
last dims are not merged: ``[2,?,3]`` stays so); OpenVINO refuses a rank below 2, an integer
or boolean type and two last dims that are static and differ (only then: ``[3,1..2]`` is
accepted as it is).

Kernel: ``numpy.linalg.inv`` in float64 over the batch, cast back; a singular matrix is an
error when run (OpenVINO's reference gives inf/NaN there). Tolerance against the CPU plugin in
f32: ``rtol=1e-4, atol=1e-5`` for well-conditioned matrices (condition number below 100).
"""

from __future__ import annotations

import numpy as np

from irrun.ops.base import Attribute, Op, TensorInfo
from irrun.ops.registry import register


@register
class Inverse(Op):
    """Inverse-14 (adjoint)."""

    type, version, inputs = "Inverse", 14, (1, 1)
    attributes = (Attribute("adjoint", "bool", False),)

    def infer(self, inputs):
        """The data's shape, after checking its type and that its matrices are square."""
        (data,) = inputs
        etype, shape = data.element_type, data.shape
        if etype.name not in ("f16", "bf16", "f32", "f64", "dynamic"):
            self.context.error(
                "input-type",
                f"{self.describe()}: data must be a floating-point tensor, but it is {etype}",
                port=self.input_port(0),
                hint="insert a Convert to f32 before it",
            )
            return None
        if shape.rank is not None and shape.rank < 2:
            self.context.error(
                "input-rank",
                f"{self.describe()}: data must have rank >= 2 (matrices), but its shape is {shape}",
                port=self.input_port(0),
                hint="reshape the data to [..., n, n]",
            )
            return None
        rows, columns = (shape[-2], shape[-1]) if shape.rank else (None, None)
        if rows is not None and rows.is_static and columns.is_static and rows != columns:
            self.context.error(
                "input-dims",
                f"{self.describe()}: the matrices must be square, but data {shape} has "
                f"{shape[-2]} rows and {shape[-1]} columns",
                port=self.input_port(0),
                hint="give matrices of n x n",
            )
            return None
        return [TensorInfo(shape, etype, why="Inverse keeps the data shape")]

    def evaluate(self, inputs):
        """``numpy.linalg.inv`` of each matrix (of its transpose with adjoint)."""
        (data,) = inputs
        wide = data.astype(np.float64)
        if self.adjoint:
            wide = np.swapaxes(wide, -1, -2)
        try:
            inverse = np.linalg.inv(wide)
        except np.linalg.LinAlgError:
            raise ValueError(
                f"{self.describe()}: a matrix of data {list(data.shape)} is singular (it has "
                "no inverse)"
            ) from None
        return [inverse.astype(data.dtype)]
