"""What ConvolutionBackpropData-1 and GroupConvolutionBackpropData-1 share: attributes, the
shape rule over partial shapes and the transposed-convolution kernel.

Shape rule (``convolution_backprop_shape_inference*.hpp``): the spatial count comes from the
data rank (minus 2), else the filter rank (minus 2, or 3 with groups), else the length of a
known output_shape, else the attributes; unknown everywhere gives a dynamic rank. Without
output_shape each spatial dim is ``(D - 1) * stride + (K - 1) * dilation + 1`` plus
``output_padding - pads_begin - pads_end`` (OpenVINO's ``padded``: a negative bound becomes
unbounded, so a static dim that comes out negative is ``?`` and a negative lower bound is 0);
``same_*`` and ``valid`` take pads 0 there. With output_shape (a 1-D integer input: a
constant or a partial value of a shape sub-graph; negative values are refused) the spatial
dims are its elements; its length must be the spatial count; when its values are not known
but its length is, the dims are ``?``, and when not even its length is, OpenVINO's output has
rank 2 (``[N, C_out]``), which irrun copies. ``same_upper``/``same_lower`` with output_shape
pad by ``max(0, (D - 1) * stride + (K - 1) * dilation + 1 - out + output_padding)``, the
larger half at the beginning for ``same_upper`` (at the end for ``same_lower``). Empty
strides and dilations mean 1s, empty pads and output_padding 0s; every list needs one value
per spatial axis; strides and dilations must not be 0.

Kernel (:func:`transposed_convolve`): one batched ``np.matmul`` of the filters (transposed)
with the data gives every tap's contribution ``[N, G, C_out/G, *k, *in]``; a loop over the
kernel taps adds each one into a strided slice of the full result ``(D - 1) * stride +
(K - 1) * dilation + 1`` (the col2im step: no loop over pixels); the output is the window of
that result starting at ``pads_begin`` (zeros where it reaches past it). f16/bf16 are
computed in f32 and rounded once; integers accumulate in their own type.
"""

from __future__ import annotations

import math

import numpy as np

from irrun.ops._conv_kernel import (
    CONVOLUTION_ATTRIBUTES,
    WINDOW_ATTRIBUTES,
    attribute_lists_fit,
    ranks_fit,
    refused_boolean,
    spatial_count,
)
from irrun.ops._values import as_dim, elements_of
from irrun.ops._windows import dim_minus
from irrun.ops.base import Attribute, Op, TensorInfo, common_element_type, lazy_text
from irrun.shape import Dim, Shape, static_dim

__all__ = ["BackpropFamily", "transposed_convolve"]

_ONE = static_dim(1)
_DATA_RANK_HINT = "Reshape the data to [N, C, spatial...] with 1 to 3 spatial axes"


def _scaled(dim: Dim, factor: int) -> Dim:
    return Dim(dim.lower * factor, None if dim.upper is None else dim.upper * factor)


def _padded(dim: Dim, amount: int) -> Dim:
    """``ov::util::dim::padded``: a bound that would go below 0 becomes unbounded (-1)."""
    if amount == 0:
        return dim

    def bound(value):
        return None if value is None or value + amount < 0 else value + amount

    upper = bound(dim.upper)
    if dim.is_static:
        return Dim.dynamic() if upper is None else static_dim(upper)
    lower = bound(dim.lower)
    return Dim(0 if lower is None else lower, upper)


def full_size(size: int, kernel: int, stride: int, dilation: int) -> int:
    """The length of a transposed convolution's whole result on one axis."""
    return (size - 1) * stride + (kernel - 1) * dilation + 1


