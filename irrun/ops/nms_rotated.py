"""NMSRotated-13: greedy non-maximum suppression of rotated boxes, per batch item and class.

Spec facts: inputs boxes ``[num_batches, num_boxes, 5]`` (``[x_center, y_center, width,
height, angle]``, radians), scores ``[num_batches, num_classes, num_boxes]``,
max_output_boxes_per_class, iou_threshold and score_threshold (scalars or 1-element
vectors). Attributes ``sort_result_descending`` (default true), ``output_type`` (i32 or i64,
default i64) and ``clockwise`` (default true; false negates the angles). Outputs:
selected_indices ``[count, 3]`` (``[batch, class, box]``, output_type), selected_scores
``[count, 3]`` (f32: ``[batch, class, score]``) and valid_outputs ``[1]`` (output_type).

Shape rule (``nms_shape_inference.hpp``, shared with NonMaxSuppression-9): ranks 3; batches
and boxes compatible across boxes and scores; boxes' last dim 5. ``count`` is
``0..min(max(num_boxes), M) * max(num_batches of scores) * max(num_classes)`` for a constant
M (``?`` where a factor is unbounded), ``?`` otherwise.

Kernel (``reference/src/op/nms_rotated.cpp``): per batch and class, the boxes scoring above
score_threshold in order of decreasing score (ties: the smaller index first); a box is kept
unless its rotated IoU (:mod:`irrun.ops._rotated_boxes`) with a kept box is above
iou_threshold, at most M per class. All (batch, class) pairs advance together, one kept box
each per round. Output order: batch, class, selection order; with ``sort_result_descending``
by decreasing score, ties by batch, class and box index. Only the selected rows are output
(as the CPU plugin does). Indices and scores exact (the IoU may differ from OpenVINO's by f32
rounding, which could flip a decision only for an IoU within ~1e-6 of the threshold).
"""

from __future__ import annotations

import numpy as np

from irrun.element_types import element_type
from irrun.ops._ov_dims import S_MAX, OvDim
from irrun.ops._rotated_boxes import rotated_iou
from irrun.ops._values import signed_ints
from irrun.ops.base import Attribute, Op, TensorInfo
from irrun.ops.registry import register
from irrun.shape import Dim, Shape, static_dim

_NAMES = ("boxes", "scores", "max_output_boxes_per_class", "iou_threshold", "score_threshold")


def _max_length(dim: Dim) -> int:
    return -1 if dim.upper is None else dim.upper


