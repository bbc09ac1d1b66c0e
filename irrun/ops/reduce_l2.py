"""ReduceL2-4: the square root of the sum of squares of ``data`` over ``axes`` (shape rule:
:mod:`irrun.ops._reduce`).

Numeric data (not boolean). Floats: squares summed in float64, square root, one rounding
(OpenVINO's reference rounds each step in the element type); against the CPU plugin in f32,
rtol 2e-6. Integers as the C++ reference: squares summed in the type (wrapping), then the
square root truncated (``sqrt(10)`` → 3).
"""

from __future__ import annotations

import numpy as np

from irrun.ops._reduce import Reduction, accumulator
from irrun.ops.registry import register


@register
class ReduceL2(Reduction):
    """ReduceL2-4."""

    type, version = "ReduceL2", 4

    def reduce(self, data, axes, keep_dims):
        wide = data.astype(accumulator(data.dtype), copy=False)
        total = np.sum(wide * wide, axis=axes, keepdims=keep_dims, dtype=wide.dtype)
        root = np.sqrt(total.astype(np.float64, copy=False))
        return np.trunc(root) if data.dtype.kind in "iu" else root
