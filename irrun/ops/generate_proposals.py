"""GenerateProposals-9: region proposals from anchors refined by deltas, the best by score kept
through greedy NMS, per image of the batch.

Spec facts: inputs im_info (``[N, 3]`` or ``[N, 4]``: image height, width and one or two
scales), anchors (``[H, W, A, 4]``: x0, y0, x1, y1), deltas (``[N, A*4, H, W]``) and scores
(``[N, A, H, W]``). Attributes ``min_size``, ``nms_threshold`` (floats), ``pre_nms_count``
and ``post_nms_count`` (> 0), ``normalized`` (default true: no +1 in widths), ``nms_eta``
(must be 1) and ``roi_num_type`` (i32 or i64, default i64). Outputs rois (``[R, 4]``) and
roi_scores (``[R]``) of im_info's type, every image's after the other, and roi_num (``[N]``):
how many of the R are each image's.

Shape rule (``generate_proposals_shape_inference.hpp``): the ranks (2, 4, 4, 4), im_info's
dim 1 of 3 or 4, anchors' dim 3 of 4; N merged across im_info, deltas and scores; deltas'
A*4, H, W compatible with scores' A*4, H, W; anchors' H, W, A with scores'. R is
``0..N*post_nms_count`` (``?`` when N is unbounded).

Kernel (``reference/src/op/generate_proposal.cpp``), in f32 whatever the input type: each
anchor (in h, w, a order) is shifted by its deltas (the log-size deltas capped at
``log(1000/16)``), clipped to the image, and marked dead when smaller than ``min_size``
times the image's scale; the ``min(pre_nms_count, H*W*A)`` best by score (a stable sort:
OpenVINO's ``partial_sort`` leaves ties in an unspecified order) go through greedy NMS
(IoU above ``nms_threshold`` suppresses, boxes that do not touch never do) until
``post_nms_count`` are kept. The NMS runs all images at once, one kept box per image per
round. Tolerance: ``rtol=1e-5, atol=1e-5`` on boxes (``exp`` may differ by an ulp), scores
and counts exact.
"""

from __future__ import annotations

import numpy as np

from irrun.element_types import element_type
from irrun.ops.base import Attribute, Op, TensorInfo, lazy_text
from irrun.ops.registry import register
from irrun.shape import Dim, Shape, static_dim

_NAMES = ("im_info", "anchors", "deltas", "scores")
_MAX_DELTA_LOG_WH = np.float32(np.log(1000.0 / 16.0))


