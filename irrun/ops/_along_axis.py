"""The shared shape rule of Softmax and LogSoftmax: one input, an output like it, an ``axis``."""

from __future__ import annotations

import numpy as np

from irrun.ops.base import Attribute, Op, TensorInfo

__all__ = ["AlongAxis"]


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
