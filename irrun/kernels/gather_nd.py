"""GatherND (OpenVINO GatherND-5 and -8)."""

from __future__ import annotations

import numpy as np

from irrun.kernels._indices import (
    as_index_array,
    check_out,
    check_policy,
    fill_zero,
    format_shape,
    normalize_indices,
    product,
    tiles,
    zeros_like_output,
)

__all__ = ["gather_nd"]


def gather_nd(
    data,
    indices,
    batch_dims: int = 0,
    *,
    flatten_batch: bool = False,
    out_of_range: str = "error",
    out=None,
):
    """Take slices of ``data`` addressed by index tuples (OpenVINO GatherND-8 / GatherND-5).

    ``indices`` is a grid of tuples of length ``k = indices.shape[-1]``. Inside the batch
    selected by the first ``b = batch_dims`` coordinates, each tuple addresses data dimensions
    ``b .. b+k-1`` and selects the slice ``data[batch, t_0, ..., t_{k-1}]`` of shape
    ``data.shape[b+k:]``. ``k = 0`` is allowed (OpenVINO accepts it; ONNX does not): each
    empty tuple selects the whole batch slice.

    Output shape: GatherND-8 gives ``indices.shape[:-1] + data.shape[b+k:]``; GatherND-5
    (``flatten_batch=True``) flattens the batch dims into one,
    ``[prod(indices.shape[:b])] + indices.shape[b:-1] + data.shape[b+k:]``, when ``b > 0``
    (the same as GatherND-8 for ``b <= 1``).

    Negative indices wrap (``[-s, s-1]``; GatherND-8 spec since OpenVINO 2025.3, and the CPU
    plugin for both versions). Out-of-range indices are unspecified in OpenVINO (its CPU plugin
    reads out of bounds), hence the default ``"error"``.

    Parameters
    ----------
    data : numpy.ndarray
        Rank ``r >= 1``, any dtype; copied bit for bit.
    indices : numpy.ndarray
        Rank ``q >= 1``, any integer dtype.
    batch_dims : int, optional
        ``0 <= b < min(q, r)``; the first ``b`` dims of data and indices must be equal (the
        specs say "broadcastable", OpenVINO requires equality).
    flatten_batch : bool, optional
        True for GatherND-5's output shape.
    out_of_range : {"zero", "error", "clip"}, optional
        For a tuple element outside ``[-s, s-1]``: ``"zero"`` writes zeros for the whole slice
        (TensorRT's rule), ``"error"`` raises, ``"clip"`` clamps each element into
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
        If ``indices`` is not of an integer dtype.
    ValueError
        For a scalar data or indices, ``batch_dims`` outside ``[0, min(q, r) - 1]``,
        ``k > r - b``, batch dims that differ, or an ``out`` of another shape or dtype than
        the result's.
    IndexOutOfRangeError
        With ``out_of_range="error"``, for the first index outside its range; the message
        gives its value, its position in ``indices`` and the valid range.

    Examples
    --------
    >>> import numpy as np
    >>> data = np.array([[1, 2], [3, 4]])
    >>> gather_nd(data, np.array([[0, 0], [1, 0]]))
    array([1, 3])
    >>> gather_nd(data, np.array([[1], [0]]))
    array([[3, 4],
           [1, 2]])
    >>> data = np.arange(1, 25).reshape(2, 3, 4)
    >>> gather_nd(data, np.array([[[1], [0], [2]], [[0], [2], [3]]]), batch_dims=2)
    array([[ 2,  5, 11],
           [13, 19, 24]])
    >>> gather_nd(data, np.array([[[1], [0], [2]], [[0], [2], [3]]]), 2, flatten_batch=True)
    array([ 2,  5, 11, 13, 19, 24])
    """
    data = np.asarray(data)
    indices = as_index_array(indices)
    check_policy(out_of_range)
    rank, indices_rank = data.ndim, indices.ndim
    if rank == 0:
        raise ValueError("Data rank must be at least 1.")
    if indices_rank == 0:
        raise ValueError("Indices rank must be at least 1.")
    batch_dims = int(batch_dims)
    if not 0 <= batch_dims < rank:
        raise ValueError(
            "Number of batch dimensions must not exceed a rank of data: "
            f"need 0 <= batch_dims < {rank}, got batch_dims = {batch_dims}."
        )
    if batch_dims >= indices_rank:
        raise ValueError(
            "Number of batch dimensions must not exceed a rank of indices: "
            f"need batch_dims < {indices_rank}, got batch_dims = {batch_dims}."
        )
    tuple_length = indices.shape[-1]
    if tuple_length > rank - batch_dims:
        raise ValueError(
            "Length of a tuple with indices must not exceed a rank of data tensor excluding "
            f"batch dimensions: {tuple_length} > {rank} - {batch_dims}."
        )
    if data.shape[:batch_dims] != indices.shape[:batch_dims]:
        raise ValueError(
            "Batch dimensions of data and indices must be the same: data shape "
            f"{format_shape(data.shape)}, indices shape {format_shape(indices.shape)}, "
            f"batch_dims = {batch_dims}."
        )

    addressed = data.shape[batch_dims : batch_dims + tuple_length]
    slice_shape = data.shape[batch_dims + tuple_length :]
    batch = product(indices.shape[:batch_dims])
    if flatten_batch and batch_dims > 0:
        out_shape = (batch,) + indices.shape[batch_dims:-1] + slice_shape
    else:
        out_shape = indices.shape[:-1] + slice_shape
    if out is not None:
        check_out(out, out_shape, data.dtype)
        if not out.flags.c_contiguous:  # the tiles below are views of a contiguous result
            np.copyto(out, gather_nd(data, indices, batch_dims, flatten_batch=flatten_batch,
                                     out_of_range=out_of_range))  # fmt: skip
            return out

    sizes = tuple(int(d) for d in addressed)
    data_axes = tuple(range(batch_dims, batch_dims + tuple_length))
    tuples = product(indices.shape[batch_dims:-1])
    if min(sizes, default=1) == 0 and batch * tuples:
        normalize_indices(indices, sizes, data_axes, out_of_range)  # raises unless "zero"
        return zeros_like_output(data, out_shape, out=out)

    per_batch = product(sizes)
    rows = data.reshape(batch * per_batch, product(slice_shape))
    index_grid = indices.reshape(batch, tuples, tuple_length)
    result = np.empty(out_shape, dtype=data.dtype) if out is None else out
    out = result.reshape(batch, tuples, rows.shape[1])  # a view: the result is contiguous
    # Flat row numbers into data viewed as (batch * prod(addressed), slice) and np.take per
    # tile: as fast as fancy indexing for slices, ~1.5x faster for single elements
    # (bench/bench_kernels.py), and batch dims need no loop.
    for batches, columns in tiles(batch, tuples):

        def locate(local, batches=batches, columns=columns):
            cell = (batches.start + local[0]) * tuples + columns.start + local[1]
            return np.unravel_index(cell * tuple_length + local[2], indices.shape)

        values, invalid = normalize_indices(
            index_grid[batches, columns], sizes, data_axes, out_of_range, locate=locate
        )
        flat_rows = values[:, :, 0] if tuple_length else np.zeros(values.shape[:2], np.intp)
        for j in range(1, tuple_length):  # Horner's rule: ((t0 * d1 + t1) * d2 + t2) ...
            flat_rows = flat_rows * sizes[j]  # a new array: `values` may be the caller's
            flat_rows += values[:, :, j]
        if batch > 1:
            first = np.arange(batches.start, batches.stop, dtype=np.intp) * per_batch
            flat_rows = flat_rows + first[:, None]
        tile = out[batches, columns]
        np.take(rows, flat_rows, axis=0, mode="wrap", out=tile)
        if invalid is not None:
            fill_zero(tile, invalid.any(axis=-1), data)
    return result
