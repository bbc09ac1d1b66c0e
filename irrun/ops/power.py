"""Power-1: elementwise ``a ** b`` with auto-broadcast.

Inputs: two tensors of one element type (not boolean). Attributes: ``auto_broadcast``
(none/numpy/pdpd, default numpy) and, for pdpd, the axis
(``auto_broadcast.auto_broadcast_axis``, default 0). Output: the
broadcast shape (:mod:`irrun.ops._broadcast`), the inputs' type.
Integers: ``std::pow`` truncated (negative exponents give 0 but for bases 1 and -1; 0 to a
negative power is undefined in OpenVINO, 0 here); overflow wraps (undefined in OpenVINO).
Floats: tolerance rtol 1e-6 against the CPU plugin (1 ulp measured).
"""

from __future__ import annotations

import numpy as np

from irrun.ops._elementwise import BinaryOp
from irrun.ops.registry import register


@register
class Power(BinaryOp):
    """Power-1."""

    type, version = "Power", 1

    def compute(self, a, b):
        if a.dtype.kind != "i":
            return np.power(a, b)
        negative = b < 0  # std::pow then truncation: 1, +-1 for -1, else 0
        positive = np.power(a, np.where(negative, 0, b).astype(b.dtype))
        odd = np.remainder(b, 2) != 0
        inverse = np.where(a == 1, 1, np.where(a == -1, np.where(odd, -1, 1), 0))
        return np.where(negative, inverse.astype(a.dtype), positive)
