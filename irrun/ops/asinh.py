"""Asinh-4: the inverse hyperbolic sine.

One input of any type but boolean (OpenVINO refuses boolean); the output has its shape and
type. The specification calls it Asinh-3 (OpenVINO's class ``ov::op::v3::Asinh``), but
OpenVINO first put it in opset4 and reports version ``opset4``: irrun names it Asinh-4, as
its opset tables do. Tolerance against the CPU plugin (f32): rtol 1e-6, atol 1e-7 (measured:
at most 2.3e-7 relative); f16 computes in f32 and rounds once (at most 1 f16 ulp from the
CPU plugin). Integer inputs compute in float64 and round to the nearest integer, as the CPU
plugin does; results that do not fit the type (NaN, infinities) are undefined in OpenVINO
and irrun gives the type's minimum.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._elementwise import FloatUnaryOp
from irrun.ops.registry import register


@register
class Asinh(FloatUnaryOp):
    """Asinh-4."""

    type, version = "Asinh", 4

    function = staticmethod(np.arcsinh)
