"""Gather (OpenVINO Gather-1, -7 and -8) and TensorRT's ``IGatherLayer``."""

from __future__ import annotations

import numpy as np

from irrun.kernels._indices import (
    as_index_array,
    check_out,
    check_policy,
    fill_zero,
    format_shape,
    normalize_axis,
    normalize_indices,
    product,
    tiles,
    zeros_like_output,
)
from irrun.kernels.gather_elements import gather_elements
from irrun.kernels.gather_nd import gather_nd

__all__ = ["gather", "trt_gather"]


def gather(data, indices, axis: int, batch_dims: int = 0, *, out_of_range: str = "zero", out=None):
    """Take slices of ``data`` along ``axis`` at ``indices`` (OpenVINO Gather-8).

    With ``batch_dims = b``, the first ``b`` dimensions of ``data`` and ``indices`` are shared:
    batch ``p`` of the output gathers from batch ``p`` of the data with batch ``p`` of the
    indices. The output shape is
    ``data.shape[:axis] + indices.shape[b:] + data.shape[axis+1:]``; with ``b = 0`` this is
    ``numpy.take``.

    Versions: Gather-1 has no ``batch_dims`` (use 0); Gather-7 and Gather-8 take it as an
    attribute that may be negative (then normalised with the *indices* rank). Gather-8 allows
    negative indices in ``[-s, s-1]`` and writes 0 for indices outside that range. The
    Gather-1/-7 specs allow only ``[0, s-1]`` and leave the rest undefined. Negative indices
    wrap here for every version, as in OpenVINO's reference evaluator (its CPU plugin writes 0
    for them in Gather-1/-7); irrun's Gather-1/-7 ops pass ``out_of_range="error"`` for
    indices outside ``[-s, s-1]``, since the spec leaves their result undefined.

    Parameters
    ----------
    data : numpy.ndarray
        Rank >= 1, any dtype. Values are copied bit for bit, never converted.
    indices : numpy.ndarray or int
        Any integer dtype (``uint8`` included); a scalar removes the gathered axis.
    axis : int
        The data axis to gather along, in ``[-r, r-1]``.
    batch_dims : int, optional
        Number of leading dimensions shared by data and indices, in ``[-q, q]`` and, after
        normalisation, at most ``axis``.
    out_of_range : {"zero", "error", "clip"}, optional
        For an index outside ``[-s, s-1]`` (``s = data.shape[axis]``): ``"zero"`` writes the
        dtype's zero (Gather-8, TensorRT), ``"error"`` raises, ``"clip"`` clamps into
        ``[0, s-1]`` after wrapping negatives.
    out : numpy.ndarray, optional
        An array of the result's shape and ``data``'s dtype to write into (not overlapping
        ``data`` or ``indices``); ``None`` allocates one.

    Returns
    -------
    numpy.ndarray
        ``out``, or a new array of ``data``'s dtype.

    Raises
    ------
    TypeError
        If ``indices`` is not of an integer dtype (bool and float are rejected).
    ValueError
        If ``data`` is a scalar, ``axis`` or ``batch_dims`` is out of range, ``batch_dims``
        exceeds ``axis``, the batch dimensions of data and indices differ, or ``out`` has
        another shape or dtype than the result.
    IndexOutOfRangeError
        With ``out_of_range="error"``, for the first index outside ``[-s, s-1]``; the message
        gives its value, its position in ``indices`` and the valid range.

    Examples
    --------
    >>> import numpy as np
    >>> data = np.array([[1, 2, 3], [4, 5, 6]])
    >>> gather(data, np.array([2, 0, -1]), axis=1)
    array([[3, 1, 3],
           [6, 4, 6]])
    >>> gather(data, np.array([[2, 0], [1, 1]]), axis=1, batch_dims=1)
    array([[3, 1],
           [5, 5]])
    >>> gather(np.array([1, 2, 3, 4, 5]), np.array([3, 10, -20]), axis=0)
    array([4, 0, 0])
    """
    data = np.asarray(data)
    indices = as_index_array(indices)
    check_policy(out_of_range)
    if data.ndim == 0:
        raise ValueError("Gather data must have rank >= 1; got a scalar.")
    axis = normalize_axis(axis, data.ndim)
    batch_dims = _normalize_batch_dims(batch_dims, axis, data.shape, indices.shape)
    if out is not None:
        shape = data.shape[:axis] + indices.shape[batch_dims:] + data.shape[axis + 1 :]
        check_out(out, shape, data.dtype)
        if not out.flags.c_contiguous:  # the tiles below are views of a contiguous result
            np.copyto(out, gather(data, indices, axis, batch_dims, out_of_range=out_of_range))
            return out
    if batch_dims == 0:
        return _gather_unbatched(data, indices, axis, out_of_range, out)
    return _gather_batched(data, indices, axis, batch_dims, out_of_range, out=out)


