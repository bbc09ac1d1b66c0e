"""ConvolutionBackpropData-1: the transposed convolution (deconvolution) of data
``[N, C_in, *spatial]`` with filters ``[C_in, C_out, *kernel]``, optionally to an
``output_shape``.

Spec facts: 1-D, 2-D or 3-D spatial (data rank 3 to 5, filters of the same rank); inputs
data, filters and an optional 1-D integer output_shape (the output's spatial sizes);
attributes ``strides``, ``pads_begin``, ``pads_end``, ``dilations`` (required),
``auto_pad`` (``explicit`` default, ``valid``, ``same_upper``, ``same_lower``: these pad only
with output_shape) and ``output_padding`` (extra elements at the end of each spatial axis;
default 0s). The data's channel dim must be compatible with the filters' dim 0; the output
has ``C_out`` (the filters' dim 1) channels. Element types: data and filters alike, numeric.
The shape rule and kernel are :mod:`irrun.ops._backprop`'s: output dim
``(D - 1) * stride + (K - 1) * dilation + 1 - pads_begin - pads_end + output_padding``.
With output_shape and explicit pads the output is the whole result's window from
``pads_begin`` (what the CPU plugin computes). The CPU plugin cannot compile an output_shape
computed at run time ("Destination memory is undefined"); irrun runs it (tested against the
plugin with the same values as a constant). Negative pads widen the window past the whole
result, which irrun fills with zeros; the CPU plugin cannot compile them (tested against the
plugin's unpadded result extended by zeros).

Tolerance (f32 vs the CPU plugin in f32): each output sums ``C_in * prod(kernel) /
prod(strides)`` products in another order; the tests assert ``rtol=1e-5, atol=1e-5 *
sqrt(K) * max|x| * max|w|`` with ``K = C_in * prod(kernel)``.
"""

from __future__ import annotations

from irrun.ops._backprop import BackpropFamily
from irrun.ops.registry import register


@register
class ConvolutionBackpropData(BackpropFamily):
    """ConvolutionBackpropData-1."""

    type, version = "ConvolutionBackpropData", 1
    filter_head = 2
    filter_layout = "ConvolutionBackpropData filters are [C_in, C_out, *kernel]"

    def _output_channels(self, data, filters, data_dims, filter_dims):
        if not data_dims[1].compatible(filter_dims[0]):
            self.context.error(
                "input-dims",
                f"{self.describe()}: the data {data.shape} has {data_dims[1]} input channels "
                f"(dimension 1), but the filters {filters.shape} expect {filter_dims[0]} "
                "(their dimension 0)",
                port=self.input_port(1),
                hint="filters are [C_in, C_out, *kernel]: C_in must equal the data's channels",
            )
            return None
        return filter_dims[1]

    def evaluate(self, inputs):
        """Transposed convolution: one GEMM for every tap, then a strided add per tap."""
        return [self._run([inputs[0], inputs[1][None], *inputs[2:]], 1)]
