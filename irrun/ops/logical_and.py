"""LogicalAnd-1: elementwise ``and`` of booleans with auto-broadcast.

Inputs: two tensors of one element type (boolean only). Attributes: ``auto_broadcast``
(none/numpy/pdpd, default numpy) and, for pdpd, the axis
(``auto_broadcast.auto_broadcast_axis``, default 0). Output: the
broadcast shape (:mod:`irrun.ops._broadcast`), boolean.
OpenVINO refuses any other element type.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._elementwise import BinaryOp
from irrun.ops.registry import register


@register
class LogicalAnd(BinaryOp):
    """LogicalAnd-1."""

    type, version = "LogicalAnd", 1
    category = "logical"

    ufunc = np.logical_and
