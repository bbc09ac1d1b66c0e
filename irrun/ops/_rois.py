"""Checks and helpers shared by the region-of-interest ops (ROIAlign, ROIPooling,
PSROIPooling): ranks of the feature map and the boxes, the boxes' width, float types, the
spatial scale, and the ROI chunks that keep a vectorised kernel's temporaries small."""

from __future__ import annotations

import math

from irrun.ops.base import Op, TensorInfo
from irrun.shape import Dim, Shape, static_dim

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


def check_same_type(op: Op, data: TensorInfo, rois: TensorInfo, what: str, hint: str) -> bool:
    """Report data (input 0) and ROIs (input 1) of two known, different element types:
    ``what`` says the rule, ``hint`` the fix (``False``: reported)."""
    etype, other = data.element_type, rois.element_type
    if "dynamic" not in (etype.name, other.name) and etype is not other:
        op.context.error("input-type", f"{op.describe()}: {what}, but they are {etype} and {other}",
                         port=op.input_port(1), hint=hint)  # fmt: skip
        return False
    return True


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


def roi_align_shape(op: Op, inputs: list, box: int, layout: str) -> list[TensorInfo] | None:
    """The shape rule ROIAlign and ROIAlignRotated share: data ``[N, C, H, W]``, rois
    ``[num_rois, box]`` of data's floating-point type, integer batch_indices ``[num_rois]``;
    output ``[num_rois, C, pooled_h, pooled_w]`` (problems reported, ``None``)."""
    data, rois, indices = inputs
    if not (check_rank(op, data, 0, 4, "data", "[N, C, H, W]")
            and check_rois(op, rois, 1, box, layout)
            and check_rank(op, indices, 2, 1, "batch_indices", "[num_rois]")
            and check_float(op, data, 0, "data")
            and check_float(op, rois, 1, "rois")):  # fmt: skip
        return None
    if not check_same_type(op, data, rois, "data and rois must have one floating-point type",
                           "insert a Convert so that rois has data's element type"):  # fmt: skip
        return None
    etype = rois.element_type if data.element_type.name == "dynamic" else data.element_type
    if indices.element_type.kind not in ("int", "uint", "dynamic"):
        op.context.error(
            "index-type",
            f"{op.describe()}: batch_indices must be an integer tensor, but input 2 is "
            f"{indices.element_type}",
            port=op.input_port(2),
            hint="insert a Convert to i32 before the batch_indices input",
        )
        return None
    count = rois.shape[0] if rois.shape.rank_is_static else Dim.dynamic()
    if indices.shape.rank_is_static:
        merged = count.merge(indices.shape[0])
        if merged is None:
            op.context.error(
                "input-dims",
                f"{op.describe()}: rois {rois.shape} and batch_indices {indices.shape} "
                f"must have one dim 0 (the ROI count), but they have {count} and "
                f"{indices.shape[0]}",
                port=op.input_port(2),
                hint="give one batch index per ROI",
            )
            return None
        count = merged
    channels = data.shape[1] if data.shape.rank_is_static else Dim.dynamic()
    shape = Shape([count, channels, static_dim(op.pooled_h), static_dim(op.pooled_w)])
    why = f"[num_rois, channels of data {data.shape}, pooled_h, pooled_w]"
    return [TensorInfo(shape, etype, why=why)]


def check_batch_indices(op: Op, batch_indices, data_shape) -> None:
    """Raise ``ValueError`` naming the first ROI whose batch index is outside the data."""
    batches = data_shape[0]
    bad = (batch_indices < 0) | (batch_indices >= batches)
    if bad.any():
        raise ValueError(
            f"{op.describe()}: batch index {int(batch_indices[bad][0])} (ROI "
            f"{int(bad.nonzero()[0][0])}) is outside [0, {batches}) of data {list(data_shape)}"
        )
