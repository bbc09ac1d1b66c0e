"""BatchToSpace-2: move blocks of the batch into the spatial dims, then crop.

Spec facts: inputs data (rank >= 2), block_shape, crops_begin, crops_end (1-D integer tensors
of one shape and one type, one element per data axis; blocks >= 1, crops >= 0). Output
``[B / prod(block), d1 * b1 - cb1 - ce1, ...]``; the first block element divides the batch but
stretches no axis (it should be 1: irrun runs only that).

Shape rule (``batch_to_space_shape_inference.hpp``, 2025): a known block gives the batch
``B / prod(block)`` divided as OpenVINO divides a dimension (:func:`irrun.ops._blocks.divide_dim`;
no integer in the result is an error), else ``?``; known crops (with blocks) give
``d * b - crop`` (a static ``d * b`` below the crop is an error; intervals clamp at 0); crops
known but blocks not take each block as ``1..``; unknown crops give ``?``. A data of dynamic
rank gives a dynamic rank. Values are read from constants only.

Kernel: one reshape, transpose and reshape, then a slice; exact.
"""

from __future__ import annotations

import math

import numpy as np

from irrun.ops._blocks import check_block_inputs, divide_dim, subtract_size
from irrun.ops._values import signed_ints, signed_values
from irrun.ops.base import Op, TensorInfo, lazy_text
from irrun.ops.registry import register
from irrun.shape import Dim, Shape, static_dim

_NAMES = ("block_shape", "crops_begin", "crops_end")


@register
class BatchToSpace(Op):
    """BatchToSpace-2."""

    type, version, inputs = "BatchToSpace", 2, (4, 4)
    rounds = False
    attributes = ()

    def infer(self, inputs):
        """``[B / prod(block), d * b - crops, ...]`` from what is known of the values."""
        if not check_block_inputs(self, inputs, _NAMES):
            return None
        if len({i.element_type for i in inputs[1:] if i.element_type.name != "dynamic"}) > 1:
            types = ", ".join(str(i.element_type) for i in inputs[1:])
            self.context.error("input-type", f"{self.describe()}: {', '.join(_NAMES)} must "
                               f"have one element type, but they are {types}",
                               port=self.input_port(1), hint="Convert them to i64")  # fmt: skip
            return None
        data = inputs[0].shape
        if data.rank is None:
            return [TensorInfo(data, inputs[0].element_type, why="the data rank is not known")]
        blocks, begin, end = (signed_ints(i) for i in inputs[1:])
        dims = [Dim.dynamic()]
        if blocks is not None:
            if any(b < 1 for b in blocks):
                self._value_error(1, f"block_shape {blocks} must be 1 or more")
                return None
            divisor = math.prod(blocks)
            batch = divide_dim(data[0], divisor)
            if batch is None:
                self._value_error(0, f"the batch {data[0]} must be a multiple of "
                                  f"prod(block_shape {blocks}) = {divisor}")  # fmt: skip
                return None
            dims = [batch]
        if begin is None or end is None:
            dims += [Dim.dynamic()] * (data.rank - 1)
        else:
            if any(c < 0 for c in begin + end):
                self._value_error(2, f"crops_begin {begin} and crops_end {end} must be 0 or more")
                return None
            for axis in range(1, data.rank):
                block = static_dim(blocks[axis]) if blocks is not None else Dim(1, None)
                stretched = data[axis] * block
                crop = begin[axis] + end[axis]
                if stretched.is_static and crop > stretched.lower:
                    self._value_error(2, f"axis {axis}: crops {begin[axis]} + {end[axis]} = "
                                      f"{crop} exceed {data[axis]} * {block} = "
                                      f"{stretched}")  # fmt: skip
                    return None
                dims.append(subtract_size(stretched, crop))
        why = lazy_text("data {} with block_shape {} and crops {}, {}", data, blocks, begin, end)
        return [TensorInfo(Shape(dims), inputs[0].element_type, why=why)]

    def _value_error(self, index, message):
        self.context.error("input-value", f"{self.describe()}: {message}",
                           port=self.input_port(index),
                           hint="fix the block_shape and crops constants")  # fmt: skip

    def evaluate(self, inputs):
        """Reshape the batch into blocks, interleave them with the spatial axes, crop."""
        data = np.asarray(inputs[0])
        blocks, begin, end = (signed_values(a) for a in inputs[1:])
        if blocks[0] != 1:
            raise ValueError(f"{self.describe()}: block_shape[0] is {blocks[0]}; irrun runs "
                             "BatchToSpace with a batch block of 1 only")  # fmt: skip
        spatial = list(data.shape[1:])
        n = len(spatial)
        if min(blocks) < 1 or data.shape[0] % math.prod(blocks):
            raise ValueError(
                f"{self.describe()}: the batch {data.shape[0]} of data "
                f"{list(data.shape)} is no multiple of prod(block_shape {blocks})"
            )
        if min(begin + end) < 0 or any(
            b + e > d * k for b, e, d, k in zip(begin[1:], end[1:], data.shape[1:], blocks[1:])
        ):
            raise ValueError(f"{self.describe()}: crops {begin}, {end} must be 0 or more and fit "
                             f"the stretched dims of data {list(data.shape)}")  # fmt: skip
        batch = data.shape[0] // math.prod(blocks)
        split = data.reshape(blocks[1:] + [batch] + spatial)
        order = [n] + [i for j in range(n) for i in (n + 1 + j, j)]
        stretched = [d * b for d, b in zip(spatial, blocks[1:])]
        joined = split.transpose(order).reshape([batch] + stretched)
        window = tuple(slice(b, joined.shape[i] - e) for i, (b, e) in enumerate(zip(begin, end)))
        return [np.array(joined[window], order="C")]
