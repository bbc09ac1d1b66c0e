"""ShuffleChannels-1: split the channel axis into ``group`` groups and interleave them.

Spec facts: one input of rank >= 1 (any type); attributes ``axis`` (default 1, negative counts
from the end) and ``group`` (default 1, >= 1). A static dim at the axis must be a multiple of
the group (an interval is not checked). Output: the data's shape and type.

Kernel: the axis reshaped to ``[group, C / group]``, those two swapped, reshaped back; exact.
"""

from __future__ import annotations

import numpy as np

from irrun.ops.base import Attribute, Op, TensorInfo, lazy_text, normalize_axis_or_report
from irrun.ops.registry import register


@register
class ShuffleChannels(Op):
    """ShuffleChannels-1 (axis, group)."""

    type, version, inputs = "ShuffleChannels", 1, (1, 1)
    rounds = False
    attributes = (Attribute("axis", "int", 1), Attribute("group", "int", 1))

    def infer(self, inputs):
        """The data's shape once the axis and group fit it."""
        (data,) = inputs
        if self.group < 1:
            self.context.error(
                "attribute-value",
                f"{self.describe()}: group {self.group} must be at least 1",
                hint='use group="1" or more',
                line=self.layer.data_line,
            )
            return None
        rank = data.shape.rank
        if rank == 0:
            self.context.error(
                "input-rank",
                f"{self.describe()}: the data must have rank 1 or more, but it is a scalar",
                port=self.input_port(0),
                hint="Reshape the data to 1-D or more",
            )
            return None
        if rank is not None:
            axis = normalize_axis_or_report(self, self.axis, rank)
            if axis is None:
                return None
            dim = data.shape[axis]
            if dim.is_static and dim.lower % self.group:
                self.context.error(
                    "input-dims",
                    f"{self.describe()}: the dim {dim} at axis {self.axis} must be a multiple of "
                    f"group {self.group}",
                    port=self.input_port(0),
                    hint=f"use a group that divides {dim}",
                )
                return None
        why = lazy_text("the data's shape {} (group {})", data.shape, self.group)
        return [TensorInfo(data.shape, data.element_type, why=why)]

    def evaluate(self, inputs):
        """Reshape the axis to ``[group, C / group]`` and swap the two."""
        data = np.asarray(inputs[0])
        axis = self.axis % data.ndim
        size = data.shape[axis]
        if size % self.group:
            raise ValueError(
                f"{self.describe()}: the dim {size} at axis {self.axis} of data "
                f"{list(data.shape)} is no multiple of group {self.group}"
            )
        split = data.reshape(data.shape[:axis] + (self.group, size // self.group)
                             + data.shape[axis + 1 :])  # fmt: skip
        return [np.array(np.swapaxes(split, axis, axis + 1).reshape(data.shape), order="C")]
