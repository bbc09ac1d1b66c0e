"""Eye-9: a (batch of) matrix with ones on one diagonal.

Spec facts: inputs num_rows, num_columns, diagonal_index (i32/i64 scalars or ``[1]``) and
optionally batch_shape (a 1-D i32/i64 tensor); attribute ``output_type`` (required).
Output ``batch_shape + [num_rows, num_columns]``: 1 where ``column - row == diagonal_index``
(negative: below the main diagonal; beyond the matrix: all zeros), 0 elsewhere.

Shape rule (``eye_shape_inference.hpp``, 2025): each of the first three inputs must have a
rank of at most 1 and one element (checked on static shapes), and be i32 or i64; a known
negative row or column count is an error; rows and columns are the values when known (a
ShapeOf element gives its interval), ``?`` otherwise. batch_shape must be of rank 1; of a
static length ``k`` it gives its known elements (``?`` for unknown ones; **quirk**: a
constant ``-1`` is ``?`` and any other negative value 0), of an unknown length the whole
output is of dynamic rank.

Kernel: ``np.eye`` broadcast over the batch; exact.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._values import as_dim, signed_elements, signed_values
from irrun.ops.base import DYNAMIC_TYPE, Attribute, Op, TensorInfo, lazy_text
from irrun.ops.registry import register
from irrun.shape import Dim, Shape, static_dim

_NAMES = ("num_rows", "num_columns", "diagonal_index", "batch_shape")


@register
class Eye(Op):
    """Eye-9 (output_type)."""

    type, version, inputs = "Eye", 9, (3, 4)
    attributes = (Attribute("output_type", "element_type", DYNAMIC_TYPE, required=True),)

    def _refuse(self, index, code, message, hint):
        self.context.error(code, f"{self.describe()}: {_NAMES[index]} {message}",
                           port=self.input_port(index), hint=hint)  # fmt: skip

    def infer(self, inputs):
        """``batch_shape + [num_rows, num_columns]`` from what is known of the values."""
        for index, info in enumerate(inputs):
            etype = info.element_type
            if etype.name not in ("i32", "i64", "dynamic"):
                self._refuse(index, "index-type", f"must be i32 or i64, but it is {etype}",
                             "Convert it to i64")  # fmt: skip
                return None
        for index, info in enumerate(inputs[:3]):
            shape = info.shape
            if shape.is_static and (len(shape) > 1 or shape.element_count() != 1):
                self._refuse(index, "input-rank", f"must be a scalar or [1], but its shape is "
                             f"{shape}", "give a single value")  # fmt: skip
                return None
        dims = []
        if len(inputs) == 4:
            batch = inputs[3]
            if batch.shape.rank not in (None, 1):
                self._refuse(3, "input-rank", f"must be 1-D, but its shape is {batch.shape}",
                             "give the batch dims as a 1-D tensor")  # fmt: skip
                return None
            if not batch.shape.is_static:
                return [TensorInfo(Shape.dynamic_rank(), self.output_type,
                                   why="the batch_shape length is not known")]  # fmt: skip
            elements = signed_elements(batch)
            length = batch.shape[0].lower
            if elements is None:
                dims = [Dim.dynamic()] * length
            else:
                dims = [_batch_dim(e) for e in elements]
        for index in (0, 1):
            elements = signed_elements(inputs[index])
            element = elements[0] if elements and len(elements) == 1 else None
            if isinstance(element, int) and element < 0:
                self._refuse(index, "input-value", f"must not be negative, but it is {element}",
                             "give a count of 0 or more")  # fmt: skip
                return None
            dims.append(as_dim(element))
        why = lazy_text("batch {} and a {}x{} matrix", dims[:-2], dims[-2], dims[-1])
        return [TensorInfo(Shape(dims), self.output_type, why=why)]

    def evaluate(self, inputs):
        """``np.eye(rows, columns, k=diagonal_index)`` broadcast over the batch."""
        rows, columns, diagonal = (signed_values(a)[0] for a in inputs[:3])
        batch = signed_values(inputs[3]) if len(inputs) == 4 else []
        if rows < 0 or columns < 0 or any(b < 0 for b in batch):
            raise ValueError(f"{self.describe()}: negative sizes: rows {rows}, columns "
                             f"{columns}, batch {batch}")  # fmt: skip
        matrix = np.eye(rows, columns, k=diagonal, dtype=self.output_type.numpy_dtype)
        return [np.array(np.broadcast_to(matrix, batch + [rows, columns]), order="C")]


def _batch_dim(element) -> Dim:
    """A batch_shape element as OpenVINO reads it into a dimension."""
    if isinstance(element, int):
        if element == -1:
            return Dim.dynamic()
        return static_dim(max(element, 0))
    return as_dim(element)
