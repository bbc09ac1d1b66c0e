"""Elu-1: ``x`` for ``x >= 0``, ``alpha * (exp(x) - 1)`` below.

One input of any type (OpenVINO accepts boolean too); the output has its shape and type.
Attribute ``alpha`` (float, required). Tolerance against the CPU plugin (f32): rtol 1e-6,
atol 1e-7. Integer inputs compute in float64 and round to the nearest integer, as the CPU
plugin does.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._elementwise import UnaryOp, in_float
from irrun.ops.base import Attribute
from irrun.ops.registry import register


@register
class Elu(UnaryOp):
    """Elu-1."""

    type, version = "Elu", 1
    category = "any"
    attributes = (Attribute("alpha", "float", 1.0, required=True),)

    def compute(self, x):
        alpha = self.alpha
        return in_float(lambda v: np.where(v < 0, alpha * np.expm1(v), v), x.dtype, x)
