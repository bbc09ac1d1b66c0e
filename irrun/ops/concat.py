"""Concat-1: join tensors end to end along one axis.

Spec facts: N >= 1 inputs of one element type and one rank r >= 1; ``axis`` is
required and lies in [-r, r-1]; every dimension but the axis must agree; the
output's axis dimension is the sum of the inputs'. OpenVINO silently takes
axis 0 when the attribute is missing; irrun reports it.
"""

from __future__ import annotations

from functools import partial

from irrun.ops._values import MAX_ELEMENTS, elements_of, with_elements
from irrun.ops.base import (
    Attribute,
    Op,
    TensorInfo,
    common_element_type,
    normalize_axis_or_report,
    sum_dims,
)
from irrun.ops.registry import register
from irrun.shape import Dim, Shape, shape_of_dims


@register
class Concat(Op):
    """Concat-1 (attribute ``axis``, required)."""

    moves_elements = "all"
    type, version, inputs = "Concat", 1, (1, None)
    rounds = False
    attributes = (Attribute("axis", "int", 0, required=True),)

    def infer(self, inputs):
        """Output shape: the inputs' common shape with the axis dimension summed."""
        etype = common_element_type(self, inputs)
        if etype is None:
            return None
        same = _same_but_axis(inputs, self.axis)
        if same is not None:  # the usual case, which the general rule below also covers
            head, axis_dims, tail = same
            total = sum_dims(axis_dims)
            out = shape_of_dims((*head, total, *tail))
            why = partial(_explain, self.axis, axis_dims, "", total)
            info = TensorInfo(out, etype, why=why)
            if len(head) + len(tail) == 0 and any(i.partial is not None for i in inputs):
                with_elements(info, _concatenated_elements(inputs))
            return [info]
        known = [(i, t.shape) for i, t in enumerate(inputs) if t.shape.rank_is_static]
        if not known:
            return [TensorInfo(Shape.dynamic_rank(), etype, why="inputs of unknown rank")]
        ranks = [shape.rank for _, shape in known]
        if len(set(ranks)) > 1:
            usual = max(ranks, key=ranks.count)  # on a tie, the first input decides
            odd = next(i for i, shape in known if shape.rank != usual)
            listing = ", ".join(f"input {i} is {s} (rank {s.rank})" for i, s in known)
            self.context.error(
                "input-rank",
                f"{self.describe()}: all inputs must have the same rank, but {listing}",
                port=self.input_port(odd),
                hint=f"give input {odd} rank {usual} (Reshape or Unsqueeze it)",
            )
            return None
        ranks = set(ranks)
        rank = ranks.pop()
        if rank == 0:
            self.context.error(
                "input-rank",
                f"{self.describe()}: scalars cannot be concatenated; inputs need rank >= 1",
                hint="Unsqueeze the scalars to shape [1] first",
            )
            return None
        axis = normalize_axis_or_report(self, self.axis, rank)
        if axis is None:
            return None
        out = []
        for dim_index in range(rank):
            if dim_index == axis:
                axis_dims = [shape[axis] for _, shape in known]
                total = sum_dims(axis_dims)
                if len(known) < len(inputs):  # inputs of unknown rank add an unknown size
                    total = total + Dim.dynamic()
                out.append(total)
                continue
            merged = Dim.dynamic()
            for i, shape in known:
                joined = merged.merge(shape[dim_index])
                if joined is None:
                    listing = ", ".join(f"input {j} is {s}" for j, s in known)
                    self.context.error(
                        "input-dims",
                        f"{self.describe()}: inputs must agree on every dimension except the "
                        f"axis ({self.axis}), but dimension {dim_index} differs: {listing}",
                        port=self.input_port(i),
                        hint="fix the input shapes or the axis",
                    )
                    return None
                merged = joined
            out.append(merged)
        unknown = " + ?" if len(known) < len(inputs) else ""
        why = partial(_explain, self.axis, axis_dims, unknown, out[axis])
        return [TensorInfo(Shape(out), etype, why=why)]

    def evaluate(self, inputs):
        """``irrun.kernels.concat`` along the axis."""
        from irrun.kernels import concat

        return [concat(inputs, self.axis)]

    def evaluate_into(self, inputs, outputs) -> None:
        """:meth:`evaluate` written into ``outputs[0]`` (an array of the output's shape and
        dtype, overlapping no input)."""
        from irrun.kernels import concat

        concat(inputs, self.axis, out=outputs[0])


def _same_but_axis(inputs: list[TensorInfo], axis: int):
    """``(dims before the axis, the inputs' axis dims, dims after it)`` when every input has
    the same rank r >= 1 (the axis in range) and the same dims off the axis; else ``None``."""
    first = inputs[0].shape.dims
    if not first:  # rank unknown or 0
        return None
    rank = len(first)
    if not -rank <= axis < rank:
        return None
    if axis < 0:
        axis += rank
    head, tail = first[:axis], first[axis + 1 :]
    axis_dims = [first[axis]]
    for info in inputs[1:]:
        dims = info.shape.dims
        if dims is None or len(dims) != rank or dims[:axis] != head or dims[axis + 1 :] != tail:
            return None
        axis_dims.append(dims[axis])
    return head, axis_dims, tail


def _concatenated_elements(inputs: list[TensorInfo]) -> tuple | None:
    """The partial value of a Concat of 1-D tensors (shape arithmetic: ``[batch, -1]``)."""
    elements = []
    for info in inputs:
        known = elements_of(info)
        if known is None:
            (size,) = info.shape.dims
            if not size.is_static or size.value > MAX_ELEMENTS:
                return None
            known = (None,) * size.value
        elements.extend(known)
    return tuple(elements)


def _explain(axis: int, axis_dims: list[Dim], unknown: str, total: Dim) -> str:
    """``axis 1: 8 + 16 + 32 = 56`` (built only when a message shows it)."""
    return f"axis {axis}: {' + '.join(str(d) for d in axis_dims)}{unknown} = {total}"
