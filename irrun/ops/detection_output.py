"""DetectionOutput-1 and DetectionOutput-8: SSD's final layer: decode the box predictions
against the prior boxes, NMS per class, keep the best, write ``[image, label, score, xmin,
ymin, xmax, ymax]`` rows.

Spec facts: inputs box_logits ``[N, priors * loc_classes * 4]``, class_preds ``[N, priors *
classes]``, proposals ``[1 or N, 1 or 2, priors * prior_size]`` (prior_size 4 when
``normalized``, else 5; the second row the variances unless ``variance_encoded_in_target``)
and, for RefineDet, aux_class_preds ``[N, priors * 2]`` and aux_box_preds (box_logits' shape).
box_logits and class_preds share a floating-point type. Attributes ``num_classes``
(DetectionOutput-1 only; -1 or absent: deduced), ``background_label_id``, ``top_k``,
``keep_top_k`` (a list; its first value counts), ``code_type``
(``caffe.PriorBoxParameter.CORNER`` or ``CENTER_SIZE``), ``share_location``,
``nms_threshold``, ``confidence_threshold``, ``clip_after_nms``, ``clip_before_nms``,
``decrease_label_id`` (MXNet's NMS), ``normalized``, ``input_height``, ``input_width``,
``objectness_score``, ``variance_encoded_in_target``. Output ``[1, 1, rows, 7]`` of
box_logits' type with rows ``N * keep_top_k``, else ``N * top_k * classes`` (keep_top_k -1),
else ``N * priors * classes``.

Shape rule (``detection_output_shape_inference.hpp``): priors and classes deduced from the
static dims in OpenVINO's order (proposals, aux_class_preds, class_preds, box_logits) and
every other dim checked against them; N from box_logits (or class_preds).

Kernel (OpenVINO's reference ``detection_output.hpp``): priors (per image, or one set for
all) decoded by CORNER (``prior + variance * offset``) or CENTER_SIZE (center moved by
``variance * offset * size``, size times ``exp(variance * offset)``; any other code type
leaves the boxes 0, as the reference does), in float32; RefineDet decodes twice (the aux boxes
first) and reads a class score of 1 for the background and 0 for the others where the
objectness is below ``objectness_score``. Caffe NMS per class (background skipped): scores
above confidence_threshold by decreasing score (stable), ``top_k`` of them, kept unless their
Jaccard overlap with a kept box is above nms_threshold; MXNet NMS (``decrease_label_id``):
each prior's best class, ``>=`` confidence_threshold, one sorted list, the greedy NMS per
class. keep_top_k then keeps the best rows (ties: the smaller prior). Rows go image by image,
class by class; the row after the last detection starts with -1 and the rest is 0. The loop
runs once per kept box; decoding and overlaps are vectorised. Exact against the CPU plugin
for f32.
"""

from __future__ import annotations

import numpy as np

from irrun.ops.base import Attribute, Op, TensorInfo
from irrun.ops.registry import register
from irrun.shape import Dim, Shape, static_dim

_NAMES = ("box_logits", "class_preds", "proposals", "aux_class_preds", "aux_box_preds")
_RANKS = (2, 2, 3, 2, 2)


