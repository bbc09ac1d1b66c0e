"""What the Reduce* ops share: inputs ``data`` and ``axes``, attribute ``keep_dims``, the shape
rule, and axes normalisation for the kernels.

Shape rule (OpenVINO's ``reduce_shape_inference.hpp``, checked with 2026.4.1):

- ``axes`` is a scalar or 1-D tensor of any integer type (``index-type`` otherwise; a rank
  that cannot be 0 or 1 is ``input-rank``). Its values may repeat and be negative; each must lie
  in ``[-r, r-1]`` with ``r = max(rank(data), 1)`` (a scalar takes axes 0 and -1); an empty
  ``axes`` reduces nothing.
- ``keep_dims`` (default false) sets reduced dims to 1, else removes them. A scalar with
  ``keep_dims`` and any axis is refused by OpenVINO (its shape code reads past the end).
- When ``axes`` is not a constant (or ``data`` has a dynamic rank): with ``keep_dims`` every
  dim is ``?`` (rank kept); without, the rank is ``rank(data) - 1`` when ``axes`` is known to
  hold exactly one element, else dynamic.
- A constant axis out of range on data of dynamic rank is accepted by OpenVINO (irrun too).

Arithmetic reductions take any numeric type (not boolean); the logical ones boolean only.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from irrun.ops._shape_ops import check_integer_input
from irrun.ops._values import info_of_elements, signed_elements, signed_values
from irrun.ops.base import Attribute, Op, TensorInfo, lazy_text, normalize_axes_or_report
from irrun.shape import Dim, Shape, shape_of_dims, static_dim

__all__ = [
    "Reduction",
    "reduction_axes",
    "float_sum",
    "accumulator",
    "product_of_elements",
    "sum_of_elements",
    "min_of_elements",
    "max_of_elements",
]

_INT64_MAX = 2**63 - 1
_ONE = static_dim(1)


class Reduction(Op):
    """Base of ReduceSum, ReduceMean, ... : subclasses set ``type``, ``version``, ``logical``
    and implement :meth:`reduce` (and may set ``combine`` for partial values)."""

    inputs = (2, 2)
    attributes = (Attribute("keep_dims", "bool", False),)
    #: True for ReduceLogicalAnd/Or (boolean data), False for the arithmetic ones.
    logical = False
    #: ``combine(elements) -> element`` for a rank-1 integer partial value reduced over axis 0
    #: (ReduceSum, ReduceProd), or ``None``.
    combine = None

    def infer(self, inputs):
        """The shape rule of the module docstring."""
        data, axes = inputs
        if not self._check_types(data, axes):
            return None
        axes_dims = axes.shape.dims
        if axes_dims is not None and len(axes_dims) > 1:
            self.context.error(
                "input-rank",
                f"{self.describe()}: axes must be a scalar or 1-D, but its shape is {axes.shape}",
                port=self.input_port(1),
                hint="Reshape the axes to 1-D",
            )
            return None
        etype = data.element_type
        elements = signed_elements(axes)
        constant = elements is not None and all(isinstance(e, int) for e in elements)
        rank = data.shape.rank
        if rank is None or not constant:
            return [TensorInfo(self._unknown_axes_shape(data, axes), etype,
                               why="the axes are not a constant")]  # fmt: skip
        normalised = self._normalise(elements, rank)
        if normalised is None:
            return None
        dims = data.shape.dims
        if self.keep_dims:
            out = tuple(_ONE if i in normalised else d for i, d in enumerate(dims))
        else:
            out = tuple(d for i, d in enumerate(dims) if i not in normalised)
        shape = shape_of_dims(out)
        why = lazy_text("data {} reduced over axes {}{}", data.shape, sorted(normalised),
                        " (kept as 1)" if self.keep_dims else "")  # fmt: skip
        if data.partial is not None and rank == 1 and data.value is None:
            return [self._partial_result(data, normalised, shape, why)]
        return [TensorInfo(shape, etype, why=why)]

    def _check_types(self, data: TensorInfo, axes: TensorInfo) -> bool:
        etype = data.element_type
        if etype.name != "dynamic":
            if self.logical and etype.name != "boolean":
                self.context.error(
                    "input-type",
                    f"{self.describe()}: data must be boolean, but it is {etype}",
                    port=self.input_port(0),
                    hint="compare the data with a Const (NotEqual 0) to get a boolean tensor",
                )
                return False
            if not self.logical and etype.kind not in ("float", "int", "uint"):
                self.context.error(
                    "input-type",
                    f"{self.describe()}: data must be a number type, but it is {etype}",
                    port=self.input_port(0),
                    hint="insert a Convert to a number type (f32, i32, ...) before the data",
                )
                return False
        return check_integer_input(self, axes, 1, "axes")

    def _unknown_axes_shape(self, data: TensorInfo, axes: TensorInfo) -> Shape:
        rank = data.shape.rank
        if rank is None:
            return Shape.dynamic_rank()
        if self.keep_dims:
            return Shape([Dim.dynamic()] * rank)
        axes_shape = axes.shape
        if axes_shape.is_static and axes_shape.element_count() == 1:
            return Shape([Dim.dynamic()] * max(rank - 1, 0))
        return Shape.dynamic_rank()

    def _normalise(self, axes, rank: int) -> set | None:
        result = normalize_axes_or_report(self, axes, rank, port_index=1, unique=False,
                                          scalar=True)  # fmt: skip
        if result is None:
            return None
        if rank == 0:
            if self.keep_dims and result:
                self.context.error(
                    "axis-range",
                    f"{self.describe()}: data is a scalar, which has no dimension {list(axes)} "
                    "to keep (keep_dims=true); OpenVINO fails on it",
                    port=self.input_port(1),
                    hint="set keep_dims to false or give empty axes",
                )
                return None
            return set()
        return set(result)

    def _partial_result(self, data, normalised, shape, why) -> TensorInfo:
        elements = data.partial
        if not normalised:
            result = elements
        elif self.combine is None:
            result = None
        else:
            result = (self.combine(elements),)
        return info_of_elements(result, data.element_type, shape, why)

    # -- running ----------------------------------------------------------------------------
    def evaluate(self, inputs):
        """:meth:`reduce` over the normalised axes, in the data's dtype."""
        data, axes = inputs
        normalised = reduction_axes(axes, data.ndim, self)
        result = self.reduce(data, normalised, bool(self.keep_dims))
        return [np.asarray(result).astype(data.dtype, copy=False)]

    def reduce(self, data: np.ndarray, axes: tuple, keep_dims: bool) -> np.ndarray:
        """The reduction of ``data`` over ``axes`` (normalised, unique)."""
        raise NotImplementedError


