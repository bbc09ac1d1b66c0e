"""Interpolate-1, Interpolate-4, Interpolate-11: resize a tensor along some of its axes.

Spec facts:

- Interpolate-1: inputs data and output_shape (an integer 1-D tensor: the new sizes of the
  ``axes``); attributes ``axes`` (required; a set: sorted, each once), ``mode`` (required:
  ``nearest``, ``linear``, ``cubic``, ``area``; OpenVINO also takes ``linear_onnx``),
  ``align_corners``, ``antialias``, ``pads_begin``/``pads_end``. The output is the data shape
  with the ``axes`` dims replaced by output_shape's elements (pads do not enter the shape).
- Interpolate-4: inputs data, sizes (i32/i64/u32/u64), scales (f32/f16/bf16) and optional axes
  (i32/i64/u32/u64; default every axis); attributes ``mode`` (nearest, linear, linear_onnx,
  cubic), ``shape_calculation_mode`` (sizes, scales: which of the two inputs gives the output
  dims), ``coordinate_transformation_mode`` (half_pixel default, pytorch_half_pixel,
  asymmetric, tf_half_pixel_for_nn, align_corners), ``nearest_mode`` (round_prefer_floor
  default, round_prefer_ceil, floor, ceil, simple), ``antialias``, ``pads_begin``/``pads_end``
  (resized to the data rank with zeros or cut), ``cube_coeff`` (-0.75).
- Interpolate-11: inputs data, scales_or_sizes (its type follows shape_calculation_mode) and
  optional axes; every attribute of version 4, and also the modes ``bilinear_pillow`` and
  ``bicubic_pillow``.

Data types: f32, f16, bf16, f64, i8, u8, i32, i64. Output type: the data's.

Shape rule (``interpolate_shape_inference.hpp``): the inputs after the data must be 1-D;
unknown axes give a dynamic shape of the data rank; axes must lie in ``[0, rank)``; each dim
is padded by ``pads_begin + pads_end``; sizes (a constant or a partial value of a shape
sub-graph: intervals stay intervals) replace the axes dims, a scale ``s != 1`` maps each
bound ``b`` to ``int(f32(b) * (s + 1e-6))`` (f32 arithmetic); unknown sizes or scales give
``?`` on the axes; sizes or scales with fewer elements than axes are refused. A later
duplicate axis wins.

Kernel: :func:`irrun.ops._resize.resize` on the zero-padded data; in ``sizes`` mode the scales
are ``f32(size) / f32(padded dim)``. Interpolate-1 runs as OpenVINO converts it to
Interpolate-4 (``ConvertInterpolate1ToInterpolate4``): sizes mode, nearest_mode ``simple``,
``align_corners`` → align_corners, else ``linear`` (``linear_onnx`` below rank 5, ``linear``
at rank 5) with no pads and not (rank 4 with axes {2, 3}) → half_pixel, else asymmetric;
``area`` has no kernel (the conversion refuses it, and so does the CPU plugin).

Tolerances (f32 against the CPU plugin in f32): ``nearest`` is exact (the same f32 coordinate
arithmetic picks the same pixels, every nearest_mode and transform, integer and f16 data
too); ``linear_onnx``, ``cubic``, ``linear`` and the Pillow modes compute the reference's
weights in f32 and sum in f64, within ``rtol=1e-5, atol=1e-5 * max|x|`` of the plugin
(measured: below ``2e-7`` for unit-scale data); f16 data is computed in f32 and rounded once,
equal to the plugin's but for rare elements one f16 ulp off. Integer data (other than ``nearest``):
results are rounded to nearest and saturated as the CPU plugin converts them (OpenVINO's
reference truncates ``linear_onnx``/``cubic`` results and wraps out-of-range values, casts
C++ leaves undefined); they may differ from the plugin's by 1 where the exact value is a
half (the plugin sums in f32).

Where the CPU plugin departs from OpenVINO's reference, irrun follows the reference: the
plugin ignores ``antialias`` in ``linear`` mode, and ``cube_coeff`` in ``bicubic_pillow``
(it always uses Pillow's -0.5, which is what the PyTorch converter writes); the tests check
those cases against the reference evaluator.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._resize import resize
from irrun.ops._values import as_dim, elements_of, signed_ints
from irrun.ops.base import Attribute, Op, TensorInfo, lazy_text
from irrun.ops.registry import register
from irrun.shape import Dim, Shape, static_dim

_DATA_TYPES = ("f32", "f16", "bf16", "f64", "i8", "u8", "i64", "i32")
_SIZE_TYPES = ("i32", "i64", "u32", "u64")
_SCALE_TYPES = ("f32", "f16", "bf16")
_TRANSFORMS = ("half_pixel", "pytorch_half_pixel", "asymmetric", "tf_half_pixel_for_nn",
               "align_corners")  # fmt: skip
_NEAREST = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil", "simple")
_MODES = ("nearest", "linear", "linear_onnx", "cubic", "bilinear_pillow", "bicubic_pillow")
_EPSILON = np.float32(1e-6)


def scaled_dim(dim: Dim, scale: float) -> Dim:
    """``ov::util::dim::scale``: each bound times ``scale + 1e-6`` in f32, truncated.

    >>> str(scaled_dim(Dim(2, 4), 1.5)), str(scaled_dim(Dim(3, None), 2.0))
    ('3..6', '6..')
    """
    scale = np.float32(scale)
    if scale == 1:
        return dim
    scale = scale + _EPSILON

    def bound(value):
        product = np.float32(value) * scale
        return None if not np.isfinite(product) else max(0, int(product))

    upper = None if dim.upper is None else bound(dim.upper)
    if dim.is_static:
        return Dim.dynamic() if upper is None else static_dim(upper)
    lower = bound(dim.lower) or 0
    if upper is not None and upper < lower:
        return Dim.dynamic()
    return Dim(lower, upper)


class _Interpolate(Op):
    """What the versions share: data type check, padding and the axes rules."""

    def _check_data_type(self, data: TensorInfo) -> bool:
        name = data.element_type.name
        if name == "dynamic" or name in _DATA_TYPES:
            return True
        self.context.error(
            "input-type",
            f"{self.describe()}: the data is {name}, but Interpolate takes "
            f"{', '.join(_DATA_TYPES)}",
            port=self.input_port(0),
            hint="Convert the data to f32 before the Interpolate",
        )
        return False

    def _check_type(self, info: TensorInfo, index: int, what: str, allowed) -> bool:
        name = info.element_type.name
        if name == "dynamic" or name in allowed:
            return True
        self.context.error(
            "index-type" if allowed is not _SCALE_TYPES else "input-type",
            f"{self.describe()}: {what} (input {index}) is {name}, but must be "
            f"{', '.join(allowed[:-1])} or {allowed[-1]}",
            port=self.input_port(index),
            hint=f"insert a Convert to {allowed[0] if allowed is _SCALE_TYPES else 'i64'}",
        )
        return False

    def _check_1d(self, info: TensorInfo, index: int, what: str) -> bool:
        if info.shape.rank in (None, 1):
            return True
        self.context.error(
            "input-rank",
            f"{self.describe()}: {what} (input {index}) must be 1-D, but its shape is {info.shape}",
            port=self.input_port(index),
            hint=f"give {what} as a 1-D tensor, one element per interpolated axis",
        )
        return False

    def _check_axes(self, axes, rank: int, port_index=None) -> bool:
        bad = [a for a in axes if not 0 <= a < rank]
        if not bad:
            return True
        self.context.error(
            "axis-range",
            f"{self.describe()}: axes {list(axes)} must all lie in [0, {rank - 1}] for data of "
            f"rank {rank}, but {bad[0]} does not (OpenVINO takes no negative axes here)",
            port=None if port_index is None else self.input_port(port_index),
            line=self.layer.data_line if port_index is None else None,
            hint=f"use axes between 0 and {rank - 1}",
        )
        return False

    def _check_count(self, count: int, axes, index: int, what: str) -> bool:
        if count >= len(axes):
            return True
        self.context.error(
            "input-dims",
            f"{self.describe()}: {what} (input {index}) has {count} element(s), fewer than the "
            f"{len(axes)} axes {list(axes)}",
            port=self.input_port(index),
            hint=f"give one {what} element per axis",
        )
        return False


@register
class Interpolate1(_Interpolate):
    """Interpolate-1."""

    type, version = "Interpolate", 1
    inputs = (2, 2)
    attributes = (
        Attribute("axes", "ints", [], required=True),
        Attribute(
            "mode",
            "enum",
            "nearest",
            required=True,
            choices=("nearest", "linear", "cubic", "area", "linear_onnx"),
        ),  # fmt: skip
        Attribute("align_corners", "bool", False),
        Attribute("antialias", "bool", False),
        Attribute("pads_begin", "ints", [0]),
        Attribute("pads_end", "ints", [0]),
    )

    def setup(self):
        # an AxisSet: sorted, each axis once
        self.axes = sorted(set(self.axes))
        for name in ("pads_begin", "pads_end"):
            if any(p < 0 for p in getattr(self, name)):
                self.context.error(
                    "attribute-value",
                    f"{self.describe()}: {name} {getattr(self, name)} has a negative value",
                    hint=f"{name} must be zeros or positive",
                    line=self.layer.data_line,
                )
                self.incomplete = True

    def infer(self, inputs):
        """The data shape with the ``axes`` dims replaced by output_shape's elements."""
        data, target = inputs
        if not self._check_data_type(data):
            return None
        target_type = target.element_type
        if target_type.name != "dynamic" and not target_type.is_integer:
            self.context.error(
                "index-type",
                f"{self.describe()}: output_shape (input 1) must be an integer tensor, but it "
                f"is {target_type}",
                port=self.input_port(1),
                hint="insert a Convert to i64 before output_shape",
            )
            return None
        rank = data.shape.rank
        if rank is None:
            return [TensorInfo(Shape.dynamic_rank(), data.element_type, why="data of unknown rank")]
        if not self._check_axes(self.axes, rank):
            return None
        dims = list(data.shape.dims)
        elements = elements_of(target) if target.shape.rank in (None, 1) else None
        if elements is None:
            for axis in self.axes:
                dims[axis] = Dim.dynamic()
            why = lazy_text("data {}, output_shape not known: axes {} are ?", data.shape,
                            self.axes)  # fmt: skip
        else:
            if not self._check_count(len(elements), self.axes, 1, "output_shape"):
                return None
            for axis, element in zip(self.axes, elements):
                dims[axis] = as_dim(element)
            why = lazy_text("data {} with axes {} set to {}", data.shape, self.axes,
                            list(elements))  # fmt: skip
        return [TensorInfo(Shape(dims), data.element_type, why=why)]

    def evaluate(self, inputs):
        """As OpenVINO runs it: converted to Interpolate-4 in sizes mode."""
        data, target = inputs
        if self.mode == "area":
            raise ValueError(
                f"{self.describe()}: mode 'area' has no kernel (OpenVINO cannot convert "
                "Interpolate-1 with it to Interpolate-4, and its CPU plugin refuses it)"
            )
        rank = data.ndim
        begin = _fitted(self.pads_begin, rank)
        end = _fitted(self.pads_end, rank)
        if any((b or e) and axis not in self.axes for axis, (b, e) in enumerate(zip(begin, end))):
            raise ValueError(
                f"{self.describe()}: pads on axes other than {self.axes} change the data shape "
                "but not Interpolate-1's output shape; irrun does not run such a layer"
            )
        mode = self.mode
        if mode == "linear":
            mode = "linear_onnx" if rank < 5 else "linear"
        transform = "asymmetric"
        if self.align_corners:
            transform = "align_corners"
        elif (mode in ("linear", "linear_onnx") and not any(begin) and not any(end)
              and not (rank == 4 and self.axes == [2, 3])):  # fmt: skip
            transform = "half_pixel"
        padded = _padded(data, begin, end)
        sizes = [int(v) for v in np.asarray(target).reshape(-1)[: len(self.axes)]]
        out_shape = list(padded.shape)
        for axis, size in zip(self.axes, sizes):
            out_shape[axis] = size
        scales = [_ratio(s, padded.shape[a]) for a, s in zip(self.axes, sizes)]
        result = resize(padded, out_shape, self.axes, scales, mode=mode, transform=transform,
                        nearest_mode="simple", antialias=self.antialias)  # fmt: skip
        return [result]