class _DetectionOutput(Op):
    inputs = (3, 5)
    attributes = (
        Attribute("num_classes", "int", -1, required=True, until=1),
        Attribute("background_label_id", "int", 0),
        Attribute("top_k", "int", -1),
        Attribute("variance_encoded_in_target", "bool", False),
        Attribute("keep_top_k", "ints", [-1], required=True),
        Attribute("code_type", "string", "caffe.PriorBoxParameter.CORNER"),
        Attribute("share_location", "bool", True),
        Attribute("nms_threshold", "float", 0.0, required=True),
        Attribute("confidence_threshold", "float", 0.0),
        Attribute("clip_after_nms", "bool", False),
        Attribute("clip_before_nms", "bool", False),
        Attribute("decrease_label_id", "bool", False),
        Attribute("normalized", "bool", False),
        Attribute("input_height", "int", 1),
        Attribute("input_width", "int", 1),
        Attribute("objectness_score", "float", 0.0),
    )
    num_classes = -1

    def setup(self):
        if not self.keep_top_k:
            self.context.error(
                "attribute-value",
                f"{self.describe()}: keep_top_k must have at least one value",
                hint='write keep_top_k="200" (or "-1": no limit)',
                line=self.layer.data_line,
            )
            self.incomplete = True
            self.keep_top_k = [-1]

    def _fail(self, message: str, index: int, hint: str) -> None:
        code = "input-rank" if "rank" in message else "input-dims"
        self.context.error(code, f"{self.describe()}: {message}", port=self.input_port(index),
                           hint=hint)  # fmt: skip

    # -- shape rule -----------------------------------------------------------------------
    def infer(self, inputs):
        """``[1, 1, rows, 7]``."""
        if len(inputs) == 4:
            self.context.error(
                "input-count",
                f"{self.describe()}: takes 3 or 5 inputs, not 4",
                hint="give aux_class_preds and aux_box_preds together, or neither",
            )
            return None
        first, second = inputs[0].element_type, inputs[1].element_type
        if first.kind not in ("float", "dynamic"):
            self.context.error(
                "input-type",
                f"{self.describe()}: box_logits must be floating-point, but input 0 is {first}",
                port=self.input_port(0),
                hint="insert a Convert to f32 before box_logits",
            )
            return None
        if "dynamic" not in (first.name, second.name) and first is not second:
            self.context.error(
                "input-type",
                f"{self.describe()}: class_preds must have box_logits' element type {first}, "
                f"but it is {second}",
                port=self.input_port(1),
                hint="insert a Convert so that both have one element type",
            )
            return None
        shapes = [info.shape for info in inputs]
        for index, shape in enumerate(shapes):
            if shape.rank not in (None, _RANKS[index]):
                name, rank = _NAMES[index], _RANKS[index]
                self._fail(f"{name} must have rank {rank}, but its shape is {shape}", index,
                           f"give {name} rank {rank}")  # fmt: skip
                return None
        counts = self._counts(shapes)
        if counts is None:
            return None
        images, priors, classes = counts
        prior_dim = static_dim(priors) if priors else Dim.dynamic()
        class_dim = static_dim(classes) if classes else Dim.dynamic()
        keep = self.keep_top_k[0]
        if keep > 0:
            rows = images * static_dim(keep)
            why = f"N {images} * keep_top_k {keep}"
        elif keep == -1 and self.top_k > 0:
            rows = images * static_dim(self.top_k) * class_dim
            why = f"N {images} * top_k {self.top_k} * classes {class_dim}"
        else:
            rows = images * prior_dim * class_dim
            why = f"N {images} * priors {prior_dim} * classes {class_dim}"
        etype = second if first.name == "dynamic" else first
        shape = Shape([static_dim(1), static_dim(1), rows, static_dim(7)])
        return [TensorInfo(shape, etype, why=why)]

    def _deduce_classes(self, shapes, prior_size):
        """OpenVINO's ``compute_num_classes``: ``(classes, priors)`` from the static dims."""
        logits, preds, proposals = shapes[:3]
        aux = len(shapes) == 5
        priors = classes = 0
        if proposals.rank_is_static and proposals[2].is_static:
            size = proposals[2].lower
            if size % prior_size:
                self._fail(f"the last dim of proposals {proposals} must be a multiple of "
                           f"prior_size {prior_size}", 2, "check normalized")  # fmt: skip
                return None
            priors = size // prior_size
            if priors <= 0:
                self._fail(f"proposals {proposals} hold no prior box", 2, "give the priors")
                return None
        if not priors and aux and shapes[3].rank_is_static and shapes[3][1].is_static:
            if shapes[3][1].lower % 2:
                self._fail(f"dim 1 of aux_class_preds {shapes[3]} must be even", 3,
                           "give 2 scores per prior")  # fmt: skip
                return None
            priors = shapes[3][1].lower // 2
        if priors and preds.rank_is_static and preds[1].is_static:
            if preds[1].lower % priors:
                self._fail(f"dim 1 of class_preds {preds} must be a multiple of the {priors} "
                           "priors", 1, "give one score per prior and class")  # fmt: skip
                return None
            classes = preds[1].lower // priors
        for index in (0, 4):
            if classes or not priors or self.share_location or index >= len(shapes):
                continue
            shape = shapes[index]
            if shape.rank_is_static and shape[1].is_static:
                if shape[1].lower % (priors * 4):
                    self._fail(
                        f"dim 1 of {_NAMES[index]} {shape} must be a multiple of priors "
                        f"* 4 = {priors * 4}",
                        index,
                        "give 4 numbers per prior and class",
                    )
                    return None
                classes = shape[1].lower // (priors * 4)
        return classes, priors

    def _counts(self, shapes):
        """``(N, priors, classes)`` as OpenVINO's ``shape_infer_base`` deduces and checks."""
        prior_size = 4 if self.normalized else 5
        if self.num_classes == -1:
            deduced = self._deduce_classes(shapes, prior_size)
            if deduced is None:
                return None
            classes, priors = deduced
        else:
            classes, priors = self.num_classes, 0
        loc_classes = 1 if self.share_location else classes
        logits, preds, proposals = shapes[:3]
        images = Dim.dynamic()
        updated = False
        if logits.rank_is_static:
            images, updated = logits[0], True
            if not priors and logits[1].is_static:
                size = logits[1].lower
                if loc_classes == 0 or size % (loc_classes * 4):
                    self._fail(f"dim 1 of box_logits {logits} must be a multiple of loc_classes "
                               f"* 4 = {loc_classes * 4}", 0, "check num_classes and "
                               "share_location")  # fmt: skip
                    return None
                priors = size // (loc_classes * 4)
            if priors > 0 and loc_classes > 0:
                wanted = priors * loc_classes * 4
                if not logits[1].compatible(Dim(wanted)):
                    self._fail(f"dim 1 of box_logits {logits} must be priors * loc_classes * 4 = "
                               f"{priors} * {loc_classes} * 4 = {wanted}", 0,
                               "give 4 numbers per prior (and class)")  # fmt: skip
                    return None
        if preds.rank_is_static:
            if (not updated or images.is_dynamic) and preds[0].is_static:
                images, updated = preds[0], True
            elif not preds[0].compatible(images):
                self._fail(f"dim 0 of class_preds {preds} must be the batch {images}", 1,
                           "give class_preds the batch of box_logits")  # fmt: skip
                return None
            if preds[1].is_static and classes:
                size = preds[1].lower
                if not priors:
                    if size % classes:
                        self._fail(f"dim 1 of class_preds {preds} must be a multiple of the "
                                   f"{classes} classes", 1, "check num_classes")  # fmt: skip
                        return None
                    priors = size // classes
                elif size != priors * classes:
                    self._fail(f"dim 1 of class_preds {preds} must be priors * classes = {priors} "
                               f"* {classes} = {priors * classes}", 1,
                               "give one score per prior and class")  # fmt: skip
                    return None
        if proposals.rank_is_static:
            if not (proposals[0].compatible(Dim(1)) or proposals[0].compatible(images)):
                self._fail(f"dim 0 of proposals {proposals} must be 1 or the batch {images}", 2,
                           "give one set of priors, or one per image")  # fmt: skip
                return None
            rows = 1 if self.variance_encoded_in_target else 2
            if not proposals[1].compatible(Dim(rows)):
                self._fail(f"dim 1 of proposals {proposals} must be {rows} (variances "
                           f"{'in the targets' if rows == 1 else 'in row 2'})", 2,
                           "check variance_encoded_in_target")  # fmt: skip
                return None
            if proposals[2].is_static:
                size = proposals[2].lower
                if not priors:
                    if size % prior_size:
                        message = (
                            f"the last dim of proposals {proposals} must be a "
                            f"multiple of prior_size {prior_size}"
                        )
                        self._fail(message, 2, "check normalized")
                        return None
                    priors = size // prior_size
                elif size != priors * prior_size:
                    self._fail(f"the last dim of proposals {proposals} must be priors * "
                               f"prior_size = {priors} * {prior_size} = {priors * prior_size}",
                               2, "check normalized and the prior count")  # fmt: skip
                    return None
        if len(shapes) == 5:
            aux_preds, aux_boxes = shapes[3], shapes[4]
            if aux_preds.rank_is_static:
                if not aux_preds[0].compatible(images):
                    self._fail(f"dim 0 of aux_class_preds {aux_preds} must be the batch "
                               f"{images}", 3, "give aux_class_preds the batch")  # fmt: skip
                    return None
                if priors and not aux_preds[1].compatible(Dim(priors * 2)):
                    self._fail(f"dim 1 of aux_class_preds {aux_preds} must be priors * 2 = "
                               f"{priors * 2}", 3, "give 2 scores per prior")  # fmt: skip
                    return None
                if aux_preds[1].is_static:
                    priors = aux_preds[1].lower // 2
            if not aux_boxes.compatible(logits):
                self._fail(f"aux_box_preds {aux_boxes} must have box_logits' shape {logits}", 4,
                           "give aux_box_preds box_logits' shape")  # fmt: skip
                return None
        return images, priors, classes

    # -- kernel ---------------------------------------------------------------------------
    def evaluate(self, inputs):
        """Decode, NMS per class, keep_top_k, rows."""
        arrays = [np.asarray(a) for a in inputs]
        dtype = arrays[0].dtype
        logits, preds, proposals = (a.astype(np.float32) for a in arrays[:3])
        images = logits.shape[0]
        prior_size = 4 if self.normalized else 5
        priors = proposals.shape[2] // prior_size
        classes = self.num_classes if self.num_classes != -1 else preds.shape[1] // priors
        loc_classes = 1 if self.share_location else classes
        (shape,) = [info.shape for info in self.infer([TensorInfo(Shape(a.shape),
                                                                  _float_type(a.dtype))
                                                       for a in arrays])]  # fmt: skip
        rows = shape[2].lower
        out = np.zeros((rows, 7), np.float32)
        locations = logits.reshape(images, priors, loc_classes, 4)
        scores = preds.reshape(images, priors, classes)
        prior_boxes, variances = self._priors(proposals, priors, prior_size)
        aux = len(arrays) == 5
        if aux:
            objectness = arrays[3].astype(np.float32).reshape(images, priors, 2)[:, :, 1]
            low = objectness < np.float32(self.objectness_score)
            background = np.zeros(classes, np.float32)
            if 0 <= self.background_label_id < classes:
                background[self.background_label_id] = 1
            scores = np.where(low[:, :, None], background, scores)
            aux_locations = arrays[4].astype(np.float32).reshape(images, priors, loc_classes, 4)
        count = 0
        for image in range(images):
            set_index = image if prior_boxes.shape[0] > 1 else 0
            base, variance = prior_boxes[set_index], variances[set_index]
            decoded = {}
            for loc_class in range(loc_classes):
                label = -1 if self.share_location else loc_class
                if self.background_label_id > -1 and label == self.background_label_id:
                    continue
                if aux:
                    refined = self._decode(base, variance, aux_locations[image, :, loc_class])
                    decoded[label] = self._decode(refined, variance, locations[image, :, loc_class])
                else:
                    decoded[label] = self._decode(base, variance, locations[image, :, loc_class])
            kept = self._select(decoded, scores[image], classes)
            for label in sorted(kept):
                boxes = decoded[-1 if self.share_location else label]
                for prior in kept[label]:
                    if count >= rows:
                        break
                    box = boxes[prior]
                    if self.clip_after_nms:
                        box = np.clip(box, np.float32(0), np.float32(1))
                    shown = label - 1 if self.decrease_label_id else label
                    out[count] = [image, shown, scores[image, prior, label], *box]
                    count += 1
        if count < rows:
            out[count, 0] = -1
        return [out.reshape(1, 1, rows, 7).astype(dtype)]

    def _priors(self, proposals, priors, prior_size):
        """``[sets, priors, 4]`` boxes and ``[sets, priors, 4]`` variances (1 when in targets)."""
        offset = 0 if self.normalized else 1
        sets = proposals.shape[0]
        rows = proposals.reshape(sets, -1)
        boxes = rows[:, : priors * prior_size].reshape(sets, priors, prior_size)
        boxes = boxes[:, :, offset : offset + 4]
        if self.variance_encoded_in_target:
            variances = None
        else:
            variances = rows[:, priors * prior_size : priors * prior_size + priors * 4]
            variances = variances.reshape(sets, priors, 4)
        if variances is None:
            variances = [None] * sets
        return boxes, variances

    def _decode(self, priors, variances, offsets):
        """Decoded ``[priors, 4]`` boxes (float32, in the reference's operation order)."""
        f32 = np.float32
        priors = priors.astype(f32)
        if not self.normalized:
            size = np.array([self.input_width, self.input_height] * 2, f32)
            priors = priors / size
        xmin, ymin, xmax, ymax = priors.T
        if self.code_type == "caffe.PriorBoxParameter.CORNER":
            delta = offsets if variances is None else variances * offsets
            boxes = priors + delta
        elif self.code_type == "caffe.PriorBoxParameter.CENTER_SIZE":
            width, height = xmax - xmin, ymax - ymin
            center_x, center_y = (xmin + xmax) / f32(2), (ymin + ymax) / f32(2)
            if variances is None:
                move_x, move_y = offsets[:, 0] * width, offsets[:, 1] * height
                grow_w, grow_h = offsets[:, 2], offsets[:, 3]
            else:
                move_x = variances[:, 0] * offsets[:, 0] * width
                move_y = variances[:, 1] * offsets[:, 1] * height
                grow_w, grow_h = variances[:, 2] * offsets[:, 2], variances[:, 3] * offsets[:, 3]
            new_x, new_y = move_x + center_x, move_y + center_y
            new_w = _exp(grow_w) * width
            new_h = _exp(grow_h) * height
            boxes = np.stack([new_x - new_w / f32(2), new_y - new_h / f32(2),
                              new_x + new_w / f32(2), new_y + new_h / f32(2)], axis=1)  # fmt: skip
        else:  # the reference decodes no other code type: the boxes stay 0
            boxes = np.zeros_like(priors)
        if self.clip_before_nms:
            boxes = np.clip(boxes, f32(0), f32(1))
        return boxes.astype(f32)

    def _select(self, decoded, scores, classes):
        """``{label: [prior, ...]}`` kept for one image (after keep_top_k)."""
        threshold = np.float32(self.confidence_threshold)
        kept: dict[int, list[int]] = {}
        if not self.decrease_label_id:
            for label in range(classes):
                if label == self.background_label_id:
                    continue
                boxes = decoded.get(-1 if self.share_location else label)
                if boxes is None:
                    continue
                column = scores[:, label]
                candidates = np.flatnonzero(column > threshold)
                order = candidates[np.argsort(-column[candidates], kind="stable")]
                if self.top_k > -1:
                    order = order[: self.top_k]
                kept[label] = self._greedy(boxes, order)
        else:
            kept = self._mxnet(decoded, scores, classes, threshold)
        total = sum(len(v) for v in kept.values())
        keep = self.keep_top_k[0]
        if keep > -1 and total > keep:
            labels = np.concatenate([np.full(len(v), k) for k, v in sorted(kept.items())])
            priors = np.concatenate([np.array(v, np.int64) for _, v in sorted(kept.items())])
            values = scores[priors, labels]
            order = np.lexsort((priors, -values))[:keep]
            kept = {}
            for label, prior in zip(labels[order].tolist(), priors[order].tolist()):
                kept.setdefault(label, []).append(prior)
        return kept

    def _mxnet(self, decoded, scores, classes, threshold):
        """MXNet's NMS: each prior's best class, one sorted list, the greedy NMS per class."""
        usable = np.ones(classes, dtype=bool)
        usable[0] = False
        if 0 <= self.background_label_id < classes:
            usable[self.background_label_id] = False
        masked = np.where(usable[None, :], scores, -np.inf)
        best = np.argmax(masked, axis=1)
        # the reference starts from conf = -1 and takes strictly larger scores
        conf = masked[np.arange(len(best)), best]
        best = np.where(conf > -1, best, 0)
        conf = np.where(conf > -1, conf, np.float32(-1))
        chosen = np.flatnonzero((best > 0) & (conf >= threshold))
        order = chosen[np.lexsort((chosen, -conf[chosen]))]
        if self.top_k != -1:
            order = order[: self.top_k]
        kept = {}
        for label in np.unique(best[order]).tolist():
            boxes = decoded[-1 if self.share_location else label]
            kept[label] = self._greedy(boxes, order[best[order] == label])
        return kept

    def _greedy(self, boxes, order) -> list[int]:
        """Greedy NMS over ``order``: a box goes when it overlaps a kept one above the
        threshold."""
        limit = np.float32(self.nms_threshold)
        alive = np.ones(len(order), dtype=bool)
        kept = []
        position = 0
        while True:
            remaining = np.flatnonzero(alive[position:])
            if remaining.size == 0:
                break
            position += int(remaining[0])
            alive[position] = False
            kept.append(int(order[position]))
            later = order[position + 1 :]
            overlap = jaccard(boxes[later], boxes[order[position]])
            alive[position + 1 :] &= ~(overlap > limit)
        return kept


