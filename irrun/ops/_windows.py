"""Window arithmetic shared by the convolutions and poolings: pads, auto_pad, strides,
dilations, rounding, over partial shapes, and the strided window views their kernels use.

Shape rules (OpenVINO's ``convolution_shape_inference_util.hpp``,
``pooling_shape_inference_util.hpp`` and ``dimension_util.hpp``), for each spatial axis with
data dim ``D``, kernel ``k``, dilation ``d``, stride ``s`` and pads ``pb``/``pe``:

- dilated kernel ``K = (k - 1) * d + 1`` (interval arithmetic, clipped at 0);
- ``explicit``: pads as written (OpenVINO's IR reader refuses ``notset``); ``valid``: pads 0;
  ``same_upper``/``same_lower`` (static ``D``): total pad
  ``max(0, (ceil(D / s) - 1) * s + K - D)``, the odd pixel at the end (upper) or at the
  beginning (lower);
- convolution: ``floor((D + pb + pe - K) / s) + 1``, or ``ceil(D / s)`` with ``same_*``;
- pooling: ``floor`` or ``ceil((D + pb + pe - K) / s) + 1``; ``ceil_torch`` (MaxPool-14,
  AvgPool-14/16) drops the last window when it would start in the end padding; ``same_*`` over
  a non-static ``D`` gives ``?``.

OpenVINO adds the pads as one ``Dimension`` built from ``pb + pe``: a sum of ``-1`` is the
dynamic dimension and a sum below ``-1`` clips to ``0``, so ``D=5`` with pads ``-1, 0`` gives
``3..`` and with ``-2, 0`` gives ``3``. irrun copies that for the shape; its kernel crops
negative pads as the reference does. Convolutions accept negative pads. Poolings (whose
specification allows pads from 0) are refused by OpenVINO with a negative ``pads_begin`` (its
CPU plugin cannot compile them), a sum of ``-1`` over static data, or any negative pad with
exclude-pad (errors); a negative ``pads_end`` it can use is a ``negative-pad`` warning. Under
``auto_pad`` same_*/valid the written pads are ignored.
Subtraction clips at 0 (``1..10 - 3 = 0..7``); division rounds each bound.
"""

from __future__ import annotations

import numpy as np

from irrun.ops.base import Attribute, Op, TensorInfo
from irrun.shape import Dim, Shape, static_dim

__all__ = [
    "AUTO_PADS",
    "dim_plus",
    "dim_minus",
    "floor_div",
    "ceil_div",
    "dilated",
    "same_padding",
    "resolve_pads",
    "conv_output_dim",
    "pool_output_dim",
    "window_view",
    "pad_array",
    "PoolingFamily",
    "pooling_attributes",
]

AUTO_PADS = ("explicit", "same_upper", "same_lower", "valid")  # OpenVINO refuses "notset"
_ONE = static_dim(1)


def dim_plus(dim: Dim, amount: int) -> Dim:
    """``dim + Dimension(amount)`` as OpenVINO computes it (``-1`` is ``?``; below clips to 0)."""
    if amount == -1:
        return dim + Dim.dynamic()
    if amount <= 0:
        return dim
    return dim + static_dim(amount)


def dim_minus(dim: Dim, other: Dim) -> Dim:
    """Interval subtraction clipped at 0 (``Interval::operator-``)."""
    lower = 0 if other.upper is None else max(0, dim.lower - other.upper)
    upper = None if dim.upper is None else max(0, dim.upper - other.lower)
    return Dim(lower, upper)


