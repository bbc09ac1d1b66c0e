"""Maximum-1: elementwise maximum with auto-broadcast.

Inputs: two tensors of one element type (not boolean). Attributes: ``auto_broadcast``
(none/numpy/pdpd, default numpy) and, for pdpd, the axis
(``auto_broadcast.auto_broadcast_axis``, default 0). Output: the
broadcast shape (:mod:`irrun.ops._broadcast`), the inputs' type.
NaN: ``x > y ? x : y`` (a NaN first input gives the second). Partial values: max of
intervals.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._elementwise import BinaryOp, dim_maximum
from irrun.ops.registry import register


@register
class Maximum(BinaryOp):
    """Maximum-1."""

    type, version = "Maximum", 1
    rounds = False
    partial_rule = staticmethod(dim_maximum)

    def compute(self, a, b):
        return np.where(a > b, a, b)  # the reference's x > y ? x : y
