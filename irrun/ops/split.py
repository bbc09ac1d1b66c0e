"""Split-1: cut a tensor into ``num_splits`` equal pieces along an axis.

Spec facts: inputs data (rank >= 1, any element type) and axis (an integer scalar; a [1]
tensor is refused); attribute ``num_splits`` (required, > 0). Outputs: ``num_splits`` tensors,
each the data shape with the axis dimension divided by ``num_splits``.

Shape rule (``split_shape_inference.hpp``): a static axis dimension must divide evenly
("Dimension of data input shape along 'axis': 7 must be evenly divisible by 'num_splits'
attribute value: 3"); an interval is divided bound by bound, rounding down, with OpenVINO's
float32 arithmetic (``lower * (1.0f / n)``; ``2..9`` / 2 = ``1..4``; an unbounded upper stays
unbounded), and its upper bound must be at least ``num_splits``. An unknown axis gives every
output the data rank with all dimensions ``?``.

Partial values: a rank-1 partial value (a shape from ShapeOf) splits into partial values.
Kernel: ``np.split`` (views of the input).
"""

from __future__ import annotations

import numpy as np

from irrun.ops._shape_ops import check_integer_input
from irrun.ops._slicing import SPLIT_FOLD_LIMIT, axis_value, split_outputs
from irrun.ops._values import signed_values
from irrun.ops.base import Attribute, Op, TensorInfo, normalize_axis_or_report
from irrun.ops.registry import register
from irrun.shape import Dim, Shape


def _divided(bound: int, parts: int) -> int:
    """``static_cast<int64_t>(bound * (1.0f / parts))`` as OpenVINO computes it."""
    return int(np.float32(bound) * (np.float32(1) / np.float32(parts)))


@register
class Split(Op):
    """Split-1 (attribute ``num_splits``, required)."""

    moves_elements = (0,)
    type, version, inputs = "Split", 1, (2, 2)
    rounds = False
    attributes = (Attribute("num_splits", "int", 0, required=True),)

    def setup(self):
        """``num_splits`` must be positive."""
        if not self.incomplete and self.num_splits <= 0:
            self.context.error(
                "attribute-value",
                f"{self.describe()}: num_splits is {self.num_splits}; it must be at least 1",
                hint="set num_splits to the number of outputs",
                line=self.layer.data_line,
            )
            self.incomplete = True

    def infer(self, inputs):
        """Every output: the data shape with the axis dimension divided by ``num_splits``."""
        data, axis_info = inputs
        n = self.num_splits
        if n <= 0:  # reported by setup
            return None
        if not check_integer_input(self, axis_info, 1, "axis"):
            return None
        if axis_info.shape.rank_is_static and axis_info.shape.rank != 0:
            self.context.error(
                "input-rank",
                f"{self.describe()}: the axis input must be a scalar, but its shape is "
                f"{axis_info.shape}",
                port=self.input_port(1),
                hint="give the axis as a scalar Const (shape [])",
            )
            return None
        axis = axis_value(self, axis_info)
        rank = data.shape.rank
        if axis is None or rank is None:
            shape = Shape([Dim.dynamic()] * rank) if rank is not None else Shape.dynamic_rank()
            return [TensorInfo(shape, data.element_type, why="the axis is not a constant")] * n
        axis = normalize_axis_or_report(self, axis, rank, port_index=1)
        if axis is None:
            return None
        dim = data.shape[axis]
        if dim.is_static:
            if dim.value % n:
                self.context.error(
                    "input-dims",
                    f"{self.describe()}: axis {axis} of data {data.shape} has size {dim.value}, "
                    f"which {n} splits cannot divide evenly: {dim.value} = {dim.value // n} * {n}"
                    f" + {dim.value % n}",
                    port=self.input_port(0),
                    hint="use a num_splits that divides the dimension, or VariadicSplit",
                )
                return None
            piece = Dim(dim.value // n)
        else:
            if dim.upper is not None and dim.upper < n:
                self.context.error(
                    "input-dims",
                    f"{self.describe()}: axis {axis} of data {data.shape} is at most {dim.upper}"
                    f", fewer than the {n} splits",
                    port=self.input_port(0),
                    hint="split into at most as many pieces as the dimension can hold",
                )
                return None
            upper = None if dim.upper is None else _divided(dim.upper, n)
            piece = Dim(_divided(dim.lower, n), upper)
        values = None
        if data.value is not None and data.value.size <= SPLIT_FOLD_LIMIT:
            values = self.evaluate([data.value, np.array(axis)])
        return split_outputs(self, data, axis, [piece] * n, values)

    def evaluate(self, inputs):
        """``np.split`` into equal pieces (views)."""
        data, axis = inputs
        return np.split(data, self.num_splits, axis=signed_values(axis)[0])
