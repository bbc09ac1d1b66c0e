"""Erf-1: the Gauss error function.

One input of any type but boolean; the output has its shape and type. Tolerance against the
CPU plugin (f32): rtol 1e-5, atol 1e-6 (the CPU plugin's erf is an approximation, off by up
to 2e-6 relative; irrun computes it in float64, :func:`irrun.ops._elementwise.erf`).
Integer inputs compute in float64 and round to the
nearest integer, as the CPU plugin does.
"""

from __future__ import annotations

from irrun.ops._elementwise import FloatUnaryOp, erf
from irrun.ops.registry import register


@register
class Erf(FloatUnaryOp):
    """Erf-1."""

    type, version = "Erf", 1

    function = staticmethod(erf)
