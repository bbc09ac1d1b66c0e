"""Bitwise comparison of two arrays: count, first index, max abs diff and max ULP."""

from __future__ import annotations

import numpy as np


def _show(value, etype) -> str:
    """One element as printed in a report; a NaN adds its bits (payloads differ)."""
    if etype is not None and etype.kind == "float" and etype.name != "nf4":
        number = float(value)
        if not np.isnan(number):
            return repr(number)
        scalar = np.asarray(value).reshape(1)
        bits = int(scalar.view(f"u{scalar.itemsize}")[0])
        return f"nan (0x{bits:0{max(etype.bits, 8) // 4}x})"
    if isinstance(value, (np.bool_, bool)):
        return str(bool(value))
    if isinstance(value, (np.integer, int)) or (etype is not None and etype.is_integer):
        return str(int(value))
    return repr(str(value))


def _unsigned_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``|a - b|`` of two int64 (or uint64) arrays, exact, as uint64."""
    unsigned_a, unsigned_b = a.view(np.uint64), b.view(np.uint64)
    return np.where(a >= b, unsigned_a - unsigned_b, unsigned_b - unsigned_a)


def _ordinals(values: np.ndarray, etype) -> np.ndarray:
    """Floats as int64 on a number line where neighbouring floats are 1 apart (-0.0 = +0.0)."""
    width = etype.bits
    bits = np.ascontiguousarray(values).view(f"u{values.itemsize}").astype(np.uint64)
    if etype.name == "f8e8m0":  # no sign bit
        return bits.view(np.int64)
    sign = (bits >> np.uint64(width - 1)) & np.uint64(1)
    magnitude = (bits & np.uint64((1 << (width - 1)) - 1)).view(np.int64)
    return np.where(sign == 1, -magnitude, magnitude)


def compare_arrays(ours: np.ndarray, theirs: np.ndarray, etype=None) -> dict | None:
    """Bitwise comparison of two arrays of one dtype and shape; ``None`` when they are equal.

    Returns ``elements``, ``differing``, ``first_index``, ``irrun_value``, ``openvino_value``,
    ``max_abs_diff``, ``max_ulp`` and ``nan_mismatches`` (see :class:`TensorComparison`).
    ``etype`` (an :class:`~irrun.element_types.ElementType`) defaults to the dtype's.

    Examples
    --------
    >>> found = compare_arrays(np.float32([1.0, -0.0, 2.0]), np.float32([1.0, 0.0, 2.5]))
    >>> found["differing"], found["first_index"], found["max_abs_diff"], found["max_ulp"]
    (2, (1,), 0.5, 2097152)
    """
    if etype is None:
        from irrun.element_types import from_numpy_dtype

        etype = from_numpy_dtype(ours.dtype)
    if ours.dtype.kind == "T" or theirs.dtype.kind == "T":
        differ = np.asarray(ours != theirs)
    else:
        unsigned = f"u{ours.dtype.itemsize}"
        # (reshaped: ascontiguousarray makes a scalar one-dimensional)
        differ = (np.ascontiguousarray(ours).view(unsigned)
                  != np.ascontiguousarray(theirs).view(unsigned)).reshape(ours.shape)  # fmt: skip
    if not differ.any():
        return None
    first = np.unravel_index(int(np.argmax(differ)), differ.shape)
    found = {
        "elements": int(differ.size),
        "differing": int(differ.sum()),
        "first_index": tuple(int(i) for i in first),
        "irrun_value": _show(ours[first], etype),
        "openvino_value": _show(theirs[first], etype),
        "max_abs_diff": None,
        "max_ulp": None,
        "nan_mismatches": None,
    }
    a, b = ours[differ], theirs[differ]
    if etype is not None and etype.kind == "float" and etype.name != "nf4":
        wide_a, wide_b = a.astype(np.float64), b.astype(np.float64)
        nan_a, nan_b = np.isnan(wide_a), np.isnan(wide_b)
        numeric = ~nan_a & ~nan_b
        found["nan_mismatches"] = int((nan_a != nan_b).sum())
        if numeric.any():
            with np.errstate(invalid="ignore", over="ignore"):
                found["max_abs_diff"] = float(np.max(np.abs(wide_a[numeric] - wide_b[numeric])))
            distance = _unsigned_distance(
                _ordinals(a[numeric], etype), _ordinals(b[numeric], etype)
            )
            found["max_ulp"] = int(distance.max())
    elif ours.dtype.kind in "iub" or (etype is not None and etype.kind in ("int", "uint", "bool")):
        wide = np.uint64 if ours.dtype == np.uint64 else np.int64
        distance = _unsigned_distance(a.astype(wide).view(wide), b.astype(wide).view(wide))
        found["max_abs_diff"] = int(distance.max())
    return found
