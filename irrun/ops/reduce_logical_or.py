"""ReduceLogicalOr-1: true where any element of boolean ``data`` over ``axes`` is true (shape
rule: :mod:`irrun.ops._reduce`; data must be boolean). An empty reduction gives false. Exact.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._reduce import Reduction
from irrun.ops.registry import register


@register
class ReduceLogicalOr(Reduction):
    """ReduceLogicalOr-1."""

    type, version = "ReduceLogicalOr", 1
    logical = True

    def reduce(self, data, axes, keep_dims):
        return np.any(data, axis=axes, keepdims=keep_dims)