def _ratio(size: int, length: int) -> np.float32:
    """The f32 scale ``size / length`` of sizes mode (``inf`` for an empty axis, silently)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.float32(size) / np.float32(length)


def _fitted(pads, rank: int) -> list[int]:
    """Pads resized to ``rank`` (cut, or extended with zeros), as OpenVINO resizes them."""
    return (list(pads) + [0] * rank)[:rank]


def _padded(data: np.ndarray, begin, end) -> np.ndarray:
    if not any(begin) and not any(end):
        return data
    return np.pad(data, list(zip(begin, end)))


class _Interpolate4Family(_Interpolate):
    """Interpolate-4 and -11."""

    attributes = (
        Attribute("mode", "enum", "nearest", required=True, choices=_MODES),
        Attribute(
            "shape_calculation_mode", "enum", "sizes", required=True, choices=("sizes", "scales")
        ),  # fmt: skip
        Attribute("coordinate_transformation_mode", "enum", "half_pixel", choices=_TRANSFORMS),
        Attribute("nearest_mode", "enum", "round_prefer_floor", choices=_NEAREST),
        Attribute("antialias", "bool", False),
        Attribute("pads_begin", "ints", [0]),
        Attribute("pads_end", "ints", [0]),
        Attribute("cube_coeff", "float", -0.75),
    )
    #: The modes this version takes.
    modes = _MODES
    #: Input positions of sizes, scales and axes.
    sizes_port, scales_port, axes_port = 1, 1, 2

    def setup(self):
        if self.mode not in self.modes:
            self.context.error(
                "attribute-value",
                f"{self.describe()}: mode '{self.mode}' is not supported by {self.label} "
                "(OpenVINO refuses it)",
                hint=f"use one of {', '.join(self.modes)}, or Interpolate-11",
                line=self.layer.data_line,
            )
            self.incomplete = True
        for name in ("pads_begin", "pads_end"):
            if any(p < 0 for p in getattr(self, name)):
                self.context.error(
                    "attribute-value",
                    f"{self.describe()}: {name} {getattr(self, name)} has a negative value",
                    hint=f"{name} must be zeros or positive",
                    line=self.layer.data_line,
                )
                self.incomplete = True

    @property
    def uses_scales(self) -> bool:
        """True in ``shape_calculation_mode="scales"``."""
        return self.shape_calculation_mode == "scales"

    def _check_inputs(self, inputs) -> bool:
        """Element types and ranks of the inputs after the data (per version)."""
        raise NotImplementedError

    def infer(self, inputs):
        """The padded data shape with the axes dims from sizes or scales."""
        data = inputs[0]
        if not self._check_data_type(data) or not self._check_inputs(inputs):
            return None
        rank = data.shape.rank
        etype = data.element_type
        if rank is None:
            return [TensorInfo(Shape.dynamic_rank(), etype, why="data of unknown rank")]
        axes = self._axes(inputs, rank)
        if axes is False:
            return None
        if axes is None:
            return [TensorInfo(Shape([Dim.dynamic()] * rank), etype, why="axes not known")]
        begin = _fitted(self.pads_begin, rank)
        end = _fitted(self.pads_end, rank)
        dims = [d if b + e == 0 else _pad(d, b + e) for d, b, e in zip(data.shape, begin, end)]
        if self.uses_scales:
            index = self.scales_port
            scales = _float_values(inputs[index])
            if scales is not None and not self._check_count(len(scales), axes, index, "scales"):
                return None
            for position, axis in enumerate(axes):
                dims[axis] = (
                    Dim.dynamic() if scales is None else scaled_dim(dims[axis], scales[position])
                )
            what = "scales"
            values = None if scales is None else [float(s) for s in scales]
        else:
            index = self.sizes_port
            elements = elements_of(inputs[index])
            if elements is not None and not self._check_count(len(elements), axes, index,
                                                               "sizes"):  # fmt: skip
                return None
            for position, axis in enumerate(axes):
                dims[axis] = Dim.dynamic() if elements is None else as_dim(elements[position])
            what = "sizes"
            values = None if elements is None else list(elements)
        why = lazy_text("data {} padded by {} + {}, axes {} from {} {}", data.shape, begin, end,
                        axes, what, values)  # fmt: skip
        return [TensorInfo(Shape(dims), etype, why=why)]

    def _axes(self, inputs, rank):
        """The axes (default: all), ``None`` when not known, ``False`` after an error."""
        if len(inputs) <= self.axes_port:
            return list(range(rank))
        axes = signed_ints(inputs[self.axes_port])
        if axes is None:
            return None
        if not self._check_axes(axes, rank, self.axes_port):
            return False
        return axes

    def evaluate(self, inputs):
        """Pad, then resize (:func:`irrun.ops._resize.resize`)."""
        data = inputs[0]
        rank = data.ndim
        begin = _fitted(self.pads_begin, rank)
        end = _fitted(self.pads_end, rank)
        padded = _padded(data, begin, end)
        if len(inputs) > self.axes_port:
            axes = [int(a) for a in np.asarray(inputs[self.axes_port]).reshape(-1)]
        else:
            axes = list(range(rank))
        if any(not 0 <= a < rank for a in axes):
            raise ValueError(f"{self.describe()}: axes {axes} must lie in [0, {rank - 1}]")
        out_shape = list(padded.shape)
        port = self.scales_port if self.uses_scales else self.sizes_port
        values = np.asarray(inputs[port]).reshape(-1)
        if values.size < len(axes):
            raise ValueError(
                f"{self.describe()}: {'scales' if self.uses_scales else 'sizes'} "
                f"{values.tolist()} has fewer elements than the axes {axes}"
            )
        if self.uses_scales:
            scales = list(values[: len(axes)].astype(np.float32))
            for axis, scale in zip(axes, scales):
                out_shape[axis] = scaled_dim(static_dim(padded.shape[axis]), scale).lower
        else:
            sizes = [int(v) for v in values[: len(axes)]]
            if any(s < 0 for s in sizes):
                raise ValueError(f"{self.describe()}: sizes {sizes} has a negative size")
            for axis, size in zip(axes, sizes):
                out_shape[axis] = size
            scales = [_ratio(s, padded.shape[a]) for a, s in zip(axes, sizes)]
        result = resize(padded, out_shape, axes, scales, mode=self.mode,
                        transform=self.coordinate_transformation_mode,
                        nearest_mode=self.nearest_mode, antialias=self.antialias,
                        cube_coeff=self.cube_coeff)  # fmt: skip
        return [result]


def _pad(dim: Dim, amount: int) -> Dim:
    return Dim(dim.lower + amount, None if dim.upper is None else dim.upper + amount)


def _float_values(info: TensorInfo):
    """A constant 1-D float input's values as f32 (``None`` when not a constant)."""
    if info.value is None:
        return None
    return np.asarray(info.value).reshape(-1).astype(np.float32)