class BackpropFamily(Op):
    """Attributes and shape rule of the backward-data convolutions."""

    inputs = (2, 3)
    attributes = (*CONVOLUTION_ATTRIBUTES, Attribute("output_padding", "ints", []))
    #: Filter dims before the spatial ones (2: [C_in, C_out]; 3 with groups).
    filter_head = 2
    filter_layout = ""

    # -- shape rule -----------------------------------------------------------------------
    def infer(self, inputs):
        """Output ``[N, C_out, *spatial]`` as OpenVINO computes it over partial shapes."""
        data, filters = inputs[:2]
        etype = common_element_type(self, inputs, "data and filters", ports=(0, 1))
        if etype is None or refused_boolean(self, etype):
            return None
        has_output_shape = len(inputs) == 3
        out_spatial: list | None = []
        if has_output_shape:
            out_spatial = self._output_shape(inputs[2])
            if out_spatial is False:
                return None
        data_dims, filter_dims = data.shape.dims, filters.shape.dims
        spatial = spatial_count(self, data_dims, filter_dims, out_spatial)
        if spatial is None:
            return [TensorInfo(Shape.dynamic_rank(), etype, why="inputs of unknown rank")]
        if has_output_shape and out_spatial is not None and len(out_spatial) != spatial:
            self.context.error(
                "input-dims",
                f"{self.describe()}: output_shape (input 2) has {len(out_spatial)} element(s), "
                f"but the data has {spatial} spatial dimension(s)",
                port=self.input_port(2),
                hint="give output_shape one value per spatial dimension",
            )
            return None
        if not ranks_fit(self, data, filters, _DATA_RANK_HINT):
            return None
        attributes = self._checked_attributes(spatial)
        if attributes is None:
            return None
        strides, dilations, begin, end, output_padding = attributes
        if data_dims is None:
            data_dims = (Dim.dynamic(),) * (spatial + 2)
        if filter_dims is None:
            filter_dims = (Dim.dynamic(),) * (spatial + self.filter_head)
        channels = self._output_channels(data, filters, data_dims, filter_dims)
        if channels is None:
            return None
        out = [data_dims[0], channels]
        if has_output_shape:
            out.extend(out_spatial or [])
        else:
            if self.auto_pad != "explicit":
                begin, end = [0] * spatial, [0] * spatial
            kernel = filter_dims[self.filter_head :]
            for axis in range(spatial):
                dim = _scaled(dim_minus(data_dims[2 + axis], _ONE), strides[axis])
                window = _scaled(dim_minus(kernel[axis], _ONE), dilations[axis]) + _ONE
                extra = output_padding[axis] - begin[axis] - end[axis]
                out.append(_padded(dim + window, extra))
        why = lazy_text("data {}, filters {}", data.shape, filters.shape)
        return [TensorInfo(Shape(out), etype, why=why)]

    def _output_shape(self, info: TensorInfo):
        """The output_shape input's elements as dims (``None``: its length is not known either;
        ``False``: reported)."""
        if info.shape.rank not in (None, 1):
            self.context.error(
                "input-rank",
                f"{self.describe()}: output_shape (input 2) must be 1-D, but its shape is "
                f"{info.shape}",
                port=self.input_port(2),
                hint="give output_shape as a 1-D tensor, one value per spatial dimension",
            )
            return False
        etype = info.element_type
        if etype.name != "dynamic" and not etype.is_integer:
            self.context.error(
                "index-type",
                f"{self.describe()}: output_shape (input 2) must be an integer tensor, but it "
                f"is {etype}",
                port=self.input_port(2),
                hint="insert a Convert to i64 before output_shape",
            )
            return False
        elements = elements_of(info)
        if elements is not None:
            negative = [e for e in elements if isinstance(e, int) and e < 0]
            if negative:
                self.context.error(
                    "input-value",
                    f"{self.describe()}: output_shape (input 2) {list(elements)} has a "
                    f"negative value ({negative[0]})",
                    port=self.input_port(2),
                    hint="give the output's spatial sizes, all at least 0",
                )
                return False
            return [as_dim(e) for e in elements]
        if info.shape.is_static:
            return [Dim.dynamic()] * info.shape[0].lower
        return None

    def resized_attributes(self, spatial: int):
        """``(strides, dilations, pads_begin, pads_end, output_padding)`` with empty lists
        filled as OpenVINO fills them."""
        return (
            list(self.strides or [1] * spatial),
            list(self.dilations or [1] * spatial),
            list(self.pads_begin or [0] * spatial),
            list(self.pads_end or [0] * spatial),
            list(self.output_padding or [0] * spatial),
        )

    def _checked_attributes(self, spatial: int):
        attributes = self.resized_attributes(spatial)
        if not attribute_lists_fit(self, spatial, zip(WINDOW_ATTRIBUTES, attributes)):
            return None
        return attributes

    def _output_channels(self, data, filters, data_dims, filter_dims):
        """C_out (reporting a channel mismatch)."""
        raise NotImplementedError

    # -- kernel ---------------------------------------------------------------------------
    def _run(self, inputs, groups: int) -> np.ndarray:
        data, filters = inputs[0], inputs[1]
        spatial = data.ndim - 2
        strides, dilations, begin, end, output_padding = self.resized_attributes(spatial)
        kernel = filters.shape[-spatial:]
        sizes = data.shape[2:]
        fulls = [full_size(s, k, st, d) for s, k, st, d in zip(sizes, kernel, strides, dilations)]
        if len(inputs) == 3:
            out_sizes = [int(v) for v in np.asarray(inputs[2]).reshape(-1)]
            if len(out_sizes) != spatial or any(s < 0 for s in out_sizes):
                raise ValueError(
                    f"{self.describe()}: output_shape {out_sizes} must hold {spatial} sizes of "
                    "at least 0, one per spatial axis"
                )
            if self.auto_pad in ("same_upper", "same_lower"):
                begin = []
                for full, out, extra in zip(fulls, out_sizes, output_padding):
                    total = max(0, full - out + extra)
                    small, large = total // 2, total - total // 2
                    begin.append(large if self.auto_pad == "same_upper" else small)
            elif self.auto_pad == "valid":
                begin = [0] * spatial
        else:
            if self.auto_pad != "explicit":
                begin, end = [0] * spatial, [0] * spatial
            out_sizes = [f + p - b - e for f, p, b, e in zip(fulls, output_padding, begin, end)]
        return transposed_convolve(data, filters, groups, begin, out_sizes, strides, dilations)


