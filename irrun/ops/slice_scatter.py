"""SliceScatter-15: the data with a Slice of it replaced by the updates.

Spec facts: inputs data (rank >= 1, any element type), updates (the shape the Slice of data
by start, stop, step and axes has), start, stop, step and optional axes (1-D integer tensors
of one length, as in Slice-8: negative values count from the end, clamped, step non-zero,
axes default ``0..len-1``). The output has the data's shape and element type.

Shape rule (``slice_scatter_shape_inference.hpp``): the output is the data's shape (a data of
unknown rank takes the updates' rank, its dims ``?``); the updates must be compatible with
the slice's shape as Slice-8 infers it (:mod:`irrun.ops._slicing`: intervals from bounds,
``0..max`` where start, stop, step or axes are not known), dim by dim. OpenVINO does not
check the updates' element type against the data's; the kernel converts them to it.

Kernel: a copy of the data with the basic slice assigned; exact.
"""

from __future__ import annotations

from irrun.ops._indices import check_index_type
from irrun.ops._slicing import bounds_of, python_slice, sliced_dim
from irrun.ops._values import signed_ints, signed_values
from irrun.ops.base import Op, TensorInfo, normalize_axes_or_report
from irrun.ops.registry import register
from irrun.shape import Dim, Shape

_NAMES = ("start", "stop", "step", "axes")


@register
class SliceScatter(Op):
    """SliceScatter-15 (no attributes)."""

    type, version, inputs = "SliceScatter", 15, (5, 6)
    rounds = False
    attributes = ()

    def infer(self, inputs):
        """The data's shape, after checking the updates against the slice's shape."""
        data, updates = inputs[0], inputs[1]
        for port in range(2, len(inputs)):
            if not check_index_type(self, inputs[port], port):
                return None
        for index, info in ((0, data), (1, updates)):
            if info.shape.rank == 0:
                self.context.error(
                    "input-rank",
                    f"{self.describe()}: {('data', 'updates')[index]} cannot be a scalar",
                    port=self.input_port(index),
                    hint="Unsqueeze it to rank 1",
                )
                return None
        for port in range(2, len(inputs)):
            shape = inputs[port].shape
            if shape.rank is not None and shape.rank != 1:
                self.context.error(
                    "input-rank",
                    f"{self.describe()}: {_NAMES[port - 2]} must be 1-D, but its shape is {shape}",
                    port=self.input_port(port),
                    hint="give one value per sliced axis in a 1-D tensor",
                )
                return None
        rank, updates_rank = data.shape.rank, updates.shape.rank
        if rank is not None and updates_rank is not None and rank != updates_rank:
            self.context.error(
                "input-rank",
                f"{self.describe()}: updates {updates.shape} must have the data's rank, but the "
                f"data is {data.shape}",
                port=self.input_port(1),
                hint="give updates of the slice's shape",
            )
            return None
        if rank is None:
            shape = data.shape if updates_rank is None else Shape([Dim.dynamic()] * updates_rank)
            return [TensorInfo(shape, data.element_type, why="the data's rank is not known")]
        expected = self._slice_dims(inputs, rank)
        if expected is None:
            return None
        for axis, (want, got) in enumerate(zip(expected, updates.shape.dims or ())):
            if not want.compatible(got):
                self.context.error(
                    "input-dims",
                    f"{self.describe()}: updates {updates.shape} do not fit the slice "
                    f"{Shape(expected)} of data {data.shape} (dim {axis}: {got}, the slice "
                    f"{want})",
                    port=self.input_port(1),
                    hint="give updates of the slice's shape",
                )
                return None
        return [
            TensorInfo(data.shape, data.element_type, why="SliceScatter keeps the data's shape")
        ]

    def _slice_dims(self, inputs, rank):
        """The slice's dims as Slice-8 infers them (``None`` after reporting a zero step)."""
        dims = list(inputs[0].shape)
        start, stop = bounds_of(inputs[2]), bounds_of(inputs[3])
        steps = signed_ints(inputs[4])
        if len(inputs) > 5:
            axes = signed_ints(inputs[5])
            if axes is not None:
                axes = normalize_axes_or_report(self, axes, rank, port_index=5)
                if axes is None:
                    return None
        else:
            axes = None if start is None else list(range(len(start)))
        if steps is not None and 0 in steps:
            self.context.error(
                "input-value",
                f"{self.describe()}: step {steps} holds 0",
                port=self.input_port(4),
                hint="use non-zero steps (negative to walk backwards)",
            )
            return None
        if axes is None:
            return [Dim(0, d.upper) for d in dims]
        known = start is not None and stop is not None and steps is not None
        out = list(dims)
        for i, axis in enumerate(axes):
            if known and i < min(len(start), len(stop), len(steps)):
                out[axis] = sliced_dim(dims[axis], start[i], stop[i], steps[i])
            else:
                out[axis] = Dim(0, dims[axis].upper)
        return out

    def evaluate(self, inputs):
        """A copy of the data with the slice assigned the updates."""
        data, updates = inputs[0], inputs[1]
        start, stop, step = (signed_values(inputs[i]) for i in (2, 3, 4))
        if len(inputs) > 5:
            axes = [a + data.ndim if a < 0 else a for a in signed_values(inputs[5])]
        else:
            axes = list(range(len(start)))
        index = [slice(None)] * data.ndim
        for i, axis in enumerate(axes):
            if step[i] == 0:
                raise ValueError(f"{self.describe()}: step {step} holds 0")
            index[axis] = python_slice(data.shape[axis], start[i], stop[i], step[i])
        out = data.copy()
        target = out[tuple(index)]
        if target.shape != updates.shape:
            raise ValueError(
                f"{self.describe()}: updates {list(updates.shape)} do not fit the slice "
                f"{list(target.shape)} of data {list(data.shape)}"
            )
        out[tuple(index)] = updates.astype(data.dtype, copy=False)
        return [out]
