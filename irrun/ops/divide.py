"""Divide-1: elementwise ``a / b`` with auto-broadcast.

Inputs: two tensors of one element type (not boolean). Attributes: ``auto_broadcast``
(none/numpy/pdpd, default numpy) and, for pdpd, the axis
(``auto_broadcast.auto_broadcast_axis``, default 0). Output: the
broadcast shape (:mod:`irrun.ops._broadcast`), the inputs' type.
Attribute ``m_pythondiv`` (default true): integer division floors like Python's ``//``;
false truncates toward zero like C. Integer division by zero raises, as OpenVINO's reference
does (``integer division by zero``; the CPU plugin gives the type's minimum); floats follow
IEEE (inf, nan); the CPU plugin is within 1 ulp of that (tests: rtol 2.5e-7).
Partial values: a size divided by a positive constant (``seq // 2``; floor
and truncation agree on sizes).
"""

from __future__ import annotations

import numpy as np

from irrun.ops._elementwise import BinaryOp, dim_floor_divide, integer_division_check
from irrun.ops.base import Attribute
from irrun.ops.registry import register


@register
class Divide(BinaryOp):
    """Divide-1."""

    type, version = "Divide", 1
    attributes = BinaryOp.attributes + (Attribute("m_pythondiv", "bool", True),)
    partial_rule = staticmethod(dim_floor_divide)

    def compute(self, a, b):
        if a.dtype.kind not in "iu":
            return np.divide(a, b)
        integer_division_check(self, b)
        quotient = np.floor_divide(a, b)
        if self.m_pythondiv:
            return quotient
        inexact = (np.remainder(a, b) != 0) & ((a < 0) != (b < 0))
        return quotient + inexact.astype(quotient.dtype)  # truncation toward zero
