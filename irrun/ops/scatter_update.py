"""ScatterUpdate-3: write slices of ``updates`` into a copy of ``data`` at ``indices`` along
``axis``.

Spec facts: inputs data (rank r), indices (any integer type, rank q), updates (data's
element type, shape ``data[:axis] + indices + data[axis+1:]``, so of rank r + q - 1) and axis
(an integer scalar or 1-element tensor, negative counts from the end). No attributes. The
output has data's shape and element type.

Shape rule (``scatter_base.cpp``): the rank of updates is checked whenever the three ranks are
known; its dims against data and indices only when the axis is a constant (they need only
be compatible). Indices must lie in ``[0, data[axis] - 1]``: OpenVINO's reference and CPU
plugin both fail on a negative or too large one (irrun reports a constant one, and fails
when it runs). Duplicate indices: the last one wins, as in the reference and the plugin.

Kernel: the axis moved to the front of a copy of data; one fancy-indexed assignment of the
last update of each index.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._scatter import (
    check_axis_input,
    check_constant_indices,
    check_scatter_types,
    last_occurrences,
)
from irrun.ops._values import signed_ints, signed_values
from irrun.ops.base import Op, TensorInfo, normalize_axis_or_report
from irrun.ops.registry import register


@register
class ScatterUpdate(Op):
    """ScatterUpdate-3 (no attributes)."""

    type, version, inputs = "ScatterUpdate", 3, (4, 4)
    rounds = False
    attributes = ()

    def infer(self, inputs):
        """Output = data; checks of the updates' rank and, with a constant axis, its dims."""
        data, indices, updates, axis_info = inputs
        if not check_scatter_types(self, data, indices, updates):
            return None
        if not check_axis_input(self, axis_info):
            return None
        r, q, u = data.shape.rank, indices.shape.rank, updates.shape.rank
        if r is not None and q is not None and u is not None and u != q + r - 1:
            self.context.error(
                "input-rank",
                f"{self.describe()}: updates must have rank rank(indices) + rank(data) - 1 = "
                f"{q} + {r} - 1 = {q + r - 1}, but their shape is {updates.shape}",
                port=self.input_port(2),
                hint="give updates the shape data[:axis] + indices + data[axis+1:]",
            )
            return None
        out = TensorInfo(data.shape, data.element_type, why="the shape of data")
        values = signed_ints(axis_info) if axis_info.value is not None else None
        if r is None or not values:
            return [out]
        axis = normalize_axis_or_report(self, values[0], r, port_index=3)
        if axis is None:
            return None
        if q is not None and u is not None:
            expected = [*data.shape[:axis], *indices.shape, *data.shape[axis + 1 :]]
            if not all(e.compatible(d) for e, d in zip(expected, updates.shape)):
                self.context.error(
                    "input-dims",
                    f"{self.describe()}: updates {updates.shape} must have the shape "
                    f"data[:{axis}] + indices + data[{axis + 1}:] = {data.shape[:axis]} + "
                    f"{indices.shape} + {data.shape[axis + 1 :]}",
                    port=self.input_port(2),
                    hint="make the updates' shape match data and indices around the axis",
                )
                return None
        size = data.shape[axis]
        if size.is_static:
            check_constant_indices(self, indices, 0, size.value - 1, f"axis {axis} of size {size}")
        return [out]

    def evaluate(self, inputs):
        """A copy of data with the last update of each index written along the axis."""
        data, indices, updates, axis_array = inputs
        axis = signed_values(axis_array)[0]
        axis = axis + data.ndim if axis < 0 else axis
        size = data.shape[axis]
        flat = np.asarray(indices).reshape(-1).astype(np.int64)
        bad = (flat < 0) | (flat >= size)
        if bad.any():
            raise ValueError(
                f"{self.describe()}: index {int(flat[np.argmax(bad)])} is out of the range "
                f"[0, {size - 1}] of axis {axis}"
            )
        out = data.copy()
        shaped = updates.reshape(data.shape[:axis] + (flat.size,) + data.shape[axis + 1 :])
        unique, last = last_occurrences(flat)
        np.moveaxis(out, axis, 0)[unique] = np.moveaxis(shaped, axis, 0)[last]
        return [out]
