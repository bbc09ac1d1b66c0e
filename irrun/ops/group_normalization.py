"""GroupNormalization-12: the channels (axis 1) split into ``num_groups`` groups; each group of
each batch normalised by its mean and variance, then scaled and shifted per channel.

Inputs: ``data`` (rank 2 or more), ``scale`` and ``bias`` (1-D, one element per channel).
Attributes ``num_groups`` (int, required, positive) and ``epsilon`` (float, required; OpenVINO
accepts a negative one). Shape rule as OpenVINO's ``group_normalization_shape_inference.hpp``:
scale and bias of rank 1 (or dynamic), compatible with each other and with the data's channel
dim; with a static channel count, ``num_groups <= C`` and ``C % num_groups == 0``. The output
is the data's shape and element type (OpenVINO checks no element type: mixed ones build).

Kernel as OpenVINO's reference (``group_normalization.hpp``): ``mean`` and ``variance =
mean((x - mean)^2)`` over each group, ``(x - mean) / sqrt(variance + eps) * scale[c] +
bias[c]``; irrun sums in float64 and rounds to the element type once per sum (the
reference's Kahan sums give the same but in rare ties). Floating-point data only (f16, bf16:
in f32, rounded once); scale and bias are converted to the data's type. Tolerance against the
CPU plugin (f32): rtol 1e-5, atol 1e-5 (measured: at most 9.6e-7 absolute on outputs up to 5.3);
f16: 1 f16 ulp (rtol 2e-3, atol 2e-3).
"""

from __future__ import annotations

import numpy as np

from irrun.ops.base import Attribute, Op, TensorInfo
from irrun.ops.registry import register

_NAMES = ("data", "scale", "bias")


@register
class GroupNormalization(Op):
    """GroupNormalization-12."""

    type, version, inputs = "GroupNormalization", 12, (3, 3)
    attributes = (
        Attribute("num_groups", "int", 0, required=True),
        Attribute("epsilon", "float", 0.0, required=True),
    )

    def setup(self):
        if self.num_groups <= 0:
            self.context.error(
                "attribute-value",
                f"{self.describe()}: num_groups {self.num_groups} is not a positive integer",
                hint='use num_groups="1" or more, dividing the channel count',
                line=self.layer.data_line,
            )
            self.incomplete = True

    def _error(self, code, port, message, hint):
        self.context.error(code, f"{self.describe()}: {message}", port=self.input_port(port),
                           hint=hint)  # fmt: skip

    def infer(self, inputs):
        """The data's shape and type, once scale, bias and the groups fit the channels."""
        data, scale, bias = (info.shape for info in inputs)
        for port, shape in ((1, scale), (2, bias)):
            if shape.rank is not None and shape.rank != 1:
                self._error("input-rank", port, f"{_NAMES[port]} must be 1-D, but its shape "
                            f"is {shape}", f"give {_NAMES[port]} the shape [C]")  # fmt: skip
                return None
        if data.rank is not None:
            if data.rank < 2:
                self._error("input-rank", 0, f"the data must have rank 2 or more (axis 1 is the "
                            f"channel axis), but its shape is {data}",
                            "give the data a batch and a channel axis")  # fmt: skip
                return None
            channels = data.dims[1]
            for port, shape in ((1, scale), (2, bias)):
                if shape.rank is not None and not channels.compatible(shape.dims[0]):
                    self._error("input-dims", port, f"{_NAMES[port]} {shape} does not match the "
                                f"data's channel dim (axis 1) {channels}",
                                f"give {_NAMES[port]} one element per channel")  # fmt: skip
                    return None
            if channels.is_static and self.num_groups > 0:
                count = channels.value
                if self.num_groups > count or count % self.num_groups:
                    self._error("input-dims", 0, f"{count} channels do not split into "
                                f"num_groups={self.num_groups} equal groups ({count} % "
                                f"{self.num_groups} = {count % self.num_groups})",
                                "use a num_groups that divides the channel count")  # fmt: skip
                    return None
        if not scale.compatible(bias):
            self._error("input-dims", 2, f"scale {scale} and bias {bias} must have one shape",
                        "give scale and bias one element per channel")  # fmt: skip
            return None
        return [TensorInfo(data, inputs[0].element_type, why="the shape of the data")]

    def evaluate(self, inputs):
        """The reference's formula, vectorised over batches and groups."""
        x, scale, bias = inputs
        dtype = x.dtype
        if dtype.kind != "f" and "float" not in dtype.name:
            raise NotImplementedError(f"irrun runs GroupNormalization on floats, not {dtype}")
        work = np.dtype(np.float32) if dtype.itemsize < 4 else dtype
        data = x.astype(work)
        groups = data.reshape(x.shape[0], self.num_groups, -1)
        size = groups.shape[2]
        with np.errstate(all="ignore"):
            mean = (np.sum(groups, axis=2, keepdims=True, dtype=np.float64).astype(work)
                    / work.type(size))  # fmt: skip
            centred = groups - mean
            variance = (np.sum(centred * centred, axis=2, keepdims=True, dtype=np.float64)
                        .astype(work) / work.type(size))  # fmt: skip
            deviation = np.sqrt(variance + np.asarray(self.epsilon, np.float32).astype(work))
            normal = (centred / deviation).reshape(x.shape)
            shape = (1, -1) + (1,) * (x.ndim - 2)
            out = normal * scale.astype(work).reshape(shape) + bias.astype(work).reshape(shape)
        return [out.astype(dtype, copy=False)]
