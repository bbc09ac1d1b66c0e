"""Values known before running: constants, and *partial values* of shape sub-graphs.

Dynamic models compute Reshape targets, Broadcast shapes and Slice bounds from
``ShapeOf`` with Gather, Concat, Squeeze/Unsqueeze, Convert and integer arithmetic. OpenVINO
infers through them by evaluating bounds; irrun propagates, for small integer tensors of rank
0 or 1, what is known of each element (:attr:`TensorInfo.partial`):

- an ``int``: the element is known exactly (it may be negative, like Reshape's ``-1``);
- a :class:`~irrun.shape.Dim`: the element is a size somewhere in that interval (a dynamic
  dimension read by ShapeOf);
- ``None``: nothing is known.

An op that produces such a tensor returns :func:`info_of_elements`, which gives a plain
constant (``value``) when every element is known, so that ordinary folding takes over.
Consumers read :func:`elements_of` and turn elements into output dims with :func:`as_dim`.
Tensors of higher rank have partial values (flat, in C order) only between ops that move
elements (``Op.moves_elements``), which :func:`bounds_through` carries them through;
:func:`elements_of` gives ``None`` for them.

Examples
--------
>>> from irrun.shape import Shape
>>> elements_from_shape(Shape.parse("2,?,1..4"))
(2, Dim('?'), Dim('1..4'))
>>> [str(as_dim(e)) for e in (3, Dim.interval(1, 4), None, -1)]
['3', '1..4', '?', '?']
"""

from __future__ import annotations

import numpy as np

from irrun.ops.base import TensorInfo
from irrun.shape import Dim, Shape, static_dim

__all__ = [
    "MAX_ELEMENTS",
    "elements_of",
    "as_int64",
    "signed_elements",
    "signed_ints",
    "signed_values",
    "elements_from_shape",
    "info_of_elements",
    "as_dim",
    "ShapeDim",
    "source_axis",
    "with_elements",
]

#: Partial values are kept for tensors of at most this many elements (shapes are short).
MAX_ELEMENTS = 64


def elements_of(info: TensorInfo) -> tuple | None:
    """What is known of each element of a rank-0/1 integer tensor, or ``None`` when it is
    not such a tensor or nothing is known. A constant gives its values as ``int``."""
    value = info.value
    if value is not None:
        array = np.asarray(value)
        if array.ndim <= 1 and array.size <= MAX_ELEMENTS and array.dtype.kind in "iu":
            return tuple(array.reshape(-1).tolist())  # (Python ints, as int(v) gives)
        return None
    rank = info.shape.rank
    if rank is not None and rank > 1:  # (only ops that move elements read those: see below)
        return None
    return info.partial


def bounds_through(op, inputs, outputs) -> None:
    """Give ``outputs`` the partial values that ``op``, an op that only moves elements of the
    inputs named by ``op.moves_elements``, makes of what is known of those inputs: its kernel
    runs once on every element's lower bound and once on its upper bound (the other inputs'
    values exact), as OpenVINO evaluates bounds; an element is then known where both runs
    agree, an interval where they differ, unknown where a bound was. This carries shape
    elements through tensors of any rank (swin's pads: Concat of constants and computed sizes
    [6] -> Reshape [3,2] -> Split -> Squeeze [3] -> Gather -> Concat -> Pad).

    Nothing happens unless a moved input has a partial value (or, for ops that move every
    input, one has a value and another does not), the other inputs have values, and every
    output is a small static integer tensor with neither a value nor a partial value yet."""
    for info in outputs:  # (first: most outputs of these ops are activations, not shapes)
        shape = info.shape
        if (not _signed(info.element_type) or info._pending is not None
                or info.value is not None or info.partial is not None
                or not shape.is_static or shape.element_count() > MAX_ELEMENTS):  # fmt: skip
            return
    moving = op.moves_elements
    every = moving == "all"
    partial = known = unknown = False
    for index, info in enumerate(inputs):
        if every or index in moving:
            if info.partial is not None:
                partial = True
            elif info._pending is not None or info.value is not None:
                known = True
            else:
                unknown = True
    if not (partial or (every and known and unknown)):
        return
    lows, highs = [], []
    for index, info in enumerate(inputs):
        shape = info.shape
        if not shape.is_static or shape.element_count() > MAX_ELEMENTS:
            return  # (no big value is read, nor decoded)
        value = info.value
        if value is None:
            if not (every or index in moving):
                return
            bounds = _bound_arrays(info)
            if bounds is None:
                return
            value, high = bounds
        else:
            high = value
        lows.append(value)
        highs.append(high)
    try:
        low_outputs, high_outputs = op.evaluate(lows), op.evaluate(highs)
    except Exception:  # noqa: BLE001 - the rule has reported what is wrong, if anything is
        return
    for info, low, high in zip(outputs, low_outputs, high_outputs):
        bottom, top = _sentinels(info.element_type.numpy_dtype)
        elements = []
        for lower, upper in zip(np.asarray(low).reshape(-1).tolist(),
                                np.asarray(high).reshape(-1).tolist()):  # fmt: skip
            if lower == upper:  # (an unknown element has bounds bottom and top: a constant
                elements.append(lower)  # INT64_MAX, "to the end", stays known)
            elif 0 <= lower < top and lower <= upper:
                elements.append(Dim(lower, None if upper >= top else upper))
            else:
                elements.append(None)
        with_elements(info, elements)


