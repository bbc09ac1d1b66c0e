"""Sqrt-1: square root.

One input of any type but boolean; the output has its shape and type. Tolerance against the
CPU plugin (f32): exact (IEEE). Integer inputs compute in float64 and round to the nearest
integer, as the CPU plugin does.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._elementwise import FloatUnaryOp
from irrun.ops.registry import register


@register
class Sqrt(FloatUnaryOp):
    """Sqrt-1."""

    type, version = "Sqrt", 1

    function = staticmethod(np.sqrt)
