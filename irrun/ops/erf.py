"""Erf-1: the Gauss error function.

One input of any type but boolean; the output has its shape and type. Tolerance against the
CPU plugin (f32): rtol 1e-5, atol 1e-6 (the CPU plugin's erf is an approximation, off by up
to 2e-6 relative; irrun's, :func:`irrun.ops._erf.erf`, is within 1e-7 for f32 and f16/bf16,
computed in f32, and W. J. Cody's float64 approximation for f64 and integers).
Integer inputs compute in float64 and round to the
nearest integer, as the CPU plugin does.
"""

from __future__ import annotations

from irrun.ops._elementwise import FloatUnaryOp
from irrun.ops._erf import erf
from irrun.ops.registry import register


@register
class Erf(FloatUnaryOp):
    """Erf-1."""

    type, version = "Erf", 1

    function = staticmethod(erf)
