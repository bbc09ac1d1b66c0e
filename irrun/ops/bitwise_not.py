"""BitwiseNot-13: elementwise bitwise complement (opset13).

One input of an integer type or boolean (logical not); floats are refused. Output: the
input's shape and type.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._elementwise import UnaryOp
from irrun.ops.registry import register


@register
class BitwiseNot(UnaryOp):
    """BitwiseNot-13."""

    type, version = "BitwiseNot", 13
    category = "bitwise"

    ufunc = np.invert
