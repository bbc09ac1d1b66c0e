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
        function = _tanh_gelu if self.approximation_mode == "tanh" else gelu_erf
        return in_float(function, x.dtype, x)


def _tanh_gelu(x):
    return 0.5 * x * (1 + np.tanh(_ROOT_2_OVER_PI * (x + 0.044715 * x * x * x)))


@register
class Gelu2(_Gelu):
    """Gelu-2 (erf)."""

    type, version = "Gelu", 2


@register
class Gelu7(_Gelu):
    """Gelu-7 (attribute ``approximation_mode``)."""

    type, version = "Gelu", 7
    attributes = (Attribute("approximation_mode", "enum", "erf", choices=("erf", "tanh")),)
