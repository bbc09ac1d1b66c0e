"""EmbeddingBagOffsetsSum-3, EmbeddingBagOffsets-15, EmbeddingBagPackedSum-3,
EmbeddingBagPacked-15 and EmbeddingSegmentsSum-3: sums (or means) of rows of an embedding
table, gathered by indices and grouped into bags.

Spec facts: emb_table ``[N, ...]`` (any type, rank >= 1) and indices (i32 or i64) give rows;
per_sample_weights (the table's type, one per index) scale them (sum only).

- *Offsets*: indices 1-D, offsets 1-D (bag ``b`` holds ``indices[offsets[b]:offsets[b + 1]]``,
  the last bag to the end), an optional scalar default_index (the row an empty bag gets;
  absent or negative: zeros), then the weights. Output ``[len(offsets), ...]``.
- *Packed*: indices ``[batch, bag]`` (every bag one size), weights of that shape. Output
  ``[batch, ...]``.
- *Segments*: indices and segment_ids 1-D of one length (index ``i`` goes to segment
  ``segment_ids[i]``), a scalar num_segments, an optional default_index (the row of an empty
  segment), then the weights. Output ``[num_segments, ...]``.

The -15 versions add ``reduction`` (sum or mean; weights only with sum). Offsets, default_index,
segment_ids and num_segments have the indices' type. Output: the table's type.

Shape rule (``embeddingbag_offsets_shape_inference.hpp``, ``embeddingbag_packed_...``,
``embedding_segments_sum_...``): the table's shape with its first dim replaced by the offsets'
length, the batch of indices merged with the weights' (Packed), or num_segments read as a shape
(a constant, or a ShapeOf element: an interval; unknown ``?``).

Kernel: the rows gathered at once and added into their bags with ``np.add.at`` (in index order,
in the table's type, as OpenVINO's reference sums); a mean divides by the bag's size (integer
tables: truncated toward 0). Errors when run: an index outside the table, offsets that
decrease or reach past the indices (OpenVINO's reference refuses an offset equal to the indices'
count, even for an empty last bag), a segment id outside ``[0, num_segments)``. Exact for
integers; ``rtol=1e-6`` against the CPU plugin for f32 (which may add in another order).
"""

from __future__ import annotations

import numpy as np

from irrun.ops._values import signed_elements
from irrun.ops.base import Attribute, Op, TensorInfo
from irrun.ops.registry import register
from irrun.shape import Dim, Shape, static_dim

_INDEX_TYPES = ("i32", "i64", "dynamic")


