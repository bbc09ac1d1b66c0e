"""AdaptiveAvgPool-8 and AdaptiveMaxPool-8: pooling of data ``[N, C, *spatial]`` into a given
number of bins per spatial axis (PyTorch's ``adaptive_avg_pool``/``adaptive_max_pool``).

Spec facts: inputs data (rank 3, 4 or 5) and output_shape (1-D: the output's spatial sizes,
one per spatial axis). Bin ``i`` of an axis of length ``L`` with ``O`` bins covers
``[floor(i * L / O), ceil((i + 1) * L / O))``; the bins may overlap. AdaptiveAvgPool gives
each bin's mean; AdaptiveMaxPool its maximum and, as a second output of
``index_element_type`` (``i64`` default or ``i32``; OpenVINO refuses others), the maximum's
flat index within its channel (``h * W + w`` in 2-D), the first one in row-major order on
ties.

Shape rule (``adaptive_pool_shape_inference.hpp``): ``[N, C, *output_shape]``; a dynamic data
rank gives a dynamic rank; output_shape's dim 0 must be compatible with the spatial count (so
a ``[1, 2]`` output_shape is refused for 2 spatial axes), and its known values must be as
many as the spatial axes; their values may come from a constant (integer or float, truncated)
or a partial value of a shape sub-graph; a negative value gives ``?``; unknown values give
``?`` on every spatial axis. Output element type: the data's (indices:
``index_element_type``).

Kernel: separable, one spatial axis at a time (last first): the bins are gathered as windows
``[O, longest bin]`` with ``np.take``, the shorter bins masked (average: summed in f64 and
divided by the bin size; maximum: padded with the bin's own last element, ``np.argmax`` picks
the first maximum and the positions chosen on the axes already reduced follow it). Taking
the first maximum of each row, then the first row holding the largest of them, is the
reference's row-major order. Max is exact (the tests compare values and i32 indices bit for
bit with the CPU plugin, which computes no i64 indices: OpenVINO's core has no evaluator for
this op, so i64 indices are checked to be the same values); the average sums in f64, the
plugin in f32: ``rtol=1e-6, atol=1e-6 * max|x|``.
"""

from __future__ import annotations

import numpy as np

from irrun.element_types import ELEMENT_TYPES
from irrun.ops._values import as_dim, signed_elements
from irrun.ops.base import Attribute, Op, TensorInfo, lazy_text
from irrun.ops.registry import register
from irrun.shape import Dim, Shape


def bins(length: int, count: int) -> tuple[np.ndarray, np.ndarray]:
    """``(starts, ends)`` of the ``count`` adaptive bins of an axis of ``length``.

    >>> [a.tolist() for a in bins(5, 3)]
    [[0, 1, 3], [2, 4, 5]]
    """
    index = np.arange(count, dtype=np.int64)
    return index * length // count, -((-(index + 1) * length) // count)


def _windows(data: np.ndarray, axis: int, count: int):
    """``(windows, positions, valid)``: ``data`` gathered along ``axis`` into ``[count,
    longest]`` bins (the new window axis right after ``axis``), the source position of each
    window element, and which elements lie inside their bin (the others repeat its last)."""
    starts, ends = bins(data.shape[axis], count)
    longest = int((ends - starts).max()) if count else 0
    positions = starts[:, None] + np.arange(longest)[None, :]
    valid = positions < ends[:, None]
    positions = np.minimum(positions, ends[:, None] - 1)
    taken = np.take(data, positions.reshape(-1), axis=axis)
    shape = (*data.shape[:axis], count, longest, *data.shape[axis + 1 :])
    return taken.reshape(shape), positions, valid


