"""NonMaxSuppression-1, -3, -4, -5, -9: greedy non-maximum suppression of boxes, per batch
item and class.

Spec facts: inputs boxes ``[num_batches, num_boxes, 4]``, scores ``[num_batches,
num_classes, num_boxes]`` and the optional max_output_boxes_per_class (default 0: no box),
iou_threshold (default 0), score_threshold (default 0) and, from version 5, soft_nms_sigma
(default 0). Versions 1 to 4 take 2 to 5 inputs whose optional ones must be scalars; versions
5 and 9 take 2 to 6, scalars or 1-element vectors, and require bf16, f16 or f32 boxes, scores
and thresholds. Attributes ``box_encoding`` (``corner``: ``[y1, x1, y2, x2]`` of any diagonal
pair; ``center``: ``[x_center, y_center, width, height]``), ``sort_result_descending``
(default true) and, from version 3, ``output_type`` (i64 or i32, default i64; version 1 gives
i64). Outputs: selected_indices ``[count, 3]`` of ``[batch, class, box]`` triplets; versions
5 and 9 add selected_scores ``[count, 3]`` (f32: ``[batch, class, score]``) and
valid_outputs ``[1]`` (output_type).

Shape rule (``nms_shape_inference.hpp``), with OpenVINO's Dimension arithmetic (an unbounded
dim's ``get_max_length`` is -1, a negative size clips to 0, ``Dimension(0, m)`` with
``m < -1`` is empty and prints ``?``). With M the constant max_output_boxes_per_class:

- versions 1 and 3: ``min(num_boxes, M * num_classes)`` when num_boxes and that product are
  static, else ``?`` (OpenVINO's formula ignores the batch: the output can be too short);
- version 4: ``min(num_boxes, M) * max(num_batches) * max(num_classes)`` for a static
  num_boxes, else ``?``;
- versions 5 and 9: ``0..min(max(num_boxes), M) * max(num_batches) * max(num_classes)``
  (``?`` where a factor is unbounded, and ``?`` for a layer without the max input, whose
  kernel selects nothing).

Versions 1 to 4 read as if their missing inputs were the default constants (OpenVINO's reader
adds them); versions 5 and 9 keep the inputs given.

Kernel (OpenVINO's reference ``non_max_suppression.cpp``, boxes normalised first: corners
ordered, centers turned into corners): per batch and class, the boxes scoring above
score_threshold in order of decreasing score (ties: the smaller box index first); a box is
kept unless its IoU with a kept box is above iou_threshold (version 5: at or above, as its
reference compares; the CPU plugin suppresses at equality in every version), at most
max_output_boxes_per_class per class. With soft_nms_sigma > 0 (versions 5 and 9) scores decay
by ``exp(-0.5 / sigma * iou * iou)`` against every box kept since the box was last looked at,
decayed boxes go back into the queue while above score_threshold (version 5 still drops a box
whose IoU reaches iou_threshold; version 9 never does). The greedy loop runs once per kept box
(and per re-queued box with soft NMS); the IoUs against the remaining boxes are vectorised.
Output order: batch, class, then selection order; with ``sort_result_descending`` every
selected box sorted by decreasing score, ties by batch, class and box index (as the spec and
the CPU plugin; the NMS-5 reference treats scores within 1e-6 as equal, the NMS-9 reference
merely reverses the list). Versions 1 to 4 fill their static-size output: the selected rows
(cut at the output size for versions 1 and 3), then rows of -1, as the spec says (the CPU
plugin returns only the selected rows). A negative max_output_boxes_per_class is an error
when run (the CPU plugin fails on it too). Indices are exact; selected scores are exact for
hard NMS; soft NMS scores are the reference's (``exp`` rounded from double) and within
``rtol=1e-6`` of the CPU plugin's (its ``exp`` differs by an ulp, and decays compound). The CPU
plugin runs NMS-5's soft NMS without the iou_threshold limit (as NMS-9): irrun follows the
NMS-5 spec and reference there.
"""

