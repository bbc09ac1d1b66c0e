"""Sin-1: sine.

One input of any type but boolean; the output has its shape and type. Tolerance against the
CPU plugin (f32): rtol 1e-6, atol 1e-6. Integer inputs compute in float64 and round to the
nearest integer, as the CPU plugin does.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._elementwise import FloatUnaryOp
from irrun.ops.registry import register


@register
class Sin(FloatUnaryOp):
    """Sin-1."""

    type, version = "Sin", 1

    function = staticmethod(np.sin)
