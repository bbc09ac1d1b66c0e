"""MaxPool-1, MaxPool-8, MaxPool-14: the largest value of each window, and (8, 14) where it is.

Spec facts: data ``[N, C, *spatial]`` (1 to 3 spatial axes); attributes ``kernel``,
``strides``, ``pads_begin``, ``pads_end`` (required, one value per spatial axis, pads >= 0),
``rounding_type`` (``floor`` default, ``ceil``; MaxPool-14 adds ``ceil_torch``, which drops a
last window starting in the end padding), ``auto_pad`` (``explicit`` default, ``valid``,
``same_upper``, ``same_lower``); MaxPool-8/14 add ``dilations`` (default 1s),
``index_element_type`` (``i64`` default or ``i32``) and ``axis`` (default 0, in
``[-rank, rank-1]``) and a second output, the indices. Output shape per
:mod:`irrun.ops._windows`; element type of the data (indices: ``index_element_type``).
OpenVINO refuses a zero batch or channel dim, a kernel larger than the padded data, and
``ceil_torch`` before version 14.

Values (OpenVINO's reference, which its CPU plugin matches bit for bit): a window's result
starts at the type's lowest finite value and is replaced only by a strictly larger element,
so NaN is never picked, a window of only ``-inf``/NaN/padding gives ``-3.4028235e38`` (f32
``lowest``, not ``-inf``) with index 0, and ties give the first element in window order.
Indices are flat indices into the input (batch and channel included) for ``axis`` 0, and
that index modulo ``prod(shape[axis:])`` otherwise (``axis`` 2: the position within the
channel). Exact: the tests compare bit for bit. A plain run computes the indices only when
something reads them (:meth:`_MaxPool.evaluate_needed`): the converter gives every MaxPool
an indices output, which models rarely read (7.6 ms of ResNet-50's 98 at 1 thread).
"""

from __future__ import annotations

import numpy as np

from irrun.element_types import ELEMENT_TYPES
from irrun.ops._windows import PoolingFamily, pooling_attributes
from irrun.ops.base import Attribute, TensorInfo, normalize_axis_or_report
from irrun.ops.registry import register


def _lowest(dtype) -> object:
    """The type's lowest finite value (``std::numeric_limits<T>::lowest()``)."""
    if dtype.kind in "iu":
        return np.iinfo(dtype).min
    if dtype.kind == "b":
        return False
    if dtype.kind == "f":
        return np.finfo(dtype).min
    # bfloat16 and the f8 types: only ml_dtypes knows them (imported only then: it is slow)
    import ml_dtypes

    return ml_dtypes.finfo(dtype).min