from __future__ import annotations

import numpy as np

from irrun.element_types import element_type
from irrun.ops._boxes import center_to_corners, iou_one_to_many, normalize_corners
from irrun.ops._ov_dims import S_MAX, OvDim
from irrun.ops._values import signed_ints
from irrun.ops.base import Attribute, Op, TensorInfo
from irrun.ops.registry import register
from irrun.shape import Dim, Shape, static_dim

_NAMES = ("boxes", "scores", "max_output_boxes_per_class", "iou_threshold",
          "score_threshold", "soft_nms_sigma")  # fmt: skip
_FLOATS = ("f32", "f16", "bf16", "dynamic")


def _max_length(dim: Dim) -> int:
    """``Dimension::get_max_length``: the upper bound, -1 when unbounded."""
    return -1 if dim.upper is None else dim.upper


class _NonMaxSuppression(Op):
    inputs = (2, 5)
    attributes = (
        Attribute("box_encoding", "enum", "corner", choices=("corner", "center")),
        Attribute("sort_result_descending", "bool", True),
        Attribute("output_type", "element_type", None, since=3),
    )
    output_type = None
    #: The optional inputs may also be 1-element vectors, and the floats are type-checked.
    strict_inputs = False
    #: Suppression at IoU == iou_threshold (version 5's reference), not only above it.
    suppress_at_equal = False
    #: Soft NMS still drops a box whose IoU reaches iou_threshold (version 5).
    soft_hard_limit = False
    #: The count of outputs.
    output_count = 1

    def setup(self):
        if self.output_type is None:
            self.output_type = element_type("i64")
        if self.output_type.name not in ("i32", "i64"):
            self.context.error(
                "attribute-value",
                f"{self.describe()}: output_type {self.output_type} is not i32 or i64",
                hint='write output_type="i64" or "i32"',
                line=self.layer.data_line,
            )
            self.incomplete = True

    # -- shape rule -----------------------------------------------------------------------
    def infer(self, inputs):
        """Check the inputs as OpenVINO does; ``[count, 3]`` (and the scores and count)."""
        if not self._check_inputs(inputs):
            return None
        boxes, scores = inputs[0].shape, inputs[1].shape
        maximum = self._max_boxes(inputs)
        count = self._count(boxes, scores, maximum)
        shown = "not a constant" if maximum is None else str(maximum)
        why = (f"boxes {boxes}, scores {scores}, max_output_boxes_per_class {shown}: "
               f"up to {count} selected boxes")  # fmt: skip
        shape = Shape([count, static_dim(3)])
        outputs = [TensorInfo(shape, self.output_type, why=why)]
        if self.output_count == 3:
            outputs.append(TensorInfo(shape, element_type("f32"), why=why))
            outputs.append(TensorInfo(Shape([1]), self.output_type, why="one count"))
        return outputs

    def _max_boxes(self, inputs):
        if len(inputs) < 3:
            return 0  # OpenVINO's default input
        values = signed_ints(inputs[2], floats=True)
        return values[0] if values else None

    def _count(self, boxes: Shape, scores: Shape, maximum) -> Dim:
        """Versions 1 and 3: ``min(num_boxes, M * num_classes)``."""
        if not boxes.rank_is_static:
            return Dim.dynamic()
        selected = OvDim(0, S_MAX) if maximum is None else OvDim.of_value(maximum)
        if scores.rank_is_static:
            selected = selected * OvDim.of_dim(scores[1])
        num_boxes = boxes[1]
        if num_boxes.is_static and selected.is_static:
            return static_dim(min(num_boxes.lower, selected.lower))
        return Dim.dynamic()

    def _check_inputs(self, inputs) -> bool:
        for index, info in enumerate(inputs[:2]):
            if info.shape.rank not in (None, 3):
                layout = "[num_batches, num_boxes, 4]" if index == 0 else \
                    "[num_batches, num_classes, num_boxes]"  # fmt: skip
                self.context.error(
                    "input-rank",
                    f"{self.describe()}: {_NAMES[index]} must have rank 3 ({layout}), but its "
                    f"shape is {info.shape}",
                    port=self.input_port(index),
                    hint=f"give {_NAMES[index]} the shape {layout}",
                )
                return False
        for index in range(2, len(inputs)):
            shape = inputs[index].shape
            scalar = shape.rank in (None, 0)
            vector = not self.strict_inputs and shape.rank == 1 and shape[0].compatible(Dim(1))
            if not (scalar or vector):
                wanted = "a scalar" if self.strict_inputs else "a scalar or a 1-element vector"
                self.context.error(
                    "input-rank",
                    f"{self.describe()}: {_NAMES[index]} must be {wanted}, but its shape is "
                    f"{shape}",
                    port=self.input_port(index),
                    hint=f"give {_NAMES[index]} as a 0-D tensor",
                )
                return False
        boxes, scores = inputs[0].shape, inputs[1].shape
        if boxes.rank_is_static and scores.rank_is_static:
            if not boxes[0].compatible(scores[0]):
                self.context.error(
                    "input-dims",
                    f"{self.describe()}: boxes {boxes} and scores {scores} must have one "
                    f"num_batches (dim 0), but they have {boxes[0]} and {scores[0]}",
                    port=self.input_port(1),
                    hint="give boxes and scores the same batch size",
                )
                return False
            if not boxes[1].compatible(scores[2]):
                self.context.error(
                    "input-dims",
                    f"{self.describe()}: boxes {boxes} dim 1 and scores {scores} dim 2 must both "
                    f"be num_boxes, but they are {boxes[1]} and {scores[2]}",
                    port=self.input_port(1),
                    hint="give scores one column per box",
                )
                return False
        if boxes.rank_is_static and not boxes[2].compatible(Dim(4)):
            self.context.error(
                "input-dims",
                f"{self.describe()}: the last dim of boxes {boxes} must be 4 (the box "
                f"coordinates), but it is {boxes[2]}",
                port=self.input_port(0),
                hint="give each box as 4 coordinates",
            )
            return False
        if not self.strict_inputs:
            for index, info in enumerate(inputs):
                if index != 2 and info.element_type.name not in _FLOATS:
                    self.context.error(
                        "input-type",
                        f"{self.describe()}: {_NAMES[index]} must be bf16, f16 or f32, but "
                        f"input {index} is {info.element_type}",
                        port=self.input_port(index),
                        hint=f"insert a Convert to f32 before the {_NAMES[index]} input",
                    )
                    return False
        return True

    # -- kernel ---------------------------------------------------------------------------
    def evaluate(self, inputs):
        """Per batch and class: the greedy selection; then the order and the padding."""
        boxes = np.asarray(inputs[0]).astype(np.float32)
        scores = np.asarray(inputs[1]).astype(np.float32)
        maximum = int(np.asarray(inputs[2]).reshape(-1)[0]) if len(inputs) > 2 else 0
        if maximum < 0:
            raise ValueError(
                f"{self.describe()}: max_output_boxes_per_class is {maximum}; it must be >= 0 "
                "(OpenVINO fails on a negative one)"
            )
        thresholds = [float(np.asarray(inputs[i], np.float32).reshape(-1)[0])
                      if len(inputs) > i else 0.0 for i in (3, 4, 5)]  # fmt: skip
        iou_threshold, score_threshold, sigma = (np.float32(t) for t in thresholds)
        if self.box_encoding == "center":
            boxes = center_to_corners(boxes)
        else:
            boxes = normalize_corners(boxes)
        num_batches, num_classes, num_boxes = scores.shape
        rows = []  # (batch, class, box, score) per class, in selection order
        for batch in range(num_batches):
            for klass in range(num_classes):
                chosen, chosen_scores = self._select(
                    boxes[batch], scores[batch, klass], maximum, iou_threshold,
                    score_threshold, sigma)  # fmt: skip
                if chosen.size:
                    rows.append((np.full(chosen.size, batch), np.full(chosen.size, klass),
                                 chosen, chosen_scores))  # fmt: skip
        if rows:
            batch_ids, class_ids, box_ids, kept = (np.concatenate(c) for c in zip(*rows))
        else:
            batch_ids = class_ids = box_ids = np.zeros(0, np.int64)
            kept = np.zeros(0, np.float32)
        if self.sort_result_descending and kept.size:
            order = np.lexsort((box_ids, class_ids, batch_ids, -kept))
            batch_ids, class_ids, box_ids, kept = (a[order] for a in (batch_ids, class_ids,
                                                                      box_ids, kept))  # fmt: skip
        index_type = self.output_type.numpy_dtype
        indices = np.stack([batch_ids, class_ids, box_ids], axis=1).astype(index_type)
        return self._outputs(indices, batch_ids, class_ids, kept, scores.shape, num_boxes,
                             maximum)  # fmt: skip

    def _outputs(self, indices, batch_ids, class_ids, kept, scores_shape, num_boxes, maximum):
        """Versions 1 to 4: the static output size, the rows after the selected ones -1."""
        size = self._output_rows(scores_shape, num_boxes, maximum)
        out = np.full((size, 3), -1, dtype=indices.dtype)
        used = min(size, len(indices))
        out[:used] = indices[:used]
        return [out]

    def _output_rows(self, scores_shape, num_boxes, maximum) -> int:
        """``min(num_boxes, M * num_classes)`` (versions 1 and 3)."""
        return min(num_boxes, maximum * scores_shape[1])

    def _select(self, boxes, scores, maximum, iou_threshold, score_threshold, sigma):
        """The box indices kept for one class, in selection order, and their scores."""
        candidates = np.flatnonzero(scores > score_threshold)
        if maximum == 0 or candidates.size == 0:
            return np.zeros(0, np.int64), np.zeros(0, np.float32)
        soft = self.output_count == 3 and sigma > 0
        if soft:
            return self._select_soft(boxes, scores, candidates, maximum, iou_threshold,
                                     score_threshold, sigma)  # fmt: skip
        # decreasing score, ties by the smaller index (the reference's priority queue)
        order = candidates[np.lexsort((candidates, -scores[candidates]))]
        ordered = boxes[order]
        alive = np.ones(order.size, dtype=bool)
        kept = []
        position = 0
        while len(kept) < maximum:
            remaining = np.flatnonzero(alive[position:])
            if remaining.size == 0:
                break
            position += int(remaining[0])
            kept.append(position)
            alive[position] = False
            ious = iou_one_to_many(ordered[position], ordered[position + 1 :])
            crossed = ious >= iou_threshold if self.suppress_at_equal else ious > iou_threshold
            alive[position + 1 :] &= ~crossed
        chosen = order[kept]
        return chosen.astype(np.int64), scores[chosen]

    def _select_soft(self, boxes, scores, candidates, maximum, iou_threshold, score_threshold,
                     sigma):  # fmt: skip
        """Soft NMS, step for step as the reference's priority queue runs it."""
        scale = np.float32(-0.5) / sigma
        current = scores[candidates].copy()  # candidates in box order: ties pick the first
        begin = np.zeros(candidates.size, dtype=np.int64)
        alive = np.ones(candidates.size, dtype=bool)
        kept: list[int] = []
        kept_scores: list[np.float32] = []
        while len(kept) < maximum and alive.any():
            pick = int(np.argmax(np.where(alive, current, -np.inf)))
            original = current[pick]
            against = np.array(kept[begin[pick] :][::-1], dtype=np.int64)  # the newest first
            ious = iou_one_to_many(boxes[candidates[pick]], boxes[candidates[against]])
            exponent = scale * ious * ious
            weights = np.exp(exponent.astype(np.float64)).astype(np.float32)
            if self.soft_hard_limit:
                weights = np.where(ious <= iou_threshold, weights, np.float32(0))
            running = np.cumprod(np.concatenate([[original], weights]).astype(np.float32),
                                 dtype=np.float32)[1:]  # fmt: skip
            hard = np.flatnonzero(ious >= iou_threshold) if self.soft_hard_limit else []
            low = np.flatnonzero(running <= score_threshold)
            first_hard = hard[0] if len(hard) else len(ious)
            first_low = low[0] if len(low) else len(ious)
            begin[pick] = len(kept)
            if first_hard < len(ious) and first_hard <= first_low:
                alive[pick] = False  # suppressed
                continue
            stop = min(first_low, len(ious) - 1)
            score = running[stop] if len(ious) else original
            if score == original:
                kept.append(pick)
                kept_scores.append(original)
                alive[pick] = False
            elif score > score_threshold:
                current[pick] = score
            else:
                alive[pick] = False
        chosen = candidates[np.array(kept, dtype=np.int64)]
        return chosen.astype(np.int64), np.array(kept_scores, dtype=np.float32)