def reduction_axes(axes, rank: int, op: Op | None = None) -> tuple:
    """Axes values (an array) normalised for data of ``rank``: unique, sorted, ``()`` for a
    scalar (whose only axes, 0 and -1, reduce nothing). ``op``: named in the error."""
    if rank == 0:
        return ()
    given = signed_values(axes)
    bad = [a for a in given if not -rank <= a < rank]
    if bad:
        who = f"{op.describe()}: " if op is not None else ""
        raise ValueError(
            f"{who}axis {bad[0]} of axes {given} is out of the range [{-rank}, {rank - 1}] "
            f"allowed for data of rank {rank}; use axes between {-rank} and {rank - 1}"
        )
    values = {a + rank if a < 0 else a for a in given}
    return tuple(sorted(values))


def accumulator(dtype) -> np.dtype:
    """The dtype a sum of ``dtype`` elements is accumulated in: float64 for every float type
    (OpenVINO's reference uses Kahan summation in the element type, whose result is the sum
    correctly rounded in nearly every case; a float64 sum rounded once gives the same), the
    type itself for integers (wrapping on overflow, as the C++ reference does)."""
    dtype = np.dtype(dtype)
    return dtype if dtype.kind in "iub" else np.dtype(np.float64)


def float_sum(data: np.ndarray, axes: tuple, keep_dims: bool) -> np.ndarray:
    """The sum over ``axes`` accumulated in :func:`accumulator`'s dtype, in the data's dtype.

    Floats narrower than float64 reduced over their trailing axes (a global pool: H, W of
    NCHW) of C-contiguous data are summed as rows of a matrix: each block of rows converted
    to float64 (about :data:`SUM_BLOCK_ELEMENTS` at once, so that it stays in cache) and
    multiplied by a vector of ones (one BLAS ``dgemv``). That is a float64 sum too, in another
    order than ``np.sum``'s; rounded to the data's type, the two agree but in rare ties.
    """
    dtype = data.dtype
    accumulate = accumulator(dtype)
    if (accumulate == np.float64 and dtype.itemsize < 8 and axes and data.ndim and data.size
            and axes == tuple(range(axes[0], data.ndim)) and data.flags.c_contiguous):  # fmt: skip
        kept = data.shape[: axes[0]]
        count = data.size // max(1, math.prod(kept))
        total = _row_sums(data.reshape(-1, count), count)
        shape = (*kept, *((1,) * len(axes))) if keep_dims else kept
        return total.reshape(shape).astype(dtype, copy=False)
    total = np.sum(data, axis=axes, keepdims=keep_dims, dtype=accumulate)
    return np.asarray(total).astype(dtype, copy=False)


