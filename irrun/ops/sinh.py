"""Sinh-1: the hyperbolic sine.

One input of any type but boolean (OpenVINO refuses boolean); the output has its shape and
type. Tolerance against the CPU plugin (f32): rtol 1e-6, atol 1e-7 (measured: at most 2.3e-7
relative); f16 computes in f32 and rounds once (at most 1 f16 ulp from the CPU plugin).
Integer inputs compute in float64 and round to the nearest integer, as the CPU plugin does;
results that do not fit the type (NaN, infinities) are undefined in OpenVINO and irrun gives
the type's minimum.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._elementwise import FloatUnaryOp
from irrun.ops.registry import register


@register
class Sinh(FloatUnaryOp):
    """Sinh-1."""

    type, version = "Sinh", 1

    function = staticmethod(np.sinh)
