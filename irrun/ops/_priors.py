"""The shape rule PriorBox-1/8 and PriorBoxClustered-1 share
(``prior_box_shape_inference_util.hpp``): two 1-D integer inputs (the feature map's and the
image's ``[H, W]``) and an f32 output ``[2, H * W * priors * 4]``, its second dim known when
the feature map size is (a constant, or dims read by ShapeOf), else ``?``."""

from __future__ import annotations

from irrun.element_types import element_type
from irrun.ops._values import as_dim, elements_of
from irrun.ops.base import Op, TensorInfo
from irrun.shape import Dim, Shape, static_dim

__all__ = ["prior_boxes_shape", "feature_size"]

_NAMES = ("the output size", "the image size")


def prior_boxes_shape(op: Op, inputs, priors: int) -> list[TensorInfo] | None:
    """``[2, H * W * priors * 4]`` (f32), or ``None`` after reporting a bad input."""
    for index, info in enumerate(inputs):
        if info.element_type.kind not in ("int", "uint", "dynamic"):
            op.context.error(
                "index-type",
                f"{op.describe()}: {_NAMES[index]} input must be an integer tensor, but input "
                f"{index} is {info.element_type}",
                port=op.input_port(index),
                hint=f"insert a Convert to i64 before {_NAMES[index]} input",
            )
            return None
    ranks = [info.shape.rank for info in inputs]
    if any(rank not in (None, 1) for rank in ranks):
        op.context.error(
            "input-rank",
            f"{op.describe()}: the output size {inputs[0].shape} and the image size "
            f"{inputs[1].shape} must both be 1-D ([H, W])",
            port=op.input_port(0 if ranks[0] not in (None, 1) else 1),
            hint="give both sizes as 1-D tensors of 2 elements",
        )
        return None
    elements = elements_of(inputs[0])
    if elements is not None and len(elements) != 2:
        op.context.error(
            "input-value",
            f"{op.describe()}: the output size must have two elements ([H, W]), but it has "
            f"{len(elements)}",
            port=op.input_port(0),
            hint="give the feature map's [H, W]",
        )
        return None
    if elements is None:
        count, why = Dim.dynamic(), "the feature map size is not known"
    else:
        height, width = (as_dim(e) for e in elements)
        count = height * width * static_dim(priors) * static_dim(4)
        why = f"[2, H * W * priors * 4] with [H, W] = [{height}, {width}], {priors} priors"
    return [TensorInfo(Shape([static_dim(2), count]), element_type("f32"), why=why)]


def feature_size(values) -> tuple[int, int]:
    """``(H, W)`` of a size input (its first two elements, as int64)."""
    flat = [int(v) for v in list(values.reshape(-1)[:2])]
    return flat[0], flat[1]
