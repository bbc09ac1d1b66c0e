"""SpaceToBatch-2: pad the spatial dims, then move blocks of them into the batch.

Spec facts: inputs data (rank >= 2), block_shape, pads_begin, pads_end (1-D integer tensors of
one shape, one element per data axis; their types may differ; blocks >= 1 on the spatial
axes). Output ``[B * prod(block), (d1 + pb1 + pe1) / b1, ...]``; the padded dims must divide by
their blocks. The first block and pad elements should be 1 and 0 (irrun runs only that).

Shape rule (``space_to_batch_shape_inference.hpp``, 2025): a known block gives the batch
``B * prod(block)`` (a batch block of 0 gives 0), else ``?``; known blocks and pads give
``(d + pb + pe) / b`` divided as OpenVINO divides a dimension (an unbounded padded dim gives
``ceil(lower / b)..``; no integer in the result is an error); otherwise ``?``. **Quirk**: the pad
sum is added as ``Dimension(pb + pe)``, so a sum of -1 adds ``?`` and a lower one adds 0. Values
are read from constants only.

Kernel: pad (negative pads crop), one reshape, transpose and reshape; exact.
"""

from __future__ import annotations

import math

import numpy as np

from irrun.ops._blocks import check_block_inputs, dim_of_value, divide_dim
from irrun.ops._values import signed_ints, signed_values
from irrun.ops.base import Op, TensorInfo, lazy_text
from irrun.ops.registry import register
from irrun.shape import Dim, Shape, static_dim

_NAMES = ("block_shape", "pads_begin", "pads_end")


@register
class SpaceToBatch(Op):
    """SpaceToBatch-2."""

    type, version, inputs = "SpaceToBatch", 2, (4, 4)
    rounds = False
    attributes = ()

    def infer(self, inputs):
        """``[B * prod(block), (d + pads) / b, ...]`` from what is known of the values."""
        if not check_block_inputs(self, inputs, _NAMES):
            return None
        data = inputs[0].shape
        if data.rank is None:
            return [TensorInfo(data, inputs[0].element_type, why="the data rank is not known")]
        blocks, begin, end = (signed_ints(i) for i in inputs[1:])
        dims = [Dim.dynamic() if blocks is None else data[0] * static_dim(max(math.prod(blocks),
                                                                              0))]  # fmt: skip
        if blocks is None or begin is None or end is None:
            dims += [Dim.dynamic()] * (data.rank - 1)
        else:
            for axis in range(1, data.rank):
                block = blocks[axis]
                if block < 1:
                    self._value_error(1, f"block_shape {blocks}: axis {axis} has {block}, it "
                                      "must be 1 or more")  # fmt: skip
                    return None
                padded = data[axis] + dim_of_value(begin[axis] + end[axis])
                if padded.upper is None:
                    dims.append(Dim(-(-padded.lower // block), None))
                    continue
                divided = divide_dim(padded, block)
                if divided is None:
                    self._value_error(0, f"axis {axis}: the padded dim {data[axis]} + "
                                      f"{begin[axis]} + {end[axis]} = {padded} must be a "
                                      f"multiple of its block {block}")  # fmt: skip
                    return None
                dims.append(divided)
        why = lazy_text("data {} with block_shape {} and pads {}, {}", data, blocks, begin, end)
        return [TensorInfo(Shape(dims), inputs[0].element_type, why=why)]

    def _value_error(self, index, message):
        self.context.error("input-value", f"{self.describe()}: {message}",
                           port=self.input_port(index),
                           hint="fix the block_shape and pads constants")  # fmt: skip

    def evaluate(self, inputs):
        """Pad, split each spatial axis into blocks, move the blocks in front of the batch."""
        data = np.asarray(inputs[0])
        blocks, begin, end = (signed_values(a) for a in inputs[1:])
        if blocks[0] != 1 or begin[0] != 0 or end[0] != 0:
            raise ValueError(f"{self.describe()}: block_shape[0] {blocks[0]}, pads {begin[0]}, "
                             f"{end[0]}: irrun runs SpaceToBatch with a batch block of 1 and no "
                             "batch padding only")  # fmt: skip
        padded = np.pad(data, [(max(b, 0), max(e, 0)) for b, e in zip(begin, end)])
        window = tuple(slice(max(-b, 0), padded.shape[i] - max(-e, 0))
                       for i, (b, e) in enumerate(zip(begin, end)))  # fmt: skip
        padded = padded[window]
        batch, *spatial = padded.shape
        n = len(spatial)
        if min(blocks) < 1 or any(d % b for d, b in zip(spatial, blocks[1:])):
            raise ValueError(
                f"{self.describe()}: the padded dims {spatial} of data "
                f"{list(data.shape)} must divide by block_shape {blocks[1:]}"
            )
        split_shape = [batch] + [x for d, b in zip(spatial, blocks[1:]) for x in (d // b, b)]
        order = [2 + 2 * j for j in range(n)] + [0] + [1 + 2 * j for j in range(n)]
        out_shape = [batch * math.prod(blocks)] + [d // b for d, b in zip(spatial, blocks[1:])]
        return [np.array(padded.reshape(split_shape).transpose(order).reshape(out_shape),
                         order="C")]  # fmt: skip
