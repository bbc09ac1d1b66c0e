"""DFT-7 and IDFT-7: the discrete Fourier transform of a complex tensor along some axes, and
its inverse.

Spec facts: inputs data (f32, f16 or bf16, rank >= 2, a complex tensor: its last dim is 2,
real and imaginary), axes (1-D, i32 or i64, unique, counted over the complex dims: from
``-(r - 1)`` to ``r - 2``, a negative axis ``a`` being ``r - 1 + a``) and an optional
signal_size (1-D, i32 or i64, one per axis): the data is cut or zero-padded at the end of each
axis to that size first (-1 keeps the data's size). No attributes. The output is the data's
element type and shape with each axis dim replaced by its signal size. IDFT divides by the
product of the transform sizes (``numpy.fft.ifftn``); DFT does not scale.

Shape rule (``fft_base_shape_inference.hpp``): with constant axes, a signal size read by bounds
(a constant, or a partial value from ShapeOf: an interval) replaces its axis dim, -1 keeps it;
another negative size gives 0 (OpenVINO's ``Dimension`` clamps it; irrun reports it). A
signal_size whose bounds cannot be read makes every axis dim ``?``; unknown axes with a
signal_size make every dim but the last ``?``. Without signal_size the shape is the data's.

Kernel: ``numpy.fft.fftn`` / ``ifftn`` in complex128 (its ``s`` cuts and pads as the spec
does), cast back to the data's type. Tolerance against the CPU plugin in f32 (which sums in
f32): ``rtol=1e-4, atol=1e-4`` for data in [-1, 1] and transforms of up to 64 points.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._fft import check_fft_inputs, run_transform, signal_dim
from irrun.ops._values import signed_elements
from irrun.ops.base import Op, TensorInfo, lazy_text
from irrun.ops.registry import register
from irrun.shape import Dim, Shape


class _ComplexTransform(Op):
    version, inputs = 7, (2, 3)
    attributes = ()
    #: ``numpy.fft.fftn`` or ``ifftn``.
    transform = None

    def infer(self, inputs):
        """The data's shape with each axis dim replaced by its signal size."""
        ok, axes = check_fft_inputs(self, inputs, complex_input=True)
        if not ok:
            return None
        data = inputs[0]
        if data.shape.rank is None or len(inputs) == 2:
            return [TensorInfo(data.shape, data.element_type, why="the data's shape")]
        dims = list(data.shape)
        if axes is None:
            dims[:-1] = [Dim.dynamic()] * (len(dims) - 1)
            why = "the axes are not known: every dim but the last is ?"
        else:
            elements = signed_elements(inputs[2])
            if elements is None or None in elements or len(elements) != len(axes):
                elements = (None,) * len(axes)
            for axis, element in zip(axes, elements):
                dim = signal_dim(element)
                if dim is not None:
                    dims[axis] = dim
            why = lazy_text("data {} with axes {} resized to the signal sizes {}", data.shape,
                            axes, list(elements))  # fmt: skip
        return [TensorInfo(Shape(dims), data.element_type, why=why)]

    def evaluate(self, inputs):
        """The transform of the complex data along the axes, in complex128."""
        return run_transform(self, inputs, type(self).transform, complex_input=True,
                             complex_output=True)  # fmt: skip


@register
class DFT(_ComplexTransform):
    """DFT-7: the forward transform (not scaled)."""

    type = "DFT"
    transform = staticmethod(np.fft.fftn)


@register
class IDFT(_ComplexTransform):
    """IDFT-7: the inverse transform (divided by the number of points)."""

    type = "IDFT"
    transform = staticmethod(np.fft.ifftn)
