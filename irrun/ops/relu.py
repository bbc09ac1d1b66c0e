"""Relu-1: ``max(x, 0)``.

One input of any type but boolean; the output has its shape and type. ``x > 0 ? x : 0`` (NaN
gives 0, -0 gives +0).
"""

from __future__ import annotations

import numpy as np

from irrun.ops._elementwise import UnaryOp
from irrun.ops.registry import register


@register
class Relu(UnaryOp):
    """Relu-1."""

    type, version = "Relu", 1

    def compute(self, x):
        return np.where(x > 0, x, 0)
