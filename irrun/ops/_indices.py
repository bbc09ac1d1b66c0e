"""Checks shared by the Gather family: index element types and constant index ranges."""

from __future__ import annotations

import numpy as np

from irrun.ops.base import Op, TensorInfo


def check_index_type(op: Op, info: TensorInfo, port_index: int, allowed=None) -> bool:
    """Report ``index-type`` unless the indices are an integer type (or one of ``allowed``)."""
    etype = info.element_type
    if etype.name == "dynamic":
        return True
    ok = etype.name in allowed if allowed else etype.is_integer
    if not ok:
        wanted = " or ".join(allowed) if allowed else "an integer type (i32, i64, u8, ...)"
        op.context.error(
            "index-type",
            f"{op.describe()}: indices must be {wanted}, but input {port_index} is {etype}",
            port=op.input_port(port_index),
            hint="insert a Convert to i64 (or i32) before the indices input",
        )
    return ok


def as_signed_indices(values):
    """Index values as int64 for range checks; u64 values beyond int64 become int64's maximum
    (still out of range) instead of wrapping to negative numbers."""
    values = np.asarray(values)
    if values.dtype == np.uint64:
        values = np.minimum(values, np.uint64(2**63 - 1))
    return values.astype(np.int64, copy=False)


def first_bad_index(values, low: int, high: int):
    """``(position, value, count)`` of the first entry of ``values`` outside ``[low, high]``
    (and how many there are), or ``None``."""
    if values.size <= 64:  # the common case, a few indices: cheaper in Python than in numpy
        listed = values.ravel().tolist()
        if listed and low <= min(listed) and max(listed) <= high:
            return None
    elif low <= values.min() and values.max() <= high:
        return None
    bad = (values < low) | (values > high)
    if not bad.any():
        return None
    position = np.unravel_index(int(np.argmax(bad)), values.shape)
    return tuple(int(p) for p in position), int(values[position]), int(bad.sum())


def warn_negative(op: Op, values, allowed: str, behaviour: str, newer: str) -> None:
    """Warn (``index-range``) about the first negative constant index for an op version whose
    spec allows only non-negative indices."""
    negative = values < 0
    if not negative.any():
        return
    position = np.unravel_index(int(np.argmax(negative)), values.shape)
    op.context.warning(
        "index-range",
        f"{op.describe()}: negative index {int(values[position])} at "
        f"{[int(p) for p in position]}; the {op.label} spec allows only {allowed} ({behaviour})",
        port=op.input_port(1),
        hint=f"use {newer}, which defines negative indices",
    )


def batch_dims_merge(op: Op, data, indices, batch: int):
    """Merge the first ``batch`` dims of data and indices, reporting ``input-dims`` on conflict."""
    merged = []
    for i in range(batch):
        joined = data.shape[i].merge(indices.shape[i])
        if joined is None:
            op.context.error(
                "input-dims",
                f"{op.describe()}: data {data.shape} and indices {indices.shape} must have equal "
                f"sizes in their first {batch} (batch) dimensions, but dimension {i} is "
                f"{data.shape[i]} vs {indices.shape[i]}",
                port=op.input_port(1),
                hint="OpenVINO does not broadcast batch dimensions; make them equal",
            )
            return None
        merged.append(joined)
    return merged
