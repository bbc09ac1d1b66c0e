"""Log-1: natural logarithm.

One input of any type but boolean; the output has its shape and type. Tolerance against the
CPU plugin (f32): rtol 1e-6, atol 1e-7. Integer inputs compute in float64 and round to the
nearest integer, as the CPU plugin does. Log of 0 is -inf, of a negative nan (for integers:
undefined; the type's minimum here).
"""

from __future__ import annotations

import numpy as np

from irrun.ops._elementwise import FloatUnaryOp
from irrun.ops.registry import register


@register
class Log(FloatUnaryOp):
    """Log-1."""

    type, version = "Log", 1

    function = staticmethod(np.log)
