"""IsInf-10: true where ``x`` is infinite.

One floating-point input; a boolean output of its shape. Attributes ``detect_negative`` and
``detect_positive`` (default true) choose which infinities count.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._elementwise import UnaryOp
from irrun.ops.base import Attribute
from irrun.ops.registry import register


@register
class IsInf(UnaryOp):
    """IsInf-10."""

    type, version = "IsInf", 10
    category = "float"
    output_boolean = True
    attributes = (
        Attribute("detect_negative", "bool", True),
        Attribute("detect_positive", "bool", True),
    )

    def compute(self, x):
        return (np.isneginf(x) & self.detect_negative) | (np.isposinf(x) & self.detect_positive)
