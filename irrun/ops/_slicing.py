"""Slicing arithmetic shared by Slice-8 and StridedSlice-1, as OpenVINO's shape inference does it.

OpenVINO computes a sliced dimension from *bounds* of the start and stop values (a constant
gives ``(v, v)``; a value computed from ``ShapeOf`` gives the interval of the dimension it
read) and a constant step, over the lower and the upper end of the input dimension
(``slice_shape_inference_utils.hpp``: ``get_sliced_value`` and ``make_dim``). The functions
here follow that arithmetic exactly, with int64 limits: ``INT64_MAX`` as a start or stop means
"to the end", an unbounded dimension counts as ``INT64_MAX`` long, and the values of an i32
tensor equal to i32's limits count as the int64 limits.

Kernels slice with :func:`python_slice`: NumPy basic slicing (a view) with OpenVINO's clamping,
which differs from Python's in one place: a reverse slice that starts before the first
element starts *at* the first element (``x[-20::-1]`` of 10 elements is ``[x[0]]``, not empty).

Examples
--------
>>> sliced_value(10, 1, 8, 3), sliced_value(10, -2, -100, -3), sliced_value(10, 8, 2, 1)
(3, 3, 0)
>>> str(make_dim(Dim.dynamic(), (0, 0), (2, 2), 1))
'..2'
>>> str(make_dim(Dim(2, 8), (1, 1), (INT64_MAX, INT64_MAX), 1))
'1..7'
>>> python_slice(10, -20, -30, -1)
slice(0, None, -1)
"""

from __future__ import annotations

import numpy as np

from irrun.ops._values import as_int64, elements_of, info_of_elements, signed_ints
from irrun.ops.base import Op, TensorInfo
from irrun.shape import Dim, Shape, static_dim

__all__ = [
    "INT64_MAX",
    "INT64_MIN",
    "bounds_of",
    "sliced_value",
    "make_dim",
    "sliced_dim",
    "python_slice",
    "slice_elements",
]

INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)
_INF = -1  # OpenVINO's "infinite bound" of a dimension length
_LIMITS = {"i32": (-(2**31), 2**31 - 1), "i64": (INT64_MIN, INT64_MAX)}


def _limit_mapped(value: int, etype_name: str) -> int:
    """``element::get_value_or_limit_of``: i32/i64 limits become int64 limits."""
    limits = _LIMITS.get(etype_name)
    if limits is not None:
        if value == limits[0]:
            return INT64_MIN
        if value == limits[1]:
            return INT64_MAX
    return as_int64(value)


def bounds_of(info) -> list[tuple[int, int]] | None:
    """``(lower, upper)`` of each element of a start/stop input, as OpenVINO's
    ``get_input_bounds`` gives them, ``None`` for an element irrun knows nothing of (that
    axis is then ``0..max``, the others keep what their own bounds give); ``None`` when
    nothing is known of the input's elements."""
    elements = elements_of(info)
    if elements is None:
        return None
    name = info.element_type.name
    bounds = []
    for element in elements:
        if element is None:
            bounds.append(None)
        elif isinstance(element, Dim):
            upper = INT64_MAX if element.upper is None else element.upper
            bounds.append((_limit_mapped(element.lower, name), _limit_mapped(upper, name)))
        else:
            value = _limit_mapped(element, name)
            bounds.append((value, value))
    return bounds


def _normalize(value: int, size: int) -> int:
    return value + size if value < 0 else value


def _clip(value: int, low: int, high: int) -> int:
    return min(max(value, low), high)


def _trunc_div(a: int, b: int) -> int:
    quotient = abs(a) // abs(b)
    return quotient if (a >= 0) == (b > 0) else -quotient


def sliced_value(dim: int, start: int, stop: int, step: int) -> int:
    """How many elements ``start:stop:step`` takes from a dimension of length ``dim``
    (``-1``: unbounded, which may also be the answer) — ``get_sliced_value``."""
    reverse = step < 0
    norm_dim = INT64_MAX if dim == _INF else dim
    dim_is_max = norm_dim == INT64_MAX
    start_negative = start < 0
    signs_differ = start_negative != (stop < 0)
    start_max, stop_max = start == INT64_MAX, stop == INT64_MAX
    start_limit = start_max or start == INT64_MIN
    any_max = start_max or stop_max
    if dim_is_max and (signs_differ or any_max or start_limit):
        if reverse:
            upper = _INF if (start_negative or any_max) else _INF - start
        elif start_negative and not start_limit:
            upper = -start if stop_max else stop
        else:
            upper = _INF
        lower = 0
    else:
        lower = _clip(_normalize(start, norm_dim), 0, norm_dim - 1 if reverse else norm_dim)
        upper = _clip(_normalize(stop, norm_dim), _INF if reverse else 0, norm_dim)
    if dim_is_max and lower == 0 and upper == _INF:
        return _INF
    count = min(0, upper - lower) if reverse else max(0, upper - lower)
    if step == -1:
        return -count
    if count != 0 and step != 1:
        count = count + 1 if reverse else count - 1
        count = _trunc_div(count, step) + 1
    return count


