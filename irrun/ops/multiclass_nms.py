"""MulticlassNms-8 and MulticlassNms-9: greedy NMS per image and class (PaddlePaddle's
``multiclass_nms3``), then the best ``keep_top_k`` detections of each image.

Spec facts: inputs boxes ``[N, M, 4]`` (``[x1, y1, x2, y2]``) and scores ``[N, C, M]`` of one
bf16/f16/f32 type; MulticlassNms-9 also takes, with a third input roisnum ``[N]`` (i32 or
i64), boxes ``[C, sum(M), 4]`` and scores ``[C, sum(M)]``: each class has its own boxes and
image ``i`` owns ``roisnum[i]`` consecutive ones. Attributes ``sort_result_type`` (classid,
score, none), ``sort_result_across_batch``, ``output_type`` (i32, i64), ``iou_threshold``,
``score_threshold``, ``nms_top_k``, ``keep_top_k``, ``background_class`` (each >= -1, -1: no
limit or none), ``nms_eta`` (in [0, 1]) and ``normalized``. Outputs selected_outputs
``[count, 6]`` (``[class, score, x1, y1, x2, y2]``, boxes' type), selected_indices
``[count, 1]`` and valid_outputs ``[N]`` (output_type).

Shape rule (``multiclass_nms_shape_inference.hpp``, OpenVINO's Dimension arithmetic):
``0..max(min(M, nms_top_k) * C, keep_top_k when smaller) * N`` (``?`` where unbounded; an
unbounded product is not cut by keep_top_k), with ``C`` and ``N`` read from boxes and
roisnum in the roisnum form; valid_outputs ``[N]``.

Kernel (OpenVINO's reference ``multiclass_nms.cpp``): per image and class (the background
class skipped), the boxes scoring at least score_threshold, the nms_top_k best (ties: the
smaller index), greedily kept unless their IoU with a kept box reaches the threshold, which
decays by ``nms_eta`` after each kept box while above 0.5; a box whose score equals
score_threshold is compared with the last kept box only (the reference's early break). IoU
adds 1 to the sizes when ``normalized`` is false. Then per image: by decreasing score (ties:
class, box), cut at keep_top_k, by class with ``sort_result_type="classid"`` unless sorted
across images; across images by score (then image, class, box) or by class (then image,
score, box). selected_indices holds ``image * M + box`` (roisnum form: ``(offset + box) * C +
class``). The reference's sorts treat scores within 1e-6 as equal, which is no ordering;
irrun orders exact ties only. Exact (indices and outputs).
"""

from __future__ import annotations

import numpy as np

from irrun.ops._detection_nms import COMMON_ATTRIBUTES, DetectionNms, Detections, outputs_of
from irrun.ops._ov_dims import OvDim, max_length
from irrun.ops.base import Attribute, TensorInfo
from irrun.ops.registry import register
from irrun.shape import Dim, Shape, static_dim


def multiclass_iou(box, others, normalized: bool) -> np.ndarray:
    """IoU of ``box`` with each of ``others`` (``[x1, y1, x2, y2]``), the reference's way."""
    norm = np.float32(0 if normalized else 1)
    zero = np.float32(0)
    area = (box[3] - box[1] + norm) * (box[2] - box[0] + norm)
    areas = (others[:, 3] - others[:, 1] + norm) * (others[:, 2] - others[:, 0] + norm)
    low = np.maximum(box[:2], others[:, :2])
    high = np.minimum(box[2:], others[:, 2:])
    inter = np.maximum(high[:, 1] - low[:, 1] + norm, zero) * np.maximum(
        high[:, 0] - low[:, 0] + norm, zero)  # fmt: skip
    with np.errstate(divide="ignore", invalid="ignore"):
        iou = inter / (area + areas - inter)
    return np.where((area <= zero) | (areas <= zero), zero, iou).astype(np.float32)