class _MaxPool(PoolingFamily):
    with_indices = True
    axis = 0

    def infer(self, inputs):
        """Pooled shape; MaxPool-8/14 also give the indices (``index_element_type``)."""
        data = inputs[0]
        shape = self.pooled_shape(data)
        if shape is None:
            return None
        out = [TensorInfo(shape, data.element_type, why=f"data {data.shape}")]
        if not self.with_indices:
            return out
        if self.index_element_type.name not in ("i32", "i64"):
            self.context.error(
                "attribute-value",
                f"{self.describe()}: index_element_type must be i32 or i64, not "
                f"{self.index_element_type}",
                hint='write index_element_type="i64" (or "i32")',
                line=self.layer.data_line,
            )
            return None
        if data.shape.rank_is_static:
            axis = normalize_axis_or_report(self, self.axis, data.shape.rank)
            if axis is None:
                return None
        return [*out, TensorInfo(shape, self.index_element_type, why=f"data {data.shape}")]

    def evaluate(self, inputs):
        """The maximum over the taps of a strided window view, and where its first occurrence is
        (NaN and padding never picked)."""
        return self._pool(inputs, self.with_indices)

    def evaluate_needed(self, inputs, needed):
        """:meth:`evaluate` for a run that reads only the outputs ``needed`` marks (one bool
        per output): unread indices are not computed (the converter gives every MaxPool an
        indices output nothing reads), a zero-strided array of their shape and type stands
        in for them."""
        if not self.with_indices or needed[1]:
            return self._pool(inputs, self.with_indices)
        (values,) = self._pool(inputs, False)
        stand_in = np.zeros((), self.index_element_type.numpy_dtype)
        return [values, np.broadcast_to(stand_in, values.shape)]

    def _pool(self, inputs, with_indices: bool):
        data = inputs[0]
        dtype = data.dtype
        lowest = _lowest(dtype)
        key, fill = data, lowest
        if dtype.kind in "fV":  # floats (bf16 and f8 are "V"): compared in f32 or wider
            work = np.float32 if dtype.kind == "V" or dtype.itemsize < 4 else dtype
            key = data.astype(work, copy=False)
            if np.isnan(key).any():  # (a copy only when there is a NaN to hide)
                key = np.where(np.isnan(key), -np.inf, key)
            fill, lowest = -np.inf, np.dtype(work).type(float(lowest))
        view, begin, _, _ = self.windows(key, fill)
        spatial = data.ndim - 2
        kernel = view.shape[2 + spatial :]
        # the max over the kernel taps, one strided plane of the view at a time: no copy of
        # window size (5x faster than an argmax over the flattened windows)
        planes = [view[(Ellipsis, *tap)] for tap in np.ndindex(*kernel)]
        best = planes[0].copy()
        for plane in planes[1:]:
            np.maximum(best, plane, out=best)
        if not with_indices:
            # (what the where() below gives: only -inf, the pads' fill, is below lowest;
            # np.clip with two bounds of best's type is NumPy's SIMD loop, np.maximum with a
            # scalar is not)
            if best.dtype.kind == "f":
                np.clip(best, lowest, best.dtype.type(np.inf), out=best)
            return [best.astype(dtype, copy=False)]
        empty = ~(best > lowest)
        values = np.where(empty, lowest, best).astype(dtype)
        # the first tap holding the maximum: every tap that holds it overwrites, from the
        # last to the first (3x faster than an argmax over the flattened windows, whose inner
        # loops are one window long)
        tap_type = np.uint8 if len(planes) <= 256 else np.int64
        first = np.full(best.shape, len(planes) - 1, tap_type)
        holds = np.empty(best.shape, bool)
        for number in range(len(planes) - 2, -1, -1):
            np.equal(planes[number], best, out=holds)
            np.putmask(first, holds, number)
        # flat position within the channel: the window's origin plus the tap's offset (a
        # window that is not empty has its maximum in the data, never in the padding)
        sizes = data.shape[2:]
        pitches = [int(np.prod(sizes[a + 1 :])) for a in range(spatial)]
        dilations = self.spatial_dilations()
        out_sizes = best.shape[2:]
        origin = np.zeros(out_sizes, np.int64)
        for axis in range(spatial):
            along = (np.arange(out_sizes[axis]) * self.strides[axis] - begin[axis]) * pitches[axis]
            origin += along.reshape([-1 if a == axis else 1 for a in range(spatial)])
        offsets = np.zeros(len(planes), np.int64)
        for number, tap in enumerate(np.ndindex(*kernel)):
            offsets[number] = sum(t * d * p for t, d, p in zip(tap, dilations, pitches))
        spatial_index = np.where(empty, 0, origin + offsets[first])
        channel_size = int(np.prod(sizes))
        n, c = data.shape[:2]
        offsets = (np.arange(n)[:, None] * c + np.arange(c)[None, :]) * channel_size
        index = spatial_index + offsets.reshape(n, c, *([1] * spatial))
        axis = self.axis + data.ndim if self.axis < 0 else self.axis
        if axis != 0:
            index = index % int(np.prod(data.shape[axis:]))
        return [values, index.astype(self.index_element_type.numpy_dtype)]


_INDEX = (
    Attribute("index_element_type", "element_type", ELEMENT_TYPES["i64"]),
    Attribute("axis", "int", 0),
)


@register
class MaxPool1(_MaxPool):
    """MaxPool-1: values only, no dilations."""

    type, version = "MaxPool", 1
    rounds = False
    attributes = pooling_attributes()
    with_indices = False


@register
class MaxPool8(_MaxPool):
    """MaxPool-8: dilations and an indices output."""

    type, version = "MaxPool", 8
    rounds = False
    attributes = pooling_attributes(dilations_since=1, extra=_INDEX)


@register
class MaxPool14(_MaxPool):
    """MaxPool-14: MaxPool-8 with ``rounding_type="ceil_torch"``."""

    type, version = "MaxPool", 14
    rounds = False
    attributes = pooling_attributes(dilations_since=1, extra=_INDEX)
    torch_rounding = True
