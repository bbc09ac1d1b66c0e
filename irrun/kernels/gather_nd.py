"""GatherND (OpenVINO GatherND-5 and -8)."""

from __future__ import annotations

import numpy as np

from irrun.kernels._indices import (
    as_index_array,
    check_policy,
    fill_zero,
    format_shape,
    normalize_indices,
    product,
    zeros_like_output,
)

__all__ = ["gather_nd"]


def gather_nd(
    data, indices, batch_dims: int = 0, *, flatten_batch: bool = False, out_of_range: str = "error"
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

    Returns
    -------
    numpy.ndarray
        A new array of ``data``'s dtype.

    Raises
    ------
    TypeError
        If ``indices`` is not of an integer dtype.
    ValueError
        For a scalar data or indices, ``batch_dims`` outside ``[0, min(q, r) - 1]``,
        ``k > r - b``, or batch dims that differ.
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

    values, invalid = normalize_indices(
        indices,
        tuple(int(d) for d in addressed),
        tuple(range(batch_dims, batch_dims + tuple_length)),
        out_of_range,
    )
    tuple_invalid = None if invalid is None else invalid.any(axis=-1)
    if tuple_invalid is not None and tuple_invalid.all():
        return zeros_like_output(data, out_shape)

    tuples = product(indices.shape[batch_dims:-1])
    slice_size = product(slice_shape)
    values = values.reshape(batch, tuples, tuple_length)
    # Flat row numbers into data viewed as (batch * prod(addressed), slice) and one np.take:
    # a single copy of the slices, with no fancy-indexing machinery or loop over batches.
    if tuple_length == 0:
        flat_rows = np.zeros((batch, tuples), dtype=np.intp)
    else:
        flat_rows = values[:, :, 0]
    for j in range(1, tuple_length):  # Horner's rule: ((t0 * d1 + t1) * d2 + t2) ...
        flat_rows = flat_rows * int(addressed[j])  # a new array: `values` may be the caller's
        flat_rows += values[:, :, j]
    per_batch = product(addressed)
    if batch > 1:
        flat_rows = flat_rows + (np.arange(batch, dtype=np.intp) * per_batch)[:, None]
    rows = data.reshape(batch * per_batch, slice_size)
    out = np.take(rows, flat_rows, axis=0, mode="wrap")
    if tuple_invalid is not None:
        fill_zero(out, tuple_invalid.reshape(batch, tuples), data)
    return out.reshape(out_shape)
