"""SoftSign-9: ``x / (1 + |x|)``.

One input of a floating-point type (OpenVINO refuses integer and boolean inputs); the output
has its shape and type. Tolerance against the CPU plugin (f32): rtol 1e-6, atol 1e-7; f16
computes in f32 and rounds once.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._elementwise import FloatUnaryOp
from irrun.ops.registry import register


@register
class SoftSign(FloatUnaryOp):
    """SoftSign-9."""

    type, version = "SoftSign", 9
    category = "float"

    @staticmethod
    def function(x):
        return x / (1 + np.abs(x))
