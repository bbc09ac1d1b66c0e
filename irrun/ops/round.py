"""Round-5: round to the nearest integer.

One input of any type (boolean and integers: identity); the output has its shape and type.
Attribute ``mode`` (required): ``half_to_even`` or ``half_away_from_zero``.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._elementwise import UnaryOp
from irrun.ops.base import Attribute
from irrun.ops.registry import register


@register
class Round(UnaryOp):
    """Round-5."""

    type, version = "Round", 5
    rounds = False
    category = "any"
    attributes = (
        Attribute(
            "mode",
            "enum",
            "half_to_even",
            required=True,
            choices=("half_to_even", "half_away_from_zero"),
        ),
    )

    def compute(self, x):
        if x.dtype.kind in "iub":
            return x
        if self.mode == "half_to_even":
            return np.rint(x)
        whole = np.trunc(x)  # x - trunc(x) is exact, so halves are found exactly
        return np.where(np.abs(x - whole) >= 0.5, whole + np.sign(x), whole)
