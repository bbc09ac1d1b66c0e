"""ReduceMax-1: the largest element of ``data`` over ``axes`` (shape rule:
:mod:`irrun.ops._reduce`).

Numeric data (not boolean). As OpenVINO's reference (``std::max`` from the type's lowest
value): NaN elements are skipped, and an empty reduction (or one of NaNs only) gives the
type's lowest value (``-3.4028235e38`` in f32, not ``-inf``). Exact.
"""

from __future__ import annotations

from irrun.ops._reduce import Reduction, extreme, max_of_elements
from irrun.ops.registry import register


@register
class ReduceMax(Reduction):
    """ReduceMax-1."""

    type, version = "ReduceMax", 1
    rounds = False
    combine = staticmethod(max_of_elements)

    def reduce(self, data, axes, keep_dims):
        return extreme(data, axes, keep_dims, largest=True)
