"""GroupConvolution-1: convolution with the channels split into ``G`` independent groups.

Spec facts: data ``[N, C_in, *spatial]``, filters ``[G, C_out/G, C_in/G, *kernel]`` (rank one
more than the data); attributes and spatial rule as Convolution-1. OpenVINO checks the
channels only when the data rank and the filters' ``C_in/G`` are static: ``G`` must be able to
equal ``C_in / (C_in/G)`` (the quotient of an interval rounds its bounds inward; a static
``C_in`` that ``C_in/G`` does not divide is refused). Output channels ``G * C_out/G`` (``G``
merged with that quotient). A depthwise convolution is ``[C, 1, 1, *kernel]``.

Kernel: :func:`irrun.ops._conv_kernel.convolve`: depthwise and small groups (at most
``TAP_MAX_CHANNELS`` ``C_in/G * C_out/G``) with tap columns built per cache-sized block of
``N * G`` rows on the stride-phase grid, 1x1 kernels as one ``np.matmul`` of the data itself,
other groups in one batched im2col ``np.matmul``.

Tolerance: as Convolution-1 with ``K = C_in/G * prod(kernel)``.
"""

from __future__ import annotations

from irrun.ops._conv_kernel import ConvolutionFamily, divided_dim, times_dim
from irrun.ops.registry import register


@register
class GroupConvolution(ConvolutionFamily):
    """GroupConvolution-1."""

    type, version = "GroupConvolution", 1
    filter_head = 3
    filter_layout = "GroupConvolution filters are [G, C_out/G, C_in/G, *kernel]"

    def _output_channels(self, data, filters, data_dims, filter_dims, inputs):
        groups = filter_dims[0]
        per_group = filter_dims[2]
        if data.shape.rank_is_static and per_group.is_static and per_group.lower > 0:
            quotient = divided_dim(data_dims[1], per_group.lower)
            merged = None if quotient is None else groups.merge(quotient)
            if merged is None:
                self.context.error(
                    "input-dims",
                    f"{self.describe()}: the data {data.shape} has {data_dims[1]} input "
                    f"channels, which is not G x C_in/G = {groups} x {per_group} (filters "
                    f"{filters.shape} are [G, C_out/G, C_in/G, *kernel])",
                    port=self.input_port(1),
                    hint="the data's channels must be the groups times the filters' dimension 2",
                )
                return None
            groups = merged
        return times_dim(groups, filter_dims[1])

    def evaluate(self, inputs):
        """All groups at once (tap columns, pointwise or im2col GEMM)."""
        data, filters = inputs
        return [self._run(data, filters, filters.shape[0])]

    def evaluate_into(self, inputs, outputs) -> None:
        """:meth:`evaluate` written into ``outputs[0]`` (an array of the output's shape and
        dtype, overlapping no input), bit for bit."""
        data, filters = inputs
        self._run(data, filters, filters.shape[0], out=outputs[0])
