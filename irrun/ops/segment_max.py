"""SegmentMax-16: the maximum of each segment of rows.

Spec facts: inputs data (rank >= 1, any element type), segment_ids (1-D, i32 or i64, sorted,
one per row of data: row ``i`` belongs to segment ``segment_ids[i]``) and an optional scalar
num_segments (i32 or i64; default ``segment_ids[-1] + 1``; ids at or above it are dropped).
Attribute ``fill_mode`` (required: ``ZERO`` or ``LOWEST``) gives the value of an empty
segment (0, or the type's lowest value: ``-3.4028235e+38`` for f32, ``-2147483648`` for i32).
Output ``[num_segments, *data.shape[1:]]``, the data's type.

Shape rule (``segment_max_shape_inference.hpp``): the first dim is num_segments read as a
shape (a constant, or a ShapeOf element: an interval; unknown ``?``), else the last constant
segment id + 1, else ``?``; constant ids must be sorted, and their count match the data's
first dim. irrun also refuses negative constant ids and a negative num_segments (OpenVINO
infers ``max + 1`` and ``0`` for them and fails, or reads out of bounds, when run).

Kernel: ``np.maximum.at`` into the output filled with the type's lowest value, then empty
segments set to the fill; exact.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._values import signed_elements, signed_ints
from irrun.ops.base import Attribute, Op, TensorInfo
from irrun.ops.registry import register
from irrun.shape import Dim, Shape, static_dim

_NAMES = ("data", "segment_ids", "num_segments")


@register
class SegmentMax(Op):
    """SegmentMax-16 (fill_mode)."""

    type, version, inputs = "SegmentMax", 16, (2, 3)
    rounds = False
    attributes = (
        Attribute("fill_mode", "enum", "ZERO", required=True, choices=("ZERO", "LOWEST")),
    )

    def infer(self, inputs):
        """``[num_segments, *data.shape[1:]]``."""
        data, ids = inputs[0], inputs[1]
        for index in range(1, len(inputs)):
            etype = inputs[index].element_type
            if etype.name not in ("i32", "i64", "dynamic"):
                self.context.error(
                    "index-type",
                    f"{self.describe()}: {_NAMES[index]} must be i32 or i64, but input {index} "
                    f"is {etype}",
                    port=self.input_port(index),
                    hint="insert a Convert to i64 before it",
                )
                return None
        wanted = (None, 1, 0)
        for index in range(len(inputs)):
            rank = inputs[index].shape.rank
            bad = rank == 0 if index == 0 else rank not in (None, wanted[index])
            if bad:
                what = "cannot be a scalar" if index == 0 else (
                    f"must be {'1-D' if index == 1 else 'a scalar'}")  # fmt: skip
                self.context.error(
                    "input-rank",
                    f"{self.describe()}: {_NAMES[index]} {what}, but its shape is "
                    f"{inputs[index].shape}",
                    port=self.input_port(index),
                    hint="give one segment id per row, and num_segments as a scalar",
                )
                return None
        if data.shape.rank is not None and ids.shape.rank == 1:
            if not data.shape[0].compatible(ids.shape[0]):
                self.context.error(
                    "input-dims",
                    f"{self.describe()}: segment_ids {ids.shape} must have one id per row of "
                    f"data {data.shape}",
                    port=self.input_port(1),
                    hint="give one segment id per row",
                )
                return None
        values = signed_ints(ids)
        if values is not None and values:
            if any(b < a for a, b in zip(values, values[1:])) or values[0] < 0:
                self.context.error(
                    "input-value",
                    f"{self.describe()}: segment_ids {values} must be sorted and >= 0",
                    port=self.input_port(1),
                    hint="sort the rows by segment",
                )
                return None
        first = Dim.dynamic()
        if len(inputs) == 3:
            elements = signed_elements(inputs[2])
            element = elements[0] if elements and len(elements) == 1 else None
            if isinstance(element, int) and element < 0:
                self.context.error(
                    "input-value",
                    f"{self.describe()}: num_segments must be >= 0, but it is {element}",
                    port=self.input_port(2),
                    hint="give the number of segments",
                )
                return None
            if element is not None:
                first = static_dim(element) if isinstance(element, int) else element
        elif values:
            first = static_dim(values[-1] + 1)
        if data.shape.rank is None:
            return [TensorInfo(data.shape, data.element_type, why="the data rank is not known")]
        shape = Shape([first] + list(data.shape)[1:])
        return [TensorInfo(shape, data.element_type, why=f"{first} segments of data rows")]

    def evaluate(self, inputs):
        """``np.maximum.at`` of the rows into their segments."""
        data, ids = inputs[0], inputs[1].astype(np.int64)
        if ids.size and (ids[0] < 0 or (np.diff(ids) < 0).any()):
            raise ValueError(
                f"{self.describe()}: segment_ids {ids.tolist()} must be sorted and >= 0"
            )
        count = int(inputs[2]) if len(inputs) == 3 else (int(ids[-1]) + 1 if ids.size else 0)
        if data.dtype == np.bool_:
            lowest = False
        elif data.dtype.kind in "iu":
            lowest = np.iinfo(data.dtype).min
        else:
            lowest = -np.finfo(data.dtype).max
        out = np.full((count,) + data.shape[1:], lowest, data.dtype)
        kept = ids < count
        np.maximum.at(out, ids[kept], data[kept])
        if self.fill_mode == "ZERO":
            empty = np.bincount(ids[kept], minlength=count) == 0
            out[empty] = 0
        return [out]
