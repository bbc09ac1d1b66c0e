"""Mish-4: ``x * tanh(softplus(x))``.

One floating-point input; the output has its shape and type. Tolerance against the CPU
plugin (f32): rtol 1e-5, atol 1e-6.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._elementwise import FloatUnaryOp
from irrun.ops.registry import register


@register
class Mish(FloatUnaryOp):
    """Mish-4."""

    type, version = "Mish", 4
    category = "float"

    @staticmethod
    def function(x):
        return x * np.tanh(np.logaddexp(0, x))