class _Embedding(Op):
    attributes = ()
    #: Names of the inputs, by position.
    names: tuple = ()
    #: Positions of the inputs that have the indices' type.
    index_inputs: tuple = ()
    #: Position of per_sample_weights.
    weights_input = 0
    #: Required rank of each input (by position; ``None`` any).
    ranks: tuple = ()
    reduction = "sum"

    def setup(self):
        if self.reduction == "mean" and len(self.layer.inputs) > self.weights_input:
            self.context.error(
                "input-count",
                f"{self.describe()}: per_sample_weights (input {self.weights_input}) can only be "
                'used with reduction="sum"',
                hint='drop the weights input or use reduction="sum"',
                line=self.layer.data_line,
            )
            self.incomplete = True

    def _check_inputs(self, inputs) -> bool:
        table = inputs[0]
        first_index = inputs[1].element_type
        for index in self.index_inputs:
            if index >= len(inputs):
                continue
            etype = inputs[index].element_type
            if etype.name not in _INDEX_TYPES:
                return self._bad_type(index, f"must be i32 or i64, but it is {etype}")
            if "dynamic" not in (etype.name, first_index.name) and etype is not first_index:
                return self._bad_type(
                    index, f"({etype}) must have the indices' type ({first_index})"
                )
        if len(inputs) > self.weights_input:
            etype = inputs[self.weights_input].element_type
            wanted = table.element_type
            if "dynamic" not in (etype.name, wanted.name) and etype is not wanted:
                what = f"({etype}) must have the table's type ({wanted})"
                return self._bad_type(self.weights_input, what)
        for index, rank in enumerate(self.ranks[: len(inputs)]):
            actual = inputs[index].shape.rank
            if rank is not None and actual is not None and actual != rank:
                spelled = "a scalar" if rank == 0 else f"{rank}-D"
                self.context.error(
                    "input-rank",
                    f"{self.describe()}: {self.names[index]} must be {spelled}, but its shape is "
                    f"{inputs[index].shape}",
                    port=self.input_port(index),
                    hint=f"give the {self.names[index]} as {spelled}",
                )
                return False
        if table.shape.rank == 0:
            self.context.error(
                "input-rank",
                f"{self.describe()}: emb_table must have rank >= 1, but it is a scalar",
                port=self.input_port(0),
                hint="give the table as [rows, ...]",
            )
            return False
        return True

    def _bad_type(self, index, what) -> bool:
        self.context.error(
            "index-type" if index != self.weights_input else "input-type",
            f"{self.describe()}: {self.names[index]} (input {index}) {what}",
            port=self.input_port(index),
            hint="insert a Convert so that the types agree",
        )
        return False

    def _same_length(self, inputs, a, b) -> Dim | None:
        """The merged shape of inputs ``a`` and ``b`` (``None`` after reporting a mismatch)."""
        merged = inputs[a].shape.merge(inputs[b].shape)
        if merged is None:
            self.context.error(
                "input-dims",
                f"{self.describe()}: {self.names[a]} {inputs[a].shape} and {self.names[b]} "
                f"{inputs[b].shape} must have one shape",
                port=self.input_port(b),
                hint=f"give one {self.names[b][:-1] if b else ''} per index",
            )
        return merged

    def _output(self, table, first: Dim, why: str):
        if table.shape.rank is None:
            return [TensorInfo(table.shape, table.element_type, why="the table's rank is unknown")]
        shape = Shape([first] + list(table.shape)[1:])
        return [TensorInfo(shape, table.element_type, why=why)]

    # -- kernel ---------------------------------------------------------------------------
    def _rows(self, table, indices):
        bad = (indices < 0) | (indices >= table.shape[0])
        if bad.any():
            raise ValueError(
                f"{self.describe()}: index {int(indices[bad][0])} is outside the table's "
                f"{table.shape[0]} rows"
            )
        return table[indices]

    def _reduced(self, table, rows, bags, count, weights, default):
        """Rows (weighted) added into ``count`` bags; empty bags get row ``default`` (if >= 0);
        a mean divides by each bag's size."""
        if weights is not None:
            rows = rows * weights.reshape(weights.shape + (1,) * (rows.ndim - 1))
        out = np.zeros((count,) + table.shape[1:], table.dtype)
        np.add.at(out, bags, rows)
        sizes = np.bincount(bags, minlength=count)
        if self.reduction == "mean":
            divisor = np.maximum(sizes, 1).reshape((count,) + (1,) * (table.ndim - 1))
            if out.dtype.kind in "iu":
                out = np.trunc(out / divisor).astype(table.dtype)
            else:
                out = (out / divisor.astype(out.dtype)).astype(table.dtype)
        if default is not None and default >= 0:
            empty = sizes == 0
            if empty.any():
                out[empty] = self._rows(table, np.array([default]))[0]
        return out


class _Offsets(_Embedding):
    inputs = (3, 5)
    names = ("emb_table", "indices", "offsets", "default_index", "per_sample_weights")
    index_inputs = (1, 2, 3)
    weights_input = 4
    ranks = (None, 1, 1, 0, 1)

    def infer(self, inputs):
        """The table's shape with the first dim the number of offsets (bags)."""
        if not self._check_inputs(inputs):
            return None
        if len(inputs) == 5 and self._same_length(inputs, 1, 4) is None:
            return None
        offsets = inputs[2].shape
        first = offsets[0] if offsets.rank == 1 else Dim.dynamic()
        return self._output(inputs[0], first, f"one row per offset (offsets {offsets})")

    def evaluate(self, inputs):
        """Each index's bag from the offsets; rows added into the bags."""
        table, indices, offsets = inputs[:3]
        default = int(inputs[3]) if len(inputs) > 3 else None
        weights = inputs[4] if len(inputs) > 4 else None
        indices, offsets = indices.astype(np.int64), offsets.astype(np.int64)
        count = offsets.shape[0]
        outside = (offsets < 0) | (offsets >= len(indices))
        if outside.any() or (np.diff(offsets) < 0).any():
            raise ValueError(
                f"{self.describe()}: offsets {offsets.tolist()} must rise from 0 and stay below "
                f"the {len(indices)} indices"
            )
        bags = np.searchsorted(offsets, np.arange(len(indices)), side="right") - 1
        return [self._reduced(table, self._rows(table, indices), bags, count, weights, default)]


