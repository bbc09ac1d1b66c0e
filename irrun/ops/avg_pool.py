"""AvgPool-1, AvgPool-14, AvgPool-16: the mean of each window.

Spec facts: data ``[N, C, *spatial]`` (1 to 3 spatial axes); attributes ``kernel``,
``strides``, ``pads_begin``, ``pads_end`` (required, pads >= 0), ``exclude-pad`` (required),
``rounding_type`` (``floor`` default, ``ceil``; 14 and 16 add ``ceil_torch``), ``auto_pad``
(``explicit`` default, ``valid``, ``same_upper``, ``same_lower``); AvgPool-16 adds
``dilations`` (default 1s). Output shape per :mod:`irrun.ops._windows`, element type of the
data. OpenVINO refuses, besides what MaxPool refuses, a kernel not larger than a pad when
``exclude-pad`` is true (a window could hold only padding).

Divisor (OpenVINO's reference, matched by its CPU plugin): with ``exclude-pad`` the number of
data elements in the window; without it, the full kernel size when any pad is nonzero (after
``auto_pad``), else the number of data elements (windows that ceil rounding lets overhang
the data count only what they cover). A window with no element gives 0. The counts are
computed once, by pooling a mask of the spatial grid.

Kernel: a sum over a strided window view (f16/bf16 summed in f32 and rounded once), divided
by the counts. Integer types (reference semantics): i8/u8 round the quotient half to even,
other integers truncate toward zero. Tolerance (f32 vs CPU f32): ``rtol = 1e-6`` relative to
the window's mean magnitude, i.e. a few ulps; the tests assert ``rtol=2e-6, atol=1e-6``.

AvgPool-16 is checked and run like AvgPool-14 with dilations; OpenVINO's CPU plugin crashes
on it, so its kernel is tested against a NumPy statement of the spec.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._windows import PoolingFamily, pad_array, pooling_attributes, window_view
from irrun.ops.base import Attribute, TensorInfo
from irrun.ops.registry import register

_EXCLUDE_PAD = Attribute("exclude-pad", "bool", False, required=True)


class _AvgPool(PoolingFamily):
    def infer(self, inputs):
        """Pooled shape, the data's element type."""
        data = inputs[0]
        shape = self.pooled_shape(data)
        if shape is None:
            return None
        return [TensorInfo(shape, data.element_type, why=f"data {data.shape}")]

    def evaluate(self, inputs):
        """Window sums over a strided view divided by counts pooled from a mask."""
        data = inputs[0]
        dtype = data.dtype
        low_float = dtype.kind == "V" or (dtype.kind == "f" and dtype.itemsize < 4)
        work = np.float32 if low_float else dtype if dtype.kind == "f" else np.float64
        view, begin, end, extended = self.windows(data.astype(work, copy=False), 0)
        spatial = data.ndim - 2
        window_axes = tuple(range(2 + spatial, 2 + 2 * spatial))
        sums = view.sum(axis=window_axes)
        counts = self._counts(data.shape[2:], begin, end, extended, view.shape[2 : 2 + spatial])
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(counts > 0, sums / np.maximum(counts, 1), 0)
        if dtype.kind in "iu":
            mean = np.rint(mean) if dtype.itemsize == 1 else np.trunc(mean)
        return [mean.astype(dtype)]

    def _counts(self, sizes, begin, end, extended, out_sizes) -> np.ndarray:
        """The divisor of every output position (spatial only), by pooling a mask."""
        padded_any = any(begin) or any(end)
        if not self.exclude_pad and padded_any:
            return np.full(out_sizes, float(np.prod(self.kernel)))
        mask = np.ones((1, 1, *sizes))
        mask = pad_array(mask, begin, extended, 0)
        view = window_view(mask, out_sizes, self.kernel, self.strides, self.spatial_dilations())
        spatial = len(sizes)
        return view.sum(axis=tuple(range(2 + spatial, 2 + 2 * spatial)))[0, 0]


@register
class AvgPool1(_AvgPool):
    """AvgPool-1."""

    type, version = "AvgPool", 1
    attributes = pooling_attributes(extra=(_EXCLUDE_PAD,))


@register
class AvgPool14(_AvgPool):
    """AvgPool-14: AvgPool-1 with ``rounding_type="ceil_torch"``."""

    type, version = "AvgPool", 14
    attributes = pooling_attributes(extra=(_EXCLUDE_PAD,))
    torch_rounding = True


@register
class AvgPool16(_AvgPool):
    """AvgPool-16: AvgPool-14 with ``dilations``."""

    type, version = "AvgPool", 16
    attributes = pooling_attributes(dilations_since=1, extra=(_EXCLUDE_PAD,))
    torch_rounding = True
