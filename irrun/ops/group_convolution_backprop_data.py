"""GroupConvolutionBackpropData-1: the transposed convolution with the channels split into
``G`` independent groups.

Spec facts: data ``[N, C_in, *spatial]``, filters ``[G, C_in/G, C_out/G, *kernel]`` (rank one
more than the data), optional output_shape; attributes and spatial rule as
ConvolutionBackpropData-1. OpenVINO checks the channels only when the data rank and the
filters' ``C_in/G`` are static: ``G`` must be able to equal ``C_in / (C_in/G)`` (an interval
quotient rounds its bounds inward; a static ``C_in`` that ``C_in/G`` does not divide is
refused). Output channels ``G * C_out/G`` (``G`` merged with that quotient).

Kernel: :func:`irrun.ops._backprop.transposed_convolve` with the groups batched in one
``np.matmul``. Tolerance: as ConvolutionBackpropData-1 with ``K = C_in/G * prod(kernel)``.
"""

from __future__ import annotations

from irrun.ops._backprop import BackpropFamily
from irrun.ops._conv_kernel import divided_dim, times_dim
from irrun.ops.registry import register


@register
class GroupConvolutionBackpropData(BackpropFamily):
    """GroupConvolutionBackpropData-1."""

    type, version = "GroupConvolutionBackpropData", 1
    filter_head = 3
    filter_layout = "GroupConvolutionBackpropData filters are [G, C_in/G, C_out/G, *kernel]"

    def _output_channels(self, data, filters, data_dims, filter_dims):
        groups, per_group = filter_dims[0], filter_dims[1]
        if data.shape.rank_is_static and filters.shape.rank_is_static and per_group.is_static:
            quotient = divided_dim(data_dims[1], per_group.lower) if per_group.lower else None
            merged = None if quotient is None else groups.merge(quotient)
            if merged is None:
                self.context.error(
                    "input-dims",
                    f"{self.describe()}: the data {data.shape} has {data_dims[1]} input "
                    f"channels, which is not G x C_in/G = {groups} x {per_group} (filters "
                    f"{filters.shape} are [G, C_in/G, C_out/G, *kernel])",
                    port=self.input_port(1),
                    hint="the data's channels must be the groups times the filters' dimension 1",
                )
                return None
            groups = merged
        if not filters.shape.rank_is_static:
            return groups  # '?'
        return times_dim(groups, filter_dims[2])

    def evaluate(self, inputs):
        """All groups at once: one batched GEMM for every tap, then a strided add per tap."""
        return [self._run(inputs, inputs[1].shape[0])]
