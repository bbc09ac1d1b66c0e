"""Softmax-1 and Softmax-8: ``exp(x) / sum(exp(x))`` along one axis.

Spec facts: one input of any element type (OpenVINO builds even boolean and integer ones;
irrun runs floating-point data only), output of the same shape and type. Attribute ``axis``
(default 1). Softmax-1 takes ``axis`` in ``[0, r-1]`` only (a negative value is an error; a
scalar takes axis 0); Softmax-8 also takes ``[-r, -1]`` (a scalar: 0 and -1). On data of
dynamic rank any axis is accepted.

Kernel as OpenVINO's reference: ``e = exp(x - max(x))`` (numerically stable), ``e / sum(e)``;
f16 and bf16 are computed in f32 and rounded once. An axis of size 0 gives an empty
output (the max starts from -inf). Against the CPU plugin (f32 precision):
rtol 1e-6, atol 1e-7 in f32 (measured: at most 1.8e-7 absolute, 4.5e-7 relative); f16 within
one ulp (rtol 1e-3, atol 1e-3; measured: equal).
"""

from __future__ import annotations

import numpy as np

from irrun.ops._along_axis import AlongAxis
from irrun.ops.registry import register


class _Softmax(AlongAxis):
    def evaluate(self, inputs):
        """``exp(x - max) / sum(exp(x - max))`` along the axis."""
        data = inputs[0]
        wide, axis = self.prepared(data)
        shifted = np.exp(wide - np.max(wide, axis=axis, keepdims=True, initial=-np.inf))
        shifted /= np.sum(shifted, axis=axis, keepdims=True)
        return [shifted.reshape(data.shape).astype(data.dtype, copy=False)]


@register
class Softmax1(_Softmax):
    """Softmax-1: non-negative axis only."""

    type, version = "Softmax", 1
    negative_axes = False


@register
class Softmax8(_Softmax):
    """Softmax-8: negative axes count from the end."""

    type, version = "Softmax", 8
