"""Tile-1: repeat a tensor along each axis.

Spec facts: inputs data (any element type) and repeats (a 1-D tensor of any integer type; a
scalar or a float tensor is refused). The shorter of the data shape and repeats is padded with
1s on the left; output dim i = data dim i * repeats i (``[2,3]`` × ``[2,1,3]`` → ``[2,2,9]``,
``[2,3,4]`` × ``[2]`` → ``[2,3,8]``). Negative constant repeats count as 0 (OpenVINO's shape
inference clamps them); repeats are read as int64, so a u64 repeat of 2**63 or more is
negative (``[2**63+1, 1]`` on ``[2,3]`` gives ``[0,3]``).

Shape rule (``tile_shape_inference.hpp``): repeats may be a partial value (a shape from
ShapeOf): each element is then an interval and multiplies as intervals do. Unknown repeats of
static length n → rank max(rank, n), all dims ``?``; otherwise a dynamic rank.

Kernel: ``np.tile`` (a new array).
"""

from __future__ import annotations

import numpy as np

from irrun.ops._shape_ops import check_integer_input
from irrun.ops._values import as_dim, signed_elements, signed_values
from irrun.ops.base import Op, TensorInfo
from irrun.ops.registry import register
from irrun.shape import Dim, Shape, static_dim


@register
class Tile(Op):
    """Tile-1 (no attributes)."""

    moves_elements = (0,)
    type, version, inputs = "Tile", 1, (2, 2)
    rounds = False
    attributes = ()

    def infer(self, inputs):
        """Output dims: left-padded data dims times left-padded repeats."""
        data, repeats_info = inputs
        if not check_integer_input(self, repeats_info, 1, "repeats"):
            return None
        repeats_shape = repeats_info.shape
        if repeats_shape.rank_is_static and repeats_shape.rank != 1:
            self.context.error(
                "input-rank",
                f"{self.describe()}: repeats must be 1-D, but its shape is {repeats_shape}",
                port=self.input_port(1),
                hint="give one repeat count per axis in a 1-D tensor",
            )
            return None
        rank = data.shape.rank
        elements = signed_elements(repeats_info)
        if rank is None or elements is None:
            if rank is not None and repeats_shape.rank_is_static and repeats_shape[0].is_static:
                count = max(rank, repeats_shape[0].value)
                shape = Shape([Dim.dynamic()] * count)
                return [TensorInfo(shape, data.element_type, why="the repeats are not known")]
            return [TensorInfo(Shape.dynamic_rank(), data.element_type,
                               why="the repeats or the data rank are not known")]  # fmt: skip
        if repeats_info.value is not None:
            repeats = [static_dim(max(v, 0)) for v in elements]
        else:
            repeats = [as_dim(e) for e in elements]
        count = max(rank, len(repeats))
        repeats = [static_dim(1)] * (count - len(repeats)) + repeats
        dims = [static_dim(1)] * (count - rank) + list(data.shape.dims)
        out = Shape([d * r for d, r in zip(dims, repeats)])
        why = f"data {data.shape} tiled {[str(r) for r in repeats]} times"
        return [TensorInfo(out, data.element_type, why=why)]

    def evaluate(self, inputs):
        """``np.tile`` (negative repeats count as 0)."""
        data, repeats = inputs
        return [np.tile(data, [max(r, 0) for r in signed_values(repeats)])]
