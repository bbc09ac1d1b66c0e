"""DeformablePSROIPooling-1: position-sensitive ROI pooling whose bins can be shifted by
learned offsets, each bin the average of bilinear sub-bin samples.

Spec facts: inputs data ``[N, C, H, W]`` (C at least ``output_dim * group_size^2``), rois
``[num_rois, 5]`` (``[batch, x1, y1, x2, y2]``) and optionally offsets ``[num_rois, 2 * K,
part_size, part_size]`` (x and y shifts for K channel groups). Attributes ``output_dim`` and
``spatial_scale`` (required), ``group_size`` (default 1), ``mode`` (``bilinear_deformable``
or ``bilinear``; OpenVINO reads it but computes the same), ``spatial_bins_x``,
``spatial_bins_y`` (sub-bins per bin, default 1), ``trans_std`` (offset scale, default 1) and
``part_size`` (default 1). Output ``[num_rois, output_dim, group_size, group_size]`` of data's
type.

Shape rule (``deformable_psroi_pooling_shape_inference.hpp``): data of rank 4, rois of rank 2,
offsets of rank 4; output_dim and group_size > 0; num_rois is rois' dim 0. No type checks.

Kernel (``reference/deformable_psroi_pooling.hpp``), in f32: bin ``(c, h, w)`` reads input
channel ``(c * group_size + h) * group_size + w``; the ROI corners are rounded (half away from
zero), scaled by spatial_scale and moved by -0.5 (the far corner +1 first), its size at least
0.1; with offsets, the bin moves by ``offset * trans_std * roi size`` (the offsets of channel
group ``c / (output_dim / K)`` at ``(h * part_size / group_size, w * part_size /
group_size)``); sub-bins starting outside ``[-0.5, size - 0.5]`` are skipped, the others
clamped into the map and interpolated (``top + (bottom - top) * dy`` of ``left + (right -
left) * dx``) and averaged (0 when none is left). A ROI with a negative batch index gives 0
(the reference skips it; the CPU plugin stops there: zeros for it and every later ROI, which
irrun does not follow).
Vectorised over ROIs, channels and bins, looping over sub-bins. Tolerance against the CPU
plugin: ``rtol=1e-5, atol=1e-5``.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._rois import check_rank
from irrun.ops.base import Attribute, Op, TensorInfo
from irrun.ops.registry import register
from irrun.shape import Dim, Shape, static_dim


@register
class DeformablePSROIPooling(Op):
    """DeformablePSROIPooling-1 (2 or 3 inputs)."""

    type, version, inputs = "DeformablePSROIPooling", 1, (2, 3)
    attributes = (
        Attribute("output_dim", "int", 1, required=True),
        Attribute("spatial_scale", "float", 1.0, required=True),
        Attribute("group_size", "int", 1),
        Attribute("mode", "string", "bilinear_deformable"),
        Attribute("spatial_bins_x", "int", 1),
        Attribute("spatial_bins_y", "int", 1),
        Attribute("trans_std", "float", 1.0),
        Attribute("part_size", "int", 1),
    )

    def setup(self):
        for name in ("output_dim", "group_size"):
            if getattr(self, name) <= 0:
                self.context.error(
                    "attribute-value",
                    f"{self.describe()}: {name} must be greater than 0, but it is "
                    f"{getattr(self, name)}",
                    hint=f'write {name}="1" or more',
                    line=self.layer.data_line,
                )
                self.incomplete = True

    def infer(self, inputs):
        """``[num_rois, output_dim, group_size, group_size]``."""
        layouts = ((4, "data", "[N, C, H, W]"), (2, "rois", "[num_rois, 5]"),
                   (4, "offsets", "[num_rois, 2 * K, part_size, part_size]"))  # fmt: skip
        for index, info in enumerate(inputs):
            rank, what, layout = layouts[index]
            if not check_rank(self, info, index, rank, what, layout):
                return None
        rois = inputs[1].shape
        count = rois[0] if rois.rank_is_static else Dim.dynamic()
        size = static_dim(self.group_size)
        shape = Shape([count, static_dim(self.output_dim), size, size])
        why = f"[num_rois of rois {rois}, output_dim, group_size, group_size]"
        return [TensorInfo(shape, inputs[0].element_type, why=why)]

    def evaluate(self, inputs):
        """Averaged bilinear sub-bins of shifted bins; vectorised over ROIs, channels, bins."""
        data = np.asarray(inputs[0])
        out_dtype = data.dtype
        data = data.astype(np.float32)
        rois = np.asarray(inputs[1]).astype(np.float32).reshape(-1, 5)
        _, channels, height, width = data.shape
        group, out_dim = self.group_size, self.output_dim
        if channels < out_dim * group * group:
            raise ValueError(f"{self.describe()}: data has {channels} channels, fewer than "
                             f"output_dim * group_size^2 = {out_dim * group * group}")  # fmt: skip
        scale = np.float32(self.spatial_scale)
        half = np.float32(0.5)
        # std::round: half away from zero
        rounded = np.sign(rois[:, 1:]) * np.floor(np.abs(rois[:, 1:]) + half)
        x1 = rounded[:, 0] * scale - half
        y1 = rounded[:, 1] * scale - half
        x2 = (rounded[:, 2] + np.float32(1)) * scale - half
        y2 = (rounded[:, 3] + np.float32(1)) * scale - half
        roi_w = np.maximum(x2 - x1, np.float32(0.1))
        roi_h = np.maximum(y2 - y1, np.float32(0.1))
        bin_w, bin_h = roi_w / np.float32(group), roi_h / np.float32(group)
        bins = np.arange(group, dtype=np.float32)
        # [rois, out_dim, group(h), group(w)]
        grid = (len(rois), out_dim, group, group)
        start_x = np.broadcast_to((x1[:, None] + bins * bin_w[:, None])[:, None, None, :], grid)
        start_y = np.broadcast_to((y1[:, None] + bins * bin_h[:, None])[:, None, :, None], grid)
        if len(inputs) == 3 and np.asarray(inputs[2]).ndim == 4:
            shift_x, shift_y = self._shifts(np.asarray(inputs[2]).astype(np.float32), len(rois))
            start_x = start_x + shift_x * roi_w[:, None, None, None]
            start_y = start_y + shift_y * roi_h[:, None, None, None]
        sub_w = (bin_w / np.float32(self.spatial_bins_x))[:, None, None, None]
        sub_h = (bin_h / np.float32(self.spatial_bins_y))[:, None, None, None]
        batch = rois[:, 0].astype(np.int64)
        source = np.arange(out_dim * group * group).reshape(1, out_dim, group, group)
        rows = np.maximum(batch, 0)[:, None, None, None]
        total = np.zeros(start_x.shape, np.float32)
        legit = np.zeros(start_x.shape, np.int64)
        for sub_y in range(self.spatial_bins_y):
            y = start_y + np.float32(sub_y) * sub_h
            y_ok = (y >= -half) & (y <= np.float32(height) - half)
            y = np.clip(y, np.float32(0), np.float32(height - 1))
            top, bottom = np.floor(y).astype(np.int64), np.ceil(y).astype(np.int64)
            dy = np.abs(y - top.astype(np.float32))
            for sub_x in range(self.spatial_bins_x):
                x = start_x + np.float32(sub_x) * sub_w
                ok = y_ok & (x >= -half) & (x <= np.float32(width) - half)
                x = np.clip(x, np.float32(0), np.float32(width - 1))
                left, right = np.floor(x).astype(np.int64), np.ceil(x).astype(np.int64)
                dx = np.abs(x - left.astype(np.float32))
                top_left = data[rows, source, top, left]
                top_right = data[rows, source, top, right]
                bottom_left = data[rows, source, bottom, left]
                bottom_right = data[rows, source, bottom, right]
                upper = top_left + (top_right - top_left) * dx
                lower = bottom_left + (bottom_right - bottom_left) * dx
                value = upper + (lower - upper) * dy
                total = np.where(ok, total + value, total)
                legit = legit + ok
        with np.errstate(divide="ignore", invalid="ignore"):
            out = np.where(legit > 0, total / legit.astype(np.float32), np.float32(0))
        out = np.where((batch < 0)[:, None, None, None], np.float32(0), out)
        return [out.astype(out_dtype)]

    def _shifts(self, offsets, count):
        """The x and y shifts (``offset * trans_std``) of every bin: ``[rois, out_dim, g, g]``."""
        group, out_dim, part = self.group_size, self.output_dim, self.part_size
        coords_groups = offsets.shape[1] // 2
        needed = count * offsets.shape[1] * part * part
        if coords_groups == 0 or out_dim % coords_groups or offsets.size < needed:
            raise ValueError(
                f"{self.describe()}: offsets {list(offsets.shape)} do not fit {count} ROIs of "
                f"part_size {part} and output_dim {out_dim}: they must be [num_rois, 2 * K, "
                f"part_size, part_size] with K dividing output_dim"
            )
        per_group = out_dim // coords_groups
        channel_group = np.arange(out_dim) // per_group
        cell = np.arange(group) * part // group
        index = (np.arange(count)[:, None, None, None], 2 * channel_group[None, :, None, None],
                 cell[None, None, :, None], cell[None, None, None, :])  # fmt: skip
        flat = offsets.reshape(-1)
        shape = offsets.shape

        def at(channel):
            # the reference's flat index: (((roi * 2K + channel) * part + h) * part + w)
            position = ((index[0] * shape[1] + channel) * part + index[2]) * part + index[3]
            return flat[position]

        trans = np.float32(self.trans_std)
        return at(index[1]) * trans, at(index[1] + 1) * trans
