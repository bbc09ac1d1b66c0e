"""Mod-1: remainder with the sign of the dividend (C's truncation).

Inputs: two tensors of one element type (not boolean). Attributes: ``auto_broadcast``
(none/numpy/pdpd, default numpy) and, for pdpd, the axis
(``auto_broadcast.auto_broadcast_axis``, default 0). Output: the
broadcast shape (:mod:`irrun.ops._broadcast`), the inputs' type.
The reference: ``x % y`` for integers (division by zero raises here, undefined in OpenVINO),
``x - trunc(x / y) * y`` in the type for floats (f16/bf16 in float32); a zero divisor gives
nan.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._elementwise import BinaryOp, dim_floor_mod, in_float, integer_division_check
from irrun.ops.registry import register


@register
class Mod(BinaryOp):
    """Mod-1."""

    type, version = "Mod", 1
    partial_rule = staticmethod(dim_floor_mod)  # (of sizes: shape arithmetic)

    def compute(self, a, b):
        if a.dtype.kind in "iu":
            integer_division_check(self, b)
            return np.fmod(a, b)
        return in_float(lambda x, y: x - np.trunc(x / y) * y, a.dtype, a, b)