def transposed_convolve(data, filters, groups, pads_begin, out_sizes, strides, dilations):
    """The transposed convolution of ``data [N, C_in, *in]`` with ``filters
    [G, C_in/G, C_out/G, *k]``: output ``[N, C_out, *out_sizes]``, position ``o`` of the
    output being position ``o + pads_begin`` of the whole result.

    >>> x = np.array([[[1.0, 2.0]]], np.float32)
    >>> w = np.array([[[[1.0, 10.0, 100.0]]]], np.float32)
    >>> transposed_convolve(x, w, 1, [0], [5], [2], [1])[0, 0].tolist()
    [1.0, 10.0, 102.0, 20.0, 200.0]
    >>> transposed_convolve(x, w, 1, [1], [3], [1], [1])[0, 0].tolist()
    [12.0, 120.0, 200.0]
    """
    dtype = data.dtype
    work = np.float32 if (dtype.kind == "f" and dtype.itemsize < 4) or dtype.kind == "V" else dtype
    data = data.astype(work, copy=False)
    filters = filters.astype(work, copy=False)
    batch, channels, *sizes = data.shape
    _, per_group, out_per_group, *kernel = filters.shape
    spatial = len(sizes)
    fulls = [full_size(s, k, st, d) for s, k, st, d in zip(sizes, kernel, strides, dilations)]
    # every tap's contribution: [N, G, C_out/G * prod(k), prod(in)]
    weights = filters.reshape(groups, per_group, out_per_group * math.prod(kernel))
    columns = np.matmul(
        np.swapaxes(weights, 1, 2), data.reshape(batch, groups, per_group, math.prod(sizes))
    )
    columns = columns.reshape(batch, groups * out_per_group, *kernel, *sizes)
    full = np.zeros((batch, groups * out_per_group, *fulls), work)
    for tap in np.ndindex(*kernel):
        target = tuple(
            slice(t * d, t * d + (s - 1) * st + 1, st)
            for t, d, s, st in zip(tap, dilations, sizes, strides)
        )
        full[(slice(None), slice(None), *target)] += columns[(slice(None), slice(None), *tap)]
    # the output window [pads_begin, pads_begin + out) of the whole result, zeros outside it
    out = np.zeros((batch, groups * out_per_group, *out_sizes), work)
    source, target = [slice(None)] * 2, [slice(None)] * 2
    for axis in range(spatial):
        first = max(0, pads_begin[axis])
        last = min(fulls[axis], pads_begin[axis] + out_sizes[axis])
        if last <= first:
            return out.astype(dtype)
        source.append(slice(first, last))
        target.append(slice(first - pads_begin[axis], last - pads_begin[axis]))
    out[tuple(target)] = full[tuple(source)]
    return out.astype(dtype, copy=False)
