"""OneHot-1 and OneHot-16: one-hot encode integer indices.

Spec facts: inputs indices (any integer type), depth (an integer scalar, >= 0), on_value and
off_value (scalars of one element type, the output's). Attribute ``axis`` (where the new
axis of size depth goes; ``[-rank - 1, rank]``, negative counted from the end of the output).
OneHot-16 adds ``negative_indices_mode``: ``ignore_negative`` (the default, as in OneHot-1:
a negative index gives off_value everywhere) or ``normalize`` (a negative index counts from
depth: ``-1`` is ``depth - 1``). An index outside ``[0, depth)`` (after normalisation) gives
off_value everywhere.

Shape rule (``one_hot_shape_inference.hpp``): the indices shape with the depth inserted at
the axis; a depth computed from a shape (ShapeOf) gives its interval, an unknown one ``?``.
OpenVINO refuses non-integer indices or depth, a depth that is not a scalar (even ``[5]``),
a negative constant depth, non-scalar on/off values, on/off values of different element
types, and an axis out of range. The output element type is on_value's.

Kernel: ``np.where`` of a broadcast comparison of the indices with ``arange(depth)``; exact.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._shape_ops import check_integer_input
from irrun.ops._values import as_dim, signed_elements, signed_values
from irrun.ops.base import Attribute, Op, TensorInfo, normalize_axis_or_report
from irrun.ops.registry import register
from irrun.shape import Dim, Shape

_NAMES = ("indices", "depth", "on_value", "off_value")


class _OneHot(Op):
    inputs = (4, 4)
    attributes = (
        Attribute("axis", "int", -1, required=True),
        Attribute(
            "negative_indices_mode",
            "enum",
            "ignore_negative",
            choices=("ignore_negative", "normalize"),
            since=16,
        ),  # fmt: skip
    )

    def _check(self, inputs) -> bool:
        for index in (0, 1):
            if not check_integer_input(self, inputs[index], index, _NAMES[index]):
                return False
        for index in (1, 2, 3):
            rank = inputs[index].shape.rank
            if rank is not None and rank != 0:
                self.context.error(
                    "input-rank",
                    f"{self.describe()}: {_NAMES[index]} must be a scalar, but its shape is "
                    f"{inputs[index].shape}",
                    port=self.input_port(index),
                    hint=f"give the {_NAMES[index]} as a rank-0 tensor",
                )
                return False
        on, off = inputs[2].element_type, inputs[3].element_type
        if "dynamic" not in (on.name, off.name) and on != off:
            self.context.error(
                "input-type",
                f"{self.describe()}: on_value and off_value must have one element type, but "
                f"on_value is {on} and off_value is {off}",
                port=self.input_port(3),
                hint="insert a Convert so that both have the same element type",
            )
            return False
        return True

    def infer(self, inputs):
        """The indices shape with the depth inserted at the axis."""
        if not self._check(inputs):
            return None
        indices, etype = inputs[0].shape, inputs[2].element_type
        elements = signed_elements(inputs[1])
        depth = Dim.dynamic()
        if elements is not None and len(elements) == 1:
            if isinstance(elements[0], int) and elements[0] < 0:
                self.context.error(
                    "input-value",
                    f"{self.describe()}: depth {elements[0]} is negative",
                    port=self.input_port(1),
                    hint="give a depth of 0 or more (the number of classes)",
                )
                return None
            depth = as_dim(elements[0])
        if indices.rank is None:
            return [TensorInfo(indices, etype, why="the indices rank is not known")]
        axis = normalize_axis_or_report(self, self.axis, indices.rank + 1)
        if axis is None:
            return None
        dims = list(indices)
        dims.insert(axis, depth)
        return [TensorInfo(Shape(dims), etype, why=f"depth {depth} inserted at axis {axis}")]

    def evaluate(self, inputs):
        """on_value where the index equals the position along the new axis, else off_value."""
        indices, depth, on, off = inputs
        (depth,) = signed_values(depth)
        axis = self.axis % (indices.ndim + 1)
        index = indices.astype(np.int64)
        if getattr(self, "negative_indices_mode", "ignore_negative") == "normalize":
            index = np.where(index < 0, index + depth, index)
        index = np.expand_dims(index, axis)
        positions = np.arange(depth).reshape([-1] + [1] * (indices.ndim - axis))
        return [np.where(index == positions, on, off).astype(on.dtype)]


@register
class OneHot1(_OneHot):
    """OneHot-1 (axis)."""

    type, version = "OneHot", 1


@register
class OneHot16(_OneHot):
    """OneHot-16 (axis, negative_indices_mode)."""

    type, version = "OneHot", 16
