"""Concat (OpenVINO Concat-1, ONNX Concat-13)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from irrun.kernels._indices import check_out, format_shape, normalize_axis

__all__ = ["concat"]


def concat(arrays: Sequence[np.ndarray], axis: int, *, out: np.ndarray | None = None) -> np.ndarray:
    """Lay ``arrays`` end to end along ``axis`` (OpenVINO Concat-1).

    All inputs share one element type and one rank ``r >= 1``, and have equal dimensions
    except along ``axis``; the output dimension there is the sum of the inputs'. Inputs of
    size 0 along the axis are allowed. Any dtype works, numpy strings (fixed width or
    ``StringDType``), object strings, bool, complex and the ``ml_dtypes`` types included;
    fixed-width strings of different widths count as one element type (the output takes
    the widest). Values are copied bit for bit.

    Parameters
    ----------
    arrays : sequence of numpy.ndarray
        At least one array.
    axis : int
        In ``[-r, r-1]``.
    out : numpy.ndarray, optional
        An array of the result's shape and dtype to write into (it must not overlap the
        inputs); ``None`` allocates one.

    Returns
    -------
    numpy.ndarray
        ``out``, or a new array; the result is allocated once and each input copied into
        its place.

    Raises
    ------
    ValueError
        For no inputs, scalar inputs, an ``axis`` out of range, differing element types,
        ranks or non-axis dimensions (the message lists the shapes or dtypes).

    Examples
    --------
    >>> import numpy as np
    >>> concat([np.array([[1, 2], [3, 4]]), np.array([[5], [6]])], axis=1)
    array([[1, 2, 5],
           [3, 4, 6]])
    >>> concat([np.array([2]), np.array([-1]), np.array([3, 4])], axis=0)
    array([ 2, -1,  3,  4])
    """
    arrays = [np.asarray(a) for a in arrays]
    if not arrays:
        raise ValueError("Concat needs at least one input.")
    first = arrays[0]
    if any(a.ndim == 0 for a in arrays):
        raise ValueError(
            "Concat inputs must have rank >= 1; got shapes "
            + ", ".join(format_shape(a.shape) for a in arrays)
        )
    if not all(_same_element_type(a.dtype, first.dtype) for a in arrays):
        raise ValueError(
            "Argument element types are inconsistent: " + ", ".join(str(a.dtype) for a in arrays)
        )
    axis = normalize_axis(axis, first.ndim)
    others = first.shape[:axis] + first.shape[axis + 1 :]
    if any(a.ndim != first.ndim or a.shape[:axis] + a.shape[axis + 1 :] != others for a in arrays):
        raise ValueError(
            "Argument shapes are inconsistent; they must have the same rank, and must have "
            f"equal dimension everywhere except on the concatenation axis (axis {axis}): "
            + ", ".join(format_shape(a.shape) for a in arrays)
        )
    # np.concatenate allocates the result once and copies each input into its slice; measured
    # as fast as np.empty + slice assignment (bench/bench_kernels.py).
    if out is None:
        return np.concatenate(arrays, axis=axis)
    shape = list(first.shape)
    shape[axis] = sum(a.shape[axis] for a in arrays)
    result_dtype = max((a.dtype for a in arrays), key=lambda d: d.itemsize)
    check_out(out, tuple(shape), result_dtype)
    return np.concatenate(arrays, axis=axis, out=out)


def _same_element_type(a: np.dtype, b: np.dtype) -> bool:
    return a == b or (a.kind == b.kind and a.kind in "US")
