"""GreaterEqual-1: elementwise ``a >= b`` with auto-broadcast.

Inputs: two tensors of one element type (any). Attributes: ``auto_broadcast``
(none/numpy/pdpd, default numpy) and, for pdpd, the axis
(``auto_broadcast.auto_broadcast_axis``, default 0). Output: the
broadcast shape (:mod:`irrun.ops._broadcast`), boolean.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._elementwise import BinaryOp
from irrun.ops.registry import register


@register
class GreaterEqual(BinaryOp):
    """GreaterEqual-1."""

    type, version = "GreaterEqual", 1
    category = "comparison"

    ufunc = np.greater_equal
