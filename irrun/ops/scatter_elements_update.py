"""ScatterElementsUpdate-3, ScatterElementsUpdate-12: write each element of ``updates`` into a
copy of ``data`` at the position given by ``indices`` along ``axis`` (3-D, axis 1:
``out[i][indices[i][j][k]][k] = updates[i][j][k]``).

Spec facts: inputs data (rank r), indices (any integer type, rank r), updates (indices'
shape, data's element type) and axis (an integer scalar or 1-D tensor: its first element;
negative counts from the end). Version 12 adds ``reduction`` (none, sum, prod, min, max,
mean; default none) and ``use_init_val`` (default true: the data value takes part in the
reduction). The output has data's shape and the element type data and updates share.

Shape rule (``scatter_elements_update_shape_inference.hpp``): indices and data ranks must be
compatible, indices and updates shapes too; a constant axis must be in ``[-r, r-1]``
(not checked for scalar data). Indices' dims may exceed data's: OpenVINO accepts that and
fails when it runs (irrun too). Negative indices count from the end of the axis.

Kernel (OpenVINO's reference): flat output positions of every index, in row-major order;
``none``: the last duplicate wins; reductions accumulate in the data type in that order
(``np.<ufunc>.at``); ``mean`` divides by the count (plus one with ``use_init_val``), in
the float type for floats and rounded toward minus infinity for integers. Booleans: sum and
max are or, prod and min are and; mean is refused for them, as OpenVINO does. Without
``use_init_val`` the updated positions start from the reduction's neutral value (the
type's lowest value for max, its highest for min).
"""

from __future__ import annotations

import numpy as np

from irrun.ops._scatter import (
    check_axis_input,
    check_constant_indices,
    check_scatter_types,
    scatter_reduce,
)
from irrun.ops._values import signed_elements, signed_values
from irrun.ops.base import Attribute, Op, TensorInfo, normalize_axis_or_report
from irrun.ops.registry import register


class _ScatterElementsUpdate(Op):
    inputs = (4, 4)
    attributes = (
        Attribute("reduction", "enum", "none", since=12,
                  choices=("none", "sum", "prod", "min", "max", "mean")),
        Attribute("use_init_val", "bool", True, since=12),
    )  # fmt: skip
    reduction = "none"
    use_init_val = True

    def infer(self, inputs):
        """Output = data (element type shared with updates); rank, shape and axis checks."""
        data, indices, updates, axis_info = inputs
        if not check_scatter_types(self, data, indices, updates):
            return None
        etype = data.element_type if data.element_type.name != "dynamic" else updates.element_type
        if self.reduction == "mean" and etype.name == "boolean":
            self.context.error(
                "input-type",
                f"{self.describe()}: reduction mean is not defined for boolean data",
                port=self.input_port(0),
                hint="use reduction sum or max (logical or), or Convert the data",
            )
            return None
        if not check_axis_input(self, axis_info, any_length=True):
            return None
        r, q = data.shape.rank, indices.shape.rank
        if r is not None and q is not None and r != q:
            self.context.error(
                "input-rank",
                f"{self.describe()}: indices must have data's rank {r}, but their shape is "
                f"{indices.shape}",
                port=self.input_port(1),
                hint="give one index per element of updates, with data's rank",
            )
            return None
        if not indices.shape.compatible(updates.shape):
            self.context.error(
                "input-dims",
                f"{self.describe()}: updates {updates.shape} must have the shape of indices "
                f"{indices.shape}",
                port=self.input_port(2),
                hint="give one update per index",
            )
            return None
        out = TensorInfo(data.shape, etype, why="the shape of data")
        elements = signed_elements(axis_info)
        if r is None or r == 0 or not elements or not isinstance(elements[0], int):
            return [out]
        axis = normalize_axis_or_report(self, elements[0], r, port_index=3)
        if axis is None:
            return None
        size = data.shape[axis]
        if size.is_static:
            check_constant_indices(self, indices, -size.value, size.value - 1,
                                   f"axis {axis} of size {size}")  # fmt: skip
        return [out]

    def evaluate(self, inputs):
        """Flat positions of every index (row-major), then ``scatter_reduce``."""
        data, indices, updates, axis_array = inputs
        axis = signed_values(axis_array)[0]
        axis = axis + data.ndim if axis < 0 else axis
        out = data.copy()
        if indices.size == 0:
            return [out]
        if data.ndim == 0:
            raise ValueError(
                f"{self.describe()}: data is a scalar, it has no axis to scatter along"
            )
        size = data.shape[axis]
        index = np.asarray(indices).astype(np.int64)
        index = np.where(index < 0, index + size, index)
        coords = list(np.indices(indices.shape, sparse=True))
        coords[axis] = index
        coords = np.broadcast_arrays(*coords)
        for dim, (c, limit) in enumerate(zip(coords, data.shape)):
            bad = (c < 0) | (c >= limit)
            if bad.any():
                raise ValueError(
                    f"{self.describe()}: index {list(np.argwhere(bad)[0])} of indices "
                    f"{list(indices.shape)} points outside data {list(data.shape)} (dimension "
                    f"{dim})"
                )
        positions = np.ravel_multi_index(tuple(coords), data.shape).reshape(-1)
        flat = out.reshape(-1)
        scatter_reduce(flat, positions, np.asarray(updates).reshape(-1), self.reduction,
                       self.use_init_val)  # fmt: skip
        return [out]


@register
class ScatterElementsUpdate3(_ScatterElementsUpdate):
    """ScatterElementsUpdate-3: plain updates (the last duplicate wins)."""

    type, version = "ScatterElementsUpdate", 3


@register
class ScatterElementsUpdate12(_ScatterElementsUpdate):
    """ScatterElementsUpdate-12: adds ``reduction`` and ``use_init_val``."""

    type, version = "ScatterElementsUpdate", 12
