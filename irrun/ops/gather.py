"""Gather-1, Gather-7, Gather-8: pick slices of ``data`` along ``axis`` by ``indices``.

Spec facts (ops.md §2): inputs data (rank r >= 1), indices (any integer type,
rank q), axis (scalar or 1-element, usually a Const); ``batch_dims`` (7 and 8,
default 0, negative counts from indices' rank). Output shape
``data[:axis] + indices[batch_dims:] + data[axis+1:]``. Negative indices: only
Gather-8 allows them by spec; OpenVINO's reference evaluator wraps them for
every version (irrun too). Out of range: Gather-8 writes zeros; for 1 and 7 it
is undefined, so irrun refuses to run it.
"""

from __future__ import annotations

from functools import partial

from irrun.ops._indices import (
    as_signed_indices,
    batch_dims_merge,
    check_index_type,
    first_bad_index,
    warn_negative,
)
from irrun.ops._values import signed_ints, signed_values, with_elements
from irrun.ops.base import Attribute, Op, TensorInfo, normalize_axis_or_report
from irrun.ops.registry import register
from irrun.shape import Dim, Shape, shape_of_dims


class _Gather(Op):
    moves_elements = (0,)
    inputs = (3, 3)
    attributes = (Attribute("batch_dims", "int", 0, since=7),)
    batch_dims = 0  # Gather-1 has none
    #: What happens to an index outside [-s, s-1] (the kernel's ``out_of_range`` policy).
    out_of_range = "error"

    def infer(self, inputs):
        """Shape rule of ops.md §2.1, over partial shapes."""
        data, indices, axis_info = inputs
        integer_indices = check_index_type(self, indices, 1)
        axis_type = axis_info.element_type
        integer_axis = axis_type.is_integer or axis_type.name == "dynamic"
        if not integer_axis:
            self.context.error(
                "index-type",
                f"{self.describe()}: the axis input must be an integer, not {axis_type}",
                port=self.input_port(2),
            )
        axis_dims = axis_info.shape.dims
        if axis_dims is not None and not (
            len(axis_dims) == 0 or (len(axis_dims) == 1 and axis_dims[0] == 1)
        ):
            self.context.error(
                "axis-input",
                f"{self.describe()}: the axis input must be a scalar or have one element, but "
                f"its shape is {axis_info.shape}",
                port=self.input_port(2),
            )
            return None
        values = signed_ints(axis_info) if integer_axis and axis_info.value is not None else None
        axis = values[0] if values is not None and len(values) == 1 else None
        data_dims, indices_dims = data.shape.dims, indices.shape.dims
        if data_dims is None or indices_dims is None:
            return [
                TensorInfo(Shape.dynamic_rank(), data.element_type, why="an input of unknown rank")
            ]
        r, q = len(data_dims), len(indices_dims)
        if r == 0:
            self.context.error(
                "input-rank",
                f"{self.describe()}: data must have rank >= 1, but it is a scalar",
                port=self.input_port(0),
            )
            return None
        batch = self.batch_dims
        if not -q <= batch <= q:
            if batch < -q:
                hint = (
                    "OpenVINO accepts batch_dims < -rank(indices) but computes a nonsense shape; "
                    f"use a value in [{-q}, {q}]"
                )
            else:
                hint = f"batch_dims counts leading dims shared by data and indices: at most {q}"
            self.context.error(
                "batch-dims-range",
                f"{self.describe()}: batch_dims {batch} is out of the range [{-q}, {q}] allowed "
                f"for indices of rank {q} (shape {indices.shape})",
                hint=hint,
            )
            return None
        batch = batch + q if batch < 0 else batch
        rank_out = r + q - 1 - batch
        if axis is None:
            merged = batch_dims_merge(self, data, indices, min(batch, r))
            if merged is None:
                return None
            dims = merged + [Dim.dynamic()] * (rank_out - len(merged))
            return [TensorInfo(Shape(dims), data.element_type, why="the axis is not a constant")]
        axis_n = normalize_axis_or_report(self, axis, r, port_index=2)
        if axis_n is None:
            return None
        if batch > axis_n:
            self.context.error(
                "batch-dims-range",
                f"{self.describe()}: batch_dims ({self.batch_dims}, normalised {batch}) must not "
                f"exceed axis ({axis}, normalised {axis_n})",
                hint="lower batch_dims or pick a later axis",
            )
            return None
        merged = batch_dims_merge(self, data, indices, batch) if batch else ()
        if merged is None:
            return None
        # data[:axis] (its batch part merged with indices') + indices[batch:] + data[axis+1:]
        head = (*merged, *data_dims[batch:axis_n])
        middle = indices_dims[batch:]
        tail = data_dims[axis_n + 1 :]
        out = shape_of_dims(head + middle + tail)
        if integer_indices and indices.value is not None:
            self._check_index_values(indices, data_dims[axis_n], axis)
        # (The message is built only when one is shown; a partial, unlike a closure, does not
        # turn this method's variables into cells.)
        why = partial(_explain, data.shape, indices.shape, axis, self.batch_dims, axis_n, batch,
                      head, middle, tail, out)  # fmt: skip
        info = TensorInfo(out, data.element_type, why=why)
        if data.partial is not None and indices.value is not None and r == 1 and out.is_static:
            with_elements(info, _gathered_elements(data.partial, indices.value))
        return [info]

    def _check_index_values(self, indices, size: Dim, axis):
        value = indices.value
        if value is None or not size.is_static or value.size == 0:
            return
        s = size.value
        if value.size <= 64:  # a few indices: Python ints compare exactly, and faster
            listed = value.ravel().tolist()
            low = min(listed)
            if -s <= low and max(listed) < s and (low >= 0 or self.version >= 8):
                return  # all in range and nothing to warn about
        values = as_signed_indices(value)
        found = first_bad_index(values, -s, s - 1)
        if found:
            position, value, count = found
            where = f"{count} index value(s) outside [{-s}, {s - 1}] for axis {axis} of size {s}"
            if self.out_of_range == "zero":
                self.context.warning(
                    "index-range",
                    f"{self.describe()}: {where}, e.g. {value} at {list(position)}; "
                    f"{self.label} writes zeros there",
                    port=self.input_port(1),
                )
            else:
                self.context.error(
                    "index-range",
                    f"{self.describe()}: {where}, e.g. {value} at {list(position)}; the "
                    f"{self.label} result is undefined there",
                    port=self.input_port(1),
                    hint='use Gather-8 (version="opset8"), which defines zeros for them',
                )
        elif self.version < 8:
            warn_negative(self, values, f"[0, {s - 1}]",
                          "OpenVINO's reference wraps them, its CPU plugin gives 0",
                          'Gather-8 (version="opset8")')  # fmt: skip

    def evaluate(self, inputs):
        """``irrun.kernels.gather`` with this version's out-of-range policy."""
        from irrun.kernels import gather

        data, indices, axis = inputs
        axis_value = signed_values(axis)[0]
        return [gather(data, indices, axis_value, self.batch_dims, out_of_range=self.out_of_range)]

    def evaluate_into(self, inputs, outputs) -> None:
        """:meth:`evaluate` written into ``outputs[0]`` (an array of the output's shape and
        dtype, overlapping no input)."""
        from irrun.kernels import gather

        data, indices, axis = inputs
        gather(data, indices, signed_values(axis)[0], self.batch_dims,
               out_of_range=self.out_of_range, out=outputs[0])  # fmt: skip


