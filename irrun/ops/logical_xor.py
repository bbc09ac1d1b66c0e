"""LogicalXor-2 and Xor-1: elementwise ``xor`` of booleans with auto-broadcast.

Xor-1 is opset1's name of the same op (OpenVINO's ``v0::Xor``; opset2 dropped it, LogicalXor
remains): the same inputs, attributes, checks and result.

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
class LogicalXor(BinaryOp):
    """LogicalXor-2."""

    type, version = "LogicalXor", 2
    category = "logical"

    ufunc = np.logical_xor


@register
class Xor(LogicalXor):
    """Xor-1: opset1's LogicalXor."""

    type, version = "Xor", 1
