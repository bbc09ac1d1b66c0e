"""ScatterNDUpdate-3 (in opset4, registered as version 4 as OpenVINO's node factory names it)
and ScatterNDUpdate-15: write slices of ``updates`` into a copy of ``data`` at the
multi-indices of ``indices``.

Spec facts: inputs data (rank r >= 1), indices (i32 or i64, rank q >= 1, last dim k <= r: each
row of k numbers indexes the first k axes of data; negative values count from the end) and
updates (data's element type, shape ``indices[:-1] + data[k:]``, rank r + q - k - 1; when that
rank is 0 OpenVINO accepts updates of any shape). Version 15 adds ``reduction`` (none, sum,
sub, prod, min, max; default none). The output has data's shape and the element type data and
updates share.

Shape rule (``scatter_nd_base_shape_inference.hpp``): the checks above, over partial shapes
(dims need only be compatible); nothing is checked while k or a rank is unknown.

Kernel (OpenVINO's reference): flat output positions of every updated element, in the order
of the index rows; ``none``: the last duplicate wins; reductions accumulate in the data type
in that order (``np.<ufunc>.at``). Booleans: sum and max are or, prod and min are and, sub is
xor, as in OpenVINO. An index outside its axis is an error when run.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._indices import check_index_type
from irrun.ops._scatter import check_constant_indices, scatter_reduce
from irrun.ops.base import Attribute, Op, TensorInfo
from irrun.ops.registry import register


class _ScatterNDUpdate(Op):
    inputs = (3, 3)
    attributes = (
        Attribute("reduction", "enum", "none", since=15,
                  choices=("none", "sum", "sub", "prod", "min", "max")),
    )  # fmt: skip
    reduction = "none"

    def infer(self, inputs):
        """Output = data (element type shared with updates), after the rank and dim checks."""
        data, indices, updates = inputs
        if not check_index_type(self, indices, 1, allowed=("i32", "i64")):
            return None
        a, b = data.element_type, updates.element_type
        if a.name != "dynamic" and b.name != "dynamic" and a != b:
            self.context.error(
                "input-type",
                f"{self.describe()}: data and updates must have one element type, but data is "
                f"{a} and updates are {b}",
                port=self.input_port(2),
                hint="insert a Convert so that the updates have the data's element type",
            )
            return None
        etype = a if a.name != "dynamic" else b
        r, q = data.shape.rank, indices.shape.rank
        for rank, index, what in ((q, 1, "indices"), (r, 0, "data")):
            if rank == 0:
                self.context.error(
                    "input-rank",
                    f"{self.describe()}: {what} must have rank >= 1, but it is a scalar",
                    port=self.input_port(index),
                    hint=f"reshape {what} to 1-D",
                )
                return None
        out = TensorInfo(data.shape, etype, why="the shape of data")
        if r is None or q is None or not indices.shape[q - 1].is_static:
            return [out]
        k = indices.shape[q - 1].value
        if k > r:
            self.context.error(
                "input-dims",
                f"{self.describe()}: the last dim of indices {indices.shape} ({k}) must be at "
                f"most the rank of data {data.shape} ({r})",
                port=self.input_port(1),
                hint="each index row addresses at most every axis of data",
            )
            return None
        u = updates.shape.rank
        expected_rank = r + q - 1 - k
        if u is not None:
            expected = [*indices.shape[: q - 1], *data.shape[k:]]
            if u != expected_rank and expected_rank != 0:
                self.context.error(
                    "input-rank",
                    f"{self.describe()}: updates must have rank rank(data) + rank(indices) - "
                    f"indices[-1] - 1 = {r} + {q} - {k} - 1 = {expected_rank}, but their shape "
                    f"is {updates.shape}",
                    port=self.input_port(2),
                    hint="give updates the shape indices[:-1] + data[indices[-1]:]",
                )
                return None
            if not all(e.compatible(d) for e, d in zip(expected, updates.shape)):
                self.context.error(
                    "input-dims",
                    f"{self.describe()}: updates {updates.shape} must have the shape "
                    f"indices[:-1] + data[{k}:] = {indices.shape[: q - 1]} + {data.shape[k:]}",
                    port=self.input_port(2),
                    hint="make the updates' shape match indices and data",
                )
                return None
        if k == 1 and data.shape[0].is_static:
            size = data.shape[0].value
            check_constant_indices(self, indices, -size, size - 1, f"axis 0 of size {size}")
        return [out]

    def evaluate(self, inputs):
        """Flat positions of every updated element, then ``scatter_reduce``."""
        data, indices, updates = inputs
        out = data.copy()
        k = indices.shape[-1]
        count = int(np.prod(indices.shape[:-1], dtype=np.int64))
        rows = np.asarray(indices).reshape(count, k).astype(np.int64)
        sizes = np.array(data.shape[:k], np.int64)
        rows = np.where(rows < 0, rows + sizes, rows)
        bad = (rows < 0) | (rows >= sizes)
        if bad.any():
            row = int(np.argwhere(bad)[0][0])
            raise ValueError(
                f"{self.describe()}: index row {indices.reshape(count, k)[row].tolist()} is "
                f"outside data {list(data.shape)}"
            )
        chunk = int(np.prod(data.shape[k:], dtype=np.int64))
        starts = np.ravel_multi_index(tuple(rows.T), data.shape[:k]) if k else np.zeros(
            len(rows), np.int64)  # fmt: skip
        positions = (starts[:, None] * chunk + np.arange(chunk)).reshape(-1)
        values = np.asarray(updates).reshape(-1)
        if values.size < positions.size:
            raise ValueError(
                f"{self.describe()}: updates {list(updates.shape)} hold {values.size} values, "
                f"but the indices address {positions.size}"
            )
        scatter_reduce(out.reshape(-1), positions, values[: positions.size], self.reduction)
        return [out]


@register
class ScatterNDUpdate4(_ScatterNDUpdate):
    """ScatterNDUpdate-3 (opset4): plain updates (the last duplicate wins)."""

    type, version = "ScatterNDUpdate", 4


@register
class ScatterNDUpdate15(_ScatterNDUpdate):
    """ScatterNDUpdate-15: adds ``reduction``."""

    type, version = "ScatterNDUpdate", 15
