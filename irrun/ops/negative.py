"""Negative-1: ``-x``.

One input of any type but boolean; the output has its shape and type. Integers wrap
(unsigned too).
"""

from __future__ import annotations

import numpy as np

from irrun.ops._elementwise import UnaryOp
from irrun.ops.registry import register


@register
class Negative(UnaryOp):
    """Negative-1."""

    type, version = "Negative", 1
    rounds = False

    ufunc = np.negative
