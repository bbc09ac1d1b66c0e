"""Checks and helpers shared by the region-of-interest ops (ROIAlign, ROIPooling,
PSROIPooling): ranks of the feature map and the boxes, the boxes' width, float types, the
spatial scale, and the ROI chunks that keep a vectorised kernel's temporaries small."""

from __future__ import annotations

import math

from irrun.ops.base import Op, TensorInfo
from irrun.shape import Dim

__all__ = ["check_rank", "check_rois", "check_float", "check_scale", "roi_chunks"]

#: Elements of one temporary ``[rois, channels, h, w]`` array a kernel builds at a time.
CHUNK_ELEMENTS = 1 << 22


def check_rank(op: Op, info: TensorInfo, index: int, rank: int, what: str, layout: str) -> bool:
    """Report ``input-rank`` unless input ``index`` can have rank ``rank``."""
    if info.shape.rank in (None, rank):
        return True
    op.context.error(
        "input-rank",
        f"{op.describe()}: {what} must have rank {rank} ({layout}), but its shape is {info.shape}",
        port=op.input_port(index),
        hint=f"give {what} the shape {layout}",
    )
    return False


def check_rois(op: Op, info: TensorInfo, index: int, width: int, layout: str) -> bool:
    """The boxes input: rank 2 with ``width`` numbers per box."""
    if not check_rank(op, info, index, 2, "the ROIs", layout):
        return False
    if info.shape.rank_is_static and not info.shape[1].compatible(Dim(width)):
        op.context.error(
            "input-dims",
            f"{op.describe()}: each ROI must have {width} numbers ({layout}), but the ROIs "
            f"input {info.shape} has {info.shape[1]}",
            port=op.input_port(index),
            hint=f"give the ROIs the shape {layout}",
        )
        return False
    return True


def check_float(op: Op, info: TensorInfo, index: int, what: str) -> bool:
    """Report ``input-type`` unless input ``index`` is a floating-point tensor."""
    kind = info.element_type.kind
    if kind in ("float", "dynamic"):
        return True
    op.context.error(
        "input-type",
        f"{op.describe()}: {what} must be a floating-point tensor, but input {index} is "
        f"{info.element_type}",
        port=op.input_port(index),
        hint=f"insert a Convert to f32 before the {what} input",
    )
    return False


def check_scale(op: Op, scale: float) -> None:
    """``spatial_scale`` must be a positive normal float (OpenVINO's ``std::isnormal``)."""
    if math.isfinite(scale) and scale > 0 and scale >= 1.1754943508222875e-38:
        return
    op.context.error(
        "attribute-value",
        f"{op.describe()}: spatial_scale {scale} is not a positive number",
        hint='write the ratio of the feature map to the image size, e.g. spatial_scale="0.0625"',
        line=op.layer.data_line,
    )
    op.incomplete = True


def roi_chunks(count: int, per_roi: int):
    """Slices of ``range(count)`` holding about :data:`CHUNK_ELEMENTS` elements each, for a
    kernel whose temporaries hold ``per_roi`` elements per ROI."""
    step = max(1, CHUNK_ELEMENTS // max(per_roi, 1))
    return [slice(start, min(start + step, count)) for start in range(0, count, step)]
