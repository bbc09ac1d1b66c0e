"""DeformableConvolution-1 and DeformableConvolution-8: a 2-D convolution whose kernel taps
sample the data at learned fractional offsets (bilinear interpolation), with an optional
modulation mask (version 8).

Spec facts: inputs data ``[N, C, H, W]``, offsets ``[N, DG * KH * KW * 2, OH, OW]`` (per
deformable group and tap: the y offset, then the x offset), filters ``[C_out, C/G, KH, KW]``
and, in version 8, an optional mask ``[N, DG * KH * KW, OH, OW]`` (its element type may
differ; the other three must share one numeric type). Attributes ``strides``,
``pads_begin``, ``pads_end``, ``dilations`` (required), ``auto_pad``, ``group`` and
``deformable_group`` (default 1, at least 1); version 8 adds ``bilinear_interpolation_pad``
(default false). Input channel ``c`` belongs to deformable group ``c // (C / DG)``.

Shape rule (``deformable_convolution_shape_inference.hpp``): every input must be of rank 4;
the output is ``[N, C_out, *spatial]`` with the forward convolution's spatial rule
(:mod:`irrun.ops._windows`); the data's channels must be divisible by ``group`` and
compatible with ``C/G * group``; ``C_out`` divisible by ``group``; the offsets' channels
compatible with ``KH * KW * 2 * DG`` and divisible by ``DG``, their batch merged into the
output's; the mask's channels compatible with ``KH * KW * DG``, its batch with the data's;
the offsets' and the mask's spatial dims compatible with the output's.

Values (OpenVINO's reference): tap ``(ky, kx)`` of output ``(oy, ox)`` samples
``y = oy * stride - pad_begin + ky * dilation + offset_y`` (``x`` alike, in f32). Without
``bilinear_interpolation_pad`` a sample outside ``[0, H) x [0, W)`` contributes nothing and
the corners are clamped into the data; with it, a sample inside ``(-1, H) x (-1, W)`` is
interpolated with zeros for the corners outside. The contribution is the interpolated value
times the filter times the mask.

Kernel: vectorised over every batch, group, tap and output pixel: the four corners' flat
indices and weights are computed at once, gathered with ``np.take_along_axis`` into the
columns ``[N, G, C/G * KH * KW, OH * OW]``, multiplied by the filters in one batched
``np.matmul``. Tolerance (f32 against the CPU plugin in f32): ``rtol=1e-5, atol=1e-5 *
sqrt(K) * max|x| * max|w|`` with ``K = C/G * KH * KW``.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._conv_kernel import CONVOLUTION_ATTRIBUTES, divided_dim, times_dim
from irrun.ops._windows import conv_output_dim, resolve_pads
from irrun.ops.base import Attribute, Op, TensorInfo, common_element_type, lazy_text
from irrun.ops.registry import register
from irrun.shape import Dim, Shape, static_dim

_NAMES = ("data", "offsets", "filters", "mask")
_F32 = np.float32


class _DeformableConvolution(Op):
    inputs = (3, 3)
    attributes = (
        *CONVOLUTION_ATTRIBUTES,
        Attribute("group", "int", 1),
        Attribute("deformable_group", "int", 1),
        Attribute("bilinear_interpolation_pad", "bool", False, since=8),
    )
    bilinear_interpolation_pad = False

    def setup(self):
        for name in ("group", "deformable_group"):
            if getattr(self, name) < 1:
                self.context.error(
                    "attribute-value",
                    f"{self.describe()}: {name} {getattr(self, name)} must be at least 1",
                    hint=f'write {name}="1" or more',
                    line=self.layer.data_line,
                )
                self.incomplete = True

    # -- shape rule -----------------------------------------------------------------------
    def _mismatch(self, port: int, message: str, hint: str):
        self.context.error("input-dims", f"{self.describe()}: {message}",
                           port=self.input_port(port), hint=hint)  # fmt: skip

    def infer(self, inputs):
        """``[N, C_out, OH, OW]`` as OpenVINO computes it over partial shapes."""
        data, offsets, filters = inputs[:3]
        etype = common_element_type(self, inputs, "data, offsets and filters", ports=(0, 1, 2))
        if etype is None:
            return None
        if etype.kind == "bool":
            self.context.error(
                "input-type",
                f"{self.describe()}: element types must be numeric, but the inputs are boolean",
                port=self.input_port(0),
                hint="Convert the inputs to a numeric type",
            )
            return None
        shapes = [info.shape for info in inputs]
        for index, shape in enumerate(shapes):
            if shape.rank not in (None, 4):
                self.context.error(
                    "input-rank",
                    f"{self.describe()}: {_NAMES[index]} must be of rank 4, but it is {shape} "
                    f"(rank {shape.rank}); irrun, like OpenVINO, takes 2-D deformable "
                    "convolutions only",
                    port=self.input_port(index),
                    hint=f"give {_NAMES[index]} as a 4-D tensor",
                )
                return None
        if all(s.rank is None for s in shapes[:3]):
            return [TensorInfo(Shape.dynamic_rank(), etype, why="inputs of unknown rank")]
        if not self._check_attributes():
            return None
        dynamic = (Dim.dynamic(),) * 4
        data_dims = data.shape.dims or dynamic
        offset_dims = offsets.shape.dims
        filter_dims = filters.shape.dims
        mask_dims = inputs[3].shape.dims if len(inputs) > 3 else None
        group, deformable = self.group, self.deformable_group
        if filter_dims is not None and mask_dims is not None:
            taps = times_dim(filter_dims[2], filter_dims[3])
            wanted = times_dim(taps, static_dim(deformable))
            if not mask_dims[1].compatible(wanted):
                return self._mismatch(
                    3,
                    f"the mask {inputs[3].shape} has {mask_dims[1]} channels, but filters "
                    f"{filters.shape} with deformable_group {deformable} need KH * KW * DG = "
                    f"{wanted}",
                    "the mask has one channel per kernel tap and deformable group",
                )
        if mask_dims is not None:
            if divided_dim(mask_dims[1], deformable) is None:
                return self._mismatch(
                    3,
                    f"the mask's channels {mask_dims[1]} are not divisible by "
                    f"deformable_group {deformable}",
                    "the mask has KH * KW * DG channels",
                )
            if data.shape.rank is not None and not mask_dims[0].compatible(data_dims[0]):
                return self._mismatch(
                    3,
                    f"the mask {inputs[3].shape} has batch {mask_dims[0]}, the data "
                    f"{data.shape} {data_dims[0]}",
                    "give the mask the data's batch size",
                )
        if data.shape.rank is not None and divided_dim(data_dims[1], group) is None:
            return self._mismatch(
                0,
                f"the data's channels {data_dims[1]} are not divisible by group {group}",
                "the data's channels must be a multiple of group",
            )
        batch = data_dims[0]
        if offset_dims is not None:
            if filter_dims is not None:
                taps = times_dim(filter_dims[2], filter_dims[3])
                wanted = times_dim(times_dim(taps, static_dim(2)), static_dim(deformable))
                if not offset_dims[1].compatible(wanted):
                    return self._mismatch(
                        1,
                        f"the offsets {offsets.shape} have {offset_dims[1]} channels, but "
                        f"filters {filters.shape} with deformable_group {deformable} need "
                        f"KH * KW * 2 * DG = {wanted}",
                        "the offsets hold a y and an x channel per kernel tap and deformable group",
                    )
            if divided_dim(offset_dims[1], deformable) is None:
                return self._mismatch(
                    1,
                    f"the offsets' channels {offset_dims[1]} are not divisible by "
                    f"deformable_group {deformable}",
                    "the offsets have KH * KW * 2 * DG channels",
                )
            batch = batch.merge(offset_dims[0])
            if batch is None:
                return self._mismatch(
                    1,
                    f"the offsets {offsets.shape} have batch {offset_dims[0]}, the data "
                    f"{data.shape} {data_dims[0]}",
                    "give the offsets the data's batch size",
                )
        channels = Dim.dynamic()
        if filter_dims is not None:
            if divided_dim(filter_dims[0], group) is None:
                return self._mismatch(
                    2,
                    f"the filters' output channels {filter_dims[0]} are not divisible by "
                    f"group {group}",
                    "C_out must be a multiple of group",
                )
            expected = times_dim(filter_dims[1], static_dim(group))
            if data.shape.rank is not None and not data_dims[1].compatible(expected):
                return self._mismatch(
                    2,
                    f"the data {data.shape} has {data_dims[1]} channels, but the filters "
                    f"{filters.shape} with group {group} take C/G * G = {expected}",
                    "filters are [C_out, C/G, KH, KW]",
                )
            channels = filter_dims[0]
        spatial = self._spatial_dims(data_dims, filter_dims or dynamic)
        if spatial is None:
            return None
        for index, dims in ((1, offset_dims), (3, mask_dims)):
            if dims is not None and not all(a.compatible(b) for a, b in zip(spatial, dims[2:])):
                return self._mismatch(
                    index,
                    f"the {_NAMES[index]} {inputs[index].shape} have spatial dims "
                    f"{Shape(dims[2:])}, but the output's are {Shape(spatial)}",
                    f"give the {_NAMES[index]} one value per output pixel",
                )
        shape = Shape([batch, channels, *spatial])
        why = lazy_text("data {}, filters {}", data.shape, filters.shape)
        return [TensorInfo(shape, etype, why=why)]

    def _check_attributes(self) -> bool:
        begin = self.pads_begin or [0, 0]
        end = self.pads_end or [0, 0]
        for name, values in (("strides", self.strides), ("dilations", self.dilations),
                             ("pads_begin", begin), ("pads_end", end)):  # fmt: skip
            if len(values) != 2 or (name in ("strides", "dilations") and min(values) < 1):
                problem = (f"has {len(values)} value(s) ({','.join(map(str, values)) or 'empty'})"
                           ", but the convolution has 2 spatial dimensions" if len(values) != 2
                           else f"{','.join(map(str, values))} has a value below 1")  # fmt: skip
                self.context.error(
                    "attribute-value",
                    f"{self.describe()}: {name} {problem}",
                    hint=f"give {name} two positive values"
                    if name[0] != "p"
                    else f"give {name} two values",
                    line=self.layer.data_line,
                )
                return False
        return True

    def _pads(self, sizes, kernel):
        return resolve_pads(self.auto_pad, self.pads_begin or [0, 0], self.pads_end or [0, 0],
                            sizes, kernel, self.dilations, self.strides)  # fmt: skip

    def _spatial_dims(self, data_dims, filter_dims):
        sizes = data_dims[2:]
        kernel = filter_dims[2:]
        kernel_ints = [k.lower if k.is_static else None for k in kernel]
        begin, end = self._pads(sizes, kernel_ints)
        auto = self.auto_pad in ("same_upper", "same_lower")
        out = []
        for axis in range(2):
            dim, padded, window = conv_output_dim(sizes[axis], kernel[axis], self.dilations[axis],
                                                  self.strides[axis], begin[axis], end[axis],
                                                  auto)  # fmt: skip
            if padded is not None and padded.is_static and window.is_static:
                if window.lower > padded.lower:
                    self.context.error(
                        "input-dims",
                        f"{self.describe()}: spatial axis {axis}: the dilated kernel "
                        f"({kernel[axis]} - 1) * {self.dilations[axis]} + 1 = {window} is larger "
                        f"than the padded data {sizes[axis]} + {begin[axis]} + {end[axis]} = "
                        f"{padded}",
                        port=self.input_port(0),
                        hint="use a smaller kernel or dilation, or more padding",
                    )
                    return None
            out.append(dim)
        return out

    # -- kernel ---------------------------------------------------------------------------
    def evaluate(self, inputs):
        """Bilinear samples of every tap gathered into columns, then one batched GEMM."""
        data, offsets, filters = inputs[:3]
        mask = inputs[3] if len(inputs) > 3 else None
        n, c = data.shape[:2]
        taps = filters.shape[2] * filters.shape[3]
        out = self._out_sizes(data.shape, filters.shape)
        dg = self.deformable_group
        expected = {1: (n, taps * 2 * dg, *out), 3: (n, taps * dg, *out)}
        for index, array in ((1, offsets), (3, mask)):
            if array is not None and array.shape != expected[index]:
                raise ValueError(
                    f"{self.describe()}: {_NAMES[index]} {list(array.shape)} must be "
                    f"{list(expected[index])} for data {list(data.shape)} and filters "
                    f"{list(filters.shape)}"
                )
        if c % self.group or c % dg or c != filters.shape[1] * self.group:
            raise ValueError(
                f"{self.describe()}: data {list(data.shape)} does not fit filters "
                f"{list(filters.shape)} with group {self.group} and deformable_group {dg}"
            )
        return [deformable_convolve(
            data, offsets, filters, mask, self._pads([static_dim(s) for s in data.shape[2:]],
                                                      list(filters.shape[2:]))[0],
            self.strides, self.dilations, self.group, self.deformable_group,
            self.bilinear_interpolation_pad, self._out_sizes(data.shape, filters.shape),
        )]  # fmt: skip

    def _out_sizes(self, data_shape, filter_shape):
        dims = self._spatial_dims([static_dim(s) for s in data_shape],
                                  [static_dim(s) for s in filter_shape])  # fmt: skip
        return [d.lower for d in dims]


def deformable_convolve(data, offsets, filters, mask, pads_begin, strides, dilations, groups,
                        deformable_groups, pad_mode, out_sizes):  # fmt: skip
    """The deformable convolution of ``data [N, C, H, W]`` (see the module docstring);
    ``mask`` ``None`` means ones."""
    dtype = data.dtype
    n, c, h, w = data.shape
    c_out, per_group, kh, kw = filters.shape
    oh, ow = out_sizes
    taps = kh * kw
    dg = deformable_groups
    off = offsets.astype(_F32).reshape(n, dg, taps, 2, oh, ow)
    tap_y = np.repeat(np.arange(kh) * dilations[0], kw).astype(_F32)
    tap_x = np.tile(np.arange(kw) * dilations[1], kh).astype(_F32)
    base_y = (np.arange(oh) * strides[0] - pads_begin[0]).astype(_F32)
    base_x = (np.arange(ow) * strides[1] - pads_begin[1]).astype(_F32)
    # sample positions [N, DG, K, OH, OW], in f32 as the reference adds them
    y = (base_y[:, None] + tap_y[:, None, None]) + off[:, :, :, 0]
    x = (base_x[None, :] + tap_x[:, None, None]) + off[:, :, :, 1]
    if pad_mode:
        inside = (x > -1) & (x < w) & (y > -1) & (y < h)
        y1, x1 = np.floor(y), np.floor(x)
        y2, x2 = y1 + 1, x1 + 1
    else:
        inside = (x >= 0) & (x < w) & (y >= 0) & (y < h)
        y1, x1 = np.maximum(np.floor(y), 0), np.maximum(np.floor(x), 0)
        y2, x2 = np.minimum(np.ceil(y), h - 1), np.minimum(np.ceil(x), w - 1)
    dy, dx = (y - y1).astype(_F32), (x - x1).astype(_F32)
    one = _F32(1)
    scale = inside.astype(_F32) if mask is None else inside * mask.astype(_F32).reshape(
        n, dg, taps, oh, ow)  # fmt: skip
    corners = (
        (y1, x1, (one - dx) * (one - dy)),
        (y2, x1, (one - dx) * dy),
        (y1, x2, dx * (one - dy)),
        (y2, x2, dx * dy),
    )
    work = np.float64 if dtype.kind == "f" and dtype.itemsize == 8 else _F32
    flat = data.astype(work).reshape(n, dg, c // dg, h * w)
    columns = np.zeros((n, dg, c // dg, taps * oh * ow), work)
    for cy, cx, weight in corners:
        valid = (cy >= 0) & (cy < h) & (cx >= 0) & (cx < w)
        index = (np.clip(cy, 0, h - 1) * w + np.clip(cx, 0, w - 1)).astype(np.int64)
        factor = np.where(valid, weight, _F32(0)) * scale
        gathered = np.take_along_axis(flat, index.reshape(n, dg, 1, -1), axis=3)
        columns += gathered * factor.reshape(n, dg, 1, -1).astype(work)
    # [N, C, K, P] -> [N, G, C/G * K, P]
    columns = columns.reshape(n, groups, per_group * taps, oh * ow)
    weights = filters.astype(work).reshape(groups, c_out // groups, per_group * taps)
    out = np.matmul(weights, columns).reshape(n, c_out, oh, ow)
    if dtype.kind in "iu":
        out = np.trunc(out)
    return out.astype(dtype)


@register
class DeformableConvolution1(_DeformableConvolution):
    """DeformableConvolution-1: data, offsets, filters."""

    type, version = "DeformableConvolution", 1


@register
class DeformableConvolution8(_DeformableConvolution):
    """DeformableConvolution-8: an optional mask and ``bilinear_interpolation_pad``."""

    type, version = "DeformableConvolution", 8
    inputs = (3, 4)
