"""Clamp-1: limit every element to ``[min, max]``.

One input of any type but boolean; the output has its shape and type. Attributes ``min`` and
``max`` (floats, required; OpenVINO refuses the layer unless ``min <= max``, which is false
for ``min > max`` and when either is NaN). Integer types clamp to ``ceil(min)`` and
``floor(max)`` saturated to the type's range (``-inf``/``inf`` are the type's limits); floats
to ``min``/``max`` in the type. ``x < min ? min : x > max ? max : x``: NaN stays NaN. (The
CPU plugin truncates a fractional ``min`` for u8 instead; irrun follows the reference.)
"""

from __future__ import annotations

import math

import numpy as np

from irrun.ops._elementwise import UnaryOp
from irrun.ops.base import Attribute
from irrun.ops.registry import register


@register
class Clamp(UnaryOp):
    """Clamp-1."""

    type, version = "Clamp", 1
    rounds = False
    attributes = (Attribute("min", "float", 0.0, required=True),
                  Attribute("max", "float", 0.0, required=True))  # fmt: skip

    def setup(self):
        """``min <= max`` (false when either is NaN, as OpenVINO checks it)."""
        if not self.incomplete and not (self.min <= self.max):
            if math.isnan(self.min) or math.isnan(self.max):
                message = f"min {self.min} and max {self.max}: a NaN bound clamps nothing"
                hint = "give min and max as numbers (-inf and inf are allowed)"
            else:
                message, hint = f"min {self.min} is above max {self.max}", "swap min and max"
            self.context.error(
                "attribute-value",
                f"{self.describe()}: {message}; OpenVINO requires min <= max",
                hint=hint,
                line=self.layer.data_line,
            )
            self.incomplete = True

    def compute(self, x):
        if x.dtype.kind in "iu":
            info = np.iinfo(x.dtype)
            # clipped to the type's range as floats first: +-inf saturate (no OverflowError)
            low = min(max(math.ceil(min(max(self.min, info.min), info.max)), info.min), info.max)
            high = max(min(math.floor(max(min(self.max, info.max), info.min)), info.max), info.min)
        else:
            low, high = np.array(self.min, x.dtype), np.array(self.max, x.dtype)
        return np.where(x < low, low, np.where(x > high, high, x))
