"""Helpers shared by the gather kernels: axes, index normalisation, out-of-range policy, tiling.

Every gather kernel turns its indices into ``intp`` values inside ``[0, size-1]`` before it
copies anything, so the copy itself can use ``np.take(..., mode="wrap")``, numpy's fastest
take (``mode="raise"`` routes the result through a temporary buffer).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import NamedTuple

import numpy as np

from irrun.errors import IndexOutOfRangeError

__all__ = [
    "OUT_OF_RANGE_POLICIES",
    "TILE_CELLS",
    "NormalizedIndices",
    "as_index_array",
    "check_out",
    "check_policy",
    "fill_zero",
    "format_shape",
    "normalize_axis",
    "normalize_indices",
    "product",
    "tiles",
    "zeros_like_output",
]

#: What a kernel does with an index outside ``[-size, size-1]``: write the dtype's zero,
#: raise :class:`~irrun.errors.IndexOutOfRangeError`, or clamp it into ``[0, size-1]``.
OUT_OF_RANGE_POLICIES = ("zero", "error", "clip")

#: Index cells per tile. A tile's ``intp`` temporaries (512 KB) stay in cache from the range
#: check to the take; one untiled pass over a 64 MB problem was ~1.3x slower (bench_kernels).
TILE_CELLS = 1 << 16

# ml_dtypes' sub-byte integers have numpy kind "V", so they are recognised by name.
_SUB_BYTE_INTEGER_NAMES = frozenset({"int1", "int2", "int4", "uint1", "uint2", "uint4"})

_INTP_MAX = np.iinfo(np.intp).max


class NormalizedIndices(NamedTuple):
    """Indices ready for ``np.take``, and where the original ones were out of range.

    Attributes
    ----------
    values : numpy.ndarray
        Same shape as the indices, dtype ``intp``. Every value is in ``[0, size-1]``, or in
        ``[-size, size-1]`` when the caller let negatives pass through. May be the caller's
        array itself: never write into it.
    invalid : numpy.ndarray or None
        Boolean mask, same shape as the indices, True where the original index was out of
        range and the policy is ``"zero"`` (those values were replaced by 0). ``None`` when
        nothing needs zero-filling.
    """

    values: np.ndarray
    invalid: np.ndarray | None


def format_shape(shape) -> str:
    """Write a shape the way OpenVINO messages do: ``[2,3,4]``."""
    return "[" + ",".join(str(d) for d in shape) + "]"


def product(dims) -> int:
    """Number of elements in a block of the given dimensions (1 for none)."""
    return math.prod(int(d) for d in dims)


def check_policy(policy: str) -> None:
    """Raise ValueError unless ``policy`` is one of :data:`OUT_OF_RANGE_POLICIES`."""
    if policy not in OUT_OF_RANGE_POLICIES:
        raise ValueError(
            f"out_of_range must be one of {', '.join(map(repr, OUT_OF_RANGE_POLICIES))}; "
            f"got {policy!r}"
        )


def check_out(out: np.ndarray, shape: tuple, dtype: np.dtype) -> None:
    """Raise ValueError unless ``out`` is an array of exactly ``shape`` and ``dtype`` (what a
    kernel writing into a given array needs: no broadcasting, no casting)."""
    if not isinstance(out, np.ndarray) or out.shape != tuple(shape) or out.dtype != dtype:
        given = (f"{out.dtype}{format_shape(out.shape)}" if isinstance(out, np.ndarray)
                 else type(out).__name__)  # fmt: skip
        raise ValueError(
            f"out must be an array of {np.dtype(dtype)}{format_shape(shape)}; got {given}"
        )


def normalize_axis(axis: int, rank: int) -> int:
    """Map ``axis`` in ``[-rank, rank-1]`` to ``[0, rank-1]``; ValueError if outside."""
    axis = int(axis)
    if not -rank <= axis < rank:
        raise ValueError(f"Axis {axis} out of the tensor rank range [{-rank}, {rank - 1}].")
    return axis + rank if axis < 0 else axis


def as_index_array(indices) -> np.ndarray:
    """Return ``indices`` as an array, raising TypeError unless its element type is an integer."""
    indices = np.asarray(indices)
    dtype = indices.dtype
    if dtype.kind in "iu":
        return indices
    if dtype.kind == "V" and dtype.name in _SUB_BYTE_INTEGER_NAMES:
        return indices.astype(np.int8 if dtype.name.startswith("int") else np.uint8)
    raise TypeError(f"Indices element type must be of an integral number type; got {dtype}.")


def tiles(rows: int, columns: int, *, align: int = 1) -> Iterator[tuple[slice, slice]]:
    """Cut a ``rows x columns`` grid into tiles of about :data:`TILE_CELLS` cells, in C order.

    A tile is either several whole rows or a piece of one row, so the same tile of any
    C-contiguous array over the grid is contiguous. Pieces of a row start at multiples of
    ``align``.
    """
    if rows == 0 or columns == 0:
        return
    if columns <= TILE_CELLS:
        step = max(1, TILE_CELLS // columns)
        for start in range(0, rows, step):
            yield slice(start, min(start + step, rows)), slice(0, columns)
        return
    step = max(align, TILE_CELLS // align * align)
    for row in range(rows):
        for start in range(0, columns, step):
            yield slice(row, row + 1), slice(start, min(start + step, columns))


def _to_intp(indices: np.ndarray) -> np.ndarray:
    """A fresh ``intp`` copy; uint64 values beyond intp become intp max (still out of range)."""
    values = indices.astype(np.intp)
    if indices.dtype == np.uint64:
        values[indices > _INTP_MAX] = _INTP_MAX
    return values


def _out_of_range_error(indices, invalid, sizes, data_axes, locate) -> IndexOutOfRangeError:
    local = np.unravel_index(int(np.argmax(invalid)), invalid.shape)
    local = tuple(int(p) for p in local)
    value = indices[local].item()
    if isinstance(sizes, tuple):
        size, axis = sizes[local[-1]], data_axes[local[-1]]
    else:
        size, axis = sizes, data_axes
    position = local if locate is None else tuple(int(p) for p in locate(local))
    if size == 0:
        valid = f"data axis {axis} has size 0, so no index is valid"
    else:
        valid = f"valid range is [{-size}, {size - 1}] for data axis {axis} of size {size}"
    return IndexOutOfRangeError(
        f"index {value} at indices position {position} is out of range: {valid}"
    )


def _below(indices: np.ndarray, bound: int) -> bool:
    """True if every index is in ``[0, bound)``: one pass, negatives look huge as unsigned."""
    if indices.dtype.kind == "i":
        indices = indices.view(indices.dtype.str.replace("i", "u"))
    return bool(indices.max() < bound)


def _all_in_range(indices: np.ndarray, sizes, negatives_allowed: bool) -> bool:
    """True if every index is in ``[0, size-1]`` (``[-size, size-1]`` with negatives allowed)."""
    if isinstance(sizes, int):
        if _below(indices, sizes):  # the usual case, settled in one pass
            return True
        return negatives_allowed and bool(indices.min() >= -sizes and indices.max() < sizes)
    if min(sizes) == 0:
        return False
    if negatives_allowed:
        raise NotImplementedError("negatives pass through only for a single size")
    # One pass against the smallest size settles the usual case without per-column work.
    if _below(indices, min(sizes)):
        return True
    columns = indices.reshape(-1, len(sizes))
    return all(_below(columns[:, j], size) for j, size in enumerate(sizes))


def normalize_indices(
    indices: np.ndarray,
    sizes,
    data_axes,
    policy: str,
    *,
    negatives_pass_through: bool = False,
    locate: Callable[[tuple[int, ...]], tuple[int, ...]] | None = None,
) -> NormalizedIndices:
    """Bring ``indices`` into ``[0, size-1]`` applying the out-of-range ``policy``.

    Parameters
    ----------
    indices : numpy.ndarray
        Integer indices (checked by :func:`as_index_array`), or a tile of them.
    sizes : int or tuple of int
        The size of the data axis the indices address; a tuple gives one size per position of
        the indices' last axis (GatherND's index tuples).
    data_axes : int or tuple of int
        The data axis (or axes, parallel to ``sizes``) named in error messages.
    policy : {"zero", "error", "clip"}
        What to do with an index outside ``[-size, size-1]``.
    negatives_pass_through : bool
        If True and every index is inside ``[-size, size-1]``, return them without wrapping
        negatives (``np.take(mode="wrap")`` wraps them for free). Only for an int ``sizes``.
    locate : callable, optional
        Maps a position in ``indices`` to the position the error message should name, when
        ``indices`` is a tile of the caller's indices.

    Returns
    -------
    NormalizedIndices

    Raises
    ------
    IndexOutOfRangeError
        If an index is out of range and ``policy`` is ``"error"``, or ``"clip"`` meets an
        axis of size 0.
    """
    if indices.size == 0 or _all_in_range(indices, sizes, negatives_pass_through):
        return NormalizedIndices(indices.astype(np.intp, copy=False), None)

    size_array = np.asarray(sizes, dtype=np.intp)
    values = _to_intp(indices)
    np.add(values, size_array, out=values, where=values < 0)
    invalid = (values < 0) | (values >= size_array)
    if not invalid.any():
        return NormalizedIndices(values, None)
    if policy == "error":
        raise _out_of_range_error(indices, invalid, sizes, data_axes, locate)
    if policy == "clip":
        if size_array.min() == 0:
            empty = data_axes if isinstance(sizes, int) else data_axes[sizes.index(0)]
            raise IndexOutOfRangeError(f"cannot clip indices into data axis {empty} of size 0")
        np.clip(values, 0, size_array - 1, out=values)
        return NormalizedIndices(values, None)
    values[invalid] = 0
    return NormalizedIndices(values, invalid)


def _zero_scalar(data: np.ndarray) -> np.ndarray:
    """A 0-d array holding the dtype's zero: all-zero bytes, "" for strings, False for bool."""
    if data.dtype.kind == "O":
        sample = data.flat[0] if data.size else ""
        return np.array(type(sample)() if isinstance(sample, (str, bytes)) else 0, dtype=object)
    return np.zeros((), dtype=data.dtype)


def zeros_like_output(data: np.ndarray, shape, *, out: np.ndarray | None = None) -> np.ndarray:
    """An array of ``shape`` and the data's dtype holding only the dtype's zero (``out``
    filled with it, when given)."""
    if out is not None:
        out[...] = _zero_scalar(data)
        return out
    if data.dtype.kind == "O":
        out = np.empty(shape, dtype=object)
        out[...] = _zero_scalar(data)
        return out
    return np.zeros(shape, dtype=data.dtype)


def fill_zero(out: np.ndarray, where, data: np.ndarray) -> None:
    """Write the dtype's zero into ``out[where]`` (a mask over leading dims, or an index)."""
    out[where] = _zero_scalar(data)
