"""SparseFillEmptyRows-16: a 2-D sparse tensor with one ``default_value`` entry added at column 0
of every row that has none.

Spec facts: inputs values (``[N]``, any type), dense_shape (``[2]``: rows, columns), indices
(``[N, 2]``: row, column of each value; dense_shape's type, i32 or i64) and default_value (a
scalar). Outputs: output_indices (``[N + E, 2]``, indices' type) and output_values
(``[N + E]``, values' type), sorted by row then column, and empty_row_indicator (``[rows]``,
boolean: true for the E rows that had no value). No attributes.

Shape rule (``sparse_fill_empty_rows_shape_inference.hpp``): values of rank 1, dense_shape
``[2]``, indices ``[N, 2]`` with N compatible with values' (checked when dense_shape's rank is
known), default_value a scalar; dense_shape and indices of one type, i32 or i64. With a
constant dense_shape, empty_row_indicator is ``[rows]``; with constant indices too, each
index must lie inside dense_shape ("Sparse tensor index out of bounds: row 5 is outside the
valid range [0, 3]") and the first output dims are ``N + E`` (E the rows without a value);
otherwise they are ``?``.

Kernel (``reference/sparse_fill_empty_rows.hpp``): the rows present, the empty ones appended
as ``(row, 0)`` entries of default_value, everything ordered by ``(row, column)`` (a stable
sort: OpenVINO's ``std::sort`` leaves equal indices in an unspecified order). Exact.
"""

from __future__ import annotations

import numpy as np

from irrun.element_types import element_type
from irrun.ops._values import signed_ints
from irrun.ops.base import Op, TensorInfo, lazy_text
from irrun.ops.registry import register
from irrun.shape import Dim, Shape, static_dim

_NAMES = ("values", "dense_shape", "indices", "default_value")


@register
class SparseFillEmptyRows(Op):
    """SparseFillEmptyRows-16."""

    type, version, inputs = "SparseFillEmptyRows", 16, (4, 4)
    attributes = ()

    def _refuse(self, index, code, message, hint):
        self.context.error(code, f"{self.describe()}: {_NAMES[index]} {message}",
                           port=self.input_port(index), hint=hint)  # fmt: skip

    def infer(self, inputs):
        """``[N + E, 2]``, ``[N + E]`` and ``[rows]`` as far as the constants tell."""
        values, dense, indices, default = inputs
        types = {info.element_type.name for info in (dense, indices)} - {"dynamic"}
        if len(types) > 1 or not types <= {"i32", "i64"}:
            self._refuse(2, "index-type", f"and dense_shape must be of one type, i32 or i64, but "
                         f"they are {indices.element_type} and {dense.element_type}",
                         "Convert both to i64")  # fmt: skip
            return None
        if values.shape.rank not in (None, 1):
            self._refuse(0, "input-rank", f"must be 1-D, but its shape is {values.shape}",
                         "give one value per sparse entry")  # fmt: skip
            return None
        dense_rank = dense.shape.rank
        if dense_rank is not None and (
            dense_rank != 1 or not dense.shape[0].compatible(static_dim(2))
        ):
            self._refuse(1, "input-shape", f"must be [2] (only 2-D sparse tensors), but its "
                         f"shape is {dense.shape}", "give [rows, columns]")  # fmt: skip
            return None
        if indices.shape.rank is not None:
            count_ok = (
                dense_rank is None
                or values.shape.rank is None
                or (indices.shape.rank == 2 and indices.shape[0].compatible(values.shape[0]))
            )
            if (
                indices.shape.rank != 2
                or not indices.shape[1].compatible(static_dim(2))
                or not count_ok
            ):
                self._refuse(2, "input-shape", f"must be [N, 2] with N the number of values "
                             f"{values.shape}, but its shape is {indices.shape}",
                             "give one (row, column) pair per value")  # fmt: skip
                return None
        if default.shape.rank not in (None, 0):
            self._refuse(3, "input-rank", f"must be a scalar, but its shape is {default.shape}",
                         "give a 0-D default value")  # fmt: skip
            return None
        entries = Dim.dynamic()
        rows = Dim.dynamic()
        why = "dense_shape or indices are not constants: the number of empty rows is not known"
        shape_value = signed_ints(dense)
        if shape_value is not None and len(shape_value) == 2:
            rows = static_dim(max(shape_value[0], 0))
            pairs = indices.value
            if pairs is not None:
                pairs = np.asarray(pairs).reshape(-1, 2).astype(np.int64)
                if not self._check_bounds(pairs, shape_value, report=True):
                    return None
                empty = shape_value[0] - len(np.unique(pairs[:, 0]))
                entries = indices.shape[0] + static_dim(empty)
                count = values.shape[0] if values.shape.rank == 1 else Dim.dynamic()
                why = lazy_text("{} entries and {} empty rows", indices.shape[0], empty)
                return [TensorInfo(Shape([entries, static_dim(2)]), indices.element_type, why=why),
                        TensorInfo(Shape([count + static_dim(empty)]), values.element_type,
                                   why=why),
                        TensorInfo(Shape([rows]), element_type("boolean"), why=why)]  # fmt: skip
        return [TensorInfo(Shape([entries, static_dim(2)]), indices.element_type, why=why),
                TensorInfo(Shape([entries]), values.element_type, why=why),
                TensorInfo(Shape([rows]), element_type("boolean"), why=why)]  # fmt: skip

    def _check_bounds(self, pairs, dense_shape, report):
        for axis, name in ((0, "row"), (1, "column")):
            limit = dense_shape[axis]
            bad = (pairs[:, axis] < 0) | (pairs[:, axis] >= limit)
            if bad.any():
                first = int(np.argmax(bad))
                message = (f"index {first} ({pairs[first, 0]}, {pairs[first, 1]}) is out of "
                           f"bounds: {name} {pairs[first, axis]} is outside the valid range "
                           f"[0, {limit - 1}] of dense_shape {list(dense_shape)}")  # fmt: skip
                if not report:
                    raise ValueError(f"{self.describe()}: {message}")
                self._refuse(2, "input-value", message, "fix the sparse indices or dense_shape")
                return False
        return True

    def evaluate(self, inputs):
        """The entries and one default entry per empty row, sorted by (row, column)."""
        values = np.asarray(inputs[0]).reshape(-1)
        dense_shape = np.asarray(inputs[1]).reshape(-1).astype(np.int64).tolist()
        index_dtype = np.asarray(inputs[2]).dtype
        pairs = np.asarray(inputs[2]).reshape(-1, 2).astype(np.int64)
        self._check_bounds(pairs, dense_shape, report=False)
        rows = dense_shape[0]
        present = np.zeros(rows, bool)
        present[pairs[:, 0]] = True
        empty_rows = np.flatnonzero(~present)
        added = np.stack([empty_rows, np.zeros_like(empty_rows)], axis=1)
        all_pairs = np.concatenate([pairs, added])
        default = np.asarray(inputs[3]).astype(values.dtype).reshape(1)
        all_values = np.concatenate([values, np.repeat(default, len(empty_rows))])
        order = np.lexsort((all_pairs[:, 1], all_pairs[:, 0]))  # stable: by row, then column
        return [all_pairs[order].astype(index_dtype), all_values[order], ~present]
