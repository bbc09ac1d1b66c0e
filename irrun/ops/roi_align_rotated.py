"""ROIAlignRotated-15: bilinear samples of a feature map averaged over each bin of each rotated
region of interest.

Spec facts: inputs data ``[N, C, H, W]`` and rois ``[num_rois, 5]`` (``[x_center, y_center,
width, height, angle]``, the angle in radians) of one floating-point type, and batch_indices
``[num_rois]`` (an integer type). Attributes ``pooled_h``, ``pooled_w``, ``sampling_ratio``
(samples per bin side; 0: ``ceil`` of the bin size, per ROI), ``spatial_scale`` and
``clockwise_mode`` (true: the angle turns clockwise). Output ``[num_rois, C, pooled_h,
pooled_w]`` of data's type (num_rois merged with batch_indices' dim). OpenVINO checks no
attribute value.

Kernel (OpenVINO's reference ``roi_align.hpp``, ``ROIAlignRotatedOpDefPolicy``): centre
``roi * spatial_scale - 0.5``, size ``roi * spatial_scale`` (no minimum of 1), the angle
negated when clockwise; a sample ``(px, py)`` of the box's frame (``-width/2 + bin * bin_w +
step * (i + 0.5)``) goes to ``x = py * sin + px * cos + cx``, ``y = py * cos - px * sin + cy``;
a sample outside ``[-1, W] x [-1, H]`` counts as 0, others are clamped at 0 and interpolated
from their four neighbours; each bin adds ``sample / count`` in sample order. Vectorised
over ROIs, bins and channels, looping over the samples of a bin and the distinct per-ROI
sample counts; in f32 (f16/bf16 data computed in f32 and rounded). A batch index outside
``[0, N)`` is an error when run. Tolerance against the CPU plugin: ``rtol=1e-5, atol=1e-5``.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._rois import check_batch_indices, roi_align_shape
from irrun.ops.base import Attribute, Op
from irrun.ops.registry import register


@register
class ROIAlignRotated(Op):
    """ROIAlignRotated-15."""

    type, version, inputs = "ROIAlignRotated", 15, (3, 3)
    attributes = (
        Attribute("pooled_h", "int", 1, required=True),
        Attribute("pooled_w", "int", 1, required=True),
        Attribute("sampling_ratio", "int", 0, required=True),
        Attribute("spatial_scale", "float", 1.0, required=True),
        Attribute("clockwise_mode", "bool", False),
    )

    def infer(self, inputs):
        """``[num_rois, C, pooled_h, pooled_w]``."""
        return roi_align_shape(self, inputs, 5, "[num_rois, 5]")

    def evaluate(self, inputs):
        """Rotated bilinear samples averaged per bin; vectorised over ROIs and channels."""
        data, rois, batch_indices = (np.asarray(a) for a in inputs)
        out_dtype = data.dtype
        data = data.astype(np.float32)
        rois = rois.astype(np.float32).reshape(-1, 5)
        batch_indices = batch_indices.astype(np.int64).reshape(-1)
        batches, channels, height, width = data.shape
        check_batch_indices(self, batch_indices, data.shape)
        pooled_h, pooled_w = self.pooled_h, self.pooled_w
        out = np.zeros((len(rois), channels, pooled_h, pooled_w), np.float32)
        if out.size == 0:
            return [out.astype(out_dtype)]
        scale = np.float32(self.spatial_scale)
        half = np.float32(0.5)
        center_x = rois[:, 0] * scale - half
        center_y = rois[:, 1] * scale - half
        roi_w, roi_h = rois[:, 2] * scale, rois[:, 3] * scale
        angle = -rois[:, 4] if self.clockwise_mode else rois[:, 4]
        frame = (center_x, center_y, np.cos(angle), np.sin(angle),
                 -roi_w / np.float32(2), -roi_h / np.float32(2))  # fmt: skip
        bin_w, bin_h = roi_w / np.float32(pooled_w), roi_h / np.float32(pooled_h)
        if self.sampling_ratio == 0:
            ratio_x, ratio_y = np.ceil(bin_w).astype(np.int64), np.ceil(bin_h).astype(np.int64)
        else:
            ratio_x = ratio_y = np.full(len(rois), self.sampling_ratio, np.int64)
        if (ratio_x < 0).any() or (ratio_y < 0).any():
            raise ValueError(
                f"{self.describe()}: a ROI has a negative size, so sampling_ratio=0 gives a "
                "negative sample count (OpenVINO fails on it too)"
            )
        data = np.ascontiguousarray(data.transpose(0, 2, 3, 1))  # channels last for gathers
        pairs = np.stack([ratio_y, ratio_x], axis=1)
        for ry, rx in np.unique(pairs, axis=0):
            group = np.flatnonzero((ratio_y == ry) & (ratio_x == rx))
            part = tuple(v[group] for v in frame)
            out[group] = self._pool(data, batch_indices[group], part, bin_w[group],
                                    bin_h[group], int(ry), int(rx))  # fmt: skip
        return [out.astype(out_dtype)]

    def _pool(self, data, batch_indices, frame, bin_w, bin_h, ratio_y, ratio_x):
        """One group of ROIs sharing their sample counts: ``[rois, C, pooled_h, pooled_w]``."""
        _, height, width, channels = data.shape
        center_x, center_y, cos, sin, x1, y1 = (v[:, None, None] for v in frame)
        count = ratio_y * ratio_x
        pooled = np.zeros((len(batch_indices), self.pooled_h, self.pooled_w, channels), np.float32)
        if count == 0:
            return pooled.transpose(0, 3, 1, 2)
        step_y = (bin_h / np.float32(ratio_y))[:, None, None]
        step_x = (bin_w / np.float32(ratio_x))[:, None, None]
        bins_y = np.arange(self.pooled_h, dtype=np.float32)[None, :, None]
        bins_x = np.arange(self.pooled_w, dtype=np.float32)[None, None, :]
        bin_h, bin_w = bin_h[:, None, None], bin_w[:, None, None]
        half, one, zero = np.float32(0.5), np.float32(1), np.float32(0)
        rows = batch_indices[:, None, None]
        divisor = np.float32(count)
        for sample_y in range(ratio_y):
            pre_y = y1 + bins_y * bin_h + step_y * (np.float32(sample_y) + half)
            for sample_x in range(ratio_x):
                pre_x = x1 + bins_x * bin_w + step_x * (np.float32(sample_x) + half)
                y = pre_y * cos - pre_x * sin + center_y  # [rois, ph, pw]
                x = pre_y * sin + pre_x * cos + center_x
                valid = (x >= -one) & (x <= np.float32(width)) & (y >= -one) & (
                    y <= np.float32(height))  # fmt: skip
                y_low, y_high, ly = _neighbours(np.maximum(y, zero), height, valid)
                x_low, x_high, lx = _neighbours(np.maximum(x, zero), width, valid)
                hy, hx = one - ly, one - lx
                value = None
                corners = ((hy * hx, y_low, x_low), (hy * lx, y_low, x_high),
                           (ly * hx, y_high, x_low), (ly * lx, y_high, x_high))  # fmt: skip
                for weight, yi, xi in corners:
                    weight = np.where(valid, weight, zero)[..., None]
                    term = weight * data[rows, yi, xi]
                    value = term if value is None else value + term
                pooled = pooled + value / divisor
        return pooled.transpose(0, 3, 1, 2)


def _neighbours(coords, size, valid):
    """Low and high neighbours along one axis and the fraction (a sample at or past the last
    row or column sits on it)."""
    low = np.trunc(np.where(valid, coords, 0)).astype(np.int64)
    at_edge = low >= size - 1
    low = np.where(at_edge, size - 1, low)
    high = np.where(at_edge, size - 1, low + 1)
    coords = np.where(at_edge, low.astype(np.float32), coords)
    return low, high, (coords - low.astype(np.float32)).astype(np.float32)
