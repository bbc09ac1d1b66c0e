"""The resize kernels of Interpolate (every version): source coordinates, nearest pixels and
the per-axis weight matrices of the linear, cubic and Pillow modes.

Every mode of OpenVINO's reference (``reference/interpolate.hpp``, ``interpolate_pil.hpp``)
is *separable*: an output element is a sum over the interpolated axes of products of one
weight per axis (``linear_onnx``: the 2^n corners; ``cubic``: 4^n taps; ``linear``: the
triangle filter with antialias, normalised by the product of the per-axis weight sums;
Pillow: two passes). So irrun builds, for each interpolated axis, its taps: source indices
and weights ``[out, taps]`` from the output coordinates (computed in f32 exactly as the
reference computes them, so that the same source pixels are chosen), and applies them one
axis after the other (one ``np.take`` of whole slices per tap, summed in f64), rounding once
to the data type (Pillow rounds between its two passes, as the reference stores its
intermediate image in the data type). ``nearest`` is one ``np.take`` per axis and exact.

Coordinate transformation (``x``: output coordinate, ``s``: scale, ``L_out``/``L_in``: the
lengths; identity when ``s == 1`` or ``L_out == L_in``): ``half_pixel``
``(x + 0.5) / s - 0.5``; ``pytorch_half_pixel`` the same, or 0 when ``L_out == 1``;
``asymmetric`` ``x / s``; ``tf_half_pixel_for_nn`` ``(x + 0.5) / s``; ``align_corners``
``x * (L_in - 1) / (L_out - 1)``, or 0 when ``L_out == 1``. Nearest modes:
``round_prefer_floor`` (halves down), ``round_prefer_ceil`` (``std::round``: halves away from
zero), ``floor``, ``ceil``, ``simple`` (``ceil`` when downsampling, else truncation), then
clipped to ``[0, L_in - 1]``.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "source_coordinates",
    "nearest_indices",
    "resize",
]

_F32 = np.float32
_HALF = _F32(0.5)


def source_coordinates(out_length: int, in_length: int, scale, mode: str) -> np.ndarray:
    """The f32 source coordinate of each output position of one axis.

    >>> source_coordinates(4, 2, 2.0, "half_pixel").tolist()
    [-0.25, 0.25, 0.75, 1.25]
    >>> source_coordinates(3, 2, 1.5, "align_corners").tolist()
    [0.0, 0.5, 1.0]
    """
    x = np.arange(out_length, dtype=_F32)
    scale = _F32(scale)
    if scale == 1 or out_length == in_length:
        return x
    if mode == "half_pixel":
        return (x + _HALF) / scale - _HALF
    if mode == "pytorch_half_pixel":
        if out_length > 1:
            return (x + _HALF) / scale - _HALF
        return np.zeros_like(x)
    if mode == "asymmetric":
        return x / scale
    if mode == "tf_half_pixel_for_nn":
        return (x + _HALF) / scale
    if mode == "align_corners":
        if out_length == 1:
            return np.zeros_like(x)
        return x * _F32(in_length - 1) / _F32(out_length - 1)
    raise ValueError(f"unknown coordinate_transformation_mode {mode!r}")


def _round_half_away(x: np.ndarray) -> np.ndarray:
    """``std::round`` of f32 values (halves away from zero), as int64; computed in f64, where
    ``|x| + 0.5`` is exact."""
    wide = x.astype(np.float64)
    return (np.sign(wide) * np.floor(np.abs(wide) + 0.5)).astype(np.int64)


def nearest_indices(coords: np.ndarray, in_length: int, mode: str, downsample: bool):
    """The source index of each coordinate under nearest ``mode``, clipped to the axis.

    >>> nearest_indices(np.array([0.5, 1.5, 2.2], np.float32), 3, "round_prefer_floor", False)
    array([0, 1, 2])
    """
    if mode == "round_prefer_floor":
        # the reference compares x with trunc(x) + 0.5: an exact half (of a non-negative x)
        # goes down, everything else is std::round
        halves = coords == (np.trunc(coords) + _HALF)
        index = np.where(halves, np.floor(coords).astype(np.int64), _round_half_away(coords))
    elif mode == "round_prefer_ceil":
        index = _round_half_away(coords)
    elif mode == "floor":
        index = np.floor(coords).astype(np.int64)
    elif mode == "ceil":
        index = np.ceil(coords).astype(np.int64)
    elif mode == "simple":
        index = (np.ceil(coords) if downsample else np.trunc(coords)).astype(np.int64)
    else:
        raise ValueError(f"unknown nearest_mode {mode!r}")
    return np.clip(index, 0, in_length - 1)


# -- per-axis weight matrices ---------------------------------------------------------------------


def _taps(indices, weights):
    """``(indices, weights)`` of the taps of one axis, ``[out, taps]`` each (f64 weights)."""
    return indices, weights.astype(np.float64)


def _linear_onnx_taps(coords, in_length):
    """Two taps per output: the clamped coordinate's floor and the next pixel, weighted by the
    distance to the other one (both 0.5 where they are the same pixel)."""
    coords = np.clip(coords, _F32(0), _F32(in_length - 1))
    first = np.minimum(coords.astype(np.int64), in_length - 1)
    second = np.minimum(first + 1, in_length - 1)
    d1 = np.abs(coords - first.astype(_F32))
    d2 = np.abs(coords - second.astype(_F32))
    same = first == second
    d1 = np.where(same, _HALF, d1)
    d2 = np.where(same, _HALF, d2)
    indices = np.stack([first, second], axis=1)
    return _taps(indices, np.stack([d2, d1], axis=1))


def _cubic_coefficients(s: np.ndarray, a) -> np.ndarray:
    """The 4 Keys cubic coefficients ``[out, 4]`` of fractional parts ``s`` (f32)."""
    a = _F32(a)
    s = np.abs(s)
    one = s + _F32(1)
    two = _F32(2) - s
    rest = _F32(1) - s
    c0 = ((a * one - _F32(5) * a) * one + _F32(8) * a) * one - _F32(4) * a
    c1 = ((a + _F32(2)) * s - (a + _F32(3))) * s * s + _F32(1)
    c2 = ((a + _F32(2)) * rest - (a + _F32(3))) * rest * rest + _F32(1)
    c3 = ((a * two - _F32(5) * a) * two + _F32(8) * a) * two - _F32(4) * a
    return np.stack([c0, c1, c2, c3], axis=1)


def _cubic_taps(coords, in_length, cube_coeff):
    base = np.floor(coords)
    coefficients = _cubic_coefficients((coords - base).astype(_F32), cube_coeff)
    taps = base.astype(np.int64)[:, None] + np.arange(-1, 3)[None, :]
    return _taps(np.clip(taps, 0, in_length - 1), coefficients)


def _linear_taps(coords, in_length, scale, a):
    """The triangle filter of ``linear`` mode: ``2r + 1`` taps around the rounded coordinate
    (``r = 2`` when upsampling, else ``ceil(2 / a)``), weight ``max(0, 1 - |a * dz|)``, taps
    outside the axis dropped; rows are normalised by the caller."""
    a = _F32(a)
    radius = 2 if _F32(scale) > 1 else int(np.ceil(_F32(2) / a))
    centre = _round_half_away(coords)
    taps = centre[:, None] + np.arange(-radius, radius + 1)[None, :]
    inside = (taps >= 0) & (taps < in_length)
    dz = coords[:, None] - taps.astype(_F32)
    weights = np.maximum(_F32(0), _F32(1) - np.abs(a * dz))
    weights = np.where(inside, weights, _F32(0))
    return _taps(np.clip(taps, 0, in_length - 1), weights)


def _pillow_taps(in_length: int, out_length: int, support: float, bicubic: bool, a):
    """Pillow's ``precompute_coeffs`` as taps (double precision, box = whole axis)."""
    scale = float(_F32(in_length)) / out_length
    filterscale = max(scale, 1.0)
    support = support * filterscale
    centre = (np.arange(out_length) + 0.5) * scale
    first = np.maximum((centre - support + 0.5).astype(np.int64), 0)  # (int) truncates
    last = np.minimum((centre + support + 0.5).astype(np.int64), in_length)
    width = int(np.ceil(support)) * 2 + 1
    taps = np.arange(width)[None, :]
    x = (taps + first[:, None] - centre[:, None] + 0.5) / filterscale
    ax = np.abs(x)
    if bicubic:
        a = float(_F32(a))
        weights = np.where(
            ax < 1.0,
            ((a + 2.0) * ax - (a + 3.0)) * ax * ax + 1,
            np.where(ax < 2.0, (((ax - 5) * ax + 8) * ax - 4) * a, 0.0),
        )
    else:
        weights = np.where(ax < 1.0, 1.0 - ax, 0.0)
    weights = np.where(taps < (last - first)[:, None], weights, 0.0)
    total = weights.sum(axis=1, keepdims=True)
    weights = np.where(total != 0, weights / np.where(total != 0, total, 1), weights)
    indices = np.clip(taps + first[:, None], 0, in_length - 1)
    return _taps(indices, weights)


