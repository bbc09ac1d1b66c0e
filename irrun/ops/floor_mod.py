"""FloorMod-1: remainder with the sign of the divisor (Python's ``%``).

Inputs: two tensors of one element type (not boolean). Attributes: ``auto_broadcast``
(none/numpy/pdpd, default numpy) and, for pdpd, the axis
(``auto_broadcast.auto_broadcast_axis``, default 0). Output: the
broadcast shape (:mod:`irrun.ops._broadcast`), the inputs' type.
The reference computes ``x - y * floor(x / y)`` in double for floats and signed integers
(exact for integers below 2**53), ``x % y`` for unsigned ones. Integer division by zero
raises (undefined in OpenVINO).
"""

from __future__ import annotations

import numpy as np

from irrun.ops._elementwise import BinaryOp, dim_floor_mod, integer_division_check
from irrun.ops.registry import register


@register
class FloorMod(BinaryOp):
    """FloorMod-1."""

    type, version = "FloorMod", 1
    partial_rule = staticmethod(dim_floor_mod)  # (of sizes: shape arithmetic)
    partial_of_unknown = True  # (by a positive divisor: a size whatever the dividend)

    def compute(self, a, b):
        if a.dtype.kind in "iu":
            integer_division_check(self, b)
            return np.remainder(a, b)
        x, y = a.astype(np.float64), b.astype(np.float64)
        return (x - y * np.floor(x / y)).astype(a.dtype)  # in double, as the reference
