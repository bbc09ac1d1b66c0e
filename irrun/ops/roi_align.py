"""ROIAlign-3 and ROIAlign-9: bilinear samples of a feature map, averaged or maxed over each
bin of each region of interest.

Spec facts: inputs data ``[N, C, H, W]`` and rois ``[num_rois, 4]`` (``[x1, y1, x2, y2]`` in
image coordinates) of one floating-point type, and batch_indices ``[num_rois]`` (any integer
type). Attributes ``pooled_h``, ``pooled_w``, ``sampling_ratio`` (samples per bin side; 0:
``ceil`` of the bin size, per ROI), ``spatial_scale``, ``mode`` (avg, max) and, in ROIAlign-9,
``aligned_mode`` (asymmetric, half_pixel_for_nn, half_pixel; ROIAlign-3 is asymmetric).
Output ``[num_rois, C, pooled_h, pooled_w]`` of data's type (num_rois merged with
batch_indices' dim). OpenVINO checks no attribute value.

Kernel (OpenVINO's reference ``roi_align.hpp``): ``x1 = (roi + offset_src) * spatial_scale +
offset_dst`` (offsets 0/0 asymmetric, 0/-0.5 half_pixel_for_nn, 0.5/-0.5 half_pixel); sizes at
least 1 in asymmetric mode; sample ``(iy + 0.5) * bin_h / ratio`` into each bin; a sample
outside ``[-1, H] x [-1, W]`` counts as 0, others are clamped at 0 and interpolated from their
four neighbours (``w1*p1 + w2*p2 + w3*p3 + w4*p4``). ``avg`` adds ``sample / count`` in sample
order; ``max`` keeps the largest sample, starting from 0 (so a bin of negative samples gives 0,
as in the reference and the CPU plugin). Vectorised over ROIs (in chunks), channels and bins,
looping over the samples of a bin and over the distinct per-ROI sample counts; all in
float32 (f16 and bf16 data are computed in f32 and rounded, as the CPU plugin does). A batch
index outside ``[0, N)`` or a negative bin size with ``sampling_ratio=0`` is an error when run.
Tolerance against the CPU plugin: ``rtol=1e-5, atol=1e-5`` (it sums in another order).
"""

from __future__ import annotations

import numpy as np

from irrun.ops._rois import check_batch_indices, roi_align_shape, roi_chunks
from irrun.ops.base import Attribute, Op
from irrun.ops.registry import register

_OFFSETS = {"asymmetric": (0.0, 0.0), "half_pixel_for_nn": (0.0, -0.5), "half_pixel": (0.5, -0.5)}


