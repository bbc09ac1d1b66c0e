"""BinaryConvolution-1: a 2-D convolution of binary data with binary filters (shape rule only).

Spec facts: data ``[N, C_in, H, W]`` (OpenVINO refuses any other known rank: "Expected 4D for
the input"), filters ``[C_out, C_in, kH, kW]``, usually ``u1``; the attributes of
Convolution-1 (``strides``, ``pads_begin``, ``pads_end``, ``dilations``, ``auto_pad``) plus
``mode`` (required; ``xnor-popcount`` is the only one) and ``pad_value`` (required, a float
filling the pad area). Output ``[N, C_out, *out]`` by Convolution-1's rule (the same
``convolution_shape_inference``), of the data's element type. OpenVINO checks only that the
data type is not boolean (a ``string`` or ``dynamic`` data type passes); the filters' type is
not checked (any type, as its reader takes ``u1`` filters of ``f32`` data). With a data rank
unknown, the filters' rank gives the output's (3-D filters give a 3-D output: OpenVINO checks
the 4-D rank on the data only).

``xnor-popcount`` reads 0/1 values as -1/+1 and computes ``2 * popcount(xnor(patch, filter)) -
bits`` per output, i.e. the sum of products of the +-1 values. There is no kernel: OpenVINO
has no reference implementation to follow (the old one was removed), and its CPU plugin
binarises data as ``x > 0``, reads filter bits LSB-first and treats ``pad_value`` in ways the
specification does not describe. irrun checks the layer's shapes and types; a run needs
``--partial`` (``irrun compare`` bridges it with OpenVINO's tensors).
"""

from __future__ import annotations

from irrun.ops._conv_kernel import CONVOLUTION_ATTRIBUTES, UngroupedConvolution
from irrun.ops.base import Attribute
from irrun.ops.registry import register

__all__ = ["BinaryConvolution"]


@register
class BinaryConvolution(UngroupedConvolution):
    """BinaryConvolution-1 (shape and type rule; no kernel)."""

    type, version = "BinaryConvolution", 1
    attributes = (
        *CONVOLUTION_ATTRIBUTES,
        Attribute("mode", "enum", "xnor-popcount", required=True, choices=("xnor-popcount",)),
        Attribute("pad_value", "float", 0.0, required=True),
    )
    filter_layout = "BinaryConvolution filters are [C_out, C_in, kH, kW]"

    def infer(self, inputs):
        """Convolution-1's output, for 4-D data (the data's element type)."""
        data = inputs[0]
        rank = data.shape.rank
        if rank is not None and rank != 4:
            self.context.error(
                "input-rank",
                f"{self.describe()}: data must be 4-D ([N, C_in, H, W]), but it is "
                f"{data.shape} (rank {rank}); OpenVINO refuses it",
                port=self.input_port(0),
                hint="BinaryConvolution is a 2-D convolution",
            )
            return None
        return super().infer(inputs)

    def _output_type(self, inputs):
        etype = inputs[0].element_type
        if etype.kind == "bool":
            self.context.error(
                "input-type",
                f'{self.describe()}: the data must be numeric, not boolean (OpenVINO: "Data '
                'batch element type must be numeric")',
                port=self.input_port(0),
                hint="Convert the data to a numeric type (0/1 values)",
            )
            return None
        return etype
