"""What MulticlassNms-8/9 and MatrixNms-8 share: their common attributes and checks, the
``[count, 6]`` / ``[count, 1]`` / ``[images]`` shape rule pieces, and the final ordering and
output assembly of the detections kept per image.

A detection is a row of parallel arrays: image, class, score, box index (within its image),
flattened index (what ``selected_indices`` holds) and the 4 box coordinates as given.
"""

from __future__ import annotations

import numpy as np

from irrun.element_types import element_type
from irrun.ops.base import Attribute, Op

__all__ = ["COMMON_ATTRIBUTES", "DetectionNms", "Detections", "order_detections", "outputs_of"]

COMMON_ATTRIBUTES = (
    Attribute("sort_result_type", "enum", "none", choices=("classid", "score", "none")),
    Attribute("sort_result_across_batch", "bool", False),
    Attribute("output_type", "element_type", None),
    Attribute("score_threshold", "float", 0.0),
    Attribute("nms_top_k", "int", -1),
    Attribute("keep_top_k", "int", -1),
    Attribute("background_class", "int", -1),
    Attribute("normalized", "bool", True),
)


class DetectionNms(Op):
    """Attribute checks shared by MulticlassNms and MatrixNms."""

    def setup(self):
        if self.output_type is None:
            self.output_type = element_type("i64")
        problems = []
        if self.output_type.name not in ("i32", "i64"):
            problems.append(f"output_type {self.output_type} is not i32 or i64")
        for name in ("nms_top_k", "keep_top_k", "background_class"):
            if getattr(self, name) < -1:
                problems.append(f"{name} {getattr(self, name)} must be >= -1 (-1: no limit)")
        problems.extend(self.more_problems())
        for problem in problems:
            self.context.error(
                "attribute-value",
                f"{self.describe()}: {problem}",
                hint="see the op's specification for the allowed values",
                line=self.layer.data_line,
            )
            self.incomplete = True

    def more_problems(self) -> list[str]:
        """Checks of the op's own attributes."""
        return []

    def check_float_types(self, inputs) -> bool:
        """boxes and scores: one of bf16, f16, f32."""
        names = ("boxes", "scores")
        for index in (0, 1):
            etype = inputs[index].element_type
            if etype.name not in ("f32", "f16", "bf16", "dynamic"):
                self.context.error(
                    "input-type",
                    f"{self.describe()}: {names[index]} must be bf16, f16 or f32, but input "
                    f"{index} is {etype}",
                    port=self.input_port(index),
                    hint=f"insert a Convert to f32 before the {names[index]} input",
                )
                return False
        first, second = inputs[0].element_type, inputs[1].element_type
        if "dynamic" not in (first.name, second.name) and first is not second:
            self.context.error(
                "input-type",
                f"{self.describe()}: boxes and scores must have one element type, but they "
                f"are {first} and {second}",
                port=self.input_port(1),
                hint="insert a Convert so that scores has the boxes' element type",
            )
            return False
        return True

    def report_dims(self, message: str, index: int, hint: str) -> None:
        """Report ``input-dims`` (or ``input-rank``) on input ``index``."""
        code = "input-rank" if "rank" in message else "input-dims"
        self.context.error(code, f"{self.describe()}: {message}", port=self.input_port(index),
                           hint=hint)  # fmt: skip


class Detections:
    """The detections of all images, as parallel arrays."""

    def __init__(self):
        self.parts: list[tuple] = []

    def add(self, image, classes, scores, boxes_index, flat_index, coordinates):
        """Append one image's detections (arrays of one length)."""
        count = len(scores)
        self.parts.append((np.full(count, image, np.int64), np.asarray(classes, np.int64),
                           np.asarray(scores, np.float32), np.asarray(boxes_index, np.int64),
                           np.asarray(flat_index, np.int64),
                           np.asarray(coordinates, np.float32).reshape(count, 4)))  # fmt: skip

    def arrays(self):
        """``(images, classes, scores, box_indices, flat_indices, coordinates)``."""
        if not self.parts:
            empty, no_boxes = np.zeros(0, np.int64), np.zeros((0, 4), np.float32)
            return empty, empty, np.zeros(0, np.float32), empty, empty, no_boxes
        return tuple(np.concatenate(column) for column in zip(*self.parts))


def order_detections(images, classes, scores, box_indices, sort_type: str, across: bool):
    """The output order: per image as given, or across images by score (then image, class,
    box) or by class (then image, score, box)."""
    if not across or sort_type == "none":
        return np.arange(len(scores))
    if sort_type == "score":
        return np.lexsort((box_indices, classes, images, -scores))
    return np.lexsort((box_indices, -scores, images, classes))


def outputs_of(op, detections: Detections, valid, out_dtype):
    """``selected_outputs``, ``selected_indices`` and ``valid_outputs`` of the detections."""
    images, classes, scores, box_indices, flat, coordinates = detections.arrays()
    order = order_detections(images, classes, scores, box_indices, op.sort_result_type,
                             op.sort_result_across_batch)  # fmt: skip
    rows = np.concatenate([classes[order, None].astype(np.float32), scores[order, None],
                           coordinates[order]], axis=1)  # fmt: skip
    index_type = op.output_type.numpy_dtype
    return [rows.astype(out_dtype).reshape(-1, 6), flat[order].astype(index_type).reshape(-1, 1),
            np.asarray(valid, dtype=index_type)]  # fmt: skip
