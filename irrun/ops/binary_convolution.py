"""BinaryConvolution-1: a 2-D convolution of binary data with binary filters.

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

``xnor-popcount`` reads the values 0 and 1 as -1 and +1 and gives, per output, ``2 * popcount(
xnor(patch, filter)) - B`` with ``B = C_in * kH * kW``: the sum of the +-1 products. The pad
area holds ``pad_value``. As OpenVINO's reference implementation (``binary_convolution.hpp``,
used by its template plugin) computes it, a position counts +1 when its value equals the
filter bit (``in == bit``, the value cast to the data type first, so integer data truncates
``pad_value``) and -1 otherwise: a value that is neither 0 nor 1 matches no bit. The output is
of the data's type (integer data wraps as the reference's ``T_IN`` arithmetic does).

Filters: the ``u1`` Const's elements in their order (OpenVINO packs element 0 in the most
significant bit of its byte, as the reference reads it). The reference moves to the next
output filter by ``C_in * kH * kW`` *bytes* of packed bits (a slip: it reads past the
filters); irrun gives each output filter its own bits, as the specification says. Filters of
another type count a value as the bit it equals (0 or 1; any other matches nothing).

Kernel: one convolution (:func:`irrun.ops._conv_kernel.convolve`, im2col and BLAS) of the
indicators ``[data == 1, data == 0]`` (padded with ``pad_value == 1`` and ``pad_value == 0``)
with ``[filters == 1, filters == 0]`` counts the matches exactly (sums of 0/1 products, exact
in f32 up to 2**24 terms); ``2 * matches - B`` is then exact, rounded once to the data type.

OpenVINO's CPU plugin computes something else (labelled a known CPU deviation by ``irrun
compare``, see :func:`irrun.compare.deviations.binary_convolution_cpu_reading`): it binarises
the data as ``x > 0``, reads the 8 filter bits of each byte in the reverse order, and leaves
the pad area out of the sum when ``pad_value`` is 0 (1 counts as bit 1, any other value as
bit 0); verified for ``C_in`` a multiple of 8.

Exact: integer counts, no rounding (``irrun compare`` accepts no difference).
"""

from __future__ import annotations

import math

import numpy as np

from irrun.ops._conv_kernel import CONVOLUTION_ATTRIBUTES, UngroupedConvolution, convolve
from irrun.ops._windows import pad_array
from irrun.ops.base import Attribute
from irrun.ops.registry import register

__all__ = ["BinaryConvolution"]


@register
class BinaryConvolution(UngroupedConvolution):
    """BinaryConvolution-1."""

    type, version = "BinaryConvolution", 1
    rounds = False
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

    def evaluate(self, inputs):
        """``2 * matches - C_in * kH * kW`` per output, the matches counted by one convolution
        of the 0/1 indicators (see the module docstring)."""
        data, filters = inputs
        begin, end = self._resolve(data, filters)
        dtype = data.dtype
        work = np.float64 if dtype == np.float64 else np.float32
        # The pad area holds pad_value (an f32) as the data type has it (the reference casts
        # it: integers truncate, f16 rounds).
        if dtype.kind in "iu":
            pad = math.trunc(self.pad_value)
        else:
            pad = np.float32(self.pad_value).astype(dtype)
        ones = pad_array((data == 1).astype(work), begin, end, float(pad == 1))
        zeros = pad_array((data == 0).astype(work), begin, end, float(pad == 0))
        bits = np.concatenate([filters == 1, filters == 0], axis=1).astype(work)
        spatial = data.ndim - 2
        matches = convolve(np.concatenate([ones, zeros], axis=1), bits[None], 1,
                           [0] * spatial, [0] * spatial, self.strides, self.dilations)  # fmt: skip
        count = math.prod(filters.shape[1:])  # B: the bits of one output filter
        if dtype.kind in "iu":  # wraps as integer arithmetic of the data type does
            result = 2 * matches.astype(np.int64) - count
            return [result.astype(dtype)]
        return [(2 * matches - count).astype(dtype)]