@register
class EmbeddingBagOffsetsSum(_Offsets):
    """EmbeddingBagOffsetsSum-3: the sum of each bag."""

    type, version = "EmbeddingBagOffsetsSum", 3


@register
class EmbeddingBagOffsets(_Offsets):
    """EmbeddingBagOffsets-15: the sum or mean of each bag."""

    type, version = "EmbeddingBagOffsets", 15
    attributes = (Attribute("reduction", "enum", "sum", choices=("sum", "mean")),)


class _Packed(_Embedding):
    inputs = (2, 3)
    names = ("emb_table", "indices", "per_sample_weights")
    index_inputs = (1,)
    weights_input = 2
    ranks = (None, 2, 2)

    def infer(self, inputs):
        """The table's shape with the first dim the indices' batch."""
        if not self._check_inputs(inputs):
            return None
        indices = inputs[1].shape
        if len(inputs) == 3:
            indices = self._same_length(inputs, 1, 2)
            if indices is None:
                return None
        first = indices[0] if indices.rank == 2 else Dim.dynamic()
        return self._output(inputs[0], first, f"one row per bag (indices {indices})")

    def evaluate(self, inputs):
        """Rows added along each bag."""
        table, indices = inputs[:2]
        weights = inputs[2] if len(inputs) > 2 else None
        batch, size = indices.shape
        bags = np.repeat(np.arange(batch), size)
        flat = indices.reshape(-1).astype(np.int64)
        weights = None if weights is None else weights.reshape(-1)
        return [self._reduced(table, self._rows(table, flat), bags, batch, weights, None)]


@register
class EmbeddingBagPackedSum(_Packed):
    """EmbeddingBagPackedSum-3: the sum of each bag."""

    type, version = "EmbeddingBagPackedSum", 3


@register
class EmbeddingBagPacked(_Packed):
    """EmbeddingBagPacked-15: the sum or mean of each bag."""

    type, version = "EmbeddingBagPacked", 15
    attributes = (Attribute("reduction", "enum", "sum", choices=("sum", "mean")),)


@register
class EmbeddingSegmentsSum(_Embedding):
    """EmbeddingSegmentsSum-3: the sum of each segment."""

    type, version, inputs = "EmbeddingSegmentsSum", 3, (4, 6)
    names = ("emb_table", "indices", "segment_ids", "num_segments", "default_index",
             "per_sample_weights")  # fmt: skip
    index_inputs = (1, 2, 3, 4)
    weights_input = 5
    ranks = (None, 1, 1, 0, 0, 1)

    def infer(self, inputs):
        """The table's shape with the first dim num_segments."""
        if not self._check_inputs(inputs):
            return None
        if self._same_length(inputs, 1, 2) is None:
            return None
        if len(inputs) == 6 and self._same_length(inputs, 1, 5) is None:
            return None
        elements = signed_elements(inputs[3])
        element = elements[0] if elements and len(elements) == 1 else None
        if isinstance(element, int) and element < 0:
            self.context.error(
                "input-value",
                f"{self.describe()}: num_segments must be >= 0, but it is {element}",
                port=self.input_port(3),
                hint="give the number of segments",
            )
            return None
        first = static_dim(element) if isinstance(element, int) else element or Dim.dynamic()
        return self._output(inputs[0], first, f"one row per segment (num_segments {first})")

    def evaluate(self, inputs):
        """Rows added into their segments."""
        table, indices, segment_ids, num_segments = inputs[:4]
        default = int(inputs[4]) if len(inputs) > 4 else None
        weights = inputs[5] if len(inputs) > 5 else None
        count = int(num_segments)
        segments = segment_ids.astype(np.int64)
        bad = (segments < 0) | (segments >= count)
        if bad.any():
            raise ValueError(
                f"{self.describe()}: segment id {int(segments[bad][0])} is outside "
                f"[0, {count}) (num_segments {count})"
            )
        rows = self._rows(table, indices.astype(np.int64))
        return [self._reduced(table, rows, segments, count, weights, default)]
