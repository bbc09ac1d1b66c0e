"""ReduceMin-1: the smallest element of ``data`` over ``axes`` (shape rule:
:mod:`irrun.ops._reduce`).

Numeric data (not boolean). As OpenVINO's reference (``std::min`` from the type's largest
value): NaN elements are skipped, and an empty reduction (or one of NaNs only) gives the
type's largest value (``3.4028235e38`` in f32, not ``inf``). Exact.
"""

from __future__ import annotations

from irrun.ops._reduce import Reduction, extreme, min_of_elements
from irrun.ops.registry import register


@register
class ReduceMin(Reduction):
    """ReduceMin-1."""

    type, version = "ReduceMin", 1
    rounds = False
    combine = staticmethod(min_of_elements)

    def reduce(self, data, axes, keep_dims):
        return extreme(data, axes, keep_dims, largest=False)