@register
class GenerateProposals(Op):
    """GenerateProposals-9."""

    type, version, inputs = "GenerateProposals", 9, (4, 4)
    attributes = (
        Attribute("min_size", "float", 0.0, required=True),
        Attribute("nms_threshold", "float", 0.0, required=True),
        Attribute("pre_nms_count", "int", 1, required=True),
        Attribute("post_nms_count", "int", 1, required=True),
        Attribute("normalized", "bool", True),
        Attribute("nms_eta", "float", 1.0),
        Attribute("roi_num_type", "element_type", None),
    )

    def setup(self):
        if self.roi_num_type is None:
            self.roi_num_type = element_type("i64")
        problems = []
        for name in ("pre_nms_count", "post_nms_count"):
            if getattr(self, name) <= 0:
                problems.append(
                    (
                        f"{name} must be larger than 0, but it is {getattr(self, name)}",
                        f'write {name}="1" or more',
                    )
                )
        if self.nms_eta != 1.0:
            problems.append((f"nms_eta must be 1 (adaptive NMS is not supported), but it is "
                             f"{self.nms_eta:g}", 'write nms_eta="1"'))  # fmt: skip
        if self.roi_num_type.name not in ("i32", "i64"):
            problems.append((f"roi_num_type must be i32 or i64, but it is {self.roi_num_type}",
                             'write roi_num_type="i64"'))  # fmt: skip
        for message, hint in problems:
            self.context.error("attribute-value", f"{self.describe()}: {message}", hint=hint,
                               line=self.layer.data_line)  # fmt: skip
            self.incomplete = True

    def _refuse(self, index, message, hint):
        self.context.error("input-shape", f"{self.describe()}: {message}",
                           port=self.input_port(index), hint=hint)  # fmt: skip

    def infer(self, inputs):
        """rois ``[0..N*post, 4]``, roi_scores ``[0..N*post]``, roi_num ``[N]``."""
        shapes = [info.shape for info in inputs]
        for index, rank in enumerate((2, 4, 4, 4)):
            if shapes[index].rank not in (None, rank):
                self._refuse(
                    index,
                    f"{_NAMES[index]} must be {rank}-D, but its shape is {shapes[index]}",
                    f"give {_NAMES[index]} of rank {rank}",
                )
                return None
        im_info, anchors, deltas, scores = shapes
        if im_info.rank and not (im_info[1].compatible(static_dim(3))
                                 or im_info[1].compatible(static_dim(4))):  # fmt: skip
            self._refuse(0, f"im_info must be [N, 3] or [N, 4], but its shape is {im_info}",
                         "give height, width and one or two scales per image")  # fmt: skip
            return None
        if anchors.rank and not anchors[3].compatible(static_dim(4)):
            self._refuse(1, f"anchors must be [H, W, A, 4], but its shape is {anchors}",
                         "give x0, y0, x1, y1 per anchor")  # fmt: skip
            return None
        batch = Dim.dynamic()
        for shape in (im_info, deltas, scores):
            if shape.rank:
                merged = batch.merge(shape[0])
                batch = merged if merged is not None else batch
        checks = []
        if deltas.rank and scores.rank:
            four_anchors = Dim(scores[1].lower * 4, None if scores[1].upper is None
                               else scores[1].upper * 4)  # fmt: skip
            checks += [(2, "batch", deltas[0], scores[0], "deltas", "scores"),
                       (2, "anchor number * 4", deltas[1], four_anchors, "deltas", "scores"),
                       (2, "height", deltas[2], scores[2], "deltas", "scores"),
                       (2, "width", deltas[3], scores[3], "deltas", "scores")]  # fmt: skip
            if im_info.rank:
                checks.append((2, "batch", deltas[0], im_info[0], "deltas", "im_info"))
        if scores.rank and anchors.rank:
            checks += [
                (1, "height", anchors[0], scores[2], "anchors", "scores"),
                (1, "width", anchors[1], scores[3], "anchors", "scores"),
                (1, "anchor number", anchors[2], scores[1], "anchors", "scores"),
            ]
        for index, what, first, second, first_name, second_name in checks:
            if not first.compatible(second):
                self._refuse(index, f"the {what} of {first_name} ({first}) and {second_name} "
                             f"({second}) must be equal", f"give {first_name} and "
                             f"{second_name} of one {what}")  # fmt: skip
                return None
        upper = None if batch.upper is None else batch.upper * self.post_nms_count
        rois = Dim(0, upper)
        etype = inputs[0].element_type
        why = lazy_text("up to {} proposals for each of {} images", self.post_nms_count, batch)
        return [
            TensorInfo(Shape([rois, static_dim(4)]), etype, why=why),
            TensorInfo(Shape([rois]), etype, why=why),
            TensorInfo(Shape([batch]), self.roi_num_type, why="one count per image"),
        ]

    def evaluate(self, inputs):
        """Refined, clipped anchors; the best by score through greedy NMS, per image."""
        im_info, anchors, deltas, scores = (np.asarray(a, np.float32) for a in inputs)
        batch, anchor_count, height, width = scores.shape
        offset = np.float32(0 if self.normalized else 1)
        # proposals in (h, w, a) order, as the reference walks them
        anchors = np.broadcast_to(anchors.reshape(1, height * width * anchor_count, 4),
                                  (batch, height * width * anchor_count, 4))  # fmt: skip
        deltas = deltas.reshape(batch, anchor_count, 4, height, width).transpose(0, 3, 4, 1, 2)
        deltas = deltas.reshape(batch, -1, 4)
        scores = scores.transpose(0, 2, 3, 1).reshape(batch, -1)
        boxes, alive = _refine(anchors, deltas, im_info, np.float32(self.min_size), offset)
        count = scores.shape[1]
        pre = min(count, self.pre_nms_count)
        order = np.argsort(-scores, axis=1, kind="stable")[:, :pre]
        boxes = np.take_along_axis(boxes, order[:, :, None], axis=1)
        top_scores = np.take_along_axis(scores, order, axis=1)
        alive = np.take_along_axis(alive, order, axis=1)
        kept = _greedy_nms(boxes, alive, np.float32(self.nms_threshold), self.post_nms_count,
                           offset)  # fmt: skip
        counts = kept.sum(axis=1)
        dtype = np.asarray(inputs[0]).dtype
        # kept boxes keep their score order: the rows of ``kept`` are in that order
        rois = boxes[kept].astype(dtype)
        roi_scores = top_scores[kept].astype(dtype)
        return [rois.reshape(-1, 4), roi_scores, counts.astype(self.roi_num_type.numpy_dtype)]


