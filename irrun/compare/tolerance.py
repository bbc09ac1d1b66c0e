"""When a float difference between irrun and OpenVINO is rounding, not a disagreement.

Two correct implementations of a float op differ in the last bits: OpenVINO's CPU plugin sums
convolutions and matrix products in its own blocked order, approximates ``exp``, ``erf`` and
``tanh`` its own way, and fuses steps. :func:`within_rounding` accepts a difference when every
element of irrun's tensor is within ``rtol`` times the largest magnitude of OpenVINO's tensor
(plus the type's smallest normal number, for flushed subnormals): a scale-relative bound,
because a sum of many terms is exact only relative to its terms, and an output near zero
from cancelling terms carries their rounding. NaN must meet NaN (any payload) and infinities
the same infinity.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "ROUNDING_RTOL",
    "within_rounding",
    "relative_difference",
    "rounding_gap",
    "relative_of",
    "gap_within",
]

#: The default ``rtol`` per element type: for f32 about 800 units in the last place of the
#: largest value, 8x the largest difference measured for one layer on OpenVINO's own inputs
#: over the committed real models and full-size MobileNetV3-large, BERT-base and GPT-2 small
#: (ReduceMean 1.2e-5, MatMul 2e-6, Convolution 1.1e-6, the rest below 5e-7), while a wrong
#: element or index is off by far more; the narrow types about ten units in the last place.
#: Other types (integers, f8, nf4, strings) must match exactly.
ROUNDING_RTOL = {"f64": 1e-10, "f32": 1e-4, "f16": 1e-2, "bf16": 6e-2}


def rounding_gap(ours: np.ndarray, theirs: np.ndarray) -> tuple[float, float] | None:
    """``(max |ours - theirs|, max |theirs|)`` over the finite elements (one pass over both
    arrays, in float64), or ``None`` when their non-finite elements disagree (NaN must meet
    NaN of any payload, an infinity the same infinity)."""
    a = np.asarray(ours).astype(np.float64)
    b = np.asarray(theirs).astype(np.float64)
    finite_a, finite = np.isfinite(a), np.isfinite(b)
    if not np.array_equal(finite_a, finite):
        return None
    if not finite_a.all():
        odd = ~finite_a
        if not np.array_equal(a[odd], b[odd], equal_nan=True):
            return None
        a, b = a[finite], b[finite]
    if a.size == 0:
        return 0.0, 0.0
    return float(np.max(np.abs(a - b))), float(np.max(np.abs(b)))


def relative_of(gap) -> float | None:
    """A :func:`rounding_gap` as a fraction of OpenVINO's largest value (``inf`` when that
    is 0 and the difference not; ``None`` for no gap)."""
    if gap is None:
        return None
    difference, scale = gap
    if difference == 0:
        return 0.0
    return difference / scale if scale > 0 else float("inf")


def gap_within(gap, etype, rtol: float) -> bool:
    """Whether a :func:`rounding_gap` is within ``rtol * max|theirs| + tiny`` (``tiny``: the
    type's smallest normal number)."""
    if gap is None:
        return False
    difference, scale = gap
    return difference <= rtol * scale + _smallest_normal(etype)


def relative_difference(ours: np.ndarray, theirs: np.ndarray) -> float | None:
    """``max |ours - theirs| / max |theirs|`` over the finite elements (``None`` when the
    non-finite elements do not agree; ``inf`` when OpenVINO's are all zero and ours not)."""
    return relative_of(rounding_gap(ours, theirs))


def within_rounding(ours: np.ndarray, theirs: np.ndarray, etype, rtol: float) -> bool:
    """True when ``ours`` equals ``theirs`` up to float rounding of ``etype`` (see the module
    docstring): every finite element within ``rtol * max|theirs| + tiny``, where ``tiny`` is
    the type's smallest normal number.

    Examples
    --------
    >>> from irrun.element_types import element_type
    >>> f32 = element_type("f32")
    >>> within_rounding(np.float32([1.0, 1e-9]), np.float32([1.0000001, 0.0]), f32, 1e-5)
    True
    >>> within_rounding(np.float32([1.0, 2.0]), np.float32([1.0, 2.001]), f32, 1e-5)
    False
    """
    return gap_within(rounding_gap(ours, theirs), etype, rtol)


def _smallest_normal(etype) -> float:
    dtype = etype.numpy_dtype
    if dtype.kind == "f":
        return float(np.finfo(dtype).tiny)
    import ml_dtypes  # bf16 and the other narrow floats (only then: importing it takes long)

    return float(ml_dtypes.finfo(dtype).tiny)
