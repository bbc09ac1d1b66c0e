"""HSigmoid-5: ``min(max(x + 3, 0), 6) / 6``.

One input of any type but boolean; the output has its shape and type. Tolerance against the
CPU plugin (f32): rtol 1e-6, atol 1e-7. Integer inputs compute in float64 and round to the
nearest integer, as the CPU plugin does.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._elementwise import FloatUnaryOp
from irrun.ops.registry import register


@register
class HSigmoid(FloatUnaryOp):
    """HSigmoid-5."""

    type, version = "HSigmoid", 5

    @staticmethod
    def function(x):
        # in place on one fresh array (np.clip with two finite bounds is NumPy's SIMD path)
        y = np.add(x, 3, out=np.empty(x.shape, x.dtype))
        np.clip(y, 0, 6, out=y)
        y /= 6
        return y
