"""ReorgYolo-2 (OpenVINO's ``v0::ReorgYolo``, first in opset2): YOLOv2's passthrough layer,
space-to-depth in Darknet's own element order.

Spec facts: input ``[N, C, H, W]`` of any element type; attribute ``stride`` (a list; the
first value is the stride ``s``). Output ``[N, C * s * s, H / s, W / s]``; C must be at least
``s * s`` and H and W multiples of ``s`` (intervals divide as OpenVINO does: ``2..9`` / 2 is
``1..4``; an interval without a multiple is an error).

Kernel (OpenVINO's reference ``reorg_yolo.cpp``, which indexes as Darknet's backward reorg):
the input read as ``[N, C / s**2, H * s, W * s]``, split into ``[N, C / s**2, H, s, W, s]``,
transposed to ``[N, s, s, C / s**2, H, W]`` and read back in the output's shape. Exact (data
movement).
"""

from __future__ import annotations

import numpy as np

from irrun.ops._blocks import divide_dim
from irrun.ops.base import Attribute, Op, TensorInfo
from irrun.ops.registry import register
from irrun.shape import Dim, Shape


@register
class ReorgYolo(Op):
    """ReorgYolo-2."""

    type, version, inputs = "ReorgYolo", 2, (1, 1)
    rounds = False
    attributes = (Attribute("stride", "ints", [1], required=True),)

    def setup(self):
        if not self.stride or self.stride[0] < 1:
            self.context.error(
                "attribute-value",
                f"{self.describe()}: stride {self.stride} must start with a size >= 1",
                hint='write stride="2"',
                line=self.layer.data_line,
            )
            self.incomplete = True
            self.stride = [1]

    def infer(self, inputs):
        """``[N, C * s * s, H / s, W / s]``."""
        (data,) = inputs
        shape, stride = data.shape, self.stride[0]
        if not shape.rank_is_static:
            return [TensorInfo(shape, data.element_type, why="the input rank is not known")]
        if shape.rank != 4:
            self.context.error(
                "input-rank",
                f"{self.describe()}: the input must have rank 4 ([N, C, H, W]), but its shape is "
                f"{shape}",
                port=self.input_port(0),
                hint="give the input the shape [N, C, H, W]",
            )
            return None
        area = stride * stride
        if shape[1].is_static and shape[1].lower < area:
            self.context.error(
                "input-dims",
                f"{self.describe()}: the input {shape} must have at least stride * stride = "
                f"{stride} * {stride} = {area} channels, but it has {shape[1]}",
                port=self.input_port(0),
                hint="use a smaller stride",
            )
            return None
        spatial = []
        for axis in (2, 3):
            divided = divide_dim(shape[axis], stride)
            if divided is None:
                self.context.error(
                    "input-dims",
                    f"{self.describe()}: dim {axis} of the input {shape} ({shape[axis]}) must be "
                    f"a multiple of the stride {stride}",
                    port=self.input_port(0),
                    hint="give H and W multiples of the stride",
                )
                return None
            spatial.append(divided)
        out = Shape([shape[0], shape[1] * Dim(area), *spatial])
        why = f"[N, C * {area}, H / {stride}, W / {stride}] of {shape}"
        return [TensorInfo(out, data.element_type, why=why)]

    def evaluate(self, inputs):
        """A reshape, a transpose and a reshape."""
        data = np.asarray(inputs[0])
        batches, channels, height, width = data.shape
        stride = self.stride[0]
        groups = channels // (stride * stride)
        if groups == 0:
            raise ValueError(f"{self.describe()}: C = {channels} < stride * stride")
        blocks = data.reshape(batches, groups, height, stride, width, stride)
        moved = blocks.transpose(0, 3, 5, 1, 2, 4)
        return [np.ascontiguousarray(moved).reshape(batches, channels * stride * stride,
                                                    height // stride, width // stride)]  # fmt: skip
