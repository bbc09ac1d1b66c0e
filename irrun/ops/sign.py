"""Sign-1: -1, 0 or 1 by the sign of ``x``.

One input of any type but boolean; the output has its shape and type. The reference computes
``(0 < x) - (x < 0)``: NaN and -0 give 0.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._elementwise import UnaryOp
from irrun.ops.registry import register


@register
class Sign(UnaryOp):
    """Sign-1."""

    type, version = "Sign", 1
    rounds = False

    def compute(self, x):
        return (x > 0).astype(np.int8) - (x < 0).astype(np.int8)