@register
class Interpolate4(_Interpolate4Family):
    """Interpolate-4: data, sizes, scales and optional axes."""

    type, version = "Interpolate", 4
    inputs = (3, 4)
    modes = ("nearest", "linear", "linear_onnx", "cubic")
    sizes_port, scales_port, axes_port = 1, 2, 3

    def _check_inputs(self, inputs):
        ok = self._check_type(inputs[1], 1, "sizes", _SIZE_TYPES) and self._check_type(
            inputs[2], 2, "scales", _SCALE_TYPES
        )
        if ok and len(inputs) > 3:
            ok = self._check_type(inputs[3], 3, "axes", _SIZE_TYPES)
        if ok:
            port = 2 if self.uses_scales else 1
            ok = self._check_1d(inputs[port], port, "scales" if self.uses_scales else "sizes")
        if ok and len(inputs) > 3:
            ok = self._check_1d(inputs[3], 3, "axes")
        return ok


@register
class Interpolate11(_Interpolate4Family):
    """Interpolate-11: data, scales_or_sizes and optional axes; the Pillow modes."""

    type, version = "Interpolate", 11
    inputs = (2, 3)

    def _check_inputs(self, inputs):
        what = "scales" if self.uses_scales else "sizes"
        ok = self._check_type(inputs[1], 1, what, _SCALE_TYPES if self.uses_scales
                              else _SIZE_TYPES)  # fmt: skip
        if ok and len(inputs) > 2:
            ok = self._check_type(inputs[2], 2, "axes", _SIZE_TYPES)
        if ok:
            ok = self._check_1d(inputs[1], 1, what)
        if ok and len(inputs) > 2:
            ok = self._check_1d(inputs[2], 2, "axes")
        return ok
