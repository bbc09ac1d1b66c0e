"""RegionYolo-1: the YOLOv2 region layer (``do_softmax=true``) and the YOLOv3 yolo layer
(``do_softmax=false``): logistic activations of box centers and confidences, and a softmax
(v2) or logistic (v3) activation of the class scores.

Spec facts: input ``[N, C, H, W]`` floating-point, C holding, per region, ``coords`` box
numbers, a confidence and ``classes`` scores. Attributes ``coords``, ``classes``, ``num``
(regions in v2), ``do_softmax`` (default true), ``mask`` (the regions of v3), ``axis`` and
``end_axis`` (the dims v2 flattens, default 1 and 3), ``anchors`` (unused here). Output: v2
flattens dims ``axis..end_axis`` into one (``[N, C * H * W]`` by default; nothing when
end_axis < axis); v3 gives ``[N, (classes + coords + 1) * len(mask), H, W]``. A dynamic rank
stays dynamic (OpenVINO says rank 1..4, which prints as ``[...]``).

Kernel (OpenVINO's reference ``region_yolo.hpp``): per batch and region (``num`` in v2,
``len(mask)`` in v3), the entries 0 and 1 (x, y) and the confidence (entry ``coords``) get
``1 / (1 + exp(-x))``; v3 also the class scores; v2 takes the softmax of the class scores
over the classes at each location (max subtracted, summed in class order). The regions of
batch item ``b`` start at ``b * regions * entries * H * W`` (the reference's stride, also
when C holds more channels, as the CPU plugin does); everything else is copied (v2). The
reference copies only the first batch item in v3 mode (its copy length leaves out the
batch); irrun does every item, as the CPU plugin. Float32 arithmetic with ``exp`` rounded
from double: within ``rtol=1e-6, atol=1e-6`` of the CPU plugin.
"""

from __future__ import annotations

import numpy as np

from irrun.ops.base import Attribute, Op, TensorInfo, normalize_axis_or_report
from irrun.ops.registry import register
from irrun.shape import Shape, static_dim


def _sigmoid(values: np.ndarray) -> np.ndarray:
    """``1 / (1 + exp(-x))`` in float32, ``exp`` rounded from double."""
    exp = np.exp(-values.astype(np.float64)).astype(np.float32)
    return (np.float32(1) / (np.float32(1) + exp)).astype(np.float32)


@register
class RegionYolo(Op):
    """RegionYolo-1."""

    type, version, inputs = "RegionYolo", 1, (1, 1)
    attributes = (
        Attribute("coords", "int", 4, required=True),
        Attribute("classes", "int", 1, required=True),
        Attribute("num", "int", 1, required=True),
        Attribute("do_softmax", "bool", True),
        Attribute("mask", "ints", []),
        Attribute("axis", "int", 1),
        Attribute("end_axis", "int", 3),
        Attribute("anchors", "floats", []),
    )

    def infer(self, inputs):
        """v2: dims ``axis..end_axis`` flattened; v3: ``(classes + coords + 1) * len(mask)``
        channels."""
        (data,) = inputs
        shape = data.shape
        if data.element_type.kind not in ("float", "dynamic"):
            self.context.error(
                "input-type",
                f"{self.describe()}: the input must be floating-point, but it is "
                f"{data.element_type}",
                port=self.input_port(0),
                hint="insert a Convert to f32 before the input",
            )
            return None
        if shape.rank not in (None, 4):
            self.context.error(
                "input-rank",
                f"{self.describe()}: the input must have rank 4 ([N, C, H, W]), but its shape is "
                f"{shape}",
                port=self.input_port(0),
                hint="give the input the shape [N, C, H, W]",
            )
            return None
        if not shape.rank_is_static:
            return [TensorInfo(shape, data.element_type, why="the input rank is not known")]
        if self.do_softmax:
            axis = normalize_axis_or_report(self, self.axis, 4, "axis")
            end = normalize_axis_or_report(self, self.end_axis, 4, "end_axis")
            if axis is None or end is None:
                return None
            merged = shape[axis]
            for dim in shape.dims[axis + 1 : end + 1]:
                merged = merged * dim
            rest = shape.dims[max(end, axis) + 1 :]
            out = Shape([*shape.dims[:axis], merged, *rest])
            why = f"{shape} with dims {axis}..{end} flattened"
        else:
            channels = (self.classes + self.coords + 1) * len(self.mask)
            out = Shape([shape[0], static_dim(channels), shape[2], shape[3]])
            why = f"(classes + coords + 1) * len(mask) = {channels} channels"
        return [TensorInfo(out, data.element_type, why=why)]

    def evaluate(self, inputs):
        """Logistic and softmax activations per region, vectorised over batches and locations."""
        data = np.asarray(inputs[0])
        dtype = data.dtype
        values = data.astype(np.float32)
        batches, _, height, width = values.shape
        entries = self.classes + self.coords + 1
        regions = self.num if self.do_softmax else len(self.mask)
        flat = values.reshape(-1).copy()
        used = regions * entries * height * width  # the reference's batch stride
        if batches * used > flat.size:
            raise ValueError(
                f"{self.describe()}: {regions} regions of {entries} entries need "
                f"{regions * entries} channels, but the input has {values.shape[1]}"
            )
        body = flat[: batches * used].reshape(batches, regions, entries, height * width)
        out = body.copy()
        out[:, :, 0:2] = _sigmoid(body[:, :, 0:2])
        last = self.coords + 1 if self.do_softmax else entries
        out[:, :, self.coords : last] = _sigmoid(body[:, :, self.coords : last])
        if self.do_softmax:
            scores = body[:, :, self.coords + 1 :]
            shifted = scores - scores.max(axis=2, keepdims=True)
            exp = np.exp(shifted.astype(np.float64)).astype(np.float32)
            total = np.cumsum(exp, axis=2, dtype=np.float32)[:, :, -1:]  # in class order
            out[:, :, self.coords + 1 :] = exp / total
        flat[: batches * used] = out.reshape(-1)
        if not self.do_softmax:
            return [flat[: batches * used].reshape(batches, regions * entries, height,
                                                   width).astype(dtype)]  # fmt: skip
        axis, end = self.axis % 4, self.end_axis % 4
        dims = list(values.shape)
        if end > axis:
            dims[axis : end + 1] = [int(np.prod(dims[axis : end + 1]))]
        return [flat.reshape(dims).astype(dtype)]
