"""SquaredDifference-1: elementwise ``(a - b) ** 2`` with auto-broadcast.

Inputs: two tensors of one element type (not boolean). Attributes: ``auto_broadcast``
(none/numpy/pdpd, default numpy) and, for pdpd, the axis
(``auto_broadcast.auto_broadcast_axis``, default 0). Output: the
broadcast shape (:mod:`irrun.ops._broadcast`), the inputs' type.
Computed as ``(a - b) * (a - b)``: integers in the type (they wrap), f16/bf16 in float32
rounded once (as the CPU plugin; the reference's float16 operators may round twice).
"""

from __future__ import annotations

import numpy as np

from irrun.ops._elementwise import BinaryOp, in_float
from irrun.ops.registry import register


@register
class SquaredDifference(BinaryOp):
    """SquaredDifference-1."""

    type, version = "SquaredDifference", 1

    def compute(self, a, b):
        if a.dtype.kind in "iu":
            difference = np.subtract(a, b)
            return difference * difference
        return in_float(lambda x, y: (x - y) * (x - y), a.dtype, a, b)
