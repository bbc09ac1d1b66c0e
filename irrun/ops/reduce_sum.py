"""ReduceSum-1: the sum of ``data`` over ``axes`` (shape rule: :mod:`irrun.ops._reduce`).

Numeric data (not boolean). OpenVINO's reference adds in the element type with Kahan
compensation; irrun accumulates floats in float64 and rounds once (the same result but in rare
ties), integers in their own type (wrapping, as the C++ reference does). An empty reduction
gives 0. Against the CPU plugin: integers exact, f32 within rtol 1e-6 (its summation order
differs).

Partial values: a rank-1 integer tensor (a shape) summed over axis 0 gives the sum of its
elements, an interval when they are Dims.
"""

from __future__ import annotations

from irrun.ops._reduce import Reduction, float_sum, sum_of_elements
from irrun.ops.registry import register


@register
class ReduceSum(Reduction):
    """ReduceSum-1."""

    type, version = "ReduceSum", 1
    combine = staticmethod(sum_of_elements)

    def reduce(self, data, axes, keep_dims):
        return float_sum(data, axes, keep_dims)
