"""Abs-1: absolute value.

One input of any type but boolean; the output has its shape and type. Integers: the minimum
of a signed type stays itself (wraps); unsigned: identity.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._elementwise import UnaryOp
from irrun.ops.registry import register


@register
class Abs(UnaryOp):
    """Abs-1."""

    type, version = "Abs", 1
    rounds = False

    ufunc = np.abs
