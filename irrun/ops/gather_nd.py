"""GatherND-5 and GatherND-8: gather slices addressed by index tuples.

Spec facts (ops.md §3): data rank r >= 1, indices rank q >= 1 of any integer
type, k = indices.shape[-1] <= r - batch_dims; ``batch_dims`` >= 0, < q and
< r; the first batch_dims dims of data and indices are equal. Output:
GatherND-8 ``indices[:q-1] + data[b+k:]``; GatherND-5 flattens the batch dims
into one: ``[prod(indices[:b])] + indices[b:q-1] + data[b+k:]``. Negative
indices wrap; out of range is unspecified, so irrun refuses to run it.
"""

from __future__ import annotations

from irrun.ops._indices import (
    as_signed_indices,
    batch_dims_merge,
    check_index_type,
    first_bad_index,
    warn_negative,
)
from irrun.ops.base import Attribute, Op, TensorInfo
from irrun.ops.registry import register
from irrun.shape import Dim, Shape


class _GatherND(Op):
    inputs = (2, 2)
    flatten_batch = False

    attributes = (Attribute("batch_dims", "int", 0),)

    def setup(self):
        if self.batch_dims is not None and self.batch_dims < 0:
            self.context.error(
                "batch-dims-range",
                f"{self.describe()}: batch_dims {self.batch_dims} must not be negative",
            )
            self.batch_dims = None

    def infer(self, inputs):
        """Output shape per version (see the module docstring)."""
        data, indices = inputs
        integer_indices = check_index_type(self, indices, 1)
        if self.batch_dims is None:
            return None
        b = self.batch_dims
        if not data.shape.rank_is_static or not indices.shape.rank_is_static:
            return [
                TensorInfo(Shape.dynamic_rank(), data.element_type, why="an input of unknown rank")
            ]
        r, q = data.shape.rank, indices.shape.rank
        for rank, what, index in ((r, "data", 0), (q, "indices", 1)):
            if rank == 0:
                self.context.error(
                    "input-rank",
                    f"{self.describe()}: {what} must have rank >= 1, but it is a scalar",
                    port=self.input_port(index),
                )
                return None
        if b >= q or b >= r:
            self.context.error(
                "batch-dims-range",
                f"{self.describe()}: batch_dims {b} must be below the rank of indices ({q}, shape "
                f"{indices.shape}) and of data ({r}, shape {data.shape})",
            )
            return None
        merged = batch_dims_merge(self, data, indices, b)
        if merged is None:
            return None
        last = indices.shape[q - 1]
        if not last.is_static:
            return [
                TensorInfo(Shape.dynamic_rank(), data.element_type,
                           why="the index tuple length indices.shape[-1] is not known")
            ]  # fmt: skip
        k = last.value
        if k > r - b:
            self.context.error(
                "input-dims",
                f"{self.describe()}: index tuples have length {k} (indices.shape[-1]), but data "
                f"{data.shape} has only {r} - {b} = {r - b} dimensions after the batch dims",
                port=self.input_port(1),
            )
            return None
        tail = data.shape[b + k :]
        if self.flatten_batch and b > 0:
            product = Dim(1)
            for dim in merged:
                product = product * dim
            head = Shape([product] + list(indices.shape[b : q - 1]))
            formula = f"[prod(indices[:{b}])] + indices[{b}:{q - 1}] + data[{b + k}:]"
        else:
            head = Shape(merged + list(indices.shape[b : q - 1]))
            formula = f"indices[:{q - 1}] + data[{b + k}:]"
        out = Shape(list(head) + list(tail))
        why = lambda: (  # noqa: E731  (messages are built only when one is shown)
            f"data {data.shape}, indices {indices.shape}, batch_dims {b}, k = {k}: {formula} = "
            f"{head} + {tail} = {out}"
        )
        if integer_indices:
            self._check_index_values(indices, data.shape[b : b + k])
        return [TensorInfo(out, data.element_type, why=why)]

    def _check_index_values(self, indices, sizes):
        if indices.value is None or indices.value.size == 0 or not sizes.is_static:
            return

        values = as_signed_indices(indices.value)
        for j, size in enumerate(sizes.to_tuple()):
            found = first_bad_index(values[..., j], -size, size - 1)
            if found:
                position, value, count = found
                self.context.error(
                    "index-range",
                    f"{self.describe()}: index {value} at {list(position) + [j]} is outside "
                    f"[{-size}, {size - 1}] for data dimension {self.batch_dims + j} of size "
                    f"{size} ({count} such value(s)); the result is undefined there",
                    port=self.input_port(1),
                    hint=f"keep every index of dimension {self.batch_dims + j} in "
                    f"[{-size}, {size - 1}]",
                )
                return
        if self.version < 8:
            warn_negative(self, values, "non-negative indices",
                          "OpenVINO's CPU plugin wraps them, as irrun does",
                          'GatherND-8 (version="opset8")')  # fmt: skip

    def evaluate(self, inputs):
        """``irrun.kernels.gather_nd`` (out-of-range indices are an error)."""
        from irrun.kernels import gather_nd

        data, indices = inputs
        return [gather_nd(data, indices, self.batch_dims, flatten_batch=self.flatten_batch)]

    def evaluate_into(self, inputs, outputs) -> None:
        """:meth:`evaluate` written into ``outputs[0]`` (an array of the output's shape and
        dtype, overlapping no input)."""
        from irrun.kernels import gather_nd

        data, indices = inputs
        gather_nd(data, indices, self.batch_dims, flatten_batch=self.flatten_batch,
                  out=outputs[0])  # fmt: skip


@register
class GatherND5(_GatherND):
    """GatherND-5: batch dimensions flattened into one output dimension."""

    type, version = "GatherND", 5
    rounds = False
    flatten_batch = True


@register
class GatherND8(_GatherND):
    """GatherND-8: batch dimensions kept."""

    type, version = "GatherND", 8
    rounds = False