def floor_div(dim: Dim, divisor: int) -> Dim:
    """Each bound divided, rounded down (an unbounded upper stays unbounded)."""
    upper = None if dim.upper is None else dim.upper // divisor
    return Dim(dim.lower // divisor, upper)


def ceil_div(dim: Dim, divisor: int) -> Dim:
    """Each bound divided, rounded up."""
    upper = None if dim.upper is None else -(-dim.upper // divisor)
    return Dim(-(-dim.lower // divisor), upper)


def dilated(dim: Dim, dilation: int) -> Dim:
    """``(dim - 1) * dilation + 1`` over an interval (clipped as OpenVINO clips)."""
    reduced = dim_minus(dim, _ONE)
    upper = None if reduced.upper is None else reduced.upper * dilation + 1
    return Dim(reduced.lower * dilation + 1, upper)


def same_padding(size: int, kernel: int, dilation: int, stride: int) -> tuple[int, int]:
    """``(smaller half, larger half)`` of the total padding ``same_*`` needs for one axis."""
    window = (kernel - 1) * dilation + 1
    total = max(0, (-(-size // stride) - 1) * stride + window - size)
    return total // 2, total - total // 2


def resolve_pads(auto_pad, pads_begin, pads_end, sizes, kernel, dilations, strides):
    """The pads actually applied: ``sizes`` are the spatial data dims (``Dim``; non-static ones
    get 0 under ``same_*``, as in OpenVINO); ``kernel`` ints (``None`` entries: unknown)."""
    count = len(strides)
    if auto_pad == "valid":
        return [0] * count, [0] * count
    if auto_pad in ("same_upper", "same_lower"):
        begin, end = [], []
        for size, k, d, s in zip(sizes, kernel, dilations, strides):
            if size.is_static and k is not None:
                low, high = same_padding(size.lower, k, d, s)
            else:
                low = high = 0
            if auto_pad == "same_upper":
                begin.append(low)
                end.append(high)
            else:
                begin.append(high)
                end.append(low)
        return begin, end
    return list(pads_begin), list(pads_end)


def conv_output_dim(
    size: Dim, kernel: Dim, dilation: int, stride: int, pad_begin: int, pad_end: int, auto: bool
):
    """``(output dim, padded data dim, dilated kernel)`` of one convolution axis; the caller
    checks ``dilated kernel <= padded`` when both are static."""
    if auto:
        return ceil_div(size, stride), None, None
    padded = dim_plus(size, pad_begin + pad_end)
    window = dilated(kernel, dilation)
    out = floor_div(dim_minus(padded, window), stride) + _ONE
    return out, padded, window


def pool_output_dim(
    size: Dim,
    kernel: int,
    dilation: int,
    stride: int,
    pad_begin: int,
    pad_end: int,
    rounding: str,
    auto: bool,
):
    """``(output dim, padded data dim, dilated kernel)`` of one pooling axis."""
    if auto and not size.is_static:
        return Dim.dynamic(), None, None
    padded = dim_plus(size, pad_begin + pad_end)
    window = (kernel - 1) * dilation + 1
    reduced = dim_minus(padded, static_dim(window))
    if rounding == "floor":
        return floor_div(reduced, stride) + _ONE, padded, window
    divided = ceil_div(reduced, stride)
    if rounding == "ceil":
        return divided + _ONE, padded, window
    # ceil_torch: one more window only when it starts inside data or begin padding
    lower = _torch_bound(divided.lower, stride, size.lower, pad_begin)
    if size.is_static:
        return static_dim(lower), padded, window
    if size.upper is None:
        return Dim(lower, None), padded, window
    upper = _torch_bound(divided.upper, stride, size.upper, pad_begin)
    return Dim(lower, upper), padded, window


def _torch_bound(count: int | None, stride: int, size: int, pad_begin: int):
    if count is None:
        return None
    limit = size + pad_begin - 1  # size_t in OpenVINO: -1 wraps to the largest value
    if limit < 0 or not count * stride > limit:
        return count + 1
    return count


def pad_array(data: np.ndarray, begin, end, value) -> np.ndarray:
    """``data`` with its spatial axes (2 onwards) padded by ``begin``/``end`` (negative pads
    crop) with ``value``."""
    crop = [slice(None), slice(None)]
    widths = [(0, 0), (0, 0)]
    for b, e, size in zip(begin, end, data.shape[2:]):
        crop.append(slice(max(0, -b), size - max(0, -e)))
        widths.append((max(0, b), max(0, e)))
    if any(b < 0 or e < 0 for b, e in zip(begin, end)):
        data = data[tuple(crop)]
    if any(w != (0, 0) for w in widths):
        data = np.pad(data, widths, constant_values=value)
    return data


def window_view(padded: np.ndarray, out_sizes, kernel, strides, dilations) -> np.ndarray:
    """A read-only view ``[N, C, *out_sizes, *kernel]`` of the windows of ``padded`` (which must
    be large enough for every window)."""
    head = padded.strides[:2]
    spatial = padded.strides[2:]
    shape = (*padded.shape[:2], *out_sizes, *kernel)
    steps = (
        *head,
        *(st * s for st, s in zip(spatial, strides)),
        *(st * d for st, d in zip(spatial, dilations)),
    )
    return np.lib.stride_tricks.as_strided(padded, shape, steps, writeable=False)


# -- the poolings' shared attributes, shape rule and window gathering --------------------------


def data_rank_fits(op: Op, data: TensorInfo, hint=None) -> bool:
    """Report data of a rank other than 3 to 5 (``[N, C, spatial...]`` of a convolution or a
    pooling; ``False``: reported)."""
    dims = data.shape.dims
    if dims is not None and len(dims) not in (3, 4, 5):
        op.context.error(
            "input-rank",
            f"{op.describe()}: data must be 3-D, 4-D or 5-D ([N, C, spatial...]), but it "
            f"is {data.shape} (rank {len(dims)})",
            port=op.input_port(0),
            hint=hint,
        )
        return False
    return True


class PoolingFamily(Op):
    """Attributes and shape rule of MaxPool and AvgPool (every version)."""

    inputs = (1, 1)
    #: Whether the version takes ``rounding_type="ceil_torch"`` (MaxPool-14, AvgPool-14/16).
    torch_rounding = False
    #: Whether the version has ``dilations``.
    has_dilations = False
    dilations = None
    exclude_pad = False

    def setup(self):
        if self.rounding_type == "ceil_torch" and not self.torch_rounding:
            self.context.error(
                "attribute-value",
                f"{self.describe()}: rounding_type 'ceil_torch' is not supported by "
                f"{self.label} (OpenVINO refuses it)",
                hint=f"use floor or ceil, or {self.type}-14",
                line=self.layer.data_line,
            )
            self.incomplete = True

    def spatial_dilations(self) -> list[int]:
        """The dilations (all 1 where the version has none or the IR gives none)."""
        return list(self.dilations or [1] * len(self.kernel))

    def pooled_shape(self, data: TensorInfo) -> Shape | None:
        """The output shape of ``data`` (reporting problems; ``None`` then)."""
        kernel = self.kernel
        count = len(kernel)
        dilations = self.spatial_dilations()
        pads_begin = self.pads_begin or [0] * count
        pads_end = self.pads_end or [0] * count
        dims = data.shape.dims
        problem = None
        if not data_rank_fits(self, data, "Reshape the data to [N, C, spatial...] with 1 to 3 "
                              "spatial axes"):  # fmt: skip
            return None
        for name, values in (
            ("pads_begin", pads_begin),
            ("pads_end", pads_end),
            ("strides", self.strides),
            ("dilations", dilations),
        ):
            if len(values) != count:
                problem = (
                    f"{name} has {len(values)} value(s) "
                    f"({','.join(map(str, values)) or 'empty'}) for a kernel of {count}"
                )
                break
        else:
            if dims is not None and count != len(dims) - 2:
                problem = (
                    f"the kernel {','.join(map(str, kernel))} has {count} value(s), but "
                    f"the data {data.shape} has {len(dims) - 2} spatial dimension(s)"
                )
            else:
                problem = _value_problem(kernel, self.strides, dilations)
                if problem is None and self.auto_pad == "explicit":  # (else pads are ignored)
                    problem = self._pad_problem(pads_begin, pads_end, dims)
        if problem is not None:
            problem, hint = problem if isinstance(problem, tuple) else (problem, None)
            self.context.error(
                "attribute-value",
                f"{self.describe()}: {problem}",
                hint=hint
                or "give kernel, strides, dilations and pads one value per spatial dimension",
                line=self.layer.data_line,
            )
            return None
        if dims is None:
            return Shape([Dim.dynamic()] * (count + 2))
        for index, what in ((0, "batch size"), (1, "channel count")):
            if dims[index] == 0:
                self.context.error(
                    "input-dims",
                    f"{self.describe()}: the data {data.shape} has a {what} of zero",
                    port=self.input_port(0),
                    hint="the batch and channel dims must be at least 1",
                )
                return None
        sizes = dims[2:]
        begin, end = resolve_pads(
            self.auto_pad, pads_begin, pads_end, sizes, kernel, dilations, self.strides
        )
        auto = self.auto_pad in ("same_upper", "same_lower")
        out = [dims[0], dims[1]]
        for axis in range(count):
            dim, padded, window = pool_output_dim(
                sizes[axis],
                kernel[axis],
                dilations[axis],
                self.strides[axis],
                begin[axis],
                end[axis],
                self.rounding_type,
                auto,
            )
            if sizes[axis].is_static and padded is not None:
                if window > padded.lower:
                    self.context.error(
                        "input-dims",
                        f"{self.describe()}: spatial axis {axis}: the dilated kernel "
                        f"({kernel[axis]} - 1) * {dilations[axis]} + 1 = {window} is larger than "
                        f"the padded data {sizes[axis]} + {begin[axis]} + {end[axis]} = {padded}",
                        port=self.input_port(0),
                        hint="use a smaller kernel or more padding",
                    )
                    return None
                if self.exclude_pad and not (window > begin[axis] and window > end[axis]):
                    self.context.error(
                        "attribute-value",
                        f"{self.describe()}: spatial axis {axis}: the kernel ({window} after "
                        f"dilation) is not larger than pads {begin[axis]}, {end[axis]}, so with "
                        "exclude-pad some windows hold only padding",
                        hint="use smaller pads or a larger kernel",
                        line=self.layer.data_line,
                    )
                    return None
            out.append(dim)
        return Shape(out)

    def _pad_problem(self, pads_begin, pads_end, dims):
        """``(message, hint)`` for explicit pads that OpenVINO cannot use, or ``None``; a
        negative end pad it can use (the axis' pad sum below -1, which its shape rule takes
        as 0) gets a warning, as the specification allows only pads from 0."""
        hint = "make every pad at least 0 (the specification's range)"
        listed = ",".join(map(str, pads_begin))
        bad = [v for v in pads_begin if v < 0]
        if bad:
            message = (f"pads_begin {listed} has a negative value ({bad[0]}); the "
                       "specification allows pads from 0 and OpenVINO's CPU plugin cannot "
                       "compile it")  # fmt: skip
            return message, hint
        ends = ",".join(map(str, pads_end))
        for axis, (begin, end) in enumerate(zip(pads_begin, pads_end)):
            if end >= 0:
                continue
            static = dims is None or dims[axis + 2].is_static
            if begin + end == -1 and static:
                return (f"pads_end {ends} has a negative value ({end}); with pads_begin "
                        f"{listed} the pads of spatial axis {axis} add up to -1, which "
                        "OpenVINO's shape rule cannot use", hint)  # fmt: skip
            if self.exclude_pad:
                message = (f"pads_end {ends} has a negative value ({end}); with exclude-pad "
                           "OpenVINO refuses it (its check 'kernel > pad_end' fails)")  # fmt: skip
                return message, hint
        negative = [v for v in pads_end if v < 0]
        if negative:
            self.context.warning(
                "negative-pad",
                f"{self.describe()}: pads_end {ends} has a negative value ({negative[0]}), "
                "outside the specification's range; OpenVINO's shape rule counts a pad sum "
                "below -1 as 0 (its CPU plugin pads the beginning and crops the end to fit), "
                "and so does irrun",
                hint=hint,
                line=self.layer.data_line,
            )
        return None

    def windows(self, data: np.ndarray, fill):
        """``(view [N, C, *out, *kernel] of data padded with fill, pads_begin, pads_end)``; the
        end is padded beyond ``pads_end`` where ceil rounding needs it (``fill`` there too)."""
        count = len(self.kernel)
        dilations = self.spatial_dilations()
        sizes = [static_dim(s) for s in data.shape[2:]]
        begin, end = resolve_pads(
            self.auto_pad,
            self.pads_begin or [0] * count,
            self.pads_end or [0] * count,
            sizes,
            self.kernel,
            dilations,
            self.strides,
        )
        auto = self.auto_pad in ("same_upper", "same_lower")
        out_sizes, extended = [], []
        for axis in range(count):
            dim, padded, window = pool_output_dim(
                sizes[axis],
                self.kernel[axis],
                dilations[axis],
                self.strides[axis],
                begin[axis],
                end[axis],
                self.rounding_type,
                auto,
            )
            if padded is not None and window > padded.lower:  # (pooled_shape's check, for
                # shapes that were dynamic in the file)
                raise ValueError(f"spatial axis {axis}: the dilated kernel {window} is larger "
                                 f"than the padded data {padded.lower}")  # fmt: skip
            out = dim.lower
            out_sizes.append(out)
            reach = (out - 1) * self.strides[axis] + window if out else 0
            extended.append(max(end[axis], reach - sizes[axis].lower - begin[axis]))
        padded = pad_array(data, begin, extended, fill)
        view = window_view(padded, out_sizes, self.kernel, self.strides, dilations)
        return view, begin, end, extended


def _value_problem(kernel, strides, dilations):
    """``(message, hint)`` for the first window attribute OpenVINO refuses (a kernel value,
    a stride or a dilation below 1), or ``None``."""
    for name, values in (("kernel", kernel), ("strides", strides), ("dilations", dilations)):
        bad = [v for v in values if v < 1]
        if bad:
            listed = ",".join(map(str, values))
            # (OpenVINO's shape rule lets a kernel of 0 over a dynamic axis through, as 1..; the
            # kernel, wrapped to 2**64 - 1, is refused when the CPU plugin compiles the model)
            when = " (over a dynamic axis, when it compiles the model)" if name == "kernel" else ""
            return (
                f"{name} {listed} has a value below 1 ({bad[0]}); OpenVINO refuses it{when}",
                f"make every {name} value at least 1",
            )
    return None


def pooling_attributes(*, rounding=("floor", "ceil"), dilations_since=None, extra=()):
    """The declared attributes of a pooling op version."""
    declared = [
        Attribute("strides", "ints", [], required=True),
        Attribute("pads_begin", "ints", [], required=True),
        Attribute("pads_end", "ints", [], required=True),
        Attribute("kernel", "ints", [], required=True),
        Attribute("rounding_type", "enum", "floor", choices=("floor", "ceil", "ceil_torch")),
        Attribute("auto_pad", "enum", "explicit", choices=AUTO_PADS),
    ]
    if dilations_since is not None:
        declared.append(Attribute("dilations", "ints", [], since=dilations_since))
    return tuple(declared) + tuple(extra)
