"""HSwish-4: ``x * min(max(x + 3, 0), 6) / 6``.

One input of any type but boolean; the output has its shape and type. Tolerance against the
CPU plugin (f32): rtol 1e-6, atol 1e-7. Integer inputs compute in float64 and round to the
nearest integer, as the CPU plugin does.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._elementwise import FloatUnaryOp
from irrun.ops.registry import register


@register
class HSwish(FloatUnaryOp):
    """HSwish-4."""

    type, version = "HSwish", 4

    @staticmethod
    def function(x):
        return x * np.minimum(np.maximum(x + 3, 0), 6) / 6
