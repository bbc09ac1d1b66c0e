"""Proposal-1 and Proposal-4: Faster R-CNN's region proposals: anchors moved by the predicted
deltas, the best ones kept by NMS.

Spec facts: inputs class_probs ``[N, 2 * A, H, W]`` (background then foreground scores of
the A anchors), bbox_deltas ``[N, 4 * A, H, W]`` and image_shape ``[3 or 4]`` (``[height,
width, scale]`` or ``[height, width, scale_h, scale_w]``), floating-point. Attributes
``base_size``, ``pre_nms_topn``, ``post_nms_topn``, ``nms_thresh``, ``feat_stride``,
``min_size``, ``ratio``, ``scale``, ``clip_before_nms`` (default true), ``clip_after_nms``,
``normalize``, ``box_size_scale``, ``box_coordinate_scale`` (default 1) and ``framework``
(``""`` Caffe-like, or ``tensorflow``). Output ``[N * post_nms_topn, 5]`` rows ``[image, x0,
y0, x1, y1]`` of class_probs' type; Proposal-4 adds the scores ``[N * post_nms_topn]``. N is
class_probs' dim 0 merged with bbox_deltas'.

Kernel (OpenVINO's reference ``proposal.hpp``): the anchors of ``ratio`` x ``scale``
(rounded for Caffe; shifted by half the base size and without the +1 sizes for TensorFlow)
placed every ``feat_stride`` pixels, moved by the deltas (``exp`` of the size deltas),
clipped to the image, scored 0 when smaller than ``min_size * scale``; the pre_nms_topn best
(ties: the earlier proposal; the reference's partial sort leaves ties to the library) go
through greedy NMS (dropped when the IoU is above nms_thresh) until post_nms_topn are kept;
rows after the kept ones are 0, the first of them starting with -1. Decoding is vectorised
over every anchor and location; the NMS loop runs once per kept box. Float32 throughout
(``exp`` rounded from double): within ``rtol=1e-6, atol=1e-6`` of the CPU plugin, whose
``exp`` differs by an ulp. In TensorFlow mode the CPU plugin clips x by the image height and
y by its width (the reference: x by the width); irrun follows the reference. The CPU plugin
leaves Proposal-4's scores after the kept boxes uninitialised; irrun writes 0 as the
reference does.
"""

from __future__ import annotations

import numpy as np

from irrun.ops.base import Attribute, Op, TensorInfo
from irrun.ops.registry import register
from irrun.shape import Dim, Shape, static_dim

_NAMES = ("class_probs", "bbox_deltas", "image_shape")