def _apply(data: np.ndarray, taps, axis: int) -> np.ndarray:
    """The taps ``(indices, weights)`` (``[out, taps]``) applied along ``axis`` of ``data``:
    one ``np.take`` of whole slices per tap, weighted and summed in f64 (a few taps per
    output, so far less work than a dense ``[out, in]`` product)."""
    indices, weights = taps
    shape = [1] * data.ndim
    shape[axis] = indices.shape[0]
    total = None
    for tap in range(indices.shape[1]):
        weight = weights[:, tap]
        if not weight.any():
            continue
        term = np.take(data, indices[:, tap], axis=axis) * weight.reshape(shape)
        total = term if total is None else np.add(total, term, out=total)
    if total is None:
        out_shape = list(data.shape)
        out_shape[axis] = indices.shape[0]
        return np.zeros(out_shape, np.float64)
    return total


def _to_type(values: np.ndarray, dtype) -> np.ndarray:
    """f64 results in ``dtype``: floats rounded to nearest; integers rounded to nearest (ties
    to even) and saturated to the type's range, as the CPU plugin converts them (OpenVINO's
    reference truncates or rounds and then casts, which wraps or is undefined out of range)."""
    if dtype.kind == "f" or dtype.kind == "V":
        return values.astype(dtype)
    info = np.iinfo(dtype)
    return np.clip(np.rint(values), info.min, info.max).astype(dtype)


