"""ReverseSequence-1: reverse the first ``seq_lengths[b]`` elements along ``seq_axis`` of each
batch entry ``b`` (along ``batch_axis``).

Spec facts: inputs data (rank >= 2) and seq_lengths (1-D, one length per batch entry, any
numeric type: floats are truncated); attributes ``batch_axis`` (default 0) and ``seq_axis``
(default 1), negative counting from the end. A length of 0 acts as 1; a length above the
sequence dim (or negative) is an error when run.

Shape rule (``reverse_sequence_shape_inference.hpp``): data rank >= 2, seq_lengths rank 1,
``seq_axis`` in the data's range and, when the seq_lengths rank is known, ``batch_axis`` too
(OpenVINO checks it only then) and the batch dim merged with the seq_lengths dim (an empty
intersection is an error); the output is the data shape with that merged batch dim.

Kernel: the reversed positions as an index array along the sequence axis, placed with
``np.put_along_axis`` as the reference writes ``out[reversed] = data[position]``; exact.
"""

from __future__ import annotations

import numpy as np

from irrun.ops.base import Attribute, Op, TensorInfo, lazy_text, normalize_axis_or_report
from irrun.ops.registry import register
from irrun.shape import Shape


@register
class ReverseSequence(Op):
    """ReverseSequence-1 (batch_axis, seq_axis)."""

    type, version, inputs = "ReverseSequence", 1, (2, 2)
    rounds = False
    attributes = (Attribute("batch_axis", "int", 0), Attribute("seq_axis", "int", 1))

    def infer(self, inputs):
        """The data shape with the batch dim merged with the number of lengths."""
        data, lengths = inputs
        etype = lengths.element_type
        if etype.name != "dynamic" and etype.kind not in ("float", "int", "uint"):
            self.context.error(
                "input-type",
                f"{self.describe()}: seq_lengths must be numeric, but it is {etype}",
                port=self.input_port(1),
                hint="Convert seq_lengths to i32",
            )
            return None
        rank = data.shape.rank
        if rank is not None and rank < 2:
            self.context.error(
                "input-rank",
                f"{self.describe()}: the data must have rank 2 or more, but its shape is "
                f"{data.shape}",
                port=self.input_port(0),
                hint="give the data a batch and a sequence axis",
            )
            return None
        if lengths.shape.rank not in (None, 1):
            self.context.error(
                "input-rank",
                f"{self.describe()}: seq_lengths must be 1-D, but its shape is {lengths.shape}",
                port=self.input_port(1),
                hint="give one length per batch entry, as a 1-D tensor",
            )
            return None
        if rank is None:
            return [TensorInfo(data.shape, data.element_type, why="the data rank is not known")]
        if normalize_axis_or_report(self, self.seq_axis, rank, "seq_axis") is None:
            return None
        dims = list(data.shape.dims)
        if lengths.shape.rank == 1:  # OpenVINO checks the batch axis only then
            batch = normalize_axis_or_report(self, self.batch_axis, rank, "batch_axis")
            if batch is None:
                return None
            merged = dims[batch].merge(lengths.shape[0])
            if merged is None:
                self.context.error(
                    "input-dims",
                    f"{self.describe()}: seq_lengths {lengths.shape} has {lengths.shape[0]} "
                    f"lengths, but the batch axis {batch} of the data {data.shape} is "
                    f"{dims[batch]}",
                    port=self.input_port(1),
                    hint="give one length per batch entry",
                )
                return None
            dims[batch] = merged
        why = lazy_text("the data {} with the batch dim merged with seq_lengths {}", data.shape,
                        lengths.shape)  # fmt: skip
        return [TensorInfo(Shape(dims), data.element_type, why=why)]

    def evaluate(self, inputs):
        """Reverse each batch entry's first ``length`` positions along the sequence axis."""
        data, lengths = np.asarray(inputs[0]), np.asarray(inputs[1])
        batch, seq = self.batch_axis % data.ndim, self.seq_axis % data.ndim
        size = data.shape[seq]
        lengths = lengths.astype(np.int64)  # floats truncate toward 0, as the reference casts
        if np.any((lengths < 0) | (lengths > size)):
            raise ValueError(f"{self.describe()}: seq_lengths {lengths.tolist()} must lie in "
                             f"[0, {size}] (the sequence axis {seq} of data "
                             f"{list(data.shape)})")  # fmt: skip
        lengths = np.maximum(lengths, 1)
        shape = [1] * data.ndim
        shape[batch] = data.shape[batch]
        per_batch = lengths.reshape(shape)
        positions = np.arange(size).reshape([size if i == seq else 1 for i in range(data.ndim)])
        target = np.where(positions < per_batch, per_batch - 1 - positions, positions)
        target = np.broadcast_to(target, data.shape)
        out = np.zeros_like(data)
        np.put_along_axis(out, target, data, axis=seq)
        return [out]