def jaccard(candidates: np.ndarray, kept: np.ndarray) -> np.ndarray:
    """The reference's ``JaccardOverlap(candidate, kept)`` of each candidate ``[n, 4]``."""
    zero = np.float32(0)
    apart = (kept[0] > candidates[:, 2]) | (kept[2] < candidates[:, 0]) | (
        kept[1] > candidates[:, 3]) | (kept[3] < candidates[:, 1])  # fmt: skip
    low = np.maximum(candidates[:, :2], kept[:2])
    high = np.minimum(candidates[:, 2:], kept[2:])
    width = np.where(apart, zero, high[:, 0] - low[:, 0])
    height = np.where(apart, zero, high[:, 1] - low[:, 1])
    inter = width * height

    def size(box):
        invalid = (box[..., 2] < box[..., 0]) | (box[..., 3] < box[..., 1])
        return np.where(invalid, zero, (box[..., 2] - box[..., 0]) * (box[..., 3] - box[..., 1]))

    with np.errstate(divide="ignore", invalid="ignore"):
        overlap = inter / ((size(candidates) + size(kept)) - inter)
    return np.where((width > 0) & (height > 0), overlap, zero).astype(np.float32)


def _exp(values):
    """float32 ``exp`` rounded from double."""
    return np.exp(values.astype(np.float64)).astype(np.float32)


def _float_type(dtype):
    from irrun.element_types import from_numpy_dtype

    return from_numpy_dtype(dtype)


@register
class DetectionOutput1(_DetectionOutput):
    """DetectionOutput-1: ``num_classes`` given."""

    type, version = "DetectionOutput", 1


@register
class DetectionOutput8(_DetectionOutput):
    """DetectionOutput-8: the class count deduced from the shapes."""

    type, version = "DetectionOutput", 8