@register
class NonMaxSuppression1(_NonMaxSuppression):
    """NonMaxSuppression-1: i64 indices."""

    type, version = "NonMaxSuppression", 1
    strict_inputs = True


@register
class NonMaxSuppression3(_NonMaxSuppression):
    """NonMaxSuppression-3: adds ``output_type``."""

    type, version = "NonMaxSuppression", 3
    strict_inputs = True


@register
class NonMaxSuppression4(_NonMaxSuppression):
    """NonMaxSuppression-4: the output size counts every batch and class."""

    type, version = "NonMaxSuppression", 4
    strict_inputs = True

    def _count(self, boxes, scores, maximum):
        """``min(num_boxes, M) * max(num_batches) * max(num_classes)``."""
        num_boxes = boxes[1] if boxes.rank_is_static else None
        if num_boxes is None or not scores.rank_is_static or not num_boxes.is_static:
            return Dim.dynamic()
        if maximum is None:
            return Dim.dynamic()
        selected = OvDim.of_value(min(num_boxes.lower, maximum))
        selected = selected * OvDim.of_value(_max_length(scores[0]))
        selected = selected * OvDim.of_value(_max_length(scores[1]))
        return selected.as_dim()

    def _output_rows(self, scores_shape, num_boxes, maximum):
        return min(num_boxes, maximum) * scores_shape[0] * scores_shape[1]


