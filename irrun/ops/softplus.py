"""SoftPlus-4: ``log(exp(x) + 1)``.

One floating-point input; the output has its shape and type. The reference returns ``x``
itself above a threshold where the two agree to the type's precision (about 16 for f32).
Tolerance against the CPU plugin (f32): rtol 1e-6, atol 1e-6.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._elementwise import FloatUnaryOp
from irrun.ops.registry import register


@register
class SoftPlus(FloatUnaryOp):
    """SoftPlus-4."""

    type, version = "SoftPlus", 4
    category = "float"

    @staticmethod
    def function(x):
        return np.where(x < 20, np.logaddexp(0, x), x)
