"""Unsqueeze-1: insert dimensions of size 1.

Spec facts: inputs data and axes (a scalar or 1-D integer tensor, required; OpenVINO also
accepts float axes, truncated toward 0, which irrun does too with an ``index-type`` warning
that the specification wants integers; u64 axes are read as int64). Axes index the
**output**: they are normalised against r + n (n = the number of distinct axis values; range
[-(r+n), r+n-1]), and a 1 is inserted at each distinct normalised axis in increasing order, so
repeats after normalisation count once ([2,3,4] with axes [0,-5] is [1,2,3,4]) and an axis past
the end appends ([2,3] with [3,-1] is [2,3,1]) — OpenVINO's rule. An axis out of range is
refused. Axes that are not constant give an unknown rank. Partial values pass through (scalar
→ ``[1]``). The kernel is ``np.reshape`` (a view).
"""

from __future__ import annotations

import numpy as np

from irrun.ops._shape_ops import check_integer_input, check_vector_input
from irrun.ops._values import elements_of, info_of_elements, signed_ints, signed_values
from irrun.ops.base import Op, TensorInfo, lazy_text, normalize_axes_or_report
from irrun.ops.registry import register
from irrun.shape import Shape, static_dim

_ONE = static_dim(1)


@register
class Unsqueeze(Op):
    """Unsqueeze-1 (no attributes)."""

    moves_elements = (0,)
    type, version, inputs = "Unsqueeze", 1, (2, 2)
    rounds = False
    attributes = ()

    def infer(self, inputs):
        """Insert 1s at the (output) axes."""
        data, axes_info = inputs
        etype = data.element_type
        if not check_integer_input(self, axes_info, 1, "axes", floats=True):
            return None
        if not check_vector_input(self, axes_info, 1, "axes", scalar=True):
            return None
        axes = signed_ints(axes_info, floats=True)
        shape = data.shape
        if axes is None or not shape.rank_is_static:
            return [TensorInfo(Shape.dynamic_rank(), etype, why="the axes or the rank unknown")]
        rank = shape.rank + len(set(axes))
        normalised = normalize_axes_or_report(self, axes, rank, port_index=1, unique=False)
        if normalised is None:
            return None
        dims = _unsqueezed(list(shape), normalised)
        out = Shape(dims)
        why = lazy_text("{} with 1s at output axes {}", shape, sorted(set(normalised)))
        # (partial first: reading value would force a deferred fold)
        elements = elements_of(data) if data.partial is not None and data.value is None else None
        if elements is not None and out.rank == 1:
            return [info_of_elements(elements, etype, out, why)]
        return [TensorInfo(out, etype, why=why)]

    def evaluate(self, inputs):
        """``np.reshape`` to the unsqueezed shape (a view)."""
        data, axes = inputs
        values = signed_values(axes)
        rank = data.ndim + len(set(values))
        normalised = [a + rank if a < 0 else a for a in values]
        return [np.reshape(data, _unsqueezed(list(data.shape), normalised, 1))]


def _unsqueezed(dims, axes, one=_ONE):
    """OpenVINO's rule: a 1 inserted at each distinct normalised axis, in increasing order
    (an axis past the end appends: [2,3] with axes [3,-1] is [2,3,1])."""
    dims = list(dims)
    for axis in sorted(set(axes)):
        dims.insert(axis, one)
    return dims
