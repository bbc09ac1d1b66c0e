"""RDFT-9 and IRDFT-9: the discrete Fourier transform of a real tensor (its non-redundant half),
and the inverse transform giving a real tensor.

Spec facts: RDFT takes real data (f32, f16 or bf16, rank >= 1), axes (1-D, i32 or i64,
unique, from ``-r`` to ``r - 1``) and an optional signal_size (1-D, i32 or i64, one per axis;
the data is cut or zero-padded at the end of each axis to it, -1 keeps the size). Its output is
complex (a last dim of 2): the data's shape with each axis resized and the last axis ``n`` of
the transform holding ``n // 2 + 1`` points. IRDFT takes complex data (rank >= 2, last dim 2;
axes counted over the complex dims, a negative axis ``a`` being ``r - 1 + a``) and gives a real
tensor whose last axis has ``2 * (n - 1)`` points, or its signal size; it divides by the
number of points. No attributes; the output has the data's element type.

Shape rule (``rdft_shape_inference.hpp``, ``irdft_shape_inference.hpp``): only a constant
signal_size counts (not bounds, unlike DFT): a size replaces its axis dim (a negative one
other than -1 gives 0, OpenVINO's ``Dimension`` clamps it; irrun reports it), and RDFT then
halves the last axis bound-wise (``0`` stays 0, ``5..`` is ``3..``); an unknown signal_size
makes only the last axis ``?``. IRDFT's last axis without a signal size is ``2 * (n - 1)``
bound-wise, clamped at 0 (``0..3`` is ``..4``). Unknown axes make every dim ``?``.

Kernel: ``numpy.fft.rfftn`` / ``irfftn`` in float64 and complex128, cast back (``irfftn``
ignores the imaginary parts that a real result cannot have, as the real part of OpenVINO's
Hermitian extension does). Tolerance against the CPU plugin in f32: ``rtol=1e-4, atol=1e-4``
for data in [-1, 1] and transforms of up to 64 points. Padding (a signal size above the data's)
follows the spec (zeros at the end): OpenVINO's reference does so for RDFT (the CPU plugin
refuses it); the CPU plugin's IRDFT gives other values there (garbage on a padded axis other
than the last), and OpenVINO's core has no IRDFT reference to compare with.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._fft import (
    as_complex,
    as_pairs,
    check_fft_inputs,
    doubled_dim,
    halved_dim,
    transform_sizes,
)
from irrun.ops._values import signed_ints
from irrun.ops.base import Op, TensorInfo, lazy_text
from irrun.ops.registry import register
from irrun.shape import Dim, Shape, static_dim


def _resized(dims, axes, sizes):
    """``dims`` with each axis given a signal size other than -1 set to it (clamped at 0)."""
    for axis, size in zip(axes, sizes):
        if size != -1:
            dims[axis] = static_dim(max(size, 0))


@register
class RDFT(Op):
    """RDFT-9: the forward transform of real data."""

    type, version, inputs = "RDFT", 9, (2, 3)
    attributes = ()

    def infer(self, inputs):
        """The data's shape, axes resized, the last axis halved, and a last dim of 2."""
        ok, axes = check_fft_inputs(self, inputs, complex_input=False)
        if not ok:
            return None
        data = inputs[0]
        if data.shape.rank is None:
            return [TensorInfo(data.shape, data.element_type, why="the data rank is not known")]
        dims = list(data.shape)
        if axes is None:
            dims = [Dim.dynamic()] * len(dims)
            why = "the axes are not known: every dim but the last (2) is ?"
        else:
            last = axes[-1]
            sizes = signed_ints(inputs[2]) if len(inputs) == 3 else [-1] * len(axes)
            if sizes is None:
                dims[last] = Dim.dynamic()
                why = f"the signal sizes are not known: axis {last} is ?"
            else:
                _resized(dims, axes, sizes)
                dims[last] = halved_dim(dims[last])
                why = lazy_text("data {}, axes {}, signal sizes {}: axis {} holds n // 2 + 1",
                                data.shape, axes, sizes, last)  # fmt: skip
        return [TensorInfo(Shape(dims + [static_dim(2)]), data.element_type, why=why)]

    def evaluate(self, inputs):
        """``numpy.fft.rfftn`` along the axes, as (real, imaginary) pairs."""
        data, axes = inputs[0], inputs[1]
        rank = data.ndim
        axes = [a + rank if a < 0 else a for a in np.asarray(axes).reshape(-1).tolist()]
        sizes = transform_sizes(self, data.shape, axes, inputs[2] if len(inputs) == 3 else None)
        out_shape = list(data.shape)
        for axis, size in zip(axes, sizes):
            out_shape[axis] = size
        out_shape[axes[-1]] = sizes[-1] // 2 + 1 if sizes[-1] else 0
        if 0 in out_shape:
            return [np.zeros(out_shape + [2], data.dtype)]
        values = np.fft.rfftn(data.astype(np.float64), s=sizes, axes=axes)
        return [as_pairs(values, data.dtype)]


@register
class IRDFT(Op):
    """IRDFT-9: the inverse transform to real data."""

    type, version, inputs = "IRDFT", 9, (2, 3)
    attributes = ()

    def infer(self, inputs):
        """The complex dims, axes resized, the last axis ``2 * (n - 1)`` or its signal size."""
        ok, axes = check_fft_inputs(self, inputs, complex_input=True)
        if not ok:
            return None
        data = inputs[0]
        if data.shape.rank is None:
            return [TensorInfo(data.shape, data.element_type, why="the data rank is not known")]
        dims = list(data.shape)[:-1]
        if axes is None:
            dims = [Dim.dynamic()] * len(dims)
            why = "the axes are not known: every dim is ?"
        else:
            last = axes[-1]
            sizes = signed_ints(inputs[2]) if len(inputs) == 3 else [-1] * len(axes)
            if sizes is None:
                dims[last] = Dim.dynamic()
                why = f"the signal sizes are not known: axis {last} is ?"
            else:
                _resized(dims, axes, sizes)
                if sizes[-1] == -1:
                    dims[last] = doubled_dim(data.shape[last])
                why = lazy_text("data {}, axes {}, signal sizes {}: axis {} holds 2 * (n - 1) "
                                "or its signal size", data.shape, axes, sizes, last)  # fmt: skip
        return [TensorInfo(Shape(dims), data.element_type, why=why)]

    def evaluate(self, inputs):
        """``numpy.fft.irfftn`` of the complex data along the axes."""
        data, axes = inputs[0], inputs[1]
        rank = data.ndim - 1
        axes = [a + rank if a < 0 else a for a in np.asarray(axes).reshape(-1).tolist()]
        sizes = transform_sizes(self, data.shape, axes, inputs[2] if len(inputs) == 3 else None)
        if len(inputs) == 2 or int(np.asarray(inputs[2]).reshape(-1)[-1]) == -1:
            sizes[-1] = 2 * max(data.shape[axes[-1]] - 1, 0)
        out_shape = list(data.shape[:-1])
        for axis, size in zip(axes, sizes):
            out_shape[axis] = size
        if 0 in out_shape:
            return [np.zeros(out_shape, data.dtype)]
        values = np.fft.irfftn(as_complex(data), s=sizes, axes=axes)
        return [values.astype(data.dtype)]
