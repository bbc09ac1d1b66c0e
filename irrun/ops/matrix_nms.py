"""MatrixNms-8: Matrix NMS (SOLOv2): every candidate's score decays by its overlap with the
better-scoring candidates of its class, all at once instead of greedily.

Spec facts: inputs boxes ``[N, M, 4]`` (``[x1, y1, x2, y2]``) and scores ``[N, C, M]`` of one
bf16/f16/f32 type. Attributes ``sort_result_type`` (classid, score, none),
``sort_result_across_batch``, ``output_type`` (i32, i64), ``score_threshold``, ``nms_top_k``,
``keep_top_k``, ``background_class`` (each >= -1), ``decay_function`` (linear, gaussian),
``gaussian_sigma``, ``post_threshold`` and ``normalized``. Outputs selected_outputs
``[count, 6]`` (``[class, score, x1, y1, x2, y2]``, boxes' type), selected_indices
``[count, 1]`` (``image * M + box``) and valid_outputs ``[N]`` (output_type).

Shape rule (``matrix_nms_shape_inference.hpp``): ``0..max(min(M, nms_top_k) * C, cut at
keep_top_k) * N`` (upper bounds; ``?`` where unbounded); valid_outputs ``[N]`` from boxes.

Kernel (OpenVINO's reference ``matrix_nms.cpp``), per image and class (the background class
skipped): the candidates scoring above score_threshold by decreasing score (ties: the smaller
index), at most nms_top_k; the IoU matrix of the candidates (0 for boxes apart; sizes + 1
when not ``normalized``; an inverted box has area 0); ``max_iou[j]`` the largest IoU of
candidate j with a better one; candidate i's score times ``min(1, min_j decay(iou[i, j],
max_iou[j]))`` over the better candidates j, with decay ``(1 - iou) / (1 - max_iou +
1e-10)`` (linear, in double) or ``exp((max_iou**2 - iou**2) * gaussian_sigma)`` (gaussian);
kept when above post_threshold. Per image: by decreasing score (ties: class, box), cut at
keep_top_k; across images by score (then image, class, box) or by class (then image, score,
box). Vectorised over each class's candidates (the IoU matrix a block of rows at a time).
The reference stops at the first image without detections (the later images get none);
irrun goes on, as the spec and the CPU plugin do. Indices exact; scores are the
reference's (the linear decay in double, as written there) and within ``rtol=1e-6`` of the
CPU plugin's (1 ulp: it divides in float).
"""

from __future__ import annotations

import numpy as np

from irrun.ops._detection_nms import COMMON_ATTRIBUTES, DetectionNms, Detections, outputs_of
from irrun.ops._ov_dims import OvDim, max_length
from irrun.ops.base import Attribute, TensorInfo
from irrun.ops.registry import register
from irrun.shape import Dim, Shape, static_dim

_EPSILON = float(np.float32(1e-10))  # the reference's 1e-10f, used in double


def matrix_iou(rows: np.ndarray, boxes: np.ndarray, normalized: bool) -> np.ndarray:
    """The ``[len(rows), n]`` IoU matrix of the ``[x1, y1, x2, y2]`` boxes ``rows`` with
    ``boxes``, the reference's way (``iou[i, j]`` with box i first)."""
    norm = np.float32(0 if normalized else 1)
    zero = np.float32(0)
    a, b = rows[:, None, :], boxes[None, :, :]
    apart = (b[..., 0] > a[..., 2]) | (b[..., 2] < a[..., 0]) | (b[..., 1] > a[..., 3]) | (
        b[..., 3] < a[..., 1])  # fmt: skip
    inter_w = np.minimum(a[..., 2], b[..., 2]) - np.maximum(a[..., 0], b[..., 0]) + norm
    inter_h = np.minimum(a[..., 3], b[..., 3]) - np.maximum(a[..., 1], b[..., 1]) + norm
    inter = inter_w * inter_h

    def area(box):
        invalid = (box[:, 2] < box[:, 0]) | (box[:, 3] < box[:, 1])
        return np.where(invalid, zero, (box[:, 2] - box[:, 0] + norm) * (box[:, 3] - box[:, 1]
                                                                         + norm))  # fmt: skip

    with np.errstate(divide="ignore", invalid="ignore"):
        iou = inter / ((area(rows)[:, None] + area(boxes)[None, :]) - inter)
    return np.where(apart, zero, iou).astype(np.float32)