def _normalize_batch_dims(batch_dims, axis, data_shape, indices_shape) -> int:
    rank = len(indices_shape)
    batch_dims = int(batch_dims)
    if batch_dims > rank:
        raise ValueError(
            "The batch_dims must be <= indices_rank. But instead got: "
            f"batch_dims = {batch_dims}, indices_rank = {rank}"
        )
    if batch_dims < -rank:
        # OpenVINO accepts this and infers a nonsense shape; reject it.
        raise ValueError(
            f"The batch_dims must be >= -indices_rank. But instead got: "
            f"batch_dims = {batch_dims}, indices_rank = {rank}"
        )
    if batch_dims < 0:
        batch_dims += rank
    if batch_dims > axis:
        raise ValueError(
            "After normalization batch_dims must be <= axis. But instead got: "
            f"batch_dims = {batch_dims}, axis = {axis}"
        )
    if data_shape[:batch_dims] != indices_shape[:batch_dims]:
        raise ValueError(
            f"Shapes {format_shape(data_shape)} and {format_shape(indices_shape)} are not "
            "consistent. data and indices must have equal sizes until batch_dims "
            f"(batch_dims = {batch_dims})"
        )
    return batch_dims


def _gather_unbatched(data, indices, axis, out_of_range, out=None) -> np.ndarray:
    size = data.shape[axis]
    out_shape = data.shape[:axis] + indices.shape + data.shape[axis + 1 :]
    if size == 0 and indices.size:
        normalize_indices(indices, size, axis, out_of_range)  # raises for "error" and "clip"
        return zeros_like_output(data, out_shape, out=out)
    values, invalid = normalize_indices(
        indices, size, axis, out_of_range, negatives_pass_through=True
    )
    # np.take copies whole inner blocks per index; "wrap" wraps negatives for free and skips
    # the temporary of "raise" (~1.7x slower with out=; bench/bench_kernels.py).
    if out is not None:
        np.take(data, values, axis=axis, mode="wrap", out=out)
    else:
        out = np.take(data, values, axis=axis, mode="wrap")
        # A 0-d result comes back as a scalar: a Python str for StringDType data, which
        # asarray alone would turn into a fixed-width '<U' array. Keep the data's dtype.
        out = np.asarray(out, dtype=data.dtype)
    if invalid is not None:
        outer, inner = product(data.shape[:axis]), product(data.shape[axis + 1 :])
        fill_zero(out.reshape(outer, indices.size, inner), (slice(None), invalid.ravel()), data)
    return out


