"""Roll-7: shift elements cyclically along axes.

Spec facts: inputs data (any element type), shift and axes (each a scalar or a 1-D tensor of
i32 or i64; other integer types are refused). A 1-D shift needs a 1-D axes of the same length
(shift i moves axis i); a scalar shift moves every axis given. Axes may be negative (counted
from the end) and repeated (their shifts add up); an axis outside ``[-rank, rank - 1]`` is
refused (not checked for a scalar data). The output has the data's shape and element type.

Kernel: ``np.roll`` (repeated axes add their shifts, as in OpenVINO's reference); exact.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._values import signed_ints, signed_values
from irrun.ops.base import Op, TensorInfo, normalize_axes_or_report
from irrun.ops.registry import register

_NAMES = ("shift", "axes")


@register
class Roll(Op):
    """Roll-7 (no attributes)."""

    type, version, inputs = "Roll", 7, (3, 3)
    rounds = False
    attributes = ()

    def infer(self, inputs):
        """The data's shape and type, after checking shift and axes."""
        data = inputs[0]
        for index in (1, 2):
            info, what = inputs[index], _NAMES[index - 1]
            if info.element_type.name not in ("i32", "i64", "dynamic"):
                self.context.error(
                    "index-type",
                    f"{self.describe()}: {what} must be i32 or i64, but input {index} is "
                    f"{info.element_type}",
                    port=self.input_port(index),
                    hint="insert a Convert to i64 before it",
                )
                return None
            if info.shape.rank is not None and info.shape.rank > 1:
                self.context.error(
                    "input-rank",
                    f"{self.describe()}: {what} must be a scalar or 1-D, but its shape is "
                    f"{info.shape}",
                    port=self.input_port(index),
                    hint=f"give the {what} as a 1-D tensor",
                )
                return None
        shift, axes = inputs[1].shape, inputs[2].shape
        if shift.rank == 1 and axes.rank is not None and shift[0].is_static:
            if axes.rank != 1 or (axes[0].is_static and axes[0].value != shift[0].value):
                self.context.error(
                    "input-dims",
                    f"{self.describe()}: a 1-D shift of shape {shift} needs a 1-D axes of the "
                    f"same length, but axes has shape {axes}",
                    port=self.input_port(2),
                    hint="give one axis per shift, or a scalar shift",
                )
                return None
        rank = data.shape.rank
        values = signed_ints(inputs[2])
        if rank and values is not None:
            if normalize_axes_or_report(self, values, rank, port_index=2, unique=False) is None:
                return None
        return [TensorInfo(data.shape, data.element_type, why="Roll keeps the data shape")]

    def evaluate(self, inputs):
        """``np.roll`` by the shifts along the axes."""
        data, shift, axes = inputs
        if data.ndim == 0:
            return [data.copy()]
        shifts, axes = signed_values(shift), signed_values(axes)
        if len(shifts) == 1:
            shifts = shifts * len(axes)
        return [np.roll(data, shifts, [a % data.ndim for a in axes])]
