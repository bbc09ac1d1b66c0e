"""LogicalNot-1: elementwise ``not``.

One input of any element type (OpenVINO does not insist on boolean); the output has its
shape and type: 1 where the input is 0, else 0 (``!x`` cast back).
"""

from __future__ import annotations

from irrun.ops._elementwise import UnaryOp
from irrun.ops.registry import register


@register
class LogicalNot(UnaryOp):
    """LogicalNot-1."""

    type, version = "LogicalNot", 1
    category = "any"

    def compute(self, x):
        return (x == 0).astype(x.dtype)