def _crossing(bounds: tuple[int, int]) -> bool:
    return bounds[0] < 0 <= bounds[1]


def make_dim(dim: Dim, start: tuple[int, int], stop: tuple[int, int], step: int) -> Dim:
    """The sliced dimension (``make_dim``) from the input dimension, the bounds of start and
    stop, and the step (non-zero)."""
    max_length = _INF if dim.upper is None else dim.upper

    def low_within(value):
        return max_length == _INF or value + max_length >= 0

    def high_within(value):
        return max_length == _INF or value < max_length

    start_crossing, stop_crossing = _crossing(start), _crossing(stop)
    start_low = 0 if start_crossing and low_within(start[0]) else start[0]
    start_high = -1 if start_crossing and high_within(start[1]) else start[1]
    stop_low = 0 if stop_crossing and low_within(stop[0]) else stop[0]
    stop_high = -1 if stop_crossing and high_within(stop[1]) else stop[1]
    if step > 0:
        lower = sliced_value(dim.lower, start_high, stop_low, step)
        upper = sliced_value(max_length, start_low, stop_high, step)
    else:
        lower = sliced_value(dim.lower, start_low, stop_high, step)
        upper = sliced_value(max_length, start_high, stop_low, step)
    return _dimension(lower, upper)


def sliced_dim(dim: Dim, start, stop, step: int) -> Dim:
    """:func:`make_dim`, or ``0..max`` when the start or the stop bounds are not known."""
    if start is None or stop is None:
        return Dim(0, dim.upper)
    return make_dim(dim, start, stop, step)


def _dimension(lower: int, upper: int) -> Dim:
    """OpenVINO's ``Dimension(lower, upper)`` (``upper`` -1 or ``INT64_MAX``, its interval's
    infinity: unbounded)."""
    lower = max(lower, 0)
    if upper == _INF or upper >= INT64_MAX:
        return Dim(lower, None)
    if upper < lower:  # (does not happen for valid bounds; never claim a size then)
        return Dim.dynamic()
    return static_dim(lower) if lower == upper else Dim(lower, upper)


def python_slice(size: int, start: int | None, stop: int | None, step: int) -> slice:
    """The Python slice that takes what OpenVINO's ``start:stop:step`` takes from ``size``
    elements (``None``: from the beginning / to the end in the step's direction)."""
    if size == 0:
        return slice(0, 0, 1)
    if step > 0:
        begin = 0 if start is None else _clip(_normalize(start, size), 0, size)
        end = size if stop is None else _clip(_normalize(stop, size), 0, size)
        return slice(begin, end, step)
    begin = size - 1 if start is None else _clip(_normalize(start, size), 0, size - 1)
    end = -1 if stop is None else _clip(_normalize(stop, size), -1, size)
    return slice(begin, None if end < 0 else end, step)


def slice_elements(elements: tuple, index: tuple) -> tuple | None:
    """The partial value of a 1-D partial value indexed by ``index`` (basic NumPy indexing
    that leaves at most one dimension), or ``None`` when it leaves more."""
    holder = np.empty(len(elements), dtype=object)
    holder[:] = list(elements)
    picked = holder[index]
    if np.ndim(picked) > 1:
        return None
    picked = np.asarray(picked, dtype=object).reshape(-1)
    return tuple(picked.tolist())


#: Constant data is split at validation time while the data has at most this many elements
#: (the outputs are constants for the layers after it).
SPLIT_FOLD_LIMIT = 1 << 16


def split_outputs(op: Op, data: TensorInfo, axis: int, pieces: list[Dim | None], values):
    """The outputs of a split of ``data`` along normalised ``axis`` into pieces of these axis
    dims; constant data (``values``: the pieces as arrays, or ``None``) and rank-1 partial
    values are carried over."""
    outputs = []
    elements = elements_of(data) if data.shape.rank == 1 else None
    offset = 0
    for i, dim in enumerate(pieces):
        dims = list(data.shape.dims)
        dims[axis] = dim
        shape = Shape(dims)
        why = f"piece {i} of axis {axis} ({data.shape[axis]})"
        if values is not None:
            outputs.append(TensorInfo(shape, data.element_type, value=values[i], why=why))
        elif elements is not None and offset is not None and dim.is_static:
            part = elements[offset : offset + dim.value]
            offset += dim.value
            outputs.append(info_of_elements(part, data.element_type, shape, why))
        else:
            offset = None
            outputs.append(TensorInfo(shape, data.element_type, why=why))
    return outputs


def axis_value(op: Op, info: TensorInfo) -> int | None:
    """The constant axis (a scalar or one-element integer input), or ``None``."""
    values = signed_ints(info)
    return values[0] if values is not None and len(values) == 1 else None