@register
class Gather1(_Gather):
    """Gather-1: no batch_dims; out-of-range indices undefined (irrun: error)."""

    type, version = "Gather", 1
    rounds = False


@register
class Gather7(_Gather):
    """Gather-7: adds batch_dims; out-of-range indices undefined (irrun: error)."""

    type, version = "Gather", 7
    rounds = False


@register
class Gather8(_Gather):
    """Gather-8: negative indices allowed; out-of-range indices give zeros."""

    type, version = "Gather", 8
    rounds = False
    out_of_range = "zero"


def _gathered_elements(elements: tuple, indices) -> tuple | None:
    """The partial value of a Gather from a 1-D partial value (``ShapeOf(x)[1]``)."""
    size = len(elements)
    picked = []
    for index in indices.reshape(-1).tolist():
        if not -size <= index < size:
            return None
        picked.append(elements[index])
    return tuple(picked) if any(e is not None for e in picked) else None


def _explain(data, indices, axis, batch_dims, axis_n, batch, head, middle, tail, out) -> str:
    return (
        f"data {data}, indices {indices}, axis {axis}, batch_dims {batch_dims}: "
        f"data[:{axis_n}] + indices[{batch}:] + data[{axis_n + 1}:] = "
        f"{Shape(head)} + {Shape(middle)} + {Shape(tail)} = {out}"
    )
