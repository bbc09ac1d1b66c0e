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
    rounds = False
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


#: Elements per ``np.fmax`` call of :func:`_relu_into` (256 KiB of float32: in L2 while the
#: -0 fix-up reads them again).
CHUNK = 1 << 16

_zeros: dict = {}  # dtype -> a read-only chunk of zeros


def _relu_into(x, out) -> None:
    """``x > 0 ? x : 0`` into ``out`` (the same shape and dtype; it may be ``x``)."""
    # fmax drops NaN (gives 0). NumPy's fmax with a scalar operand skips its SIMD loop (3.7x
    # slower than with two arrays, measured on NumPy 2.4, f32 and f64 alike), so contiguous
    # data meets an array of zeros, chunk by chunk; anything else takes the scalar (with a
    # Python 0 NumPy would also cast).
    zero = x.dtype.type(0)
    fix_sign = out.dtype.kind in "fV"
    size = x.size
    if size <= 64 or not (x.flags.c_contiguous and out.flags.c_contiguous):
        np.fmax(x, zero, out=out)
        if fix_sign:
            np.add(out, zero, out=out)  # -0 (which fmax may keep) + 0 is +0
        return
    zeros = _zeros.get(x.dtype)
    if zeros is None:
        zeros = _zeros[x.dtype] = np.zeros(CHUNK, x.dtype)
        zeros.flags.writeable = False
    source, target = x.reshape(-1), out.reshape(-1)
    for start in range(0, size, CHUNK):
        stop = min(size, start + CHUNK)
        chunk = target[start:stop]
        np.fmax(source[start:stop], zeros[: stop - start], out=chunk)
        if fix_sign:
            np.add(chunk, zero, out=chunk)  # (while the chunk is in cache)
