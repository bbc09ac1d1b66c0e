"""Checks and kernel pieces shared by ScatterUpdate, ScatterElementsUpdate and ScatterNDUpdate:
element types of data and updates, the axis input, constant index ranges, "the last duplicate
wins" and the reductions of the newer versions."""

from __future__ import annotations

import numpy as np

from irrun.ops._indices import as_signed_indices, check_index_type, first_bad_index
from irrun.ops.base import Op, TensorInfo
from irrun.shape import static_dim

__all__ = [
    "check_scatter_types",
    "check_axis_input",
    "check_constant_indices",
    "last_occurrences",
    "scatter_reduce",
]

#: The ``reduction`` values of ScatterElementsUpdate-12 and ScatterNDUpdate-15.
_ONE = static_dim(1)


def check_scatter_types(op: Op, data: TensorInfo, indices: TensorInfo, updates: TensorInfo):
    """Report ``index-type`` for non-integer indices and ``input-type`` when data and updates
    differ; return False after an error."""
    ok = check_index_type(op, indices, 1)
    a, b = data.element_type, updates.element_type
    if a.name != "dynamic" and b.name != "dynamic" and a != b:
        op.context.error(
            "input-type",
            f"{op.describe()}: data and updates must have one element type, but data is {a} "
            f"and updates are {b}",
            port=op.input_port(2),
            hint="insert a Convert so that the updates have the data's element type",
        )
        return False
    return ok


def check_axis_input(op: Op, axis: TensorInfo, index: int = 3, any_length: bool = False) -> bool:
    """Report ``index-type`` for a non-integer axis and ``input-rank`` unless its shape can be
    ``[]`` or ``[1]`` (``any_length``: any 1-D shape, whose first element is the axis)."""
    etype = axis.element_type
    if not (etype.is_integer or etype.name == "dynamic"):
        op.context.error(
            "index-type",
            f"{op.describe()}: the axis input must be an integer, not {etype}",
            port=op.input_port(index),
            hint="insert a Convert to i64 before the axis input",
        )
        return False
    dims = axis.shape.dims
    one = any_length or (dims is not None and len(dims) == 1 and dims[0].compatible(_ONE))
    if dims is not None and not (len(dims) == 0 or (len(dims) == 1 and one)):
        wanted = "be a scalar or 1-D" if any_length else "be a scalar or have one element"
        op.context.error(
            "input-rank",
            f"{op.describe()}: the axis input must {wanted}, but its shape is {axis.shape}",
            port=op.input_port(index),
            hint="give the axis as a 0-D tensor",
        )
        return False
    return True


def check_constant_indices(op: Op, indices: TensorInfo, low: int, high: int, what: str) -> None:
    """Report ``index-range`` for the first constant index outside ``[low, high]``."""
    if indices.value is None or np.asarray(indices.value).size == 0:
        return
    values = as_signed_indices(indices.value)
    found = first_bad_index(values, low, high)
    if found:
        position, value, count = found
        op.context.error(
            "index-range",
            f"{op.describe()}: {count} index value(s) outside [{low}, {high}] for {what}, e.g. "
            f"{value} at {list(position)}; OpenVINO fails when it runs the layer",
            port=op.input_port(1),
            hint=f"keep the indices within [{low}, {high}]",
        )


def last_occurrences(positions: np.ndarray):
    """``(unique positions, index of the last occurrence of each)`` of a 1-D array: plain
    updates write in order, so the last duplicate wins."""
    reversed_positions = positions[::-1]
    unique, first = np.unique(reversed_positions, return_index=True)
    return unique, positions.size - 1 - first


def scatter_reduce(flat: np.ndarray, positions: np.ndarray, values: np.ndarray, reduction: str,
                   use_init_val: bool = True) -> None:  # fmt: skip
    """Apply ``values`` at flat ``positions`` of ``flat`` (in place, in index order) with
    ``reduction``: ``none`` (the last duplicate wins), ``sum``, ``sub``, ``prod``, ``min``,
    ``max`` or ``mean``, accumulating in the data type as OpenVINO's reference does (booleans:
    sum and max are or, prod and min are and, sub is xor). ``use_init_val`` false: updated
    positions start from the reduction's neutral value, so the data value does not take part.
    ``mean``: the sum divided by the count of values taking part, as a float in the data's
    float type, rounded toward minus infinity for integers."""
    if reduction == "none":
        unique, last = last_occurrences(positions)
        flat[unique] = values[last]
        return
    dtype = flat.dtype
    if dtype == np.bool_:
        work = flat.view(np.uint8)
        if not use_init_val:
            work[positions] = 1 if reduction in ("prod", "min") else 0
        ufunc = {"sum": np.maximum, "max": np.maximum, "prod": np.minimum, "min": np.minimum,
                 "sub": np.bitwise_xor}[reduction]  # fmt: skip
        ufunc.at(work, positions, values.view(np.uint8))
        return
    if not use_init_val:
        flat[positions] = _neutral(reduction, dtype)
    ufunc = {"sum": np.add, "mean": np.add, "sub": np.subtract, "prod": np.multiply,
             "min": np.minimum, "max": np.maximum}[reduction]  # fmt: skip
    ufunc.at(flat, positions, values)
    if reduction == "mean":
        counts = np.bincount(positions, minlength=flat.size)
        where = np.flatnonzero(counts)
        divisor = counts[where] + (1 if use_init_val else 0)
        if dtype.kind == "f" or dtype.kind == "V" or "float" in dtype.name:
            wide = np.float64 if dtype.itemsize == 8 else np.float32
            flat[where] = (flat[where].astype(wide) / divisor.astype(wide)).astype(dtype)
        else:
            flat[where] = np.floor(flat[where].astype(np.float64) / divisor).astype(dtype)


def _neutral(reduction: str, dtype):
    if reduction in ("sum", "sub", "mean"):
        return 0
    if reduction == "prod":
        return 1
    info = np.iinfo(dtype) if dtype.kind in "iu" else np.finfo(dtype)
    return info.min if reduction == "max" else info.max