#: Elements per block of rows that :func:`float_sum` converts to float64 at once (1 MiB).
SUM_BLOCK_ELEMENTS = 1 << 17


def _row_sums(rows: np.ndarray, count: int) -> np.ndarray:
    """The float64 sums of the rows of a C-contiguous matrix ``[R, count]`` of a float type
    narrower than float64."""
    ones = _ones(count)
    total = np.empty(rows.shape[0], np.float64)
    step = max(1, SUM_BLOCK_ELEMENTS // count)
    if step >= rows.shape[0]:
        return np.dot(rows.astype(np.float64), ones, out=total)
    wide = np.empty((step, count), np.float64)
    for low in range(0, rows.shape[0], step):
        high = min(low + step, rows.shape[0])
        block = wide[: high - low]
        block[...] = rows[low:high]
        np.dot(block, ones, out=total[low:high])
    return total


@lru_cache(maxsize=64)
def _ones(count: int) -> np.ndarray:
    ones = np.ones(count, np.float64)
    ones.flags.writeable = False
    return ones


def product_of_elements(elements):
    """The product of partial-value elements (ReduceProd of a shape: the size of flattened
    dims): exact for ints, an interval for non-negative ints and Dims, else unknown."""
    return _fold_elements(elements, 1, lambda a, b: a * b)


def sum_of_elements(elements):
    """The sum of partial-value elements: exact for ints, an interval for non-negative ints
    and Dims, else unknown."""
    return _fold_elements(elements, 0, lambda a, b: a + b)


def min_of_elements(elements):
    """The smallest of partial-value elements: exact for ints; for intervals (Dims) the
    smallest lower and the smallest upper bound (``min(20, [0..3234])`` is ``[0..20]``, the
    bound OpenVINO infers for a TopK's k); unknown when an element is unknown or the result
    could be negative without being exact."""
    return _extreme_of_elements(elements, min)


def max_of_elements(elements):
    """The largest of partial-value elements: exact for ints; for intervals the largest lower
    and the largest upper bound (unbounded if one is); unknown when an element is unknown."""
    return _extreme_of_elements(elements, max)


def _extreme_of_elements(elements, pick):
    if not elements or any(e is None for e in elements):
        return None
    if all(isinstance(e, int) for e in elements):
        return pick(elements)
    lowers = [e if isinstance(e, int) else e.lower for e in elements]
    uppers = [e if isinstance(e, int) else e.upper for e in elements]
    lower = pick(lowers)
    if pick is min:
        bounded = [u for u in uppers if u is not None]
        upper = min(bounded) if bounded else None
    else:
        upper = None if any(u is None for u in uppers) else max(uppers)
    if lower < 0:  # (a negative int below every interval: only an exact value says it)
        return None
    total = Dim(lower, upper)
    return total.lower if total.is_static else total


def _fold_elements(elements, start: int, operation):
    if all(isinstance(e, int) for e in elements):
        total = start
        for element in elements:
            total = operation(total, element)
        return total
    if any(e is None or (isinstance(e, int) and e < 0) for e in elements):
        return None  # an unknown or negative element: a bound cannot be told
    total = static_dim(start)
    for element in elements:
        total = operation(total, element if isinstance(element, Dim) else static_dim(element))
    if total.upper is not None and total.upper > _INT64_MAX:  # OpenVINO's bounds saturate
        total = Dim(min(total.lower, _INT64_MAX), None)
    return total.lower if total.is_static else total


def extreme(data: np.ndarray, axes: tuple, keep_dims: bool, largest: bool) -> np.ndarray:
    """ReduceMax (``largest``) or ReduceMin as OpenVINO's reference computes it: from the
    type's lowest (largest) value, skipping NaN (``std::max(out, x)`` keeps ``out`` when ``x``
    is NaN)."""
    dtype = data.dtype
    if dtype.kind == "V":  # ml_dtypes types: run on a native type that holds them exactly
        import ml_dtypes  # (only then: importing it takes long)

        wide = data.astype(np.float32 if "float" in dtype.name else np.int64)
        limits = ml_dtypes.finfo(dtype) if "float" in dtype.name else ml_dtypes.iinfo(dtype)
    else:
        wide = data
        limits = np.iinfo(dtype) if dtype.kind in "iu" else np.finfo(dtype)
    floating = wide.dtype.kind == "f"
    if largest:
        start = -limits.max if floating else limits.min
        operation = np.fmax if floating else np.maximum
    else:
        start = limits.max
        operation = np.fmin if floating else np.minimum
    result = operation.reduce(wide, axis=axes, keepdims=keep_dims, initial=start)
    return np.asarray(result).astype(dtype, copy=False)