def _refine(anchors, deltas, im_info, min_size, offset):
    """The anchors moved by their deltas and clipped to the image, and whether each is at
    least ``min_size`` (times the image's scales) wide and high, in the reference's f32
    order of operations."""
    half = np.float32(0.5)
    x0, y0, x1, y1 = (anchors[..., i] for i in range(4))
    dx, dy, dlw, dlh = (deltas[..., i] for i in range(4))
    ww = x1 - x0 + offset
    hh = y1 - y0 + offset
    center_x = x0 + half * ww
    center_y = y0 + half * hh
    predicted_x = dx * ww + center_x
    predicted_y = dy * hh + center_y
    predicted_w = np.exp(np.minimum(dlw, _MAX_DELTA_LOG_WH)) * ww
    predicted_h = np.exp(np.minimum(dlh, _MAX_DELTA_LOG_WH)) * hh
    image_h = im_info[:, 0:1]
    image_w = im_info[:, 1:2]
    scale_h = im_info[:, 2:3] if im_info.shape[1] >= 3 else np.float32(1)
    scale_w = im_info[:, 3:4] if im_info.shape[1] >= 4 else scale_h
    zero = np.float32(0)
    x0 = np.maximum(zero, np.minimum(predicted_x - half * predicted_w, image_w - offset))
    y0 = np.maximum(zero, np.minimum(predicted_y - half * predicted_h, image_h - offset))
    x1 = np.maximum(zero, np.minimum(predicted_x + half * predicted_w - offset, image_w - offset))
    y1 = np.maximum(zero, np.minimum(predicted_y + half * predicted_h - offset, image_h - offset))
    box_w = x1 - x0 + offset
    box_h = y1 - y0 + offset
    alive = (min_size * scale_w <= box_w) & (min_size * scale_h <= box_h)
    return np.stack([x0, y0, x1, y1], axis=-1), alive


def _greedy_nms(boxes, alive, threshold, limit, offset):
    """Which boxes (``[batch, n, 4]``, best first) greedy NMS keeps, at most ``limit`` per
    image: all images advance together, each keeping its next live box per round."""
    batch, count = alive.shape
    alive = alive.copy()
    kept = np.zeros((batch, count), bool)
    x0, y0, x1, y1 = (boxes[..., i] for i in range(4))
    area = (x1 - x0 + offset) * (y1 - y0 + offset)
    positions = np.arange(count)
    rows = np.arange(batch)
    for _ in range(min(limit, count)):
        candidates = alive & ~kept
        has = candidates.any(axis=1)
        if not has.any():
            break
        pick = np.argmax(candidates, axis=1)
        kept[rows[has], pick[has]] = True
        chosen = boxes[rows, pick]  # [batch, 4]
        cx0, cy0, cx1, cy1 = (chosen[:, i : i + 1] for i in range(4))
        width = np.minimum(cx1, x1) - np.maximum(cx0, x0) + offset
        height = np.minimum(cy1, y1) - np.maximum(cy0, y0) + offset
        inter = np.maximum(np.float32(0), width) * np.maximum(np.float32(0), height)
        with np.errstate(divide="ignore", invalid="ignore"):
            iou = inter / (area[rows, pick][:, None] + area - inter)
        touching = (cx0 <= x1) & (cy0 <= y1) & (x0 <= cx1) & (y0 <= cy1)
        suppressed = (threshold < iou) & touching & (positions > pick[:, None]) & has[:, None]
        alive &= ~suppressed
    return kept
