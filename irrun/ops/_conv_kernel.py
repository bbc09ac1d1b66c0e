"""The forward convolutions (Convolution-1, GroupConvolution-1, BinaryConvolution-1): what they
share, their attributes, shape rule and GEMM kernel.

Shape rule (OpenVINO's ``convolution_shape_inference_util.hpp``): the number of spatial axes
comes from the data rank (minus 2), else the filter rank (minus 2, or 3 for groups), else the
length of strides/dilations/pads; when none says, the output rank is dynamic. Data rank must
be 3, 4 or 5; strides, dilations and pads (empty pads mean zeros) need one value per spatial
axis, strides and dilations no zero. Spatial dims follow :mod:`irrun.ops._windows`; with a
static padded data dim and a static dilated kernel, the kernel must fit. Element types: data
and filters alike and numeric (boolean is refused).

Negative pads: OpenVINO's shape rule turns a negative ``pads_begin + pads_end`` into ``?``
(-1) or 0 (below), and its CPU plugin cannot compile them; irrun infers the same shapes and
refuses to run such a layer (a negative pad balanced by a positive one runs: it crops).

Kernels (:func:`convolve` picks one with :func:`choose_method`):

- im2col GEMM (the general case): the padded data (``np.pad``; negative pads crop) is viewed as
  windows ``[N, C, *out, *k]`` with ``as_strided`` (strides and dilations folded into the
  view's strides), copied once into the im2col matrix ``[N, G, C/G * prod(k), prod(out)]`` and
  multiplied by the filters ``[G, C_out/G, C/G * prod(k)]`` in one batched ``np.matmul``
  (groups batched); the result is already in ``[N, C_out, *out]`` order. When the im2col
  matrix would exceed :data:`TILE_BYTES`, output rows (the first spatial axis) are done in
  tiles.
- pointwise (1x1 kernels): one ``np.matmul`` of the filters with the data itself (a copy only
  for pads or strides).
- tap columns (grouped, at most :data:`TAP_MAX_CHANNELS` ``C_in/G * C_out/G``, depthwise
  first of all): the padded data is split once into its stride phases, where every kernel
  tap reads one contiguous slice; a loop over the taps copies those slices into columns for
  a block of ``N * G`` rows that fits in cache (:data:`TAP_BLOCK_BYTES`), multiplied by the
  filters in one batched ``np.matmul`` per block (the im2col GEMM of thousands of tiny groups
  at once made columns far larger than the caches). Outputs are computed on the phase grid
  and the few extra columns of each row cropped.

All sum the same ``C/G * prod(k)`` products per output in a ``np.matmul``. f16/bf16 are
computed in f32 and rounded once; integer types accumulate in their own type (wrapping alike
in every kernel).

The tap loop's work arrays live in buffers each thread reuses (:func:`_scratch`). ``out=``
writes the result into a given array (the executor's ``evaluate_into``). The tap loop runs in
the calling thread: splitting the groups over worker threads was slower at 2 threads (its
many small NumPy calls hand the GIL back and forth); the GEMMs use the BLAS threads.
"""

from __future__ import annotations

import math
import threading
from functools import lru_cache

import numpy as np

from irrun.ops._windows import (
    AUTO_PADS,
    conv_output_dim,
    data_rank_fits,
    pad_array,
    resolve_pads,
    window_view,
)
from irrun.ops.base import Attribute, Op, TensorInfo, common_element_type, lazy_text
from irrun.shape import Dim, Shape, static_dim

__all__ = [
    "ConvolutionFamily",
    "UngroupedConvolution",
    "convolve",
    "choose_method",
    "TILE_BYTES",
    "refused_boolean",
    "spatial_count",
    "ranks_fit",
    "attribute_lists_fit",
    "divided_dim",
    "times_dim",
]

#: Largest im2col matrix built at once; bigger ones are built per tile of output rows.
TILE_BYTES = 64 << 20

#: Grouped convolutions with at most this many ``C_in/G * C_out/G`` use the tap loop
#: (depthwise: 1).
TAP_MAX_CHANNELS = 64

#: Column bytes per block of rows in the tap loop (so that they stay in cache).
TAP_BLOCK_BYTES = 1 << 20


