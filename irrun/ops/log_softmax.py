"""LogSoftmax-5: ``x - log(sum(exp(x)))`` along one axis.

Spec facts: one input of any element type (irrun runs floating-point data only), output of the
same shape and type; attribute ``axis`` (default 1) in ``[-r, r-1]`` (a scalar: 0 and -1; any
axis on data of dynamic rank). Rules shared with Softmax (:mod:`irrun.ops.softmax`).

Kernel as OpenVINO's reference: ``(x - max) - log(sum(exp(x - max)))`` (numerically stable);
f16 and bf16 computed in f32 and rounded once; an axis of size 0 gives an empty output
(the max starts from -inf). Against the CPU plugin (f32 precision): rtol
1e-6, atol 1e-6 in f32 (measured: at most 9.5e-7 absolute on outputs of size ~10, 3e-6
relative on outputs near 0); f16 within one ulp (rtol 1e-3, atol 1e-3; measured: equal).
"""

from __future__ import annotations

import numpy as np

from irrun.ops._along_axis import AlongAxis
from irrun.ops.registry import register


@register
class LogSoftmax(AlongAxis):
    """LogSoftmax-5."""

    type, version = "LogSoftmax", 5

    def evaluate(self, inputs):
        """``(x - max) - log(sum(exp(x - max)))`` along the axis."""
        data = inputs[0]
        wide, axis = self.prepared(data)
        shifted = wide - np.max(wide, axis=axis, keepdims=True, initial=-np.inf)
        with np.errstate(divide="ignore"):  # log(0) of an empty axis: nothing to subtract from
            shifted -= np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))
        return [shifted.reshape(data.shape).astype(data.dtype, copy=False)]