@register
class NonMaxSuppression5(_NonMaxSuppression):
    """NonMaxSuppression-5: selected scores and count outputs, soft NMS, dynamic count."""

    type, version, inputs = "NonMaxSuppression", 5, (2, 6)
    output_count = 3
    suppress_at_equal = True
    soft_hard_limit = True

    def _max_boxes(self, inputs):
        # without the input OpenVINO's rule knows no M (the kernel then selects nothing)
        return None if len(inputs) < 3 else super()._max_boxes(inputs)

    def _count(self, boxes, scores, maximum):
        """``0..min(max(num_boxes), M) * max(num_batches) * max(num_classes)``."""
        if not boxes.rank_is_static or not scores.rank_is_static:
            return Dim.dynamic()
        if maximum is None:
            selected = OvDim(0, S_MAX)
        else:
            selected = OvDim.of_bounds(0, min(_max_length(boxes[1]), maximum))
        selected = selected * OvDim.of_value(_max_length(scores[0]))
        selected = selected * OvDim.of_value(_max_length(scores[1]))
        return selected.as_dim()

    def _outputs(self, indices, batch_ids, class_ids, kept, scores_shape, num_boxes, maximum):
        """The selected rows, their ``[batch, class, score]`` rows and their count."""
        selected_scores = np.stack([batch_ids, class_ids, kept], axis=1).astype(np.float32)
        count = np.array([len(indices)], dtype=indices.dtype)
        return [indices, selected_scores.reshape(-1, 3), count]


@register
class NonMaxSuppression9(NonMaxSuppression5):
    """NonMaxSuppression-9: suppression strictly above iou_threshold; soft NMS only decays."""

    type, version = "NonMaxSuppression", 9
    suppress_at_equal = False
    soft_hard_limit = False
