"""Add-1: elementwise ``a + b`` with auto-broadcast.

Inputs: two tensors of one element type (not boolean). Attributes: ``auto_broadcast``
(none/numpy/pdpd, default numpy) and, for pdpd, the axis
(``auto_broadcast.auto_broadcast_axis``, default 0). Output: the
broadcast shape (:mod:`irrun.ops._broadcast`), the inputs' type.
Integers wrap. Partial values: a size plus a constant stays a size when it cannot go below 0
(``seq + 1``).
"""

from __future__ import annotations

import numpy as np

from irrun.ops._elementwise import BinaryOp, dim_add
from irrun.ops.registry import register


@register
class Add(BinaryOp):
    """Add-1."""

    type, version = "Add", 1
    partial_rule = staticmethod(dim_add)

    ufunc = np.add