class _MulticlassNms(DetectionNms):
    inputs = (2, 2)
    attributes = COMMON_ATTRIBUTES + (
        Attribute("iou_threshold", "float", 0.0),
        Attribute("nms_eta", "float", 1.0),
    )

    def more_problems(self):
        if not 0.0 <= self.nms_eta <= 1.0:
            return [f"nms_eta {self.nms_eta} must lie in [0, 1]"]
        return []

    def infer(self, inputs):
        """``[0..count, 6]``, ``[0..count, 1]`` and ``[images]``."""
        if not self.check_float_types(inputs):
            return None
        has_rois = len(inputs) == 3
        boxes, scores = inputs[0].shape, inputs[1].shape
        rois = inputs[2].shape if has_rois else Shape.dynamic_rank()
        scores_rank = 2 if has_rois else 3
        if boxes.rank not in (None, 3):
            self.report_dims(f"boxes must have rank 3, but its shape is {boxes}", 0,
                             "give boxes the shape [N, M, 4]")  # fmt: skip
            return None
        if scores.rank not in (None, scores_rank):
            self.report_dims(f"scores must have rank {scores_rank}, but its shape is {scores}", 1,
                             "give scores the shape " + ("[C, sum(M)]" if has_rois else
                                                         "[N, C, M]"))  # fmt: skip
            return None
        if has_rois:
            if rois.rank not in (None, 1):
                self.report_dims(f"roisnum must have rank 1, but its shape is {rois}", 2,
                                 "give one ROI count per image")  # fmt: skip
                return None
            if inputs[2].element_type.name not in ("i32", "i64", "dynamic"):
                self.context.error(
                    "index-type",
                    f"{self.describe()}: roisnum must be i32 or i64, but input 2 is "
                    f"{inputs[2].element_type}",
                    port=self.input_port(2),
                    hint="insert a Convert to i32 before the roisnum input",
                )
                return None
        etype = inputs[0].element_type
        if etype.name == "dynamic":
            etype = inputs[1].element_type
        index_type = self.output_type
        count, images = Dim.dynamic(), Dim.dynamic()
        if boxes.rank_is_static:
            if scores.rank_is_static and not boxes[0].compatible(scores[0]):
                self.report_dims(f"boxes {boxes} and scores {scores} must agree on dim 0, but "
                                 f"they have {boxes[0]} and {scores[0]}", 1,
                                 "give boxes and scores one dim 0")  # fmt: skip
                return None
            if not boxes[2].compatible(Dim(4)):
                self.report_dims(f"the last dim of boxes {boxes} must be 4, but it is {boxes[2]}",
                                 0, "give each box as 4 coordinates")  # fmt: skip
                return None
            if scores.rank_is_static:
                axis = 1 if has_rois else 2
                if not boxes[1].compatible(scores[axis]):
                    message = (
                        f"boxes {boxes} dim 1 and scores {scores} dim {axis} must both "
                        f"be the box count, but they are {boxes[1]} and {scores[axis]}"
                    )
                    self.report_dims(message, 1, "give scores one entry per box")
                    return None
                if not has_rois or rois.rank_is_static:
                    classes = boxes[0] if has_rois else scores[1]
                    count = self._count(boxes[1], classes, rois[0] if has_rois else scores[0])
                    images = rois[0] if has_rois else boxes[0]
        why = f"boxes {boxes}, scores {scores}: up to {count} detections"
        return [TensorInfo(Shape([count, static_dim(6)]), etype, why=why),
                TensorInfo(Shape([count, static_dim(1)]), index_type, why=why),
                TensorInfo(Shape([images]), index_type, why="one count per image")]  # fmt: skip

    def _count(self, boxes: Dim, classes: Dim, images: Dim) -> Dim:
        if self.nms_top_k > -1:
            selected = OvDim.of_value(min(max_length(boxes), self.nms_top_k))
        else:
            selected = OvDim.of_dim(boxes)
        selected = selected * OvDim.of_dim(classes)
        if -1 < self.keep_top_k < selected.max_length:
            selected = OvDim.of_value(self.keep_top_k)
        selected = selected * OvDim.of_dim(images)
        return OvDim.of_bounds(0, selected.max_length).as_dim()

    # -- kernel ---------------------------------------------------------------------------
    def evaluate(self, inputs):
        """Per image and class the greedy NMS; per image the best keep_top_k; the order."""
        boxes = np.asarray(inputs[0])
        out_dtype = boxes.dtype
        boxes = boxes.astype(np.float32)
        scores = np.asarray(inputs[1]).astype(np.float32)
        detections = Detections()
        valid = []
        if len(inputs) == 3:
            counts = np.asarray(inputs[2]).astype(np.int64).reshape(-1)
            classes = boxes.shape[0]
            head = 0
            for image, rois in enumerate(counts.tolist()):
                if rois <= 0:
                    valid.append(0)
                    continue
                if head + rois > boxes.shape[1]:
                    raise ValueError(
                        f"{self.describe()}: roisnum {counts.tolist()} asks for more than the "
                        f"{boxes.shape[1]} boxes given"
                    )
                part = slice(head, head + rois)
                found = self._image(boxes[:, part], scores[:, part], shared=False)
                klass, score, box = found
                flat = (head + box) * classes + klass
                coordinates = boxes[klass, head + box]
                detections.add(image, klass, score, box, flat, coordinates)
                valid.append(len(score))
                head += rois
        else:
            num_boxes = boxes.shape[1]
            for image in range(scores.shape[0]):
                klass, score, box = self._image(boxes[image], scores[image], shared=True)
                detections.add(image, klass, score, box, image * num_boxes + box,
                               boxes[image, box])  # fmt: skip
                valid.append(len(score))
        return outputs_of(self, detections, valid, out_dtype)

    def _image(self, boxes, scores, shared: bool):
        """``(classes, scores, boxes)`` kept for one image, in the image's output order."""
        parts = []
        for klass in range(scores.shape[0]):
            if klass == self.background_class:
                continue
            own = boxes if shared else boxes[klass]
            kept = self._class(own, scores[klass])
            parts.append((np.full(len(kept), klass), scores[klass][kept], kept))
        if not parts:
            return np.zeros(0, np.int64), np.zeros(0, np.float32), np.zeros(0, np.int64)
        klass, score, box = (np.concatenate(c) for c in zip(*parts))
        order = np.lexsort((box, klass, -score))
        if self.keep_top_k > -1:
            order = order[: self.keep_top_k]
        if not self.sort_result_across_batch and self.sort_result_type == "classid":
            order = order[np.lexsort((box[order], -score[order], klass[order]))]
        return klass[order].astype(np.int64), score[order], box[order].astype(np.int64)

    def _class(self, boxes, scores) -> np.ndarray:
        """The box indices kept for one class, in selection order."""
        threshold = np.float32(self.score_threshold)
        candidates = np.flatnonzero(scores >= threshold)
        order = candidates[np.lexsort((candidates, -scores[candidates]))]
        if self.nms_top_k > -1:
            order = order[: self.nms_top_k]
        if order.size == 0:
            return order.astype(np.int64)
        ordered, ordered_scores = boxes[order], scores[order]
        at_threshold = ordered_scores <= threshold  # judged against the last kept box only
        limit = np.float32(self.iou_threshold)
        eta = np.float32(self.nms_eta)
        alive = np.ones(order.size, dtype=bool)
        kept: list[int] = []
        position = 0
        while True:
            remaining = np.flatnonzero(alive[position:])
            if remaining.size == 0:
                break
            position += int(remaining[0])
            alive[position] = False
            if kept:
                against = kept[-1:] if at_threshold[position] else kept
                ious = multiclass_iou(ordered[position], ordered[against], self.normalized)
                if (ious >= limit).any():
                    continue
            kept.append(position)
            if eta < 1 and limit > 0.5:
                limit = np.float32(limit * eta)
            # a later box this close is suppressed under any later (smaller) threshold
            later = slice(position + 1, None)
            ious = multiclass_iou(ordered[position], ordered[later], self.normalized)
            alive[later] &= ~((ious >= limit) & ~at_threshold[later])
        return order[kept].astype(np.int64)


@register
class MulticlassNms8(_MulticlassNms):
    """MulticlassNms-8: boxes shared by the classes."""

    type, version = "MulticlassNms", 8


@register
class MulticlassNms9(_MulticlassNms):
    """MulticlassNms-9: adds the roisnum form (each class with its own boxes)."""

    type, version, inputs = "MulticlassNms", 9, (2, 3)
