"""Softmax-1 and Softmax-8: ``exp(x) / sum(exp(x))`` along one axis.

Spec facts: one input of any element type (OpenVINO builds even boolean and integer ones;
irrun runs floating-point data only), output of the same shape and type. Attribute ``axis``
(default 1). Softmax-1 takes ``axis`` in ``[0, r-1]`` only (a negative value is an error; a
scalar takes axis 0); Softmax-8 also takes ``[-r, -1]`` (a scalar: 0 and -1). On data of
dynamic rank any axis is accepted.

Kernel as OpenVINO's reference: ``e = exp(x - max(x))`` (numerically stable), ``e / sum(e)``;
f16 and bf16 are computed in f32 and rounded once. Against the CPU plugin (f32 precision):
rtol 1e-6, atol 1e-7 in f32 (measured: at most 1.8e-7 absolute, 4.5e-7 relative); f16 within
one ulp (rtol 1e-3, atol 1e-3; measured: equal).
"""

from __future__ import annotations

import numpy as np

from irrun.ops.base import Attribute, Op, TensorInfo
from irrun.ops.registry import register


class AlongAxis(Op):
    """An op of one input, output like the input, along attribute ``axis`` (Softmax,
    LogSoftmax); ``negative_axes``: whether the version takes negative axes."""

    inputs = (1, 1)
    attributes = (Attribute("axis", "int", 1),)
    negative_axes = True

    def setup(self):
        if not self.negative_axes and self.axis < 0:
            self.context.error(
                "attribute-value",
                f"{self.describe()}: axis {self.axis} is negative, which {self.label} does not "
                "allow (Softmax-8 does)",
                hint=f'use axis {self.axis} + rank, or Softmax-8 (version="opset8")',
                line=self.layer.data_line,
            )
            self.incomplete = True

    def infer(self, inputs):
        """The input's shape and element type, once the axis is checked against its rank."""
        data = inputs[0]
        rank = data.shape.rank
        if rank is not None:
            r = max(rank, 1)
            low = -r if self.negative_axes else 0
            if not low <= self.axis < r:
                self.context.error(
                    "axis-range",
                    f"{self.describe()}: axis {self.axis} is out of the range [{low}, {r - 1}] "
                    f"allowed for data of rank {rank} (shape {data.shape})",
                    port=self.input_port(0),
                    hint=f"use an axis between {low} and {r - 1}",
                )
                return None
        return [TensorInfo(data.shape, data.element_type, why="the shape of the data")]

    def prepared(self, data: np.ndarray):
        """``(data as a float array of rank >= 1, axis normalised)``, the kernel's inputs."""
        if data.dtype.kind != "f" and "float" not in data.dtype.name:
            raise NotImplementedError(f"irrun runs {self.label} on floating-point data only, "
                                      f"not {data.dtype}")  # fmt: skip
        wide = data.astype(np.float32) if data.dtype.itemsize < 4 else data
        wide = wide.reshape(1) if wide.ndim == 0 else wide
        axis = self.axis + wide.ndim if self.axis < 0 else self.axis
        return wide, axis


class _Softmax(AlongAxis):
    def evaluate(self, inputs):
        """``exp(x - max) / sum(exp(x - max))`` along the axis."""
        data = inputs[0]
        wide, axis = self.prepared(data)
        shifted = np.exp(wide - np.max(wide, axis=axis, keepdims=True))
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
