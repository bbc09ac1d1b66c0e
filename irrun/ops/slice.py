"""Slice-8: NumPy-style ``start:stop:step`` slicing along chosen axes.

Spec facts: inputs data (rank >= 1, any element type), start, stop, step (1-D integer tensors
of one length, at most the data rank) and optional axes (1-D integer, same length; default
``0..len-1``; negative counts from the rank; each axis once). Unlisted axes are unchanged.
Negative start/stop count from the end; both are clamped to the dimension (``INT64_MAX`` /
``INT64_MIN`` mean "to the end" / "from the beginning"); a negative step walks backwards;
step 0 is refused ("Step must be non-zero"). A reverse slice whose start lies before the first
element starts at the first element (OpenVINO's clamping; Python would give nothing).

Shape rule (``slice_shape_inference.hpp``): start and stop may be bounds rather than constants
(values computed from ShapeOf: the sliced dimension is then an interval, ``[..10,3]``); the
step and the axes must be constants. Unknown step → every sliced axis is ``0..max``; unknown
axes → every axis is ``0..max``. A data tensor of unknown rank gives an unknown rank.

Partial values: slicing a rank-1 partial value (``ShapeOf(x)[:2]``) with constant inputs gives
the sliced elements. Kernel: NumPy basic slicing, a view of the input (no copy).
"""

from __future__ import annotations

from irrun.ops._indices import check_index_type
from irrun.ops._slicing import bounds_of, python_slice, slice_elements, sliced_dim
from irrun.ops._values import elements_of, info_of_elements, signed_ints, signed_values
from irrun.ops.base import Op, TensorInfo, normalize_axes_or_report
from irrun.ops.registry import register
from irrun.shape import Dim, Shape

_NAMES = ("start", "stop", "step", "axes")


@register
class Slice(Op):
    """Slice-8 (no attributes)."""

    moves_elements = (0,)
    type, version, inputs = "Slice", 8, (4, 5)
    rounds = False
    attributes = ()

    def infer(self, inputs):
        """Output shape per ``slice_shape_inference.hpp``, over partial shapes and bounds."""
        data = inputs[0]
        for port in range(1, len(inputs)):
            if not check_index_type(self, inputs[port], port):
                return None
        data_dims = data.shape.dims
        if data_dims is None:
            return [TensorInfo(Shape.dynamic_rank(), data.element_type, why="data of unknown rank")]
        rank = len(data_dims)
        if rank == 0:
            self.context.error(
                "input-rank",
                f"{self.describe()}: data must have rank >= 1, but it is a scalar",
                port=self.input_port(0),
                hint="Unsqueeze the scalar to shape [1] first",
            )
            return None
        for port in range(1, len(inputs)):
            shape = inputs[port].shape
            if shape.rank_is_static and shape.rank != 1:
                self.context.error(
                    "input-rank",
                    f"{self.describe()}: the {_NAMES[port - 1]} input must be 1-D, but its shape "
                    f"is {shape}",
                    port=self.input_port(port),
                    hint="give one value per sliced axis in a 1-D tensor",
                )
                return None
            if shape.rank_is_static and shape[0].lower > rank:
                self.context.error(
                    "input-dims",
                    f"{self.describe()}: the {_NAMES[port - 1]} input has {shape[0]} elements, "
                    f"more than the data rank {rank} (data {data.shape})",
                    port=self.input_port(port),
                    hint="slice each data axis at most once",
                )
                return None
        lengths = [inputs[p].shape for p in range(1, len(inputs))]
        for a in range(len(lengths)):
            for b in range(a + 1, len(lengths)):
                if not lengths[a].compatible(lengths[b]):
                    listing = ", ".join(f"{_NAMES[i]} {lengths[i]}" for i in range(len(lengths)))
                    self.context.error(
                        "input-dims",
                        f"{self.describe()}: start, stop, step (and axes) must have one length, "
                        f"but {listing}",
                        port=self.input_port(b + 1),
                        hint="give every one of them one value per sliced axis",
                    )
                    return None
        start, stop = bounds_of(inputs[1]), bounds_of(inputs[2])
        steps = signed_ints(inputs[3])
        if len(inputs) > 4:
            axes = signed_ints(inputs[4])
            if axes is not None:
                axes = normalize_axes_or_report(self, axes, rank, port_index=4)
                if axes is None:
                    return None
        else:
            axes = None if start is None else list(range(len(start)))
        if axes is None:
            out = [Dim(0, d.upper) for d in data_dims]
            return [TensorInfo(Shape(out), data.element_type, why="the axes are not constants")]
        out = list(data_dims)
        known = start is not None and stop is not None and steps is not None
        for i, axis in enumerate(axes):
            dim = data_dims[axis]
            if not known:
                out[axis] = Dim(0, dim.upper)
                continue
            step = steps[i]
            if step == 0:
                self.context.error(
                    "input-value",
                    f"{self.describe()}: step {i} (for axis {axis}) is 0 in {steps}",
                    port=self.input_port(3),
                    hint="use a non-zero step (negative to walk backwards)",
                )
                return None
            out[axis] = sliced_dim(dim, start[i], stop[i], step)
        info = TensorInfo(Shape(out), data.element_type, why="sliced per axis")
        if rank == 1 and known and data.value is None:
            elements = elements_of(data)
            if elements is not None and axes:
                start_v, stop_v = signed_ints(inputs[1]), signed_ints(inputs[2])
                if start_v is not None and stop_v is not None:
                    index = python_slice(len(elements), start_v[0], stop_v[0], steps[0])
                    picked = slice_elements(elements, index)
                    info = info_of_elements(picked, data.element_type, info.shape, info.why)
        return [info]

    def evaluate(self, inputs):
        """NumPy basic slicing (a view of the data)."""
        data = inputs[0]
        start, stop, step = (signed_values(inputs[i]) for i in (1, 2, 3))
        if len(inputs) > 4:
            axes = [a + data.ndim if a < 0 else a for a in signed_values(inputs[4])]
        else:
            axes = list(range(len(start)))
        index = [slice(None)] * data.ndim
        for i, axis in enumerate(axes):
            if step[i] == 0:
                raise ValueError(
                    f"{self.describe()}: step at position {i} (for axis {axis}) is 0 in {step}; "
                    "use a non-zero step (negative to walk backwards)"
                )
            index[axis] = python_slice(data.shape[axis], start[i], stop[i], step[i])
        return [data[tuple(index)]]
