"""Convolution-1: N-d cross-correlation of data ``[N, C_in, *spatial]`` with filters
``[C_out, C_in, *kernel]``.

Spec facts: 1-D, 2-D or 3-D spatial (data rank 3 to 5, filters of the same rank); attributes
``strides``, ``pads_begin``, ``pads_end``, ``dilations`` (required, one value per spatial
axis; pads may be negative, which crops) and ``auto_pad`` (``explicit`` default, ``valid``,
``same_upper``, ``same_lower``; ``notset`` is refused by OpenVINO's reader). The data's
channel dim must be compatible with the filters' dim 1. Output ``[N, C_out, *out]`` with the
spatial rule of :mod:`irrun.ops._windows` (``same_*``: ``ceil(D / stride)``). Element types:
data and filters alike, numeric (integer types allowed).

Kernel: :func:`irrun.ops._conv_kernel.convolve`: the im2col GEMM (one ``np.matmul``); a 1x1
kernel multiplies the data itself (no im2col copy). ``evaluate_into`` has the products written
into the executor's buffer (so that the element-wise layer after it may run in place).

Tolerance (f32 vs OpenVINO CPU f32, which sums in another order with its own blocking and
FMA): measured errors stay below ``1e-6 * sqrt(K) * max|x| * max|w|`` with
``K = C_in * prod(kernel)``; the tests assert ``atol = 1e-5 * sqrt(K) * max|x| * max|w|``,
``rtol = 1e-5``.
"""

from __future__ import annotations

from irrun.ops._conv_kernel import UngroupedConvolution
from irrun.ops.registry import register


@register
class Convolution(UngroupedConvolution):
    """Convolution-1."""

    type, version = "Convolution", 1
    filter_head = 2
    filter_layout = "Convolution filters are [C_out, C_in, *kernel]"

    def evaluate(self, inputs):
        """Convolution as one GEMM (im2col, or the data itself for 1x1 kernels)."""
        data, filters = inputs
        return [self._run(data, filters[None], 1)]

    def evaluate_into(self, inputs, outputs) -> None:
        """:meth:`evaluate` written into ``outputs[0]`` (an array of the output's shape and
        dtype, overlapping no input), bit for bit."""
        data, filters = inputs
        self._run(data, filters[None], 1, out=outputs[0])
