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

from irrun.ops._fft import doubled, halved, real_transform_infos, run_transform
from irrun.ops.base import Op
from irrun.ops.registry import register


@register
class RDFT(Op):
    """RDFT-9: the forward transform of real data."""

    type, version, inputs = "RDFT", 9, (2, 3)
    attributes = ()

    def infer(self, inputs):
        """The data's shape, axes resized, the last axis halved, and a last dim of 2."""
        return real_transform_infos(self, inputs, complex_input=False, output_last=halved,
                                    holds="n // 2 + 1")  # fmt: skip

    def evaluate(self, inputs):
        """``numpy.fft.rfftn`` along the axes, as (real, imaginary) pairs."""
        return run_transform(self, inputs, np.fft.rfftn, complex_input=False,
                             complex_output=True, output_last=halved)  # fmt: skip


@register
class IRDFT(Op):
    """IRDFT-9: the inverse transform to real data."""

    type, version, inputs = "IRDFT", 9, (2, 3)
    attributes = ()

    def infer(self, inputs):
        """The complex dims, axes resized, the last axis ``2 * (n - 1)`` or its signal size."""
        return real_transform_infos(self, inputs, complex_input=True, unsized_last=doubled,
                                    holds="2 * (n - 1) or its signal size")  # fmt: skip

    def evaluate(self, inputs):
        """``numpy.fft.irfftn`` of the complex data along the axes."""
        return run_transform(self, inputs, np.fft.irfftn, complex_input=True,
                             complex_output=False, unsized_last=doubled)  # fmt: skip
