"""Gelu-2 and Gelu-7: Gaussian error linear unit.

One floating-point input (OpenVINO refuses integers and boolean); the output has its shape
and type. Gelu-2 is ``0.5 * x * (1 + erf(x / sqrt(2)))``; Gelu-7 adds ``approximation_mode``
(``erf``, default, or ``tanh``: ``0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x**3)))``).
Tolerance against the CPU plugin (f32): rtol 1e-5, atol 1e-6 (its erf and tanh are
approximations; irrun's erf form is :func:`irrun.ops._erf.gelu_erf`: for f32 a rational erf
within 1e-7, evaluated in float64 on cache-sized blocks; Cody's float64 erf for f64).
"""

from __future__ import annotations

import numpy as np

from irrun.ops._elementwise import UnaryOp, in_float
from irrun.ops._erf import gelu_erf
from irrun.ops.base import Attribute
from irrun.ops.registry import register

_ROOT_2_OVER_PI = np.sqrt(2 / np.pi)


class _Gelu(UnaryOp):
    category = "float"
    approximation_mode = "erf"

    def compute(self, x):
        if self.approximation_mode != "tanh":
            return in_float(gelu_erf, x.dtype, x)
        if x.dtype == np.float32 and x.size > _BLOCK:
            return _tanh_blocks(x)
        # (narrow floats reach the expression in float32 and round its float64 result once)
        return in_float(_tanh_gelu, x.dtype, x)


def _tanh_gelu(x):
    """``0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x**3)))``: for float32 the cubic
    in float32 and the rest in float64 (NumPy's promotions; :func:`_tanh_blocks` gives its
    float32 rounding block by block)."""
    return 0.5 * x * (1 + np.tanh(_ROOT_2_OVER_PI * (x + 0.044715 * x * x * x)))


#: Elements per block of :func:`_tanh_blocks`: its float64 work array stays in the caches.
_BLOCK = 1 << 16


def _tanh_blocks(x):
    """:func:`_tanh_gelu` of a float32 array, rounded to float32, block by block in place in
    two work arrays: bit for bit the values of the expression, whose NumPy promotions it
    follows (the cubic in float32, ``sqrt(2 / pi)`` a float64 scalar, ``0.5 * x`` float32
    again, the float64 result rounded to float32); about 4x faster than the whole-array
    expression on GPT-2's 128 x 3072, whose eight float64 temporaries exceed the caches."""
    flat = np.ascontiguousarray(x).reshape(-1)
    out = np.empty(flat.size, np.float32)
    cubic = np.empty(min(_BLOCK, flat.size), np.float32)
    work = np.empty(cubic.size, np.float64)
    for low in range(0, flat.size, _BLOCK):
        block = flat[low : low + _BLOCK]
        inner, wide = cubic[: block.size], work[: block.size]
        np.multiply(block, np.float32(0.044715), out=inner)
        inner *= block
        inner *= block
        inner += block
        np.multiply(inner, _ROOT_2_OVER_PI, out=wide)
        np.tanh(wide, out=wide)
        wide += 1
        np.multiply(block, np.float32(0.5), out=inner)
        wide *= inner
        np.copyto(out[low : low + block.size], wide, casting="same_kind")  # (rounded once)
    return out.reshape(x.shape)


@register
class Gelu2(_Gelu):
    """Gelu-2 (erf)."""

    type, version = "Gelu", 2


@register
class Gelu7(_Gelu):
    """Gelu-7 (attribute ``approximation_mode``)."""

    type, version = "Gelu", 7
    attributes = (Attribute("approximation_mode", "enum", "erf", choices=("erf", "tanh")),)