class _ROIAlign(Op):
    inputs = (3, 3)
    attributes = (
        Attribute("pooled_h", "int", 1, required=True),
        Attribute("pooled_w", "int", 1, required=True),
        Attribute("sampling_ratio", "int", 0, required=True),
        Attribute("spatial_scale", "float", 1.0, required=True),
        Attribute("mode", "enum", "avg", required=True, choices=("avg", "max")),
        Attribute(
            "aligned_mode",
            "enum",
            "asymmetric",
            since=9,
            choices=("asymmetric", "half_pixel_for_nn", "half_pixel"),
        ),  # fmt: skip
    )
    aligned_mode = "asymmetric"

    def infer(self, inputs):
        """``[num_rois, C, pooled_h, pooled_w]``."""
        return roi_align_shape(self, inputs, 4, "[num_rois, 4]")

    def evaluate(self, inputs):
        """Bilinear samples per bin, averaged or maxed; vectorised over ROIs and channels."""
        data, rois, batch_indices = (np.asarray(a) for a in inputs)
        out_dtype = data.dtype
        data = data.astype(np.float32)
        rois = rois.astype(np.float32).reshape(-1, 4)
        batch_indices = batch_indices.astype(np.int64).reshape(-1)
        batches, channels, height, width = data.shape
        check_batch_indices(self, batch_indices, data.shape)
        pooled_h, pooled_w = self.pooled_h, self.pooled_w
        out = np.zeros((len(rois), channels, pooled_h, pooled_w), np.float32)
        if out.size == 0:
            return [out.astype(out_dtype)]
        src, dst = (np.float32(v) for v in _OFFSETS[self.aligned_mode])
        scale = np.float32(self.spatial_scale)
        corners = (rois + src) * scale + dst
        x1, y1 = corners[:, 0], corners[:, 1]
        roi_w, roi_h = corners[:, 2] - x1, corners[:, 3] - y1
        if self.aligned_mode == "asymmetric":
            roi_w, roi_h = np.maximum(roi_w, np.float32(1)), np.maximum(roi_h, np.float32(1))
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
        # channels last: each gather then copies whole channel rows
        data = np.ascontiguousarray(data.transpose(0, 2, 3, 1))
        # ROIs with the same sample counts are computed together
        pairs = np.stack([ratio_y, ratio_x], axis=1)
        for ry, rx in np.unique(pairs, axis=0):
            group = np.flatnonzero((ratio_y == ry) & (ratio_x == rx))
            per_roi = channels * pooled_h * pooled_w
            for part in roi_chunks(len(group), per_roi):
                chosen = group[part]
                sizes = (bin_w[chosen], bin_h[chosen], int(ry), int(rx))
                out[chosen] = self._pool(data, batch_indices[chosen], x1[chosen], y1[chosen],
                                         *sizes)  # fmt: skip
        return [out.astype(out_dtype)]

    def _pool(self, data, batch_indices, x1, y1, bin_w, bin_h, ratio_y, ratio_x):
        """One group of ROIs sharing their sample counts (data channels last ``[N, H, W, C]``):
        ``[rois, C, pooled_h, pooled_w]``."""
        _, height, width, channels = data.shape
        count = ratio_y * ratio_x
        pooled = np.zeros((len(x1), self.pooled_h, self.pooled_w, channels), np.float32)
        if count == 0:
            return pooled.transpose(0, 3, 1, 2)
        step_y, step_x = bin_h / np.float32(ratio_y), bin_w / np.float32(ratio_x)
        bins_y = np.arange(self.pooled_h, dtype=np.float32)
        bins_x = np.arange(self.pooled_w, dtype=np.float32)
        half = np.float32(0.5)
        rows = batch_indices[:, None, None]
        divisor = np.float32(count)
        for sample_y in range(ratio_y):
            # y1 + bin * bin_h + step * (sample + 0.5), in the reference's order
            ys = (y1[:, None] + bins_y * bin_h[:, None]) + step_y[:, None] * (
                np.float32(sample_y) + half)  # fmt: skip
            y_ok, y_low, y_high, ly = _axis_samples(ys, height)
            for sample_x in range(ratio_x):
                xs = (x1[:, None] + bins_x * bin_w[:, None]) + step_x[:, None] * (
                    np.float32(sample_x) + half)  # fmt: skip
                x_ok, x_low, x_high, lx = _axis_samples(xs, width)
                valid = y_ok[:, :, None] & x_ok[:, None, :]  # [rois, ph, pw]
                hy, hx = np.float32(1) - ly, np.float32(1) - lx
                wy, wx = (hy[:, :, None], ly[:, :, None]), (hx[:, None, :], lx[:, None, :])
                weights = [wy[0] * wx[0], wy[0] * wx[1], wy[1] * wx[0], wy[1] * wx[1]]
                points = [(y_low, x_low), (y_low, x_high), (y_high, x_low), (y_high, x_high)]
                value = None
                for weight, (yi, xi) in zip(weights, points):
                    yi = np.where(valid, yi[:, :, None], 0)
                    xi = np.where(valid, xi[:, None, :], 0)
                    weight = np.where(valid, weight, np.float32(0))[..., None]
                    term = weight * data[rows, yi, xi]  # [rois, ph, pw, C]
                    value = term if value is None else value + term
                if self.mode == "max":
                    pooled = np.where(value > pooled, value, pooled)
                else:
                    pooled = pooled + value / divisor
        return pooled.transpose(0, 3, 1, 2)


def _axis_samples(coords, size):
    """For sample coordinates along one axis: in range, low and high neighbours, fraction."""
    ok = (coords >= np.float32(-1)) & (coords <= np.float32(size))
    clamped = np.maximum(coords, np.float32(0))
    low = np.trunc(np.where(ok, clamped, 0)).astype(np.int64)
    at_edge = low >= size - 1
    low = np.where(at_edge, size - 1, low)
    high = np.where(at_edge, size - 1, low + 1)
    clamped = np.where(at_edge, low.astype(np.float32), clamped)
    fraction = (clamped - low.astype(np.float32)).astype(np.float32)
    return ok, low, high, fraction


@register
class ROIAlign3(_ROIAlign):
    """ROIAlign-3: asymmetric sample positions."""

    type, version = "ROIAlign", 3


@register
class ROIAlign9(_ROIAlign):
    """ROIAlign-9: adds ``aligned_mode``."""

    type, version = "ROIAlign", 9
