"""PriorBoxClustered-1: prior boxes of given widths and heights at every location of a
feature map (SSD with clustered anchors), with their variances.

Spec facts: inputs output_size (``[H, W]``) and image_size (``[IH, IW]``), 1-D integer
tensors. Attributes ``width`` and ``height`` (one box per pair; as many of each), ``clip``
(default true), ``step``, ``step_w``, ``step_h`` (0: ``step``, and with both 0 the image size
over the feature map size), ``offset`` and ``variance`` (0, 1 or 4 values; default 0.1).
Output f32 ``[2, H * W * len(width) * 4]``: row 0 ``[xmin, ymin, xmax, ymax]`` of each box
normalised by the image size (``(center - width / 2) / IW``), row 1 the variances.

Kernel (OpenVINO's reference ``prior_box_clustered.hpp``) vectorised over locations and
boxes in float32. Exact against the reference; the CPU plugin within ``rtol=1e-6,
atol=1e-6``.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._priors import feature_size, prior_boxes_shape
from irrun.ops.base import Attribute, Op
from irrun.ops.registry import register


@register
class PriorBoxClustered(Op):
    """PriorBoxClustered-1."""

    type, version, inputs = "PriorBoxClustered", 1, (2, 2)
    attributes = (
        Attribute("width", "floats", []),
        Attribute("height", "floats", []),
        Attribute("clip", "bool", True),
        Attribute("step", "float", 0.0),
        Attribute("step_w", "float", 0.0),
        Attribute("step_h", "float", 0.0),
        Attribute("offset", "float", 0.0, required=True),
        Attribute("variance", "floats", []),
    )

    def setup(self):
        if len(self.width) != len(self.height):
            self.context.error(
                "attribute-value",
                f"{self.describe()}: width has {len(self.width)} values and height "
                f"{len(self.height)}; each box needs both",
                hint="give as many heights as widths",
                line=self.layer.data_line,
            )
            self.incomplete = True

    def infer(self, inputs):
        """``[2, H * W * len(width) * 4]``."""
        return prior_boxes_shape(self, inputs, len(self.width))

    def evaluate(self, inputs):
        """The boxes of every location at once, then the variances."""
        f32 = np.float32
        height, width = feature_size(np.asarray(inputs[0]))
        image_h, image_w = feature_size(np.asarray(inputs[1]))
        if len(self.variance) not in (0, 1, 4):
            raise ValueError(f"{self.describe()}: variance {self.variance} must have 0, 1 or 4 "
                             "values")  # fmt: skip
        step_w = f32(self.step if self.step_w == 0 else self.step_w)
        step_h = f32(self.step if self.step_h == 0 else self.step_h)
        if step_w == 0 and step_h == 0:
            step_w, step_h = f32(image_w) / f32(width), f32(image_h) / f32(height)
        center_x = (np.arange(width, dtype=f32) + f32(self.offset)) * step_w  # [W]
        center_y = (np.arange(height, dtype=f32) + f32(self.offset)) * step_h  # [H]
        half_w = np.array(self.width, f32) / f32(2)
        half_h = np.array(self.height, f32) / f32(2)
        shape = (height, width, len(half_w))
        xmin = np.broadcast_to((center_x[None, :, None] - half_w) / f32(image_w), shape)
        ymin = np.broadcast_to((center_y[:, None, None] - half_h) / f32(image_h), shape)
        xmax = np.broadcast_to((center_x[None, :, None] + half_w) / f32(image_w), shape)
        ymax = np.broadcast_to((center_y[:, None, None] + half_h) / f32(image_h), shape)
        boxes = np.stack([xmin, ymin, xmax, ymax], axis=-1).reshape(-1)
        if self.clip:
            boxes = np.minimum(np.maximum(boxes, f32(0)), f32(1))
        variance = [f32(v) for v in self.variance] or [f32(0.1)]
        variances = np.resize(np.array(variance if len(variance) == 4 else variance * 4, f32),
                              boxes.size)  # fmt: skip
        return [np.stack([boxes, variances]).astype(f32)]