def _gather_batched(
    data, indices, axis, batch_dims, out_of_range, *, broadcast_data_batch=False, out=None
) -> np.ndarray:
    """Gather with shared batch dims; ``broadcast_data_batch`` reuses a data batch of size 1;
    ``out``: a C-contiguous array of the result's shape and dtype to write into."""
    size = data.shape[axis]
    out_shape = (
        indices.shape[:batch_dims]
        + data.shape[batch_dims:axis]
        + indices.shape[batch_dims:]
        + data.shape[axis + 1 :]
    )
    if size == 0 and indices.size:
        normalize_indices(indices, size, axis, out_of_range)  # raises for "error" and "clip"
        return zeros_like_output(data, out_shape, out=out)

    batch = product(indices.shape[:batch_dims])
    middle = product(data.shape[batch_dims:axis])
    count = product(indices.shape[batch_dims:])
    inner = product(data.shape[axis + 1 :])
    rows = data.reshape(product(data.shape[:axis]) * size, inner)
    index_grid = indices.reshape(batch, count)
    result = out
    if out is None:
        result = np.empty(out_shape, dtype=data.dtype)
    out = result.reshape(batch * middle, count, inner)  # a view: the result is contiguous
    # Output segment s = batch * middle + m reads data rows s * size + index. Flat row numbers
    # and np.take per tile beat take_along_axis (~8x on rows, ~1.8x on single elements) and a
    # loop over batches (~2x); see bench/bench_kernels.py.
    for segments, columns in tiles(batch * middle, count):
        segment = np.arange(segments.start, segments.stop, dtype=np.intp)
        if middle == 1:
            tile_indices = index_grid[segments, columns]
        else:
            tile_indices = np.take(index_grid[:, columns], segment // middle, axis=0)

        def locate(local, segments=segments, columns=columns):
            batch_index = (segments.start + local[0]) // middle
            flat_position = batch_index * count + columns.start + local[1]
            return np.unravel_index(flat_position, indices.shape)

        values, invalid = normalize_indices(tile_indices, size, axis, out_of_range, locate=locate)
        source_segment = segment % middle if broadcast_data_batch else segment
        flat_rows = values + (source_segment * size)[:, None]
        tile = out[segments, columns]
        np.take(rows, flat_rows, axis=0, mode="wrap", out=tile)
        if invalid is not None:
            fill_zero(tile, invalid, data)
    return result


_TRT_MODES = ("default", "nd", "element")


def trt_gather(data, indices, *, mode: str = "default", axis: int = 0, elementwise_dims: int = 0):
    """TensorRT's ``IGatherLayer`` in its three modes; out-of-range indices store 0.

    ``mode="default"`` (``GatherMode.kDEFAULT``) is :func:`gather` along ``axis`` with
    ``elementwise_dims`` 0 or 1. With 1, the leading dimension is shared like Gather-8's
    ``batch_dims=1``, except that a size-1 leading dimension of either data or indices is
    *broadcast* against the other's (OpenVINO requires them equal). The output shape is
    ``[max(data.d[0], indices.d[0])] + data.d[1:axis] + indices.d[1:] + data.d[axis+1:]``.

    ``mode="nd"`` (``kND``) is :func:`gather_nd` (GatherND-8 shapes) with ``elementwise_dims``
    as its batch dims; ``axis`` is ignored (TensorRT leaves it undefined).

    ``mode="element"`` (``kELEMENT``) is :func:`gather_elements` along ``axis``;
    ``elementwise_dims`` must be 0.

    In every mode negative indices wrap and indices outside ``[-s, s-1]`` give 0. TensorRT
    requires ``0 <= axis < r``; a negative ``axis`` is normalised here as a convenience.

    Parameters
    ----------
    data : numpy.ndarray
        Rank >= 1, any dtype; copied bit for bit.
    indices : numpy.ndarray
        Integer indices (TensorRT itself takes int32 or int64).
    mode : {"default", "nd", "element"}, optional
        The ``GatherMode``.
    axis : int, optional
        The gather axis for ``"default"`` and ``"element"``.
    elementwise_dims : int, optional
        ``num_elementwise_dims``: 0 or 1 for ``"default"``, the batch dims for ``"nd"``, 0 for
        ``"element"``.

    Returns
    -------
    numpy.ndarray
        A new array of ``data``'s dtype.

    Raises
    ------
    TypeError
        If ``indices`` is not of an integer dtype.
    ValueError
        For an unknown mode, an ``elementwise_dims`` the mode does not allow, leading dims that
        cannot be broadcast, or any shape error of the underlying kernel.

    Examples
    --------
    >>> import numpy as np
    >>> data = np.array([[1, 2, 3], [4, 5, 6]])
    >>> trt_gather(data, np.array([[2, -1], [0, 5]]), axis=1)
    array([[[3, 3],
            [1, 0]],
    <BLANKLINE>
           [[6, 6],
            [4, 0]]])
    >>> trt_gather(data, np.array([[2, 0]]), axis=1, elementwise_dims=1)
    array([[3, 1],
           [6, 4]])
    >>> trt_gather(data, np.array([[1, 0], [0, 1]]), mode="nd")
    array([4, 2])
    """
    elementwise_dims = int(elementwise_dims)
    if mode == "nd":
        return gather_nd(data, indices, elementwise_dims, out_of_range="zero")
    if mode == "element":
        if elementwise_dims != 0:
            raise ValueError(
                f"elementwise_dims must be 0 for mode 'element'; got {elementwise_dims}"
            )
        return gather_elements(data, indices, axis, out_of_range="zero")
    if mode != "default":
        raise ValueError(f"mode must be one of {', '.join(map(repr, _TRT_MODES))}; got {mode!r}")
    if elementwise_dims not in (0, 1):
        raise ValueError(
            f"elementwise_dims must be 0 or 1 for mode 'default'; got {elementwise_dims}"
        )
    if elementwise_dims == 0:
        return gather(data, indices, axis, 0, out_of_range="zero")

    data = np.asarray(data)
    indices = as_index_array(indices)
    if data.ndim == 0:
        raise ValueError("Gather data must have rank >= 1; got a scalar.")
    axis = normalize_axis(axis, data.ndim)
    if axis < 1 or indices.ndim < 1:
        raise ValueError(
            "elementwise_dims = 1 needs axis >= 1 and indices of rank >= 1; got "
            f"axis = {axis}, indices shape {format_shape(indices.shape)}"
        )
    data_lead, indices_lead = data.shape[0], indices.shape[0]
    if data_lead == indices_lead:
        return gather(data, indices, axis, 1, out_of_range="zero")
    if indices_lead == 1:
        # One row of indices serves every data batch: a plain gather gives exactly that shape.
        return gather(data, indices[0], axis, 0, out_of_range="zero")
    if data_lead == 1:
        return _gather_batched(data, indices, axis, 1, "zero", broadcast_data_batch=True)
    raise ValueError(
        f"Leading dimensions of data {format_shape(data.shape)} and indices "
        f"{format_shape(indices.shape)} can be neither equal nor broadcast"
    )
