"""IsNaN-10: true where ``x`` is NaN.

One floating-point input; a boolean output of its shape.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._elementwise import UnaryOp
from irrun.ops.registry import register


@register
class IsNaN(UnaryOp):
    """IsNaN-10."""

    type, version = "IsNaN", 10
    category = "float"
    output_boolean = True

    def compute(self, x):
        return np.isnan(x)
