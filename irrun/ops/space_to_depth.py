"""SpaceToDepth-1: move blocks of the spatial dims into the channel.

Spec facts: input data of rank >= 3 ``[N, C, D1, ..., DK]`` (any element type); attributes
``mode`` (``blocks_first``: the output channel is ``[bs, ..., bs, C]``; ``depth_first``:
``[C, bs, ..., bs]``) and ``block_size`` (>= 1, default 1). Output
``[N, C * bs^K, D1 / bs, ..., DK / bs]``, the data's element type.

Shape rule (``space_to_depth_shape_inference.hpp``): each spatial dim must be a multiple of
``bs``; an interval divides to ``[ceil(lower / bs), floor(upper / bs)]`` and is refused when
that holds no integer (see :func:`irrun.ops._blocks.divide_dim`: an unbounded upper bound
becomes OpenVINO's ``s_max / bs`` in double precision). OpenVINO refuses a rank below 3 and a
block size of 0.

Kernel: one reshape, transpose and reshape; exact.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._blocks import MODES, check_block_op, divide_dim, not_a_multiple
from irrun.ops.base import Attribute, Op, TensorInfo
from irrun.ops.registry import register
from irrun.shape import Shape, static_dim


@register
class SpaceToDepth(Op):
    """SpaceToDepth-1 (mode, block_size)."""

    type, version, inputs = "SpaceToDepth", 1, (1, 1)
    rounds = False
    attributes = (
        Attribute("mode", "enum", "blocks_first", required=True, choices=MODES),
        Attribute("block_size", "int", 1),
    )

    def infer(self, inputs):
        """``[N, C * bs^K, D1 / bs, ...]``."""
        (data,) = inputs
        if not check_block_op(self, data):
            return None
        if data.shape.rank is None:
            return [TensorInfo(data.shape, data.element_type, why="the data rank is not known")]
        dims = list(data.shape)
        bs = self.block_size
        spatial = []
        for axis, dim in enumerate(dims[2:], 2):
            divided = divide_dim(dim, bs)
            if divided is None:
                not_a_multiple(self, dim, bs, f"spatial (axis {axis})")
                return None
            spatial.append(divided)
        channels = dims[1] * static_dim(bs ** (len(dims) - 2))
        out = Shape([dims[0], channels] + spatial)
        return [TensorInfo(out, data.element_type, why=f"block_size {bs}, {self.mode}")]

    def evaluate(self, inputs):
        """Split each spatial axis into blocks, move the blocks next to the channel."""
        (data,) = inputs
        n, c, *spatial = data.shape
        k, bs = len(spatial), self.block_size
        split = data.reshape([n, c] + [i for d in spatial for i in (d // bs, bs)])
        blocks = [3 + 2 * j for j in range(k)]
        rest = [2 + 2 * j for j in range(k)]
        order = [0] + (blocks + [1] if self.mode == "blocks_first" else [1] + blocks) + rest
        out = split.transpose(order).reshape([n, c * bs**k] + [d // bs for d in spatial])
        return [np.ascontiguousarray(out)]