@register
class NMSRotated(Op):
    """NMSRotated-13."""

    type, version, inputs = "NMSRotated", 13, (5, 5)
    attributes = (
        Attribute("sort_result_descending", "bool", True),
        Attribute("output_type", "element_type", None),
        Attribute("clockwise", "bool", True),
    )

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

    def _refuse(self, index, code, message, hint):
        self.context.error(code, f"{self.describe()}: {message}", port=self.input_port(index),
                           hint=hint)  # fmt: skip

    def infer(self, inputs):
        """``[count, 3]`` twice and ``[1]``."""
        boxes, scores = inputs[0].shape, inputs[1].shape
        layouts = ("[num_batches, num_boxes, 5]", "[num_batches, num_classes, num_boxes]")
        for index, shape in enumerate((boxes, scores)):
            if shape.rank not in (None, 3):
                self._refuse(index, "input-rank", f"{_NAMES[index]} must have rank 3 "
                             f"({layouts[index]}), but its shape is {shape}",
                             f"give {_NAMES[index]} the shape {layouts[index]}")  # fmt: skip
                return None
        for index in range(2, 5):
            shape = inputs[index].shape
            if not (shape.compatible(Shape([])) or shape.compatible(Shape.parse("1"))):
                self._refuse(index, "input-rank", f"{_NAMES[index]} must be a scalar or a "
                             f"1-element vector, but its shape is {shape}",
                             f"give {_NAMES[index]} as a 0-D tensor")  # fmt: skip
                return None
        for index in (0, 1, 3, 4):
            etype = inputs[index].element_type
            if etype.name not in ("f32", "f16", "bf16", "dynamic"):
                self._refuse(index, "input-type", f"{_NAMES[index]} must be bf16, f16 or f32, "
                             f"but input {index} is {etype}",
                             f"Convert {_NAMES[index]} to f32")  # fmt: skip
                return None
        count = OvDim(0, S_MAX)
        if boxes.rank_is_static:
            if scores.rank_is_static:
                if not boxes[0].compatible(scores[0]) or not boxes[1].compatible(scores[2]):
                    self._refuse(1, "input-dims", f"boxes {boxes} and scores {scores} must "
                                 "agree on num_batches (dim 0 of both) and num_boxes (dims 1 "
                                 "and 2)", "give scores one column per box")  # fmt: skip
                    return None
                values = signed_ints(inputs[2], floats=True)
                if values:
                    count = OvDim.of_bounds(0, min(_max_length(boxes[1]), values[0]))
                count = count * OvDim.of_value(_max_length(scores[0]))
                count = count * OvDim.of_value(_max_length(scores[1]))
            if not boxes[2].compatible(static_dim(5)):
                self._refuse(0, "input-dims", f"the last dim of boxes {boxes} must be 5 "
                             f"([x_center, y_center, width, height, angle]), but it is "
                             f"{boxes[2]}", "give each box as 5 numbers")  # fmt: skip
                return None
        shape = Shape([count.as_dim(), static_dim(3)])
        why = f"boxes {boxes}, scores {scores}: up to {shape[0]} selected boxes"
        return [TensorInfo(shape, self.output_type, why=why),
                TensorInfo(shape, element_type("f32"), why=why),
                TensorInfo(Shape([static_dim(1)]), self.output_type, why="one count")]  # fmt: skip

    def evaluate(self, inputs):
        """Greedy rotated NMS of every (batch, class) at once."""
        boxes = np.asarray(inputs[0]).astype(np.float32)
        scores = np.asarray(inputs[1]).astype(np.float32)
        maximum = int(np.asarray(inputs[2]).reshape(-1)[0])
        iou_threshold = np.float32(np.asarray(inputs[3]).reshape(-1)[0])
        score_threshold = np.float32(np.asarray(inputs[4]).reshape(-1)[0])
        if maximum < 0:
            raise ValueError(f"{self.describe()}: max_output_boxes_per_class {maximum} is "
                             "negative")  # fmt: skip
        if not self.clockwise:
            boxes = boxes.copy()
            boxes[..., 4] = -boxes[..., 4]
        batches, classes, count = scores.shape
        flat_scores = scores.reshape(batches * classes, count)
        group_boxes = np.repeat(boxes, classes, axis=0)  # [groups, count, 5]
        # candidates by decreasing score, ties by index
        order = np.argsort(-flat_scores, axis=1, kind="stable")
        ordered_scores = np.take_along_axis(flat_scores, order, axis=1)
        ordered_boxes = np.take_along_axis(group_boxes, order[:, :, None], axis=1)
        alive = ordered_scores > score_threshold
        kept = np.zeros_like(alive)
        rows = np.arange(len(order))
        positions = np.arange(count)
        for _ in range(min(maximum, count)):
            candidates = alive & ~kept
            has = candidates.any(axis=1)
            if not has.any():
                break
            pick = np.argmax(candidates, axis=1)
            kept[rows[has], pick[has]] = True
            iou = rotated_iou(ordered_boxes[rows, pick][:, None, :], ordered_boxes)
            later = positions > pick[:, None]
            alive &= ~((iou > iou_threshold) & later & has[:, None])
        group, rank = np.nonzero(kept)  # batch, class, then selection order
        box_index = order[group, rank]
        selected_scores = ordered_scores[group, rank]
        batch_index, class_index = group // classes, group % classes
        if self.sort_result_descending:
            by = np.lexsort((box_index, class_index, batch_index, -selected_scores))
            batch_index, class_index = batch_index[by], class_index[by]
            box_index, selected_scores = box_index[by], selected_scores[by]
        dtype = self.output_type.numpy_dtype
        indices = np.stack([batch_index, class_index, box_index], axis=1).astype(dtype)
        score_rows = np.stack([batch_index.astype(np.float32), class_index.astype(np.float32),
                               selected_scores], axis=1).astype(np.float32)  # fmt: skip
        return [indices.reshape(-1, 3), score_rows.reshape(-1, 3),
                np.array([len(indices)], dtype)]  # fmt: skip