def _row_blocks(count: int):
    """Row slices of an ``[count, count]`` matrix holding about 4M elements each."""
    step = max(1, (1 << 22) // max(count, 1))
    return [slice(start, min(start + step, count)) for start in range(0, count, step)]


@register
class MatrixNms(DetectionNms):
    """MatrixNms-8."""

    type, version, inputs = "MatrixNms", 8, (2, 2)
    attributes = COMMON_ATTRIBUTES + (
        Attribute("decay_function", "enum", "linear", choices=("linear", "gaussian")),
        Attribute("gaussian_sigma", "float", 2.0),
        Attribute("post_threshold", "float", 0.0),
    )

    def infer(self, inputs):
        """``[0..count, 6]``, ``[0..count, 1]`` and ``[N]``."""
        if not self.check_float_types(inputs):
            return None
        boxes, scores = inputs[0].shape, inputs[1].shape
        for index, shape, layout in ((0, boxes, "[N, M, 4]"), (1, scores, "[N, C, M]")):
            if shape.rank not in (None, 3):
                name = ("boxes", "scores")[index]
                self.report_dims(f"{name} must have rank 3, but its shape is {shape}", index,
                                 f"give {name} the shape {layout}")  # fmt: skip
                return None
        etype = inputs[0].element_type
        if etype.name == "dynamic":
            etype = inputs[1].element_type
        count, images = Dim.dynamic(), Dim.dynamic()
        if boxes.rank_is_static:
            if self.nms_top_k > -1:
                selected = OvDim.of_value(min(max_length(boxes[1]), self.nms_top_k))
            else:
                selected = OvDim.of_dim(boxes[1])
            if scores.rank_is_static:
                if not boxes[0].compatible(scores[0]):
                    self.report_dims(f"boxes {boxes} and scores {scores} must have one batch "
                                     f"(dim 0), but they have {boxes[0]} and {scores[0]}", 1,
                                     "give boxes and scores one batch size")  # fmt: skip
                    return None
                if not boxes[1].compatible(scores[2]):
                    message = (
                        f"boxes {boxes} dim 1 and scores {scores} dim 2 must both be the "
                        f"box count, but they are {boxes[1]} and {scores[2]}"
                    )
                    self.report_dims(message, 1, "give scores one entry per box")
                    return None
                selected = selected * OvDim.of_dim(scores[1])
                if self.keep_top_k > -1:
                    selected = OvDim.of_value(min(selected.max_length, self.keep_top_k))
                selected = selected * OvDim.of_dim(scores[0])
                count = OvDim.of_bounds(0, selected.max_length).as_dim()
            if not boxes[2].compatible(Dim(4)):
                self.report_dims(f"the last dim of boxes {boxes} must be 4, but it is {boxes[2]}",
                                 0, "give each box as 4 coordinates")  # fmt: skip
                return None
            images = boxes[0]
        why = f"boxes {boxes}, scores {scores}: up to {count} detections"
        index_type = self.output_type
        return [TensorInfo(Shape([count, static_dim(6)]), etype, why=why),
                TensorInfo(Shape([count, static_dim(1)]), index_type, why=why),
                TensorInfo(Shape([images]), index_type, why="one count per image")]  # fmt: skip

    def evaluate(self, inputs):
        """Per image and class the decayed scores; per image the best keep_top_k."""
        boxes = np.asarray(inputs[0])
        out_dtype = boxes.dtype
        boxes = boxes.astype(np.float32)
        scores = np.asarray(inputs[1]).astype(np.float32)
        num_boxes = boxes.shape[1]
        detections = Detections()
        valid = []
        for image in range(scores.shape[0]):
            parts = []
            for klass in range(scores.shape[1]):
                if klass == self.background_class:
                    continue
                kept, decayed = self._class(boxes[image], scores[image, klass])
                parts.append((np.full(len(kept), klass), decayed, kept))
            if parts:
                klass, score, box = (np.concatenate(c) for c in zip(*parts))
            else:
                klass = box = np.zeros(0, np.int64)
                score = np.zeros(0, np.float32)
            order = np.lexsort((box, klass, -score))
            if self.keep_top_k > -1:
                order = order[: self.keep_top_k]
            klass, score, box = klass[order], score[order], box[order].astype(np.int64)
            detections.add(image, klass, score, box, image * num_boxes + box, boxes[image, box])
            valid.append(len(score))
        return outputs_of(self, detections, valid, out_dtype)

    def _class(self, boxes, scores):
        """The kept box indices of one class and their decayed scores (candidate order)."""
        candidates = np.flatnonzero(scores > np.float32(self.score_threshold))
        order = candidates[np.lexsort((candidates, -scores[candidates]))]
        if self.nms_top_k > -1:
            order = order[: self.nms_top_k]
        if order.size == 0:
            return order.astype(np.int64), np.zeros(0, np.float32)
        own = scores[order]
        ordered = boxes[order]
        count = order.size
        # iou[i, j] for j < i, a block of rows at a time (the matrix of many candidates is big)
        best = np.zeros(count, np.float32)  # max_iou[j]: 0 for the first candidate
        blocks = _row_blocks(count)
        kept_blocks = {}  # the blocks, when they fit in memory together, for the second pass
        for rows in blocks:
            iou = matrix_iou(ordered[rows], ordered, self.normalized)
            earlier = np.arange(count)[None, :] < np.arange(rows.start, rows.stop)[:, None]
            iou = np.where(earlier, iou, np.float32(0))
            best[rows] = np.max(iou, axis=1)
            if count * count <= 1 << 24:
                kept_blocks[rows.start] = iou
        least = np.ones(count, np.float32)
        for rows in blocks:
            iou = kept_blocks.get(rows.start)
            if iou is None:
                iou = matrix_iou(ordered[rows], ordered, self.normalized)
            earlier = np.arange(count)[None, :] < np.arange(rows.start, rows.stop)[:, None]
            if self.decay_function == "gaussian":
                sigma = np.float32(self.gaussian_sigma)
                exponent = (best[None, :] * best[None, :] - iou * iou) * sigma
                decay = np.exp(exponent.astype(np.float64)).astype(np.float32)
            else:
                below = 1.0 - best[None, :].astype(np.float64) + _EPSILON
                decay = ((1.0 - iou.astype(np.float64)) / below).astype(np.float32)
            least[rows] = np.min(np.where(earlier, decay, np.float32(1)), axis=1,
                                 initial=np.float32(1))  # fmt: skip
        decayed = (least * own).astype(np.float32)
        decayed[0] = own[0]
        keep = decayed > np.float32(self.post_threshold)
        return order[keep].astype(np.int64), decayed[keep]
