"""SearchSorted-15: where each value would be inserted into a sorted sequence.

Spec facts: inputs sorted_sequence (rank >= 1, sorted along its last axis) and values (the
same element type); attributes ``right_mode`` (default false: the first index ``i`` with
``sorted[i - 1] < v <= sorted[i]``; true: ``sorted[i - 1] <= v < sorted[i]``) and
``output_type`` (i32 or i64, default i64). A 1-D sequence serves every value; otherwise the
sequence and the values have one rank and the same leading dims (each row of values searches
its own row of the sequence). The output has the values' shape.

Shape rule (``search_sorted_shape_inference.hpp``): a 1-D (or dynamic-rank) sequence gives the
values' shape; otherwise the leading dims are merged (``1..3`` and ``2..6`` give ``2..3``) and
the last is the values' (``?`` when the values' rank is not known).

Kernel: ``numpy.searchsorted`` for a 1-D sequence; for rows, the count of sequence elements
below (or, with right_mode, not above) each value, by one broadcast comparison (memory
``rows x values x sequence``). Exact.
"""

from __future__ import annotations

import numpy as np

from irrun.element_types import element_type
from irrun.ops.base import Attribute, Op, TensorInfo, common_element_type
from irrun.ops.registry import register
from irrun.shape import Dim, Shape


@register
class SearchSorted(Op):
    """SearchSorted-15 (right_mode, output_type)."""

    type, version, inputs = "SearchSorted", 15, (2, 2)
    attributes = (
        Attribute("right_mode", "bool", False),
        Attribute("output_type", "element_type", None),
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

    def infer(self, inputs):
        """The values' shape, the leading dims merged with the sequence's."""
        if common_element_type(self, inputs, "the sorted sequence and the values") is None:
            return None
        sequence, values = inputs[0].shape, inputs[1].shape
        out_type = self.output_type
        if sequence.rank == 0:
            self.context.error(
                "input-rank",
                f"{self.describe()}: the sorted sequence cannot be a scalar",
                port=self.input_port(0),
                hint="give the sorted sequence as a 1-D tensor",
            )
            return None
        if sequence.rank in (None, 1):
            return [TensorInfo(values, out_type, why="the values' shape (one sequence for all)")]
        if values.rank is None:
            dims = list(sequence)[:-1] + [Dim.dynamic()]
            return [TensorInfo(Shape(dims), out_type, why="the sequence's rows, values unknown")]
        if values.rank != sequence.rank:
            self.context.error(
                "input-rank",
                f"{self.describe()}: a sorted sequence {sequence} of rank {sequence.rank} needs "
                f"values of that rank, but the values are {values}",
                port=self.input_port(1),
                hint="give the values one row per row of the sequence, or a 1-D sequence",
            )
            return None
        dims = []
        for axis, (a, b) in enumerate(zip(list(sequence)[:-1], list(values)[:-1])):
            merged = a.merge(b)
            if merged is None:
                self.context.error(
                    "input-dims",
                    f"{self.describe()}: the sorted sequence {sequence} and the values {values} "
                    f"differ in dim {axis} ({a} and {b}); all dims but the last must match",
                    port=self.input_port(1),
                    hint="give the values the sequence's leading dims",
                )
                return None
            dims.append(merged)
        shape = Shape(dims + [values[-1]])
        return [TensorInfo(shape, out_type, why="the values' shape, rows merged")]

    def evaluate(self, inputs):
        """Insertion indices: ``numpy.searchsorted``, or a count per row."""
        sequence, values = inputs
        dtype = self.output_type.numpy_dtype
        if sequence.ndim == 1:
            side = "right" if self.right_mode else "left"
            return [np.searchsorted(sequence, values, side=side).astype(dtype)]
        rows = sequence[..., None, :]
        probes = values[..., :, None]
        below = rows <= probes if self.right_mode else rows < probes
        return [below.sum(axis=-1).astype(dtype)]
