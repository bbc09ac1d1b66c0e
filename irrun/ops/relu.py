"""Relu-1: ``max(x, 0)``.

One input of any type but boolean; the output has its shape and type. ``x > 0 ? x : 0`` (NaN
gives 0, -0 gives +0).
"""

from __future__ import annotations

import numpy as np

from irrun.ops._elementwise import UnaryOp
from irrun.ops.registry import register


@register
class Relu(UnaryOp):
    """Relu-1."""

    type, version = "Relu", 1

    def compute(self, x):
        out = np.empty(x.shape, x.dtype)
        if x.dtype.kind == "f" and x.dtype.itemsize >= 4:
            # np.clip with two bounds is NumPy's fastest SIMD path (3x np.fmax), but keeps NaN:
            # a NaN found (a quick isnan pass) takes fmax, which gives 0 for it
            np.clip(x, 0, np.inf, out=out)
            if np.isnan(out).any():
                np.fmax(x, 0, out=out)
        else:
            # fmax drops NaN (gives 0) in one pass, 12x faster than np.where(x > 0, x, 0)
            np.fmax(x, 0, out=out)
        if out.dtype.kind in "fV":
            np.add(out, 0, out=out)  # -0 (which clip and fmax may keep) + 0 is +0
        return out
