"""ReduceProd-1: the product of ``data`` over ``axes`` (shape rule: :mod:`irrun.ops._reduce`).

Numeric data (not boolean). Floats are multiplied in float64 and rounded once (OpenVINO's
reference multiplies in the element type, one rounding per step: results agree within a few
ulp, rtol 1e-6 in f32); integers in their own type, wrapping. An empty reduction gives 1.

Partial values: a rank-1 integer tensor (a shape) multiplied over axis 0 gives the product of
its elements: flattening ``[?, 3, 4]`` gives ``?`` where OpenVINO knows no more, and
``[2..4, 3]`` gives ``6..12`` (its bounds are multiplied).
"""

from __future__ import annotations

import numpy as np

from irrun.ops._reduce import Reduction, accumulator, product_of_elements
from irrun.ops.registry import register


@register
class ReduceProd(Reduction):
    """ReduceProd-1."""

    type, version = "ReduceProd", 1
    combine = staticmethod(product_of_elements)

    def reduce(self, data, axes, keep_dims):
        return np.prod(data, axis=axes, keepdims=keep_dims, dtype=accumulator(data.dtype))