def _signed(element_type) -> bool:
    """True for a signed integer type NumPy holds one element per item of (not i4)."""
    return element_type.name in _SIGNED


_SIGNED = ("i8", "i16", "i32", "i64")


def _sentinels(dtype) -> tuple[int, int]:
    """The values that stand for an unknown lower and an unbounded upper bound (of a signed
    integer type: shape elements are i32 or i64)."""
    limits = np.iinfo(dtype)
    return int(limits.min), int(limits.max)


def _bound_arrays(info: TensorInfo):
    """``(lower bounds, upper bounds)`` of a partial value as arrays of its type and shape."""
    shape = info.shape
    if not shape.is_static or not _signed(info.element_type):
        return None
    dtype = info.element_type.numpy_dtype
    bottom, top = _sentinels(dtype)
    lows, highs = [], []
    elements = info.partial or (None,) * shape.element_count()  # (None: nothing is known)
    for element in elements:
        if isinstance(element, int):
            lows.append(element)
            highs.append(element)
        elif isinstance(element, Dim):
            lows.append(element.lower)
            highs.append(top if element.upper is None else min(element.upper, top))
        else:  # unknown
            lows.append(bottom)
            highs.append(top)
    sizes = shape.to_tuple()
    if len(lows) != int(np.prod(sizes, dtype=np.int64)):
        return None
    return (np.array(lows, dtype).reshape(sizes), np.array(highs, dtype).reshape(sizes))


def as_int64(value: int) -> int:
    """A value as C++ casts it to int64: a u64 value of 2**63 or more wraps (2**64 - 1 is -1).

    >>> as_int64(2**64 - 1), as_int64(2**63 + 1), as_int64(-5)
    (-1, -9223372036854775807, -5)
    """
    return ((value + 2**63) % 2**64) - 2**63


def signed_elements(info: TensorInfo, floats: bool = False) -> tuple | None:
    """:func:`elements_of` with every known ``int`` read as int64, as OpenVINO reads axes,
    repeats, split lengths and slice bounds (``get_raw_data_as<int64_t>``: u64 values of 2**63
    or more are negative). The one reader of constant integers for those inputs. ``floats``:
    a rank-0/1 float constant is read too, truncated toward 0 as OpenVINO casts it (``-1.5``
    is ``-1``; a NaN or infinite element gives ``None``), for the ops that accept float axes."""
    if floats and info.value is not None:
        array = np.asarray(info.value)
        kind = array.dtype.kind
        # (numpy builds dtype.name in Python: asked only of the kinds that may be a float of
        # ml_dtypes, never of the integers this mostly reads)
        floating = kind == "f" or (kind not in "iub" and "float" in array.dtype.name)
        if array.ndim <= 1 and array.size <= MAX_ELEMENTS and floating:
            if not np.isfinite(array).all():
                return None
            return tuple(int(v) for v in np.trunc(array.astype(np.float64)).reshape(-1))
    elements = elements_of(info)
    if elements is None or info.element_type.name != "u64":
        return elements
    return tuple(as_int64(e) if isinstance(e, int) else e for e in elements)


