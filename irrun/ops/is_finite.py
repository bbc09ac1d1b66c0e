"""IsFinite-10: true where ``x`` is neither infinite nor NaN.

One floating-point input; a boolean output of its shape.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._elementwise import UnaryOp
from irrun.ops.registry import register


@register
class IsFinite(UnaryOp):
    """IsFinite-10."""

    type, version = "IsFinite", 10
    category = "float"
    output_boolean = True

    def compute(self, x):
        return np.isfinite(x)
