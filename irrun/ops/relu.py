"""Relu-1: ``max(x, 0)``.

One input of any type but boolean; the output has its shape and type. ``x > 0 ? x : 0`` (NaN
gives 0, -0 gives +0).
"""

from __future__ import annotations

import numpy as np

from irrun.ops._elementwise import UnaryOp, _copy_into
from irrun.ops.registry import register


@register
class Relu(UnaryOp):
    """Relu-1."""

    type, version = "Relu", 1
    #: :meth:`evaluate_into` writes the result itself (in place when given the input).
    writes_into = True

    def compute(self, x):
        out = np.empty(x.shape, x.dtype)
        _relu_into(x, out)
        return out

    def evaluate_into(self, inputs, outputs) -> None:
        """:meth:`evaluate` written into ``outputs[0]`` (it may be the input itself)."""
        (x,) = inputs
        (out,) = outputs
        if out.shape == x.shape and out.dtype == x.dtype:
            _relu_into(x, out)
            return
        (result,) = self.evaluate(inputs)
        _copy_into(out, result)


def _relu_into(x, out) -> None:
    """``x > 0 ? x : 0`` into ``out`` (the same shape and dtype; it may be ``x``)."""
    # fmax drops NaN (gives 0); with a zero of x's own type NumPy takes its SIMD loop (with a
    # Python 0 it casts, 1.3x slower), as fast as np.clip and in one pass.
    zero = x.dtype.type(0)
    np.fmax(x, zero, out=out)
    if out.dtype.kind in "fV":
        np.add(out, zero, out=out)  # -0 (which fmax may keep) + 0 is +0
