"""PRelu-1: ``x < 0 ? x * slope : x``.

Inputs: ``data`` and ``slope``. OpenVINO's shape inference accepts any pair (even differing
element types); the output has the data's shape and type. The kernel follows the reference:
a 1-D slope whose length is the channel dimension (axis 1, or axis 0 for 1-D data) applies
along the channels; any other slope broadcasts numpy-style, and one that does not broadcast
into the data's shape cannot run (irrun raises; OpenVINO's validation does not notice).
The slope is converted to the data's type.
"""

from __future__ import annotations

import numpy as np

from irrun.ops.base import Op, TensorInfo
from irrun.ops.registry import register


@register
class PRelu(Op):
    """PRelu-1."""

    type, version, inputs = "PRelu", 1, (2, 2)
    attributes = ()

    def infer(self, inputs):
        """Output: the data's shape and type."""
        return [TensorInfo(inputs[0].shape, inputs[0].element_type)]

    def evaluate(self, inputs):
        """The reference's channel rule, then numpy broadcasting."""
        x, slope = inputs
        channel = 1 if x.ndim > 1 else 0
        if slope.ndim == 1 and x.ndim > 0 and x.shape[channel] == slope.shape[0]:
            slope = slope.reshape((1,) * channel + (-1,) + (1,) * (x.ndim - channel - 1))
        if np.broadcast_shapes(x.shape, slope.shape) != x.shape:
            raise ValueError(f"{self.describe()}: slope {slope.shape} does not broadcast to "
                             f"the data's shape {x.shape}")  # fmt: skip
        slope = slope.astype(x.dtype, copy=False)
        with np.errstate(all="ignore"):
            return [np.where(x < 0, x * slope, x).astype(x.dtype, copy=False)]
