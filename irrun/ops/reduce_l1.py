"""ReduceL1-4: the sum of absolute values of ``data`` over ``axes`` (shape rule:
:mod:`irrun.ops._reduce`).

Numeric data (not boolean). Floats accumulate in float64 and are rounded once (OpenVINO's
reference adds in the element type: rtol 1e-6 in f32); integers in their own type, wrapping.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._reduce import Reduction, float_sum
from irrun.ops.registry import register


@register
class ReduceL1(Reduction):
    """ReduceL1-4."""

    type, version = "ReduceL1", 4

    def reduce(self, data, axes, keep_dims):
        return float_sum(np.abs(data), axes, keep_dims)
