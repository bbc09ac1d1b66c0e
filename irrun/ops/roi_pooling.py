"""ROIPooling-2 (OpenVINO's ``v0::ROIPooling``, first in opset2): max or bilinear pooling of
each region of interest to a fixed ``[pooled_h, pooled_w]`` grid.

Spec facts: inputs feature maps ``[N, C, H, W]`` and rois ``[num_rois, 5]``
(``[batch_id, x1, y1, x2, y2]``), of one floating-point type. Attributes ``pooled_h`` and
``pooled_w`` (>= 1; the IR OpenVINO writes also spells them ``output_size`` and
``output_roi``, which take precedence), ``spatial_scale`` (a positive number) and ``method``
(max, bilinear; default max). Output ``[num_rois, C, pooled_h, pooled_w]``.

Kernel (OpenVINO's reference ``roi_pooling.hpp``). max: the ROI corners scaled and rounded
half away from zero, its size at least 1x1, bin ``ph`` spanning rows
``floor(ph * size / pooled_h)`` to ``ceil((ph + 1) * size / pooled_h)`` after the start, clipped
to the map; an empty bin gives 0. bilinear: corners are normalised ``[0, 1]`` coordinates,
``in_y = ph * (y2 - y1) * (H - 1) / (pooled_h - 1) + y1 * (H - 1)`` (the last row exactly
``y2 * (H - 1)``, a single row the middle), interpolated from the 4 neighbours; a point
outside the map gives 0. Vectorised over ROIs, channels and bins; max loops over the offsets
inside the largest bin. The batch id is truncated to an integer and must lie in ``[0, N)``
(an error when run). max is exact; bilinear matches the CPU plugin within ``rtol=1e-5,
atol=1e-5``.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._rois import check_float, check_rank, check_rois, check_same_type, check_scale
from irrun.ops.base import Attribute, Op, TensorInfo
from irrun.ops.registry import register
from irrun.shape import Dim, Shape, static_dim


def round_half_away(values: np.ndarray) -> np.ndarray:
    """``std::round`` (half away from zero) of float32 values, as int64."""
    wide = values.astype(np.float64)
    return (np.sign(wide) * np.floor(np.abs(wide) + 0.5)).astype(np.int64)


def batch_ids(op: Op, rois: np.ndarray, batches: int) -> np.ndarray:
    """Column 0 of the ROIs truncated to integers, checked against the batch size."""
    ids = np.trunc(rois[:, 0]).astype(np.int64)
    bad = (ids < 0) | (ids >= batches)
    if bad.any():
        index = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"{op.describe()}: ROI {index} has batch id {rois[index, 0]}, outside [0, "
            f"{batches}) of the feature maps"
        )
    return ids


@register
class ROIPooling(Op):
    """ROIPooling-2."""

    type, version, inputs = "ROIPooling", 2, (2, 2)
    attributes = (
        Attribute("pooled_h", "int", 1),
        Attribute("pooled_w", "int", 1),
        Attribute("output_size", "ints", None),
        Attribute("output_roi", "ints", None),
        Attribute("spatial_scale", "float", 1.0, required=True),
        Attribute("method", "enum", "max", choices=("max", "bilinear")),
    )

    def setup(self):
        pooled = self.output_roi or self.output_size or [self.pooled_h, self.pooled_w]
        if len(pooled) != 2 or min(pooled) < 1:
            self.context.error(
                "attribute-value",
                f"{self.describe()}: the pooled size {pooled} must be two sizes >= 1 "
                "(pooled_h, pooled_w)",
                hint='write pooled_h="7" pooled_w="7" (and output_size="7, 7")',
                line=self.layer.data_line,
            )
            self.incomplete = True
            pooled = [1, 1]
        self.pooled_h, self.pooled_w = pooled
        check_scale(self, self.spatial_scale)

    def infer(self, inputs):
        """``[num_rois, C, pooled_h, pooled_w]``."""
        data, rois = inputs
        if not (check_rank(self, data, 0, 4, "the feature maps", "[N, C, H, W]")
                and check_rois(self, rois, 1, 5, "[num_rois, 5]")
                and check_float(self, data, 0, "the feature maps")
                and check_float(self, rois, 1, "the ROIs")):  # fmt: skip
            return None
        if not check_same_type(
            self, data, rois, "the feature maps and the ROIs must have one element type",
            "insert a Convert so that the ROIs have the feature maps' element type",
        ):  # fmt: skip
            return None
        count = rois.shape[0] if rois.shape.rank_is_static else Dim.dynamic()
        channels = data.shape[1] if data.shape.rank_is_static else Dim.dynamic()
        shape = Shape([count, channels, static_dim(self.pooled_h), static_dim(self.pooled_w)])
        etype = rois.element_type if data.element_type.name == "dynamic" else data.element_type
        return [TensorInfo(shape, etype, why="[num_rois, C, pooled_h, pooled_w]")]

    def evaluate(self, inputs):
        """max or bilinear pooling, vectorised over ROIs, channels and bins."""
        data, rois = (np.asarray(a) for a in inputs)
        dtype = data.dtype
        data = data.astype(np.float32)
        rois = rois.astype(np.float32).reshape(-1, 5)
        ids = batch_ids(self, rois, data.shape[0])
        if self.method == "max":
            out = self._max(data, rois, ids)
        else:
            out = self._bilinear(data, rois, ids)
        return [out.astype(dtype)]

    def _max(self, data, rois, ids):
        _, channels, height, width = data.shape
        scale = np.float32(self.spatial_scale)
        corners = round_half_away(rois[:, 1:] * scale)  # x1, y1, x2, y2
        x1, y1, x2, y2 = corners.T
        size_h = np.maximum(y2 - y1 + 1, 1).astype(np.float32)
        size_w = np.maximum(x2 - x1 + 1, 1).astype(np.float32)
        bin_h = size_h / np.float32(self.pooled_h)
        bin_w = size_w / np.float32(self.pooled_w)
        h0, h1 = _bin_edges(bin_h, self.pooled_h, y1, height)  # [rois, pooled_h]
        w0, w1 = _bin_edges(bin_w, self.pooled_w, x1, width)
        out = np.full((len(rois), self.pooled_h, self.pooled_w, channels), -np.inf, np.float32)
        data = np.ascontiguousarray(data.transpose(0, 2, 3, 1))  # channels last: row gathers
        rows = ids[:, None, None]
        extent_h = int((h1 - h0).max(initial=0))
        extent_w = int((w1 - w0).max(initial=0))
        for dh in range(extent_h):
            y = h0 + dh
            y_ok = y < h1
            for dw in range(extent_w):
                x = w0 + dw
                ok = (y_ok[:, :, None] & (x < w1)[:, None, :])[..., None]
                yi = np.where(y_ok, y, 0)[:, :, None]
                xi = np.where(x < w1, x, 0)[:, None, :]
                values = data[rows, yi, xi]  # [rois, ph, pw, C]
                out = np.where(ok & (values > out), values, out)
        empty = ((h1 <= h0)[:, :, None] | (w1 <= w0)[:, None, :])[..., None]
        return np.where(empty, np.float32(0), out).transpose(0, 3, 1, 2)

    def _bilinear(self, data, rois, ids):
        _, _, height, width = data.shape
        x1, y1, x2, y2 = rois[:, 1], rois[:, 2], rois[:, 3], rois[:, 4]
        in_y = _bilinear_points(y1, y2, height, self.pooled_h)  # [rois, pooled_h]
        in_x = _bilinear_points(x1, x2, width, self.pooled_w)
        valid = ((in_y >= 0) & (in_y <= np.float32(height - 1)))[:, :, None] & (
            (in_x >= 0) & (in_x <= np.float32(width - 1)))[:, None, :]  # fmt: skip
        safe_y = np.where((in_y >= 0) & (in_y <= height - 1), in_y, np.float32(0))
        safe_x = np.where((in_x >= 0) & (in_x <= width - 1), in_x, np.float32(0))
        top = np.floor(safe_y).astype(np.int64)
        bottom = np.minimum(np.ceil(safe_y).astype(np.int64), height - 1)
        left = np.floor(safe_x).astype(np.int64)
        right = np.minimum(np.ceil(safe_x).astype(np.int64), width - 1)
        channels_last = np.ascontiguousarray(data.transpose(0, 2, 3, 1))
        rows = ids[:, None, None]

        def at(yi, xi):  # [rois, ph, pw, C]
            return channels_last[rows, yi[:, :, None], xi[:, None, :]]

        dx = (safe_x - left.astype(np.float32))[:, None, :, None]
        dy = (safe_y - top.astype(np.float32))[:, :, None, None]
        top_left, top_right = at(top, left), at(top, right)
        bottom_left, bottom_right = at(bottom, left), at(bottom, right)
        upper = top_left + (top_right - top_left) * dx
        lower = bottom_left + (bottom_right - bottom_left) * dx
        value = upper + (lower - upper) * dy
        return np.where(valid[..., None], value, np.float32(0)).transpose(0, 3, 1, 2)


def _bin_edges(bin_size, pooled, start, size):
    """``[start, end)`` of each bin (``[rois, pooled]``) clipped to ``[0, size]``."""
    index = np.arange(pooled, dtype=np.float32)
    low = np.floor(index * bin_size[:, None]).astype(np.int64)
    high = np.ceil((index + np.float32(1)) * bin_size[:, None]).astype(np.int64)
    low = np.clip(low + start[:, None], 0, size)
    high = np.clip(high + start[:, None], 0, size)
    return low, high


def _bilinear_points(start, end, size, pooled):
    """The sample coordinate of each bin along one axis, in the reference's arithmetic."""
    span = np.float32(size - 1)
    if pooled == 1:
        middle = 0.5 * (start + end).astype(np.float64) * (size - 1)
        return middle.astype(np.float32)[:, None]
    step = (end - start) * span / np.float32(pooled - 1)
    index = np.arange(pooled, dtype=np.float32)
    points = index * step[:, None] + (start * span)[:, None]
    points[:, -1] = span * end
    return points.astype(np.float32)