class _Proposal(Op):
    inputs = (3, 3)
    attributes = (
        Attribute("base_size", "int", 1, required=True),
        Attribute("pre_nms_topn", "int", 1, required=True),
        Attribute("post_nms_topn", "int", 1, required=True),
        Attribute("nms_thresh", "float", 0.0, required=True),
        Attribute("feat_stride", "int", 1, required=True),
        Attribute("min_size", "int", 1, required=True),
        Attribute("ratio", "floats", [], required=True),
        Attribute("scale", "floats", [], required=True),
        Attribute("clip_before_nms", "bool", True),
        Attribute("clip_after_nms", "bool", False),
        Attribute("normalize", "bool", False),
        Attribute("box_size_scale", "float", 1.0),
        Attribute("box_coordinate_scale", "float", 1.0),
        Attribute("framework", "string", ""),
    )
    with_scores = False

    def setup(self):
        for name in ("base_size", "pre_nms_topn", "post_nms_topn", "feat_stride"):
            if getattr(self, name) <= 0:
                self.context.error(
                    "attribute-value",
                    f"{self.describe()}: {name} {getattr(self, name)} must be > 0",
                    hint=f"give {name} a positive value",
                    line=self.layer.data_line,
                )
                self.incomplete = True

    def infer(self, inputs):
        """``[N * post_nms_topn, 5]`` (and ``[N * post_nms_topn]``)."""
        for index, info in enumerate(inputs):
            if info.element_type.kind not in ("float", "dynamic"):
                self.context.error(
                    "input-type",
                    f"{self.describe()}: {_NAMES[index]} must be floating-point, but input "
                    f"{index} is {info.element_type}",
                    port=self.input_port(index),
                    hint=f"insert a Convert to f32 before {_NAMES[index]}",
                )
                return None
        probs, deltas, image = (info.shape for info in inputs)
        for index, shape, rank in ((0, probs, 4), (1, deltas, 4), (2, image, 1)):
            if shape.rank not in (None, rank):
                self.context.error(
                    "input-rank",
                    f"{self.describe()}: {_NAMES[index]} must have rank {rank}, but its shape is "
                    f"{shape}",
                    port=self.input_port(index),
                    hint=f"give {_NAMES[index]} rank {rank}",
                )
                return None
        if image.rank_is_static and not (image[0].compatible(Dim(3))
                                         or image[0].compatible(Dim(4))):  # fmt: skip
            self.context.error(
                "input-dims",
                f"{self.describe()}: image_shape {image} must have 3 or 4 elements ([height, "
                "width, scale] or [height, width, scale_h, scale_w])",
                port=self.input_port(2),
                hint="give the image size and scale",
            )
            return None
        batch = Dim.dynamic()
        if probs.rank_is_static:
            batch = probs[0]
        if deltas.rank_is_static:
            if probs.rank_is_static and not deltas[1].compatible(probs[1] * Dim(2)):
                self.context.error(
                    "input-dims",
                    f"{self.describe()}: bbox_deltas {deltas} must have twice the channels of "
                    f"class_probs {probs} (4 deltas and 2 scores per anchor)",
                    port=self.input_port(1),
                    hint="give 4 * A delta and 2 * A score channels",
                )
                return None
            merged = batch.merge(deltas[0])
            if merged is None:
                self.context.error(
                    "input-dims",
                    f"{self.describe()}: class_probs {probs} and bbox_deltas {deltas} must have "
                    f"one batch, but they have {batch} and {deltas[0]}",
                    port=self.input_port(1),
                    hint="give both one batch size",
                )
                return None
            batch = merged
        rows = batch * static_dim(self.post_nms_topn)
        etype = inputs[0].element_type
        why = f"N {batch} * post_nms_topn {self.post_nms_topn}"
        outputs = [TensorInfo(Shape([rows, static_dim(5)]), etype, why=why)]
        if self.with_scores:
            outputs.append(TensorInfo(Shape([rows]), etype, why=why))
        return outputs

    # -- kernel ---------------------------------------------------------------------------
    def _anchors(self) -> np.ndarray:
        """``[4, ratios * scales]`` anchors (x0, y0, x1, y1 rows), the reference's way."""
        f32 = np.float32
        tensorflow = self.framework == "tensorflow"
        offset = f32(0 if tensorflow else 1)
        base = f32(self.base_size)
        area = f32(self.base_size * self.base_size)
        center = f32(0.5) * (base - offset)
        ratios = np.array(self.ratio, f32)[:, None]
        scales = np.array(self.scale, f32)[None, :]
        width = np.sqrt(area / ratios).astype(f32)
        if tensorflow:
            height = width * ratios
        else:
            width = _round_half_away(width)
            height = _round_half_away(width * ratios)
        scale_w = f32(0.5) * (width * scales - offset)
        scale_h = f32(0.5) * (height * scales - offset)
        anchors = np.stack([center - scale_w, center - scale_h, center + scale_w,
                            center + scale_h]).reshape(4, -1)  # fmt: skip
        if tensorflow:
            anchors = anchors - base * f32(0.5)
        return anchors.astype(f32)

    def evaluate(self, inputs):
        """Decode every anchor at once; per image the sort and the greedy NMS."""
        f32 = np.float32
        arrays = [np.asarray(a) for a in inputs]
        dtype = arrays[0].dtype
        probs, deltas, image = (a.astype(f32) for a in arrays)
        batches, channels, height, width = probs.shape
        count = channels // 2
        image = image.reshape(-1)
        image_h, image_w = image[0], image[1]
        scale_h = image[2]
        scale_w = image[3] if image.size >= 4 else scale_h
        min_h, min_w = f32(self.min_size) * scale_h, f32(self.min_size) * scale_w
        tensorflow = self.framework == "tensorflow"
        offset = f32(0 if tensorflow else 1)
        anchors = self._anchors()  # [4, A]
        rows_y, cols_x = np.meshgrid(np.arange(height), np.arange(width), indexing="ij")
        shift_x = (rows_y if tensorflow else cols_x) * self.feat_stride
        shift_y = (cols_x if tensorflow else rows_y) * self.feat_stride
        shift_x = shift_x.astype(f32)[..., None]  # [H, W, 1]
        shift_y = shift_y.astype(f32)[..., None]
        x0, y0 = shift_x + anchors[0], shift_y + anchors[1]  # [H, W, A]
        x1, y1 = shift_x + anchors[2], shift_y + anchors[3]
        if tensorflow:  # initial clip
            x0, x1 = (np.maximum(f32(0), np.minimum(v, image_w)) for v in (x0, x1))
            y0, y1 = (np.maximum(f32(0), np.minimum(v, image_h)) for v in (y0, y1))
        box_w, box_h = x1 - x0 + offset, y1 - y0 + offset
        center_x, center_y = x0 + f32(0.5) * box_w, y0 + f32(0.5) * box_h
        # deltas [N, A, 4, H, W] -> [N, H, W, A, 4]; scores: the second half of the channels
        moves = deltas.reshape(batches, count, 4, height, width).transpose(0, 3, 4, 1, 2)
        scores = probs[:, count:].transpose(0, 2, 3, 1)  # [N, H, W, A]
        dx = moves[..., 0] / f32(self.box_coordinate_scale)
        dy = moves[..., 1] / f32(self.box_coordinate_scale)
        dw = moves[..., 2] / f32(self.box_size_scale)
        dh = moves[..., 3] / f32(self.box_size_scale)
        new_x, new_y = dx * box_w + center_x, dy * box_h + center_y
        new_w = _exp(dw) * box_w
        new_h = _exp(dh) * box_h
        x0, y0 = new_x - f32(0.5) * new_w, new_y - f32(0.5) * new_h
        x1, y1 = new_x + f32(0.5) * new_w, new_y + f32(0.5) * new_h
        if self.clip_before_nms:
            x0, x1 = (np.maximum(f32(0), np.minimum(v, image_w - offset)) for v in (x0, x1))
            y0, y1 = (np.maximum(f32(0), np.minimum(v, image_h - offset)) for v in (y0, y1))
        big = ((min_w <= x1 - x0 + offset) & (min_h <= y1 - y0 + offset)).astype(f32)
        proposals = height * width * count
        boxes = np.stack([x0, y0, x1, y1], axis=-1).reshape(batches, proposals, 4).astype(f32)
        scores = (big * scores).reshape(batches, proposals).astype(f32)
        top = self.post_nms_topn
        rois = np.zeros((batches, top, 5), f32)
        kept_scores = np.zeros((batches, top), f32)
        for batch in range(batches):
            order = np.argsort(-scores[batch], kind="stable")[
                : min(self.pre_nms_topn, scores.shape[1])
            ]
            kept = self._nms(boxes[batch][order], offset)
            chosen = boxes[batch][order[kept]]
            if self.clip_after_nms:
                limits = np.array([image_w, image_h, image_w, image_h], f32)
                chosen = np.maximum(f32(0), np.minimum(chosen, limits))
            if self.normalize:
                chosen = chosen / np.array([image_w, image_h, image_w, image_h], f32)
            rois[batch, : len(kept), 0] = batch
            rois[batch, : len(kept), 1:] = chosen
            kept_scores[batch, : len(kept)] = scores[batch][order[kept]]
            if len(kept) < top:
                rois[batch, len(kept), 0] = -1
        outputs = [rois.reshape(batches * top, 5).astype(dtype)]
        if self.with_scores:
            outputs.append(kept_scores.reshape(-1).astype(dtype))
        return outputs

    def _nms(self, boxes, offset) -> list[int]:
        """Greedy NMS in score order, stopping at post_nms_topn boxes."""
        limit = np.float32(self.nms_thresh)
        alive = np.ones(len(boxes), dtype=bool)
        kept: list[int] = []
        position = 0
        while len(kept) < self.post_nms_topn:
            remaining = np.flatnonzero(alive[position:])
            if remaining.size == 0:
                break
            position += int(remaining[0])
            alive[position] = False
            kept.append(position)
            later = boxes[position + 1 :]
            alive[position + 1 :] &= ~(_overlap(boxes[position], later, offset) > limit)
        return kept