# -- the whole resize -----------------------------------------------------------------------------


def resize(data: np.ndarray, out_shape, axes, scales, *, mode: str, transform: str,
           nearest_mode: str = "round_prefer_floor", antialias: bool = False,
           cube_coeff: float = -0.75) -> np.ndarray:  # fmt: skip
    """Resize the (already padded) ``data`` to ``out_shape`` along ``axes`` (ints, in order)
    with the f32 ``scales`` (one per axis, the ratio the coordinates use) in ``mode``.

    >>> x = np.array([[1.0, 2.0]], np.float32)
    >>> resize(x, (1, 4), [1], [2.0], mode="linear_onnx", transform="half_pixel").tolist()
    [[1.0, 1.25, 1.75, 2.0]]
    >>> resize(x, (1, 3), [1], [1.5], mode="nearest", transform="asymmetric").tolist()
    [[1.0, 2.0, 2.0]]
    """
    dtype = data.dtype
    if any(data.shape[a] == 0 and out_shape[a] > 0 for a in axes):
        raise ValueError(
            f"cannot resize an empty axis: data {list(data.shape)} to {list(out_shape)}"
        )
    if any(size == 0 for size in out_shape):
        return np.zeros(out_shape, dtype)
    all_scales = [_F32(1)] * data.ndim
    for axis, scale in zip(axes, scales):
        all_scales[axis] = _F32(scale)
    if mode == "nearest":
        result = data
        for axis in range(data.ndim):
            coords = source_coordinates(out_shape[axis], data.shape[axis], all_scales[axis],
                                        transform)  # fmt: skip
            index = nearest_indices(coords, data.shape[axis], nearest_mode, all_scales[axis] < 1)
            if out_shape[axis] != data.shape[axis] or (index != np.arange(len(index))).any():
                result = np.take(result, index, axis=axis)
        return np.ascontiguousarray(result)
    work = data.astype(np.float32 if dtype.kind == "V" else np.float64)
    if mode in ("bilinear_pillow", "bicubic_pillow"):
        return _pillow(work, dtype, out_shape, axes, mode == "bicubic_pillow", cube_coeff)
    downsample = any(s < 1 for s in scales)
    # the axes in order: a later duplicate wins (it overwrote the output dim)
    for index, axis in enumerate(axes):
        if axis in axes[index + 1 :]:
            continue
        in_length, out_length = work.shape[axis], out_shape[axis]
        scale = all_scales[axis]
        coords = source_coordinates(out_length, in_length, scales[index], transform)
        if mode == "linear_onnx":
            taps = _linear_onnx_taps(coords, in_length)
        elif mode == "cubic":
            taps = _cubic_taps(coords, in_length, cube_coeff)
        elif mode == "linear":
            a = scale if (antialias and downsample) else _F32(1)
            indices, weights = _linear_taps(coords, in_length, scale, a)
            total = weights.sum(axis=1, keepdims=True)
            taps = indices, np.where(total != 0, weights / np.where(total != 0, total, 1), 0)
        else:
            raise ValueError(f"unknown interpolation mode {mode!r}")
        work = _apply(work.astype(np.float64, copy=False), taps, axis)
    return np.ascontiguousarray(_to_type(work, np.dtype(dtype)))


def _pillow(work, dtype, out_shape, axes, bicubic, cube_coeff):
    """Pillow's two passes: the second axis (horizontal) first, then the first axis
    (vertical); an axis whose size does not change is not resampled."""
    if len(axes) != 2:
        raise ValueError(
            f"the Pillow modes resize exactly two axes (H, W), but axes are {list(axes)}"
        )
    dtype = np.dtype(dtype)
    support = 2.0 if bicubic else 1.0
    vertical, horizontal = axes
    # the intermediate image is kept in the data type for f32, f64 and 8-bit integers; f16 and
    # bf16 run in f32 (as OpenVINO's reference runs them) and the CPU plugin keeps wider
    # integers unrounded between the passes
    if (dtype.kind == "f" and dtype.itemsize >= 4) or (dtype.kind in "iu" and dtype.itemsize == 1):
        keep = dtype
    elif dtype.kind in "fV":
        keep = np.dtype(np.float32)
    else:
        keep = np.dtype(np.float64)
    result = work
    for axis in (horizontal, vertical):
        if out_shape[axis] == result.shape[axis]:
            continue
        taps = _pillow_taps(result.shape[axis], out_shape[axis], support, bicubic, cube_coeff)
        result = _to_type(_apply(result.astype(np.float64), taps, axis), keep)
    return np.ascontiguousarray(_to_type(result, dtype))
