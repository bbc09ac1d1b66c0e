"""NormalizeL2-1: divide the data by its L2 norm over ``axes``.

Spec facts: inputs data (any element type OpenVINO accepts; irrun runs floats) and axes (a
scalar or 1-D integer tensor; OpenVINO also takes a float constant, truncated); attributes
``eps`` (float, required) and ``eps_mode`` (``add`` or ``max``, required). Output: the data's
shape and type::

    out = x / sqrt(sum(x², axes) + eps)        (add)
    out = x / sqrt(max(sum(x², axes), eps))    (max)

Axes may be negative and repeated (a set). An empty axes list divides each element by itself
(1 for nonzero elements, 0 for zeros), as the reference does.

Shape rule (``normalize_l2.cpp``): axes of rank 2 or more are refused; known axes must lie in
``[-rank, rank - 1]`` of a data of known rank (a scalar data has no axis to reduce). Axes
that are not constant are accepted (the kernel reads them).

Kernel: the sum of squares in float64, the division in the data's type; against the CPU plugin
``rtol=1e-5, atol=1e-6``.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._values import signed_ints, signed_values
from irrun.ops.base import Attribute, Op, TensorInfo, lazy_text, normalize_axes_or_report
from irrun.ops.registry import register


@register
class NormalizeL2(Op):
    """NormalizeL2-1 (eps, eps_mode)."""

    type, version, inputs = "NormalizeL2", 1, (2, 2)
    attributes = (
        Attribute("eps", "float", 0.0, required=True),
        Attribute("eps_mode", "enum", "add", required=True, choices=("add", "max")),
    )

    def infer(self, inputs):
        """The data's shape and type; the axes checked against the data rank."""
        data, axes = inputs
        if axes.shape.rank is not None and axes.shape.rank > 1:
            self.context.error(
                "input-rank",
                f"{self.describe()}: axes must be a scalar or 1-D, but its shape is {axes.shape}",
                port=self.input_port(1),
                hint="Reshape the axes to 1-D",
            )
            return None
        values = signed_ints(axes, floats=True)
        rank = data.shape.rank
        if values is not None and rank is not None:
            if normalize_axes_or_report(self, values, rank, port_index=1, unique=False) is None:
                return None
        why = lazy_text("the data's shape {} (eps_mode {})", data.shape, self.eps_mode)
        return [TensorInfo(data.shape, data.element_type, why=why)]

    def evaluate(self, inputs):
        """``x / sqrt(sum(x²) (+|max) eps)`` over the axes."""
        data, axes = inputs
        axes = sorted({a % data.ndim for a in signed_values(axes)}) if data.ndim else []
        return [l2_normalized(self, data, tuple(axes), self.eps, self.eps_mode)]


def l2_normalized(op: Op, data: np.ndarray, axes: tuple, eps: float, mode: str) -> np.ndarray:
    """The reference's L2 normalisation of float ``data`` over ``axes`` (empty: ``x / x``)."""
    if data.dtype.kind != "f" and "float" not in data.dtype.name:
        raise NotImplementedError(f"irrun runs {op.label} on floating-point data only, "
                                  f"not {data.dtype}")  # fmt: skip
    if not axes:
        return (data != 0).astype(data.dtype)
    wide = data.astype(np.float64)
    squares = np.sum(wide * wide, axis=axes, keepdims=True)
    total = squares + eps if mode == "add" else np.maximum(squares, eps)
    with np.errstate(divide="ignore", invalid="ignore"):
        return (wide / np.sqrt(total)).astype(data.dtype)
