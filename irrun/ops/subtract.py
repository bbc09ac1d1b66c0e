"""Subtract-1: elementwise ``a - b`` with auto-broadcast.

Inputs: two tensors of one element type (not boolean). Attributes: ``auto_broadcast``
(none/numpy/pdpd, default numpy) and, for pdpd, the axis
(``auto_broadcast.auto_broadcast_axis``, default 0). Output: the
broadcast shape (:mod:`irrun.ops._broadcast`), the inputs' type.
Integers wrap. Partial values: a size minus a constant when the result cannot be negative
(``seq - 1`` for ``seq`` in ``2..``), else unknown.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._elementwise import BinaryOp, dim_subtract
from irrun.ops.registry import register


@register
class Subtract(BinaryOp):
    """Subtract-1."""

    type, version = "Subtract", 1
    partial_rule = staticmethod(dim_subtract)

    ufunc = np.subtract
