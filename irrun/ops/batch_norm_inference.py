"""BatchNormInference-1 and -5: ``(x - mean) / sqrt(variance + epsilon) * gamma + beta`` per
channel (axis 1).

Inputs (the order differs between the versions; OpenVINO's v0 constructor reorders them):

- BatchNormInference-1: ``gamma``, ``beta``, ``data``, ``mean``, ``variance``;
- BatchNormInference-5: ``data``, ``gamma``, ``beta``, ``mean``, ``variance``.

Attribute ``epsilon`` (float, required; OpenVINO refuses a negative one). Shape rule as
OpenVINO's ``batch_norm_shape_inference.hpp``: the data has rank 2 or more; the four channel
inputs' shapes merge into one of rank 1, whose dim merges with the data's channel dim (axis 1),
which must not be a static 0; the output is the data's shape with that merged channel dim
(``[2,1..5,7]`` with gamma ``[3..9]`` gives ``[2,3..5,7]``). Element types: all five merge
into one (``dynamic`` merges with any), floating point.

Kernel as OpenVINO's reference (``batch_norm.hpp``), every step in the element type (f16,
bf16: in f32, rounded once, as the CPU plugin computes them): ``(x - mean) / sqrt(variance +
eps) * gamma + beta``. Tolerance against the CPU plugin (f32): rtol 1e-5, atol 1e-5 (it folds
the channel inputs into one scale and shift, ``x * s + t``, whose rounding cancels near 0:
measured at most 3.8e-6 absolute on outputs up to 28); f16: 1 f16 ulp (rtol 2e-3, atol
2e-3).
"""

from __future__ import annotations

import numpy as np

from irrun.ops._elementwise import check_category
from irrun.ops.base import Attribute, Op, TensorInfo, common_element_type
from irrun.ops.registry import register
from irrun.shape import Shape

_CHANNEL_NAMES = ("gamma", "beta", "mean", "variance")


class _BatchNorm(Op):
    inputs = (5, 5)
    attributes = (Attribute("epsilon", "float", 0.0, required=True),)
    #: positions of data, gamma, beta, mean, variance
    order = (0, 1, 2, 3, 4)

    def setup(self):
        if self.epsilon < 0:
            self.context.error(
                "attribute-value",
                f"{self.describe()}: epsilon {self.epsilon} is negative; OpenVINO refuses it",
                hint='use an epsilon of 0 or more, e.g. epsilon="1e-05"',
                line=self.layer.data_line,
            )
            self.incomplete = True

    def infer(self, inputs):
        """The data's shape with its channel dim merged with the channel inputs' one dim."""
        data_port, *channel_ports = self.order
        etype = common_element_type(self, inputs)
        if etype is None or not check_category(self, etype, "float", data_port):
            return None
        data = inputs[data_port].shape
        if data.rank is not None and data.rank < 2:
            self.context.error(
                "input-rank",
                f"{self.describe()}: the data must have rank 2 or more (axis 1 is the channel "
                f"axis), but its shape is {data}",
                port=self.input_port(data_port),
                hint="give the data a batch and a channel axis, e.g. [N,C] or [N,C,H,W]",
            )
            return None
        channel = inputs[channel_ports[0]].shape
        for name, port in zip(_CHANNEL_NAMES[1:], channel_ports[1:]):
            merged = channel.merge(inputs[port].shape)
            if merged is None:
                listing = ", ".join(f"{n} {inputs[p].shape}"
                                    for n, p in zip(_CHANNEL_NAMES, channel_ports))  # fmt: skip
                self.context.error(
                    "input-dims",
                    f"{self.describe()}: the shapes of gamma, beta, mean and variance must "
                    f"match, but {listing}",
                    port=self.input_port(port),
                    hint=f"give {name} the shape of gamma, [C]",
                )
                return None
            channel = merged
        if channel.rank is not None and channel.rank != 1:
            self.context.error(
                "input-rank",
                f"{self.describe()}: gamma, beta, mean and variance must be 1-D, but their "
                f"shape is {channel}",
                port=self.input_port(channel_ports[0]),
                hint="give them the shape [C], C the data's channel count",
            )
            return None
        if data.rank is None:
            return [TensorInfo(data, etype, why="the shape of the data")]
        dims = list(data.dims)
        if channel.rank is not None:
            merged = dims[1].merge(channel.dims[0])
            if merged is None:
                self.context.error(
                    "input-dims",
                    f"{self.describe()}: the data's channel dim (axis 1) {dims[1]} does not "
                    f"match the length {channel.dims[0]} of gamma, beta, mean and variance",
                    port=self.input_port(data_port),
                    hint="give gamma, beta, mean and variance one element per channel",
                )
                return None
            dims[1] = merged
        if dims[1].is_static and dims[1].value < 1:
            self.context.error(
                "input-dims",
                f"{self.describe()}: the channel count must be at least 1, but the data's "
                f"shape is {data}",
                port=self.input_port(data_port),
                hint="give the data at least one channel",
            )
            return None
        why = "the shape of the data, its channels merged with gamma's"
        return [TensorInfo(Shape(dims), etype, why=why)]

    def evaluate(self, inputs):
        """The reference's formula, per channel."""
        x, gamma, beta, mean, variance = (inputs[i] for i in self.order)
        dtype = x.dtype
        if dtype.kind != "f" and "float" not in dtype.name:
            raise NotImplementedError(f"irrun runs BatchNormInference on floats, not {dtype}")
        work = np.float32 if dtype.itemsize < 4 else dtype
        shape = (1, -1) + (1,) * (x.ndim - 2)
        gamma, beta, mean, variance = (a.astype(work).reshape(shape)
                                       for a in (gamma, beta, mean, variance))  # fmt: skip
        eps = np.asarray(self.epsilon, dtype=np.float32).astype(work)
        with np.errstate(all="ignore"):
            out = (x.astype(work) - mean) / np.sqrt(variance + eps) * gamma + beta
        return [out.astype(dtype, copy=False)]


@register
class BatchNormInference1(_BatchNorm):
    """BatchNormInference-1 (inputs gamma, beta, data, mean, variance)."""

    type, version = "BatchNormInference", 1
    order = (2, 0, 1, 3, 4)


@register
class BatchNormInference5(_BatchNorm):
    """BatchNormInference-5 (inputs data, gamma, beta, mean, variance)."""

    type, version = "BatchNormInference", 5
