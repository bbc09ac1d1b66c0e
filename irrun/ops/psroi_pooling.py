"""PSROIPooling-1: position-sensitive ROI pooling (R-FCN): each output bin pools its own
group of input channels.

Spec facts: inputs feature maps ``[N, C, H, W]`` and rois ``[num_rois, 5]``
(``[batch_id, x1, y1, x2, y2]``), both floating-point (not necessarily one type; the output
has the feature maps' type). Attributes ``output_dim``, ``group_size`` (> 0, default 1),
``spatial_scale`` (a positive number), ``mode`` (average, bilinear; default average),
``spatial_bins_x`` and ``spatial_bins_y`` (> 0 in bilinear mode, default 1). C must be
``output_dim * group_size**2`` (average) or ``output_dim * spatial_bins_x * spatial_bins_y``
(bilinear). Output ``[num_rois, output_dim, group_size, group_size]``.

Kernel (OpenVINO's reference ``psroi_pooling.hpp``). average: corners rounded half away from
zero (``x2 + 1``) and scaled, bin ``(ph, pw)`` of output channel ``c`` averages input channel
``(c * group_size + ph) * group_size + pw`` over rows ``floor(y1 + ph * bin_h)`` (at most
H - 1; a negative start, which wraps in the reference's unsigned arithmetic, is H - 1 too) to
``ceil(y1 + (ph + 1) * bin_h)`` (at most H), summed row by row in float32; an empty bin is
0/0. bilinear: for each of the ``spatial_bins_y * spatial_bins_x`` sub-bins (input channel
``sub_bin * output_dim + c``) one bilinear sample, ``x = pw * bin_w * (W - 1) / (group_size -
1) + x_start * (W - 1)`` (scaled corners, ``x_start = x1 + sbx * bin_w``, ``bin_w = (x2 - x1) /
spatial_bins_x``), the samples summed and divided by their count; a sample at or beyond W or H
is left out (and, irrun's choice where the reference reads out of bounds, one below 0); a
sample between the last pixel and the edge reads the last pixel, as in the reference (the
CPU plugin differs there).
Vectorised over ROIs, channels and bins, looping over bin offsets (average) or sub-bins
(bilinear). average is exact; bilinear within ``rtol=1e-5, atol=1e-5`` of the CPU plugin.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._rois import check_float, check_rank, check_rois, check_scale
from irrun.ops.base import Attribute, Op, TensorInfo
from irrun.ops.registry import register
from irrun.shape import Dim, Shape, static_dim


@register
class PSROIPooling(Op):
    """PSROIPooling-1."""

    type, version, inputs = "PSROIPooling", 1, (2, 2)
    attributes = (
        Attribute("output_dim", "int", 1, required=True),
        Attribute("group_size", "int", 1),
        Attribute("spatial_scale", "float", 1.0, required=True),
        Attribute("mode", "enum", "average", choices=("average", "bilinear")),
        Attribute("spatial_bins_x", "int", 1),
        Attribute("spatial_bins_y", "int", 1),
    )

    def setup(self):
        problems = []
        if self.group_size <= 0:
            problems.append(f"group_size {self.group_size} must be > 0")
        if self.mode == "bilinear" and min(self.spatial_bins_x, self.spatial_bins_y) <= 0:
            problems.append(f"spatial_bins_x {self.spatial_bins_x} and spatial_bins_y "
                            f"{self.spatial_bins_y} must be > 0 in bilinear mode")  # fmt: skip
        for problem in problems:
            self.context.error(
                "attribute-value",
                f"{self.describe()}: {problem}",
                hint="use positive sizes",
                line=self.layer.data_line,
            )
            self.incomplete = True
        check_scale(self, self.spatial_scale)

    @property
    def _groups(self) -> int:
        if self.mode == "average":
            return self.group_size * self.group_size
        return self.spatial_bins_x * self.spatial_bins_y

    def infer(self, inputs):
        """``[num_rois, output_dim, group_size, group_size]``."""
        data, rois = inputs
        if not (check_float(self, data, 0, "the feature maps")
                and check_float(self, rois, 1, "the ROIs")
                and check_rank(self, data, 0, 4, "the feature maps", "[N, C, H, W]")):  # fmt: skip
            return None
        if data.shape.rank_is_static:
            wanted = self._groups * self.output_dim
            if not data.shape[1].compatible(Dim(max(wanted, 0))):
                factors = ("group_size * group_size" if self.mode == "average"
                           else "spatial_bins_x * spatial_bins_y")  # fmt: skip
                self.context.error(
                    "input-dims",
                    f"{self.describe()}: the feature maps {data.shape} must have output_dim * "
                    f"{factors} = {self.output_dim} * {self._groups} = {wanted} channels, but "
                    f"they have {data.shape[1]}",
                    port=self.input_port(0),
                    hint="make output_dim and the group sizes match the channel count",
                )
                return None
        if not check_rois(self, rois, 1, 5, "[num_rois, 5]"):
            return None
        count = rois.shape[0] if rois.shape.rank_is_static else Dim.dynamic()
        group = static_dim(self.group_size)
        shape = Shape([count, static_dim(self.output_dim), group, group])
        return [TensorInfo(shape, data.element_type,
                           why="[num_rois, output_dim, group_size, group_size]")]  # fmt: skip

    def evaluate(self, inputs):
        """Average or bilinear position-sensitive pooling."""
        data, rois = (np.asarray(a) for a in inputs)
        dtype = data.dtype
        data = data.astype(np.float32)
        rois = rois.astype(np.float32).reshape(-1, 5)
        ids = np.trunc(rois[:, 0]).astype(np.int64)
        bad = (ids < 0) | (ids >= data.shape[0])
        if bad.any():
            index = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"{self.describe()}: ROI {index} has batch id {rois[index, 0]}, outside [0, "
                f"{data.shape[0]}) of the feature maps"
            )
        if self.mode == "average":
            out = self._average(data, rois, ids)
        else:
            out = self._bilinear(data, rois, ids)
        return [out.astype(dtype)]

    def _average(self, data, rois, ids):
        _, _, height, width = data.shape
        size, scale = self.group_size, np.float32(self.spatial_scale)
        corners = _round_half_away(rois[:, 1:])
        start_w, start_h = corners[:, 0] * scale, corners[:, 1] * scale
        end_w = (corners[:, 2] + np.float32(1)) * scale
        end_h = (corners[:, 3] + np.float32(1)) * scale
        bin_w = (end_w - start_w) / np.float32(size)
        bin_h = (end_h - start_h) / np.float32(size)
        h0, count_h = _average_bins(start_h, bin_h, size, height)  # [rois, size]
        w0, count_w = _average_bins(start_w, bin_w, size, width)
        # input channel of output (c, ph, pw): (c * size + ph) * size + pw
        index = np.arange(self.output_dim * size * size).reshape(self.output_dim, size, size)
        rows, planes = ids[:, None, None, None], index[None]
        total = np.zeros((len(rois), self.output_dim, size, size), np.float32)
        for dh in range(int(count_h.max(initial=0))):
            y_ok = dh < count_h
            y = np.where(y_ok, h0 + dh, 0)[:, None, :, None]
            for dw in range(int(count_w.max(initial=0))):
                x_ok = dw < count_w
                x = np.where(x_ok, w0 + dw, 0)[:, None, None, :]
                ok = (y_ok[:, :, None] & x_ok[:, None, :])[:, None]
                total = total + np.where(ok, data[rows, planes, y, x], np.float32(0))
        area = (count_h[:, :, None] * count_w[:, None, :]).astype(np.float32)[:, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            return total / area

    def _bilinear(self, data, rois, ids):
        _, _, height, width = data.shape
        size, scale = self.group_size, np.float32(self.spatial_scale)
        bins_x, bins_y = self.spatial_bins_x, self.spatial_bins_y
        scaled = rois[:, 1:] * scale
        start_w, start_h, end_w, end_h = scaled.T
        bin_w = (end_w - start_w) / np.float32(bins_x)
        bin_h = (end_h - start_h) / np.float32(bins_y)
        span_w, span_h = np.float32(width - 1), np.float32(height - 1)
        scale_w = bin_w * span_w / np.float32(size - 1) if size > 1 else np.zeros_like(bin_w)
        scale_h = bin_h * span_h / np.float32(size - 1) if size > 1 else np.zeros_like(bin_h)
        cells = np.arange(size, dtype=np.float32)
        outputs = np.arange(self.output_dim)[None, :, None, None]
        rows = ids[:, None, None, None]
        total = np.zeros((len(rois), self.output_dim, size, size), np.float32)
        for sub_y in range(bins_y):
            first_h = start_h + np.float32(sub_y) * bin_h
            point_y = _bilinear_points(first_h, bin_h, scale_h, cells, span_h, size)
            for sub_x in range(bins_x):
                first_w = start_w + np.float32(sub_x) * bin_w
                point_x = _bilinear_points(first_w, bin_w, scale_w, cells, span_w, size)
                y_ok = (point_y < np.float32(height)) & (point_y >= 0)
                x_ok = (point_x < np.float32(width)) & (point_x >= 0)
                safe_y = np.where(y_ok, point_y, np.float32(0))
                safe_x = np.where(x_ok, point_x, np.float32(0))
                top = np.floor(safe_y).astype(np.int64)
                bottom = np.minimum(np.ceil(safe_y).astype(np.int64), height - 1)
                left = np.floor(safe_x).astype(np.int64)
                right = np.minimum(np.ceil(safe_x).astype(np.int64), width - 1)
                planes = (sub_y * bins_x + sub_x) * self.output_dim + outputs

                def at(yi, xi, planes=planes):
                    return data[rows, planes, yi[:, None, :, None], xi[:, None, None, :]]

                dx = (safe_x - left.astype(np.float32))[:, None, None, :]
                dy = (safe_y - top.astype(np.float32))[:, None, :, None]
                upper = at(top, left) + (at(top, right) - at(top, left)) * dx
                lower = at(bottom, left) + (at(bottom, right) - at(bottom, left)) * dx
                value = upper + (lower - upper) * dy
                ok = (y_ok[:, :, None] & x_ok[:, None, :])[:, None]
                total = np.where(ok, total + value, total)
        return total / np.float32(bins_x * bins_y)


def _round_half_away(values):
    """``roundf``: half away from zero, kept as float32."""
    wide = values.astype(np.float64)
    return (np.sign(wide) * np.floor(np.abs(wide) + 0.5)).astype(np.float32)


def _average_bins(start, bin_size, size, limit):
    """First row and row count of each bin along one axis (``[rois, size]``)."""
    index = np.arange(size, dtype=np.float32)
    first = np.floor(start[:, None] + index * bin_size[:, None]).astype(np.int64)
    first = np.where(first < 0, limit - 1, np.minimum(first, limit - 1))  # unsigned wrap
    last = np.ceil(start[:, None] + (index + np.float32(1)) * bin_size[:, None])
    last = np.where(last < 0, limit, np.minimum(last, limit)).astype(np.int64)
    return first, np.maximum(last - first, 0)


def _bilinear_points(first, bin_size, step, cells, span, size):
    """Sample coordinates of one sub-bin along one axis (``[rois, size]``)."""
    if size > 1:
        return (cells * step[:, None] + (first * span)[:, None]).astype(np.float32)
    middle = (first + first + bin_size) * span / np.float32(2)
    return middle[:, None].astype(np.float32)
