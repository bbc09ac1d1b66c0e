"""BitwiseAnd-13: elementwise bitwise ``and`` with auto-broadcast (opset13).

Inputs: two tensors of one element type (an integer type or boolean). Attributes:
``auto_broadcast`` (none/numpy/pdpd, default numpy) and, for pdpd, the axis
(``auto_broadcast.auto_broadcast_axis``, default 0).
Output: the broadcast shape (:mod:`irrun.ops._broadcast`), the inputs' type.
On booleans it is the logical operation. OpenVINO refuses floats.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._elementwise import BinaryOp
from irrun.ops.registry import register


@register
class BitwiseAnd(BinaryOp):
    """BitwiseAnd-13."""

    type, version = "BitwiseAnd", 13
    category = "bitwise"

    ufunc = np.bitwise_and
