"""Ceiling-1: round toward +inf.

One input of any type but boolean; the output has its shape and type. Integers: identity.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._elementwise import UnaryOp
from irrun.ops.registry import register


@register
class Ceiling(UnaryOp):
    """Ceiling-1."""

    type, version = "Ceiling", 1
    rounds = False

    def compute(self, x):
        return x if x.dtype.kind in "iu" else np.ceil(x)
