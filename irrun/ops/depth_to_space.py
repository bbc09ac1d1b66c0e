"""DepthToSpace-1: move blocks of channel data into the spatial dims.

Spec facts: input data of rank >= 3 ``[N, C, D1, ..., DK]`` (any element type); attributes
``mode`` (``blocks_first``: the channel is read as ``[bs, ..., bs, C / bs^K]``;
``depth_first``: as ``[C / bs^K, bs, ..., bs]``) and ``block_size`` (>= 1, default 1).
Output ``[N, C / bs^K, D1 * bs, ..., DK * bs]``, the data's element type.

Shape rule (``depth_to_space_shape_inference.hpp``): C must be a multiple of ``bs^K``; an
interval C divides to ``[ceil(lower / bs^K), floor(upper / bs^K)]`` and is refused when that
holds no integer (``5..7`` for 4); see :func:`irrun.ops._blocks.divide_dim`. OpenVINO refuses
a rank below 3 and a block size of 0.

Kernel: one reshape, transpose and reshape (NumPy views, one copy); exact.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._blocks import MODES, check_block_op, divide_dim, not_a_multiple
from irrun.ops.base import Attribute, Op, TensorInfo
from irrun.ops.registry import register
from irrun.shape import Shape, static_dim


@register
class DepthToSpace(Op):
    """DepthToSpace-1 (mode, block_size)."""

    type, version, inputs = "DepthToSpace", 1, (1, 1)
    rounds = False
    attributes = (
        Attribute("mode", "enum", "blocks_first", required=True, choices=MODES),
        Attribute("block_size", "int", 1),
    )

    def infer(self, inputs):
        """``[N, C / bs^K, D1 * bs, ...]``."""
        (data,) = inputs
        if not check_block_op(self, data):
            return None
        if data.shape.rank is None:
            return [TensorInfo(data.shape, data.element_type, why="the data rank is not known")]
        dims = list(data.shape)
        bs = self.block_size
        divisor = bs ** (len(dims) - 2)
        channels = divide_dim(dims[1], divisor)
        if channels is None:
            not_a_multiple(self, dims[1], divisor, f"channel (block_size {bs}^{len(dims) - 2})")
            return None
        out = Shape([dims[0], channels] + [d * static_dim(bs) for d in dims[2:]])
        return [TensorInfo(out, data.element_type, why=f"block_size {bs}, {self.mode}")]

    def evaluate(self, inputs):
        """Reshape the channel into blocks, interleave them with the spatial axes."""
        (data,) = inputs
        n, c, *spatial = data.shape
        k, bs = len(spatial), self.block_size
        depth = c // bs**k
        if self.mode == "blocks_first":
            split = data.reshape([n] + [bs] * k + [depth] + spatial)
            order = [0, k + 1] + [i for j in range(k) for i in (k + 2 + j, 1 + j)]
        else:
            split = data.reshape([n, depth] + [bs] * k + spatial)
            order = [0, 1] + [i for j in range(k) for i in (k + 2 + j, 2 + j)]
        out = split.transpose(order).reshape([n, depth] + [d * bs for d in spatial])
        return [np.ascontiguousarray(out)]
