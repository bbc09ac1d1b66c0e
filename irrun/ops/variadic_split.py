"""VariadicSplit-1: cut a tensor along an axis into pieces of given lengths.

Spec facts: inputs data (any element type), axis (a scalar or [1] integer) and split_lengths
(a 1-D integer tensor; one output per element). Lengths are >= 0, except that one of them may
be -1: the rest of the axis. OpenVINO refuses a value below -1 ("Invalid value -2 in split
lengths input"), two -1 ("Cannot infer split with multiple -1 values at 0 and 1") and, for a
static axis dimension, lengths that do not add up to it ("Total length of splits: 3 must match
the length of the chosen axis: 6"); but when the other lengths exceed the dimension it takes
the -1 piece as 0 (as ``?`` when it is short by exactly one: its Dimension(-1) is dynamic)
and accepts the layer (irrun: a warning, and the kernel refuses). For a
dynamic axis dimension the lengths are not checked and a -1 piece is ``?``. Unknown lengths
→ the axis dimension of every output is ``?``; an unknown axis → every output has the data
rank with all dimensions ``?``.

OpenVINO does not check the element types of axis and split_lengths (a float Const is taken
by value); irrun reads integer constants only and otherwise infers as if they were unknown.

Partial values: a rank-1 partial value (a shape from ShapeOf) splits into partial values.
Kernel: ``np.split`` at the cumulative lengths (views of the input).
"""

from __future__ import annotations

import numpy as np

from irrun.ops._slicing import SPLIT_FOLD_LIMIT, axis_value, split_outputs
from irrun.ops._values import signed_ints, signed_values
from irrun.ops.base import Op, TensorInfo, normalize_axis_or_report
from irrun.ops.registry import register
from irrun.shape import Dim, Shape


@register
class VariadicSplit(Op):
    """VariadicSplit-1 (no attributes)."""

    moves_elements = (0,)
    type, version, inputs = "VariadicSplit", 1, (3, 3)
    rounds = False
    attributes = ()

    def infer(self, inputs):
        """Output i: the data shape with the axis dimension ``split_lengths[i]``."""
        data, axis_info, lengths_info = inputs
        axis_shape = axis_info.shape
        if axis_shape.rank_is_static and not (
            axis_shape.rank == 0 or (axis_shape.rank == 1 and axis_shape[0].compatible(Dim(1)))
        ):
            self.context.error(
                "input-rank",
                f"{self.describe()}: the axis input must be a scalar or have shape [1], but its "
                f"shape is {axis_shape}",
                port=self.input_port(1),
                hint="give the axis as a scalar Const (shape [])",
            )
            return None
        lengths_shape = lengths_info.shape
        if not lengths_shape.is_static:
            unknown = TensorInfo(Shape.dynamic_rank(), data.element_type,
                                 why="the number of pieces is not known")  # fmt: skip
            return [unknown] * len(self.layer.outputs)
        if lengths_shape.rank != 1:
            self.context.error(
                "input-rank",
                f"{self.describe()}: split_lengths must be 1-D, but its shape is {lengths_shape}",
                port=self.input_port(2),
                hint="give one length per output in a 1-D tensor",
            )
            return None
        count = lengths_shape[0].value
        rank = data.shape.rank
        axis = axis_value(self, axis_info)
        if rank is None or axis is None:
            shape = Shape([Dim.dynamic()] * rank) if rank is not None else Shape.dynamic_rank()
            return [TensorInfo(shape, data.element_type, why="the axis is not a constant")] * count
        axis = normalize_axis_or_report(self, axis, rank, port_index=1)
        if axis is None:
            return None
        lengths = signed_ints(lengths_info)
        dim = data.shape[axis]
        if lengths is None:
            return split_outputs(self, data, axis, [Dim.dynamic()] * count, None)
        rest = None
        for i, length in enumerate(lengths):
            if length < -1:
                self._bad_lengths(f"split_lengths {lengths} has {length} at {i}; lengths are "
                                  ">= 0, or -1 for the rest of the axis")  # fmt: skip
                return None
            if length == -1:
                if rest is not None:
                    self._bad_lengths(f"split_lengths {lengths} has -1 at {rest} and at {i}; "
                                      "only one piece can take the rest of the axis")  # fmt: skip
                    return None
                rest = i
        total = sum(v for v in lengths if v != -1)
        pieces = [Dim(v) if v != -1 else Dim.dynamic() for v in lengths]
        if dim.is_static:
            terms = " + ".join(str(v) for v in lengths if v != -1) or "0"
            if rest is not None:
                left = dim.value - total
                # OpenVINO's Dimension(-1) is "dynamic", any other negative size becomes 0
                pieces[rest] = Dim.dynamic() if left == -1 else Dim(max(left, 0))
                if total > dim.value:  # OpenVINO accepts the layer (a -1 piece of 0 or ?)
                    self.context.warning(
                        "input-value",
                        f"{self.describe()}: split_lengths {lengths} without the -1 add up to "
                        f"{terms} = {total}, more than axis {axis} of data {data.shape} "
                        f"({dim.value}); OpenVINO accepts the layer but cannot run it",
                        port=self.input_port(2),
                        hint="make the lengths add up to the axis size",
                    )
            elif total != dim.value:
                self._bad_lengths(
                    f"split_lengths {lengths} add up to {terms} = {total}, but axis {axis} of "
                    f"data {data.shape} has size {dim.value}"
                )
                return None
        values = None
        if data.value is not None and data.value.size <= SPLIT_FOLD_LIMIT and dim.is_static:
            if sum(p.value for p in pieces) == dim.value:
                values = self.evaluate([data.value, np.array(axis), np.array(lengths)])
        return split_outputs(self, data, axis, pieces, values)

    def _bad_lengths(self, why):
        self.context.error("input-value", f"{self.describe()}: {why}", port=self.input_port(2),
                           hint="make the lengths add up to the axis size")  # fmt: skip

    def evaluate(self, inputs):
        """``np.split`` at the cumulative lengths (views)."""
        data, axis, lengths = inputs
        axis = signed_values(axis)[0]
        lengths = signed_values(lengths)
        given = list(lengths)
        if -1 in lengths:
            lengths[lengths.index(-1)] = data.shape[axis] - sum(v for v in lengths if v != -1)
        if sum(lengths) != data.shape[axis] or min(lengths, default=0) < 0:
            total = " + ".join(map(str, lengths)) or "0"
            raise ValueError(
                f"{self.describe()}: split_lengths {given} do not split axis {axis} of data "
                f"{list(data.shape)}: {total} = {sum(lengths)}, not {data.shape[axis]}; make "
                "the lengths (at most one -1) add up to the axis size"
            )
        return np.split(data, np.cumsum(lengths)[:-1].tolist(), axis=axis)
