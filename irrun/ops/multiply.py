"""Multiply-1: elementwise ``a * b`` with auto-broadcast.

Inputs: two tensors of one element type (not boolean). Attributes: ``auto_broadcast``
(none/numpy/pdpd, default numpy) and, for pdpd, the axis
(``auto_broadcast.auto_broadcast_axis``, default 0). Output: the
broadcast shape (:mod:`irrun.ops._broadcast`), the inputs' type.
Integers wrap. Partial values: sizes times non-negative constants (``batch * 16``).
"""

from __future__ import annotations

import numpy as np

from irrun.ops._elementwise import BinaryOp, dim_multiply
from irrun.ops.registry import register


@register
class Multiply(BinaryOp):
    """Multiply-1."""

    type, version = "Multiply", 1
    partial_rule = staticmethod(dim_multiply)

    ufunc = np.multiply