def _overlap(box, others, offset):
    """The reference's IoU of ``box`` with each of ``others`` (0 when apart)."""
    zero = np.float32(0)
    touching = (box[0] <= others[:, 2]) & (box[1] <= others[:, 3]) & (
        others[:, 0] <= box[2]) & (others[:, 1] <= box[3])  # fmt: skip
    low = np.maximum(box[:2], others[:, :2])
    high = np.minimum(box[2:], others[:, 2:])
    width = np.maximum(zero, high[:, 0] - low[:, 0] + offset)
    height = np.maximum(zero, high[:, 1] - low[:, 1] + offset)
    area = width * height
    area_a = (box[2] - box[0] + offset) * (box[3] - box[1] + offset)
    area_b = (others[:, 2] - others[:, 0] + offset) * (others[:, 3] - others[:, 1] + offset)
    with np.errstate(divide="ignore", invalid="ignore"):
        iou = area / (area_a + area_b - area)
    return np.where(touching, iou, zero).astype(np.float32)


def _round_half_away(values):
    """``roundf``: half away from zero, as float32."""
    wide = values.astype(np.float64)
    return (np.sign(wide) * np.floor(np.abs(wide) + 0.5)).astype(np.float32)


def _exp(values):
    """float32 ``exp`` rounded from double."""
    return np.exp(values.astype(np.float64)).astype(np.float32)


@register
class Proposal1(_Proposal):
    """Proposal-1: the proposals only."""

    type, version = "Proposal", 1


@register
class Proposal4(_Proposal):
    """Proposal-4: adds their scores."""

    type, version = "Proposal", 4
    with_scores = True