#: The attributes of every convolution (the backward-data ones add ``output_padding``).
CONVOLUTION_ATTRIBUTES = (
    Attribute("strides", "ints", [], required=True),
    Attribute("pads_begin", "ints", [], required=True),
    Attribute("pads_end", "ints", [], required=True),
    Attribute("dilations", "ints", [], required=True),
    Attribute("auto_pad", "enum", "explicit", choices=AUTO_PADS),
)


class ConvolutionFamily(Op):
    """Attributes and shape rule of the forward convolutions (subclasses: ``groups``)."""

    inputs = (2, 2)
    attributes = CONVOLUTION_ATTRIBUTES
    memoizable = False  # (each reads its own weights: no two layers are the same)
    #: Filter dims before the spatial ones (2: [C_out, C_in]; 3 with groups).
    filter_head = 2

    # -- shape rule -----------------------------------------------------------------------
    def infer(self, inputs):
        """Output ``[N, C_out, *spatial]`` as OpenVINO computes it over partial shapes."""
        data, filters = inputs
        etype = self._output_type(inputs)
        if etype is None:
            return None
        data_dims, filter_dims = data.shape.dims, filters.shape.dims
        spatial = spatial_count(self, data_dims, filter_dims)
        if spatial is None:
            return [TensorInfo(Shape.dynamic_rank(), etype, why="inputs of unknown rank")]
        if not ranks_fit(self, data, filters):
            return None
        pads = self._checked_attributes(spatial)
        if pads is None:
            return None
        if data_dims is None:
            data_dims = (Dim.dynamic(),) * (spatial + 2)
        if filter_dims is None:
            filter_dims = (Dim.dynamic(),) * (spatial + self.filter_head)
        channels = self._output_channels(data, filters, data_dims, filter_dims, inputs)
        if channels is None:
            return None
        sizes = data_dims[2:]
        kernel = filter_dims[self.filter_head :]
        kernel_ints = [k.lower if k.is_static else None for k in kernel]
        begin, end = resolve_pads(
            self.auto_pad, *pads, sizes, kernel_ints, self.dilations, self.strides
        )
        auto = self.auto_pad in ("same_upper", "same_lower")
        out = [data_dims[0], channels]
        for axis in range(spatial):
            size, extent, pads = sizes[axis], kernel[axis], begin[axis] + end[axis]
            if not auto and size.lower == size.upper and extent.lower == extent.upper and pads >= 0:
                # static axis, what conv_output_dim gives, on ints
                padded = size.lower + pads
                window = max(0, extent.lower - 1) * self.dilations[axis] + 1
                if window > padded:
                    self._window_error(axis, extent, window, size, begin, end, padded)
                    return None
                out.append(static_dim((padded - window) // self.strides[axis] + 1))
                continue
            dim, padded, window = conv_output_dim(
                sizes[axis],
                kernel[axis],
                self.dilations[axis],
                self.strides[axis],
                begin[axis],
                end[axis],
                auto,
            )
            if padded is not None and padded.is_static and window.is_static:
                if window.lower > padded.lower:
                    self._window_error(axis, kernel[axis], window, sizes[axis], begin, end,
                                       padded)  # fmt: skip
                    return None
            out.append(dim)
        shape = Shape(out)
        return [
            TensorInfo(
                shape, etype, why=lazy_text("data {}, filters {}", data.shape, filters.shape)
            )
        ]

    def _output_type(self, inputs):
        """The output element type: data and filters alike and not boolean (``None``:
        reported)."""
        etype = common_element_type(self, inputs, "data and filters")
        if etype is None or refused_boolean(self, etype):
            return None
        return etype

    def _window_error(self, axis, extent, window, size, begin, end, padded) -> None:
        self.context.error(
            "input-dims",
            f"{self.describe()}: spatial axis {axis}: the dilated kernel "
            f"({extent} - 1) * {self.dilations[axis]} + 1 = {window} is larger "
            f"than the padded data {size} + {begin[axis]} + {end[axis]} = "
            f"{padded}",
            port=self.input_port(0),
            hint="use a smaller kernel or dilation, or more padding",
        )

    def _checked_attributes(self, spatial: int):
        begin = self.pads_begin or [0] * spatial
        end = self.pads_end or [0] * spatial
        named = (self.strides, self.dilations, begin, end)
        if not attribute_lists_fit(self, spatial, zip(WINDOW_ATTRIBUTES, named)):
            return None
        return begin, end

    def _output_channels(self, data, filters, data_dims, filter_dims, inputs):
        """C_out (reporting a channel mismatch)."""
        raise NotImplementedError

    filter_layout = ""

    # -- kernel ---------------------------------------------------------------------------
    def _run(self, data: np.ndarray, filters: np.ndarray, groups: int, out=None) -> np.ndarray:
        """:func:`convolve` with the layer's attributes (into ``out`` when given); the pads
        resolved for a data and filter shape are remembered (a run repeats them)."""
        key = (data.shape, filters.shape)
        pads = self.__dict__.get("_resolved_pads")
        if pads is None:
            pads = self._resolved_pads = {}
        found = pads.get(key)
        if found is None:
            found = self._resolve(data, filters)
            if len(pads) < 16:
                pads[key] = found
        begin, end = found
        return convolve(data, filters, groups, begin, end, self.strides, self.dilations, out=out)

    def _resolve(self, data: np.ndarray, filters: np.ndarray):
        spatial = data.ndim - 2
        kernel = filters.shape[-spatial:]
        sizes = [Dim(s) for s in data.shape[2:]]
        begin, end = resolve_pads(
            self.auto_pad,
            self.pads_begin or [0] * spatial,
            self.pads_end or [0] * spatial,
            sizes,
            list(kernel),
            self.dilations,
            self.strides,
        )
        short = [i for i, (b, e) in enumerate(zip(begin, end)) if b + e < 0]
        if short:
            axis = short[0]
            raise ValueError(
                f"pads_begin {begin[axis]} + pads_end {end[axis]} < 0 on spatial axis {axis}: "
                "OpenVINO's shape inference does not subtract negative pads totals (it gives "
                "'?' for -1 and ignores lower ones) and its CPU plugin cannot compile them, so "
                "irrun does not run this layer"
            )
        return begin, end


class UngroupedConvolution(ConvolutionFamily):
    """A convolution whose filters are ``[C_out, C_in, *kernel]`` (Convolution,
    BinaryConvolution): C_out from the filters, C_in checked against the data's channels."""

    def _output_channels(self, data, filters, data_dims, filter_dims, inputs):
        if not data_dims[1].compatible(filter_dims[1]):
            self.context.error(
                "input-dims",
                f"{self.describe()}: the data {data.shape} has {data_dims[1]} input channels "
                f"(dimension 1), but the filters {filters.shape} expect {filter_dims[1]} "
                "(their dimension 1)",
                port=self.input_port(1),
                hint="filters are [C_out, C_in, *kernel]: C_in must equal the data's channels",
            )
            return None
        return filter_dims[0]


WINDOW_ATTRIBUTES = ("strides", "dilations", "pads_begin", "pads_end", "output_padding")
_INFINITE = 2**63 - 1  # OpenVINO's unbounded upper bound, which its arithmetic divides too


# -- shape-rule helpers shared with the backward-data convolutions (irrun.ops._backprop) --------
def refused_boolean(op: Op, etype) -> bool:
    """Report boolean data and filters (``True``: refused)."""
    if etype.kind != "bool":
        return False
    op.context.error(
        "input-type",
        f"{op.describe()}: element types must be numeric, but data and filters are boolean",
        port=op.input_port(0),
        hint="Convert the inputs to a numeric type",
    )
    return True


def spatial_count(op: Op, data_dims, filter_dims, out_spatial=None) -> int | None:
    """The number of spatial axes: from the data rank, else the filter rank (minus
    ``op.filter_head``), else a known ``out_spatial`` list, else the first non-empty of
    strides, dilations and pads (``None``: nothing says)."""
    if data_dims is not None:
        return max(len(data_dims) - 2, 0)
    if filter_dims is not None:
        return max(len(filter_dims) - op.filter_head, 0)
    if out_spatial:
        return len(out_spatial)
    for values in (op.strides, op.dilations, op.pads_begin, op.pads_end):
        if values:
            return len(values)
    return None


def ranks_fit(op: Op, data: TensorInfo, filters: TensorInfo, data_hint=None) -> bool:
    """Report data of a rank other than 3 to 5, and filters whose rank is not the data's plus
    ``op.filter_head - 2`` (``False``: reported)."""
    data_dims, filter_dims = data.shape.dims, filters.shape.dims
    if not data_rank_fits(op, data, data_hint):
        return False
    if data_dims is not None and filter_dims is not None:
        wanted = len(data_dims) + op.filter_head - 2
        if len(filter_dims) != wanted:
            op.context.error(
                "input-rank",
                f"{op.describe()}: data {data.shape} (rank {len(data_dims)}) needs filters of "
                f"rank {wanted}, but the filters are {filters.shape} (rank {len(filter_dims)})",
                port=op.input_port(1),
                hint=op.filter_layout,
            )
            return False
    return True


def attribute_lists_fit(op: Op, spatial: int, named) -> bool:
    """Report an attribute list (``(name, values)`` pairs) without one value per spatial axis,
    and strides or dilations below 1 (``False``: reported)."""
    named = list(named)
    for name, values in named:
        if len(values) != spatial:
            op.context.error(
                "attribute-value",
                f"{op.describe()}: {name} has {len(values)} value(s) "
                f"({','.join(map(str, values)) or 'empty'}), but the data has {spatial} "
                "spatial dimension(s)",
                hint=f"give {name} one value per spatial dimension",
                line=op.layer.data_line,
            )
            return False
    for name, values in named:
        if name in ("strides", "dilations") and any(v <= 0 for v in values):
            op.context.error(
                "attribute-value",
                f"{op.describe()}: {name} {','.join(map(str, values))} has a value below 1",
                hint=f"{name} must be positive",
                line=op.layer.data_line,
            )
            return False
    return True


def divided_dim(dim: Dim, divisor: int) -> Dim | None:
    """``Dimension / divisor``: bounds rounded inward (in double precision, as OpenVINO does,
    an unbounded upper bound is divided like a number: ``2.. / 2`` is
    ``1..4611686018427387904``); ``?`` stays ``?``; ``None``: no whole quotient."""
    if divisor == 1 or (dim.lower == 0 and dim.upper is None):
        return dim
    lower = math.ceil(float(dim.lower) / divisor)
    upper = math.floor(float(_INFINITE if dim.upper is None else dim.upper) / divisor)
    if upper < lower:
        return None
    return Dim(lower, upper)


def times_dim(a: Dim, b: Dim) -> Dim:
    """Interval product with OpenVINO's saturation at the unbounded value."""

    def bound(x, y):
        if x == 0 or y == 0:
            return 0
        if x is None or y is None or x >= _INFINITE or y >= _INFINITE or x > _INFINITE // y:
            return None
        return x * y

    return Dim(bound(a.lower, b.lower) or 0, bound(a.upper, b.upper))


def convolve(
    data, filters, groups, pads_begin, pads_end, strides, dilations, method=None, out=None
) -> np.ndarray:
    """Grouped N-d convolution of ``data [N, G*Cg, *S]`` with ``filters [G, Og, Cg, *k]``.

    Returns ``[N, G*Og, *out]`` in ``data``'s dtype. ``method`` forces a kernel (``"taps"``,
    ``"pointwise"``, ``"gemm"``); ``None`` picks one with :func:`choose_method`. ``out``: an
    array of the result's shape and dtype, overlapping neither input, that the result is
    written into (and returned); the same values as without it, bit for bit (the products
    are the same ``np.matmul`` calls, written there directly when ``out`` is C-contiguous and
    of the working dtype, else copied).

    Examples
    --------
    >>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    >>> w = np.ones((1, 1, 1, 2, 2), np.float32)
    >>> convolve(x, w, 1, [0, 0], [0, 0], [2, 2], [1, 1])[0, 0].tolist()
    [[10.0, 18.0], [42.0, 50.0]]
    >>> convolve(x, w, 1, [0, 0], [0, 0], [2, 2], [1, 1], method="taps")[0, 0].tolist()
    [[10.0, 18.0], [42.0, 50.0]]
    """
    dtype = data.dtype
    if (method is None and dtype.kind in "fiu" and dtype.itemsize >= 4
            and filters.dtype == dtype and data.size and filters.size
            and filters.shape[3:] == (1,) * (data.ndim - 2)
            and not any(pads_begin) and not any(pads_end)
            and all(s == 1 for s in strides)):  # fmt: skip
        # A 1x1 kernel on the data itself (most of a MobileNet): the pointwise kernel's one
        # np.matmul, without the general path's bookkeeping.
        return _direct_pointwise(data, filters, groups, out)
    work = np.float32 if (dtype.kind == "f" and dtype.itemsize < 4) or dtype.kind == "V" else dtype
    data = data.astype(work, copy=False)
    filters = filters.astype(work, copy=False)
    batch = data.shape[0]
    _, out_per_group, per_group, *kernel = filters.shape
    sizes = [s + b + e for s, b, e in zip(data.shape[2:], pads_begin, pads_end)]
    windows = [(k - 1) * d + 1 for k, d in zip(kernel, dilations)]
    for axis, (padded, window) in enumerate(zip(sizes, windows)):
        if window > padded:  # (the shape rule's check, for shapes that were dynamic)
            raise ValueError(f"spatial axis {axis}: the dilated kernel {window} is larger than "
                             f"the padded data {padded}")  # fmt: skip
    out_sizes = [(p - w) // s + 1 for p, w, s in zip(sizes, windows, strides)]
    if math.prod(out_sizes) * batch * groups * out_per_group * per_group * math.prod(kernel) == 0:
        # nothing to compute, or sums over nothing
        if out is not None:
            out[...] = 0
            return out
        empty = np.zeros((batch, groups * out_per_group, *out_sizes), work)
        return empty.astype(dtype)
    if method is None:
        method = choose_method(groups, per_group, out_per_group, kernel)
    return _convolve(data, filters, groups, pads_begin, pads_end, strides, dilations, out_sizes,
                     method, dtype, out)  # fmt: skip


def _convolve(data, filters, groups, pads_begin, pads_end, strides, dilations, out_sizes,
              method, dtype, out):  # fmt: skip
    """:func:`convolve` on inputs of the working dtype with the kernel chosen: into ``out``
    when given, else a new array of ``dtype``."""
    work = data.dtype
    kernel = filters.shape[3:]
    # The kernels write into ``target`` (the caller's array) when it can take the working
    # dtype's products as they are.
    target = None
    if out is not None and out.dtype == work and out.flags.c_contiguous:
        target = out
    if method == "taps":
        # (the outputs are computed on the phase grid and cropped: always a copy)
        result = _tap_loop(
            data, filters, groups, pads_begin, pads_end, strides, dilations, out_sizes, target
        )
    elif method == "pointwise" and all(k == 1 for k in kernel):
        result = _pointwise(data, filters, groups, pads_begin, pads_end, strides, out_sizes, target)
    else:
        result = _gemm(
            data, filters, groups, pads_begin, pads_end, strides, dilations, out_sizes, target
        )
    if out is not None:
        if result is not out:
            np.copyto(out, result, casting="unsafe")  # (f16/bf16: rounded once, as astype)
        return out
    if result.flags.c_contiguous:
        return result.astype(dtype, copy=False)
    return result.astype(dtype, order="C")


def choose_method(groups: int, per_group: int, out_per_group: int, kernel) -> str:
    """The kernel :func:`convolve` uses: ``"pointwise"`` for 1x1 kernels, ``"taps"`` for
    groups with few input and output channels (:data:`TAP_MAX_CHANNELS`; depthwise is
    1 x 1), else ``"gemm"``."""
    if all(k == 1 for k in kernel):
        return "pointwise"
    if groups > 1 and per_group * out_per_group <= TAP_MAX_CHANNELS:
        return "taps"
    return "gemm"


def _gemm(data, filters, groups, pads_begin, pads_end, strides, dilations, out_sizes,
          target=None):  # fmt: skip
    """The im2col GEMM: ``[N, G*Og, *out]`` (written into ``target`` when given)."""
    work = data.dtype
    batch = data.shape[0]
    _, out_per_group, per_group, *kernel = filters.shape
    spatial = len(kernel)
    padded = pad_array(data, pads_begin, pads_end, 0)
    depth = per_group * math.prod(kernel)
    weights = filters.reshape(groups, out_per_group, depth)
    result = None
    row_bytes = batch * groups * depth * math.prod(out_sizes[1:]) * work.itemsize
    rows_per_tile = max(1, TILE_BYTES // max(row_bytes, 1))
    order = (0, 1, 2, *range(3 + spatial, 3 + 2 * spatial), *range(3, 3 + spatial))
    for first in range(0, out_sizes[0], rows_per_tile):
        rows = min(rows_per_tile, out_sizes[0] - first)
        tile = padded[:, :, first * strides[0] :]
        view = window_view(tile, [rows, *out_sizes[1:]], kernel, strides, dilations)
        view = view.reshape(batch, groups, per_group, rows, *out_sizes[1:], *kernel)
        # [N, G, Cg, *k, *out] copied into the im2col matrix [N, G, Cg*prod(k), prod(out)]
        columns = view.transpose(order).reshape(batch, groups, depth, -1)
        if rows == out_sizes[0]:
            if target is not None:
                np.matmul(weights, columns, out=target.reshape(batch, groups, out_per_group, -1))
                return target
            product = np.matmul(weights, columns)
            return product.reshape(batch, groups * out_per_group, *out_sizes)
        product = np.matmul(weights, columns)
        if result is None:
            result = (np.empty((batch, groups, out_per_group, *out_sizes), work)
                      if target is None
                      else target.reshape(batch, groups, out_per_group, *out_sizes))  # fmt: skip
        result[:, :, :, first : first + rows] = product.reshape(
            batch, groups, out_per_group, rows, *out_sizes[1:]
        )
    if target is not None:
        return target
    return result.reshape(batch, groups * out_per_group, *out_sizes)


def _pointwise(data, filters, groups, pads_begin, pads_end, strides, out_sizes, target=None):
    """A 1x1 kernel: one ``np.matmul`` of the filters ``[G, Og, Cg]`` with the (strided)
    data itself, ``[N, G, Cg, prod(out)]`` (copied only when strides or pads require it);
    written into ``target`` when given."""
    batch = data.shape[0]
    _, out_per_group, per_group, *_ = filters.shape
    padded = pad_array(data, pads_begin, pads_end, 0)
    picked = padded[
        (
            slice(None),
            slice(None),
            *(slice(0, (o - 1) * s + 1, s) for o, s in zip(out_sizes, strides)),
        )
    ]
    columns = picked.reshape(batch, groups, per_group, -1)
    weights = filters.reshape(groups, out_per_group, per_group)
    if target is not None:
        np.matmul(weights, columns, out=target.reshape(batch, groups, out_per_group, -1))
        return target
    product = np.matmul(weights, columns)
    return product.reshape(batch, groups * out_per_group, *out_sizes)


def _direct_pointwise(data, filters, groups, out):
    """:func:`_pointwise` of unpadded, unstrided data of the filters' (native) dtype, into
    ``out`` when given: the same ``np.matmul``."""
    batch = data.shape[0]
    _, out_per_group, per_group, *_ = filters.shape
    columns = data.reshape(batch, groups, per_group, -1)
    weights = filters.reshape(groups, out_per_group, per_group)
    if out is not None and out.dtype == data.dtype and out.flags.c_contiguous:
        np.matmul(weights, columns, out=out.reshape(batch, groups, out_per_group, -1))
        return out
    product = np.matmul(weights, columns).reshape(batch, groups * out_per_group, *data.shape[2:])
    if out is not None:
        np.copyto(out, product, casting="unsafe")
        return out
    return product


def _phase_grid(data, pads_begin, pads_end, strides, scratch=False):
    """The padded data split into stride phases: ``([N, C, prod(strides), prod(Q)], Q)``
    (``scratch``: in this thread's reused buffer, :func:`_scratch`, valid until the next call).

    Phase ``r`` (one index per axis, ``0 <= r < stride``) holds the padded positions
    ``stride * q + r`` for ``q < Q = ceil(padded / stride)``; positions past the padded data
    are zeros. A tap at padded offset ``t * dilation`` then reads phase ``t*d % s`` from
    ``t*d // s`` on with step 1, so every tap is a contiguous slice of a flat phase. With
    unit strides the single phase is the padded data (the data itself without pads).
    """
    if min(pads_begin) < 0 or min(pads_end) < 0:  # negative pads crop
        data = pad_array(data, [min(b, 0) for b in pads_begin], [min(e, 0) for e in pads_end],
                         0)  # fmt: skip
    begin = [max(b, 0) for b in pads_begin]
    end = [max(e, 0) for e in pads_end]
    batch, channels, *sizes = data.shape
    padded = [s + b + e for s, b, e in zip(sizes, begin, end)]
    steps = [-(-p // s) for p, s in zip(padded, strides)]
    phases = math.prod(strides)
    if phases == 1 and not any(begin) and not any(end):
        return np.ascontiguousarray(data).reshape(batch, channels, 1, -1), steps
    shape = (batch, channels, *strides, *steps)
    # A reused buffer is zeroed where no data goes (the pads, the ends past them) only.
    grid = _scratch(0, shape, data.dtype) if scratch else np.zeros(shape, data.dtype)
    every = (slice(None), slice(None))
    for phase in np.ndindex(*strides):
        target, source = [], []
        for r, b, s, size in zip(phase, begin, strides, sizes):
            first = max(0, -(-(b - r) // s))  # the first q whose position s*q + r is data
            start = s * first + r - b
            if start >= size:
                break
            count = (size - 1 - start) // s + 1
            target.append(slice(first, first + count))
            source.append(slice(start, None, s))
        else:
            grid[(*every, *phase, *target)] = data[(*every, *source)]
            if scratch:
                for axis, (kept, count) in enumerate(zip(target, steps)):
                    before = (slice(None),) * axis
                    if kept.start:
                        grid[(*every, *phase, *before, slice(0, kept.start))] = 0
                    if kept.stop < count:
                        grid[(*every, *phase, *before, slice(kept.stop, None))] = 0
            continue
        if scratch:
            grid[(*every, *phase)] = 0  # no data in this phase
    return grid.reshape(batch, channels, phases, -1), steps


def _tap_runs(kernel, strides, dilations, pitches) -> tuple:
    """The kernel taps grouped by stride phase, each group a regular grid of offsets:
    ``[(phase, start, counts, steps, taps)]``, where the group's taps read flat phase
    ``phase`` from ``start + sum(k[a] * steps[a])`` (``0 <= k[a] < counts[a]``) and ``taps``
    are their flat indices in the kernel, in that order.

    On one axis, the taps ``t`` whose offset ``t * d`` has residue ``r`` modulo the stride
    ``s`` are every ``s / gcd(s, d)``-th tap from the first one, and their positions on the
    phase grid, ``t * d // s``, step by ``d / gcd(s, d)``."""
    # (pure, and every run asks again for the same layers: remembered)
    return _tap_runs_of(tuple(kernel), tuple(strides), tuple(dilations), tuple(pitches))


@lru_cache(maxsize=256)
def _tap_runs_of(kernel, strides, dilations, pitches) -> tuple:
    per_axis = []
    for k, s, d in zip(kernel, strides, dilations):
        step = s // math.gcd(s, d)
        residues = {}
        for first in range(min(step, k)):
            residues[first * d % s] = (first, len(range(first, k, step)), step)
        per_axis.append(residues)
    runs = []
    for phase in np.ndindex(*strides):
        if not all(r in residues for r, residues in zip(phase, per_axis)):
            continue  # no tap reads this phase
        picked = [residues[r] for r, residues in zip(phase, per_axis)]
        start = sum(first * d // s * p for (first, _, _), d, s, p in
                    zip(picked, dilations, strides, pitches))  # fmt: skip
        counts = [count for _, count, _ in picked]
        steps = [step * d // s * p for (_, _, step), d, s, p in
                 zip(picked, dilations, strides, pitches)]  # fmt: skip
        taps = [int(np.ravel_multi_index([f + k * st for (f, _, st), k in zip(picked, index)],
                                         kernel))
                for index in np.ndindex(*counts)]  # fmt: skip
        runs.append((int(np.ravel_multi_index(phase, strides)), start, counts, steps, taps))
    return tuple(runs)


def _tap_loop(data, filters, groups, pads_begin, pads_end, strides, dilations, out_sizes,
              target=None):  # fmt: skip
    """Few channels per group (depthwise): the im2col GEMM on the stride-phase grid, built
    per block of rows so that the columns stay in cache.

    Outputs are computed on the grid of the stride phases (:func:`_phase_grid`): output
    ``o`` sits at flat index ``sum(o[a] * pitch[a])`` of a phase, so the inputs of one
    kernel tap are one contiguous slice of its phase, and the taps that read one phase are
    a regular grid of such slices (:func:`_tap_runs`): one strided view, copied at once (all
    batches, groups, channels, taps and pixels of a block) into the columns
    ``[rows, Cg * prod(k), span]``; one batched ``np.matmul`` with the filters
    ``[rows, Og, Cg * prod(k)]`` gives the block's outputs. Rows (``N * G``) are blocked so
    that the columns take about :data:`TAP_BLOCK_BYTES`. The few extra columns of each output
    row (``Q - out`` on the inner axes) are computed too and cropped block by block, into
    ``target`` when given and C-contiguous (else a new array).

    The phase grid, the columns and the uncropped outputs live in buffers this thread reuses
    from call to call (:func:`_scratch`): big arrays allocated anew would have their pages
    faulted in (and zeroed by the system) on every run.
    """
    batch = data.shape[0]
    _, out_per_group, per_group, *kernel = filters.shape
    work = data.dtype
    grid, steps = _phase_grid(data, pads_begin, pads_end, strides, scratch=True)
    pitches = [math.prod(steps[a + 1 :]) for a in range(len(steps))]
    span = sum((o - 1) * p for o, p in zip(out_sizes, pitches)) + 1
    rows = batch * groups
    source = grid.reshape(rows, per_group, grid.shape[2], grid.shape[3])
    runs = _tap_runs(kernel, strides, dilations, pitches)
    order = [tap for *_, taps in runs for tap in taps]
    depth = per_group * len(order)
    # the filters' taps in the order of the runs: [rows, Og, Cg * taps]
    weights = filters.reshape(groups, out_per_group, per_group, -1)[..., order]
    weights = weights.reshape(groups, out_per_group, depth)
    if batch > 1:
        weights = np.broadcast_to(weights, (batch, *weights.shape))
        weights = weights.reshape(rows, out_per_group, depth)
    block = max(1, min(rows, TAP_BLOCK_BYTES // (depth * span * work.itemsize)))
    item = work.itemsize
    # Each run's taps as one strided view over all rows (made once; blocks slice it), built
    # on the contiguous grid's buffer (NumPy checks that it stays inside; as_strided would
    # cost several microseconds more per view).
    views = []
    flat = source.shape[3]
    for phase, start, counts, tap_steps, taps in runs:
        view = np.ndarray((rows, per_group, *counts, span), work, buffer=source,
                          offset=(phase * flat + start) * item,
                          strides=(*source.strides[:2], *(t * item for t in tap_steps),
                                   item))  # fmt: skip
        view.flags.writeable = False
        views.append((view, len(taps), counts))
    columns = _scratch(2, (block, per_group, len(order), span), work)
    # A block's outputs on the phase grid, cropped into the result block by block (while
    # they are in cache).
    row_cells = out_sizes[0] * pitches[0]
    products = _scratch(1, (block, out_per_group, row_cells), work)
    if target is None or not target.flags.c_contiguous:
        target = np.empty((batch, groups * out_per_group, *out_sizes), work)
    # [N, G*Og, *out] as [rows, Og, *out] (a view: the target is C-contiguous)
    result = target.reshape(rows, out_per_group, *out_sizes)
    crop = (Ellipsis, *(slice(0, o) for o in out_sizes[1:]))
    for low in range(0, rows, block):
        high = min(rows, low + block)
        tile = columns[: high - low]
        first = 0
        for view, count, counts in views:
            # (splitting one axis of a slice of the contiguous tile is always a view)
            slots = tile[:, :, first : first + count]
            slots.reshape(high - low, per_group, *counts, span)[...] = view[low:high]
            first += count
        product = products[: high - low]
        np.matmul(weights[low:high], tile.reshape(high - low, depth, span),
                  out=product[:, :, :span])  # fmt: skip
        grid_rows = product.reshape(high - low, out_per_group, out_sizes[0], *steps[1:])
        result[low:high] = grid_rows[crop]
    return target


#: Largest buffer kept per thread for the tap loop's work arrays; bigger ones are allocated
#: per call.
SCRATCH_MAX_BYTES = 8 << 20

_scratch_buffers = threading.local()


def _scratch(index: int, shape, dtype) -> np.ndarray:
    """Work array ``index`` of this thread (uninitialised), ``shape`` and ``dtype`` seen in a
    byte buffer kept between calls (grown when too small, at most
    :data:`SCRATCH_MAX_BYTES`); valid until the next call asks for the same ``index``."""
    need = math.prod(shape) * np.dtype(dtype).itemsize
    if need > SCRATCH_MAX_BYTES:
        return np.empty(shape, dtype)
    buffers = getattr(_scratch_buffers, "buffers", None)
    if buffers is None:
        buffers = _scratch_buffers.buffers = {}
    buffer = buffers.get(index)
    if buffer is None or buffer.nbytes < need:
        # 64-byte aligned, as NumPy's own allocations are for SIMD loops
        buffer = buffers[index] = _aligned(need)
    return buffer[:need].view(dtype).reshape(shape)


def _aligned(size: int) -> np.ndarray:
    raw = np.empty(size + 64, np.uint8)
    offset = -raw.ctypes.data % 64
    return raw[offset : offset + size]
