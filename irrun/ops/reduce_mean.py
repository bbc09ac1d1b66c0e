"""ReduceMean-1: the mean of ``data`` over ``axes`` (shape rule: :mod:`irrun.ops._reduce`).

Numeric data (not boolean). As OpenVINO's reference: the sum (see ReduceSum) rounded to the
element type, divided in the element type by the number of elements reduced. Integers: the
sum wraps in the type and the division truncates toward zero (``-7 / 2`` → -3, C++ integer
division); the reference casts the count to the type first (a u8 mean over 256 elements
divides by 0), irrun divides by the true count. An empty reduction gives NaN (floats) or
fails (integers: a division by zero). Against the CPU plugin in f32: rtol 1e-6.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._reduce import Reduction, float_sum
from irrun.ops.registry import register


@register
class ReduceMean(Reduction):
    """ReduceMean-1."""

    type, version = "ReduceMean", 1

    def reduce(self, data, axes, keep_dims):
        total = float_sum(data, axes, keep_dims)
        count = data.size // max(total.size, 1) if total.size else 1
        if data.dtype.kind in "iu":
            if count == 0:
                raise ZeroDivisionError(
                    f"{self.describe()}: integer mean of an empty reduction: data "
                    f"{list(data.shape)} reduced over axes {list(axes)} has 0 elements per "
                    f"output, and {data.dtype} has no NaN for 0 / 0; reduce over axes of "
                    "non-zero size, or Convert the data to a float type first"
                )
            quotient = np.abs(total) // count if data.dtype.kind == "i" else total // count
            return np.where(total < 0, -quotient, quotient) if data.dtype.kind == "i" else quotient
        with np.errstate(invalid="ignore", divide="ignore"):
            return total / np.asarray(count, dtype=data.dtype)