def signed_ints(info: TensorInfo, floats: bool = False) -> list[int] | None:
    """The values of a rank-0/1 integer input when every element is known exactly (a constant,
    or a partial value whose every element is known), as int64 (:func:`signed_elements`, which
    also says what ``floats`` does); ``None`` otherwise."""
    elements = signed_elements(info, floats)
    if elements is None or not all(isinstance(e, int) for e in elements):
        return None
    return list(elements)


def signed_values(array) -> list[int]:
    """A kernel's integer input (axes, repeats, lengths, bounds) as a flat list of int64
    values, as OpenVINO's kernels read it: u64 wraps, a float input is truncated toward 0.

    >>> signed_values(np.array([2**64 - 1, 3], np.uint64)), signed_values(np.float32(1.7))
    ([-1, 3], [1])
    """
    return np.asarray(array).reshape(-1).astype(np.int64).tolist()


class ShapeDim(Dim):
    """A dynamic dimension read by ShapeOf, remembering where it was read: ``source`` is
    ``(tensor, axis)``, the very :class:`TensorInfo` object of the tensor ShapeOf measured
    (the walk gives every consumer of one output the same object; shapes themselves are shared
    between unrelated tensors, so they cannot tell tensors apart). A Reshape of that same
    tensor can then cancel the dimension out of its ``-1`` arithmetic, as OpenVINO does with
    its dimension symbols: ``x`` of ``[?,16,64]`` reshaped to ``[ShapeOf(x)[0], -1]`` is
    ``[?,1024]``."""

    __slots__ = ("source",)

    def __init__(self, dim: Dim, source: tuple):
        super().__init__(dim.lower, dim.upper)
        object.__setattr__(self, "source", source)


def elements_from_shape(shape: Shape, tensor: TensorInfo | None = None) -> tuple | None:
    """A shape as elements (what ShapeOf produces): static dims as ``int``, others as Dims
    (:class:`ShapeDim` of ``tensor`` when given); ``None`` for a dynamic rank."""
    if not shape.rank_is_static:
        return None
    if tensor is None:
        return tuple(d.lower if d.is_static else d for d in shape)
    return tuple(d.lower if d.is_static else ShapeDim(d, (tensor, i)) for i, d in enumerate(shape))


def source_axis(element, tensor: TensorInfo) -> int | None:
    """The axis of ``tensor`` an element was read from by ShapeOf (``None`` if it was not)."""
    if isinstance(element, ShapeDim) and element.source[0] is tensor:
        return element.source[1]
    return None


def as_dim(element) -> Dim:
    """An element used as a dimension: a non-negative ``int`` is that size, a Dim itself,
    anything else (unknown, negative) ``?``."""
    if isinstance(element, Dim):
        return element
    if element is None or element < 0:
        return Dim.dynamic()
    return static_dim(element)


def info_of_elements(elements, element_type, shape: Shape, why="") -> TensorInfo:
    """The TensorInfo of a rank-0/1 integer tensor with these elements: a constant when
    every element is an ``int``, else a partial value (when any element is known at all)."""
    if elements is not None and all(isinstance(e, int) for e in elements):
        dtype = element_type.numpy_dtype
        value = np.array(elements, dtype=dtype).reshape(shape.to_tuple())
        return TensorInfo(shape, element_type, value=value, why=why)
    known = elements is not None and any(e is not None for e in elements)
    return TensorInfo(shape, element_type, why=why, partial=tuple(elements) if known else None)


def with_elements(info: TensorInfo, elements) -> TensorInfo:
    """``info`` given these elements: its ``value`` when every element is an ``int`` (so that
    folding and constant checks see a constant), else its ``partial``."""
    if elements is None:
        return info
    if all(isinstance(e, int) for e in elements):
        dtype = info.element_type.numpy_dtype
        info.value = np.array(elements, dtype=dtype).reshape(info.shape.to_tuple())
    elif any(e is not None for e in elements):
        info.partial = tuple(elements)
    return info