class _AdaptivePool(Op):
    inputs = (2, 2)

    def _output_dims(self, data: TensorInfo, target: TensorInfo):
        """The output shape (``None`` after a reported problem)."""
        rank = data.shape.rank
        if rank is not None and rank not in (3, 4, 5):
            self.context.error(
                "input-rank",
                f"{self.describe()}: data must be 3-D, 4-D or 5-D ([N, C, spatial...]), but it "
                f"is {data.shape} (rank {rank})",
                port=self.input_port(0),
                hint="Reshape the data to [N, C, spatial...] with 1 to 3 spatial axes",
            )
            return None
        if rank is None:
            return Shape.dynamic_rank()
        spatial = rank - 2
        target_rank = target.shape.rank
        if target_rank == 0 or (
            target_rank is not None and not target.shape[0].compatible(Dim(spatial))
        ):
            self.context.error(
                "input-dims",
                f"{self.describe()}: output_shape (input 1) {target.shape} must list {spatial} "
                f"spatial size(s), one per spatial axis of the data {data.shape}",
                port=self.input_port(1),
                hint=f"give output_shape as a 1-D tensor of {spatial} element(s)",
            )
            return None
        elements = signed_elements(target, floats=True) if target_rank == 1 else None
        if elements is None:
            return Shape([*data.shape.dims[:2], *[Dim.dynamic()] * spatial])
        if len(elements) != spatial:
            self.context.error(
                "input-dims",
                f"{self.describe()}: output_shape (input 1) {list(elements)} has "
                f"{len(elements)} value(s), but the data {data.shape} has {spatial} spatial "
                "axes",
                port=self.input_port(1),
                hint=f"give one output size per spatial axis ({spatial})",
            )
            return None
        return Shape([*data.shape.dims[:2], *(as_dim(e) for e in elements)])

    def _sizes(self, data, target):
        sizes = [int(v) for v in np.asarray(target).reshape(-1).astype(np.int64)]
        if any(s <= 0 for s in sizes) and data.size:
            raise ValueError(
                f"{self.describe()}: output_shape {sizes} has a bin count below 1 (OpenVINO's "
                "reference refuses empty bins)"
            )
        return sizes


@register
class AdaptiveAvgPool(_AdaptivePool):
    """AdaptiveAvgPool-8."""

    type, version = "AdaptiveAvgPool", 8
    attributes = ()

    def infer(self, inputs):
        """``[N, C, *output_shape]``."""
        data, target = inputs
        shape = self._output_dims(data, target)
        if shape is None:
            return None
        why = lazy_text("data {}, output_shape {}", data.shape, target.shape)
        return [TensorInfo(shape, data.element_type, why=why)]

    def evaluate(self, inputs):
        """The mean of every bin, one spatial axis at a time."""
        data, target = inputs
        sizes = self._sizes(data, target)
        work = data.astype(np.float64)
        for axis in reversed(range(2, data.ndim)):
            windows, _, valid = _windows(work, axis, sizes[axis - 2])
            shape = [1] * windows.ndim
            shape[axis : axis + 2] = valid.shape
            mask = valid.reshape(shape)
            work = np.where(mask, windows, 0).sum(axis=axis + 1) / mask.sum(axis=axis + 1)
        if data.dtype.kind in "iu":
            work = np.trunc(work)
        return [work.astype(data.dtype)]


@register
class AdaptiveMaxPool(_AdaptivePool):
    """AdaptiveMaxPool-8."""

    type, version = "AdaptiveMaxPool", 8
    rounds = False
    attributes = (Attribute("index_element_type", "element_type", ELEMENT_TYPES["i64"]),)

    def setup(self):
        if self.index_element_type.name not in ("i32", "i64"):
            self.context.error(
                "attribute-value",
                f"{self.describe()}: index_element_type must be i32 or i64, not "
                f"{self.index_element_type}",
                hint='write index_element_type="i64" (or "i32")',
                line=self.layer.data_line,
            )
            self.incomplete = True

    def infer(self, inputs):
        """``[N, C, *output_shape]`` twice: the maxima and their indices."""
        data, target = inputs
        shape = self._output_dims(data, target)
        if shape is None:
            return None
        why = lazy_text("data {}, output_shape {}", data.shape, target.shape)
        return [TensorInfo(shape, data.element_type, why=why),
                TensorInfo(shape, self.index_element_type, why=why)]  # fmt: skip

    def evaluate(self, inputs):
        """The first maximum of every bin and its flat index within the channel."""
        data, target = inputs
        sizes = self._sizes(data, target)
        values = data
        chosen: list[np.ndarray] = []  # the position on each axis reduced so far
        for axis in reversed(range(2, data.ndim)):
            windows, positions, _ = _windows(values, axis, sizes[axis - 2])
            arg = np.expand_dims(np.argmax(windows, axis=axis + 1), axis + 1)
            values = np.take_along_axis(windows, arg, axis=axis + 1).squeeze(axis + 1)
            chosen = [
                np.take_along_axis(
                    _windows(c, axis, sizes[axis - 2])[0], arg, axis=axis + 1
                ).squeeze(axis + 1)
                for c in chosen
            ]
            shape = [1] * windows.ndim
            shape[axis : axis + 2] = positions.shape
            picked = np.take_along_axis(
                np.broadcast_to(positions.reshape(shape), windows.shape), arg, axis=axis + 1
            ).squeeze(axis + 1)
            chosen.append(picked)
        index = np.zeros(values.shape, np.int64)
        stride = 1
        for axis, position in zip(reversed(range(2, data.ndim)), chosen):
            index += position * stride
            stride *= data.shape[axis]
        return [np.ascontiguousarray(values), index.astype(self.index_element_type.numpy_dtype)]
