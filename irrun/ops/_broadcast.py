"""Auto-broadcast of partial shapes, exactly as OpenVINO's ``PartialShape::broadcast_merge_into``.

Elementwise ops (Add, Select, ...) and the bidirectional Broadcast combine input shapes with
one of three ``auto_broadcast`` modes:

- ``none``: the shapes must be equal. Like ``PartialShape::merge_into``: a dynamic rank takes
  the other shape, equal ranks merge dimension by dimension (interval intersection), any
  empty intersection or differing rank is an error.
- ``numpy``: right-aligned; the shorter shape is padded with 1s on the left; a dynamic rank
  anywhere gives a dynamic rank. Two dimensions combine as ``Dimension::broadcast_merge``:

  * both may be 1 (their intervals contain 1): the hull ``min(lowers)..max(uppers)``
    (``?`` with ``?`` is ``?``, ``1..5`` with ``0..2`` is ``..5``);
  * only one may be 1: the other one (``?`` with ``3`` is ``3``, ``?`` with ``0`` is ``0``);
  * neither: their intersection; an empty one is an error (``3`` vs ``4``, ``2..3`` vs ``5..``).
- ``pdpd``: the second shape must fit inside the first starting at ``axis`` (``-1``: aligned
  right; an IR without ``auto_broadcast.auto_broadcast_axis`` means axis 0); the result has
  the first shape's rank; a dynamic rank gives a dynamic rank. It is an error when the second
  shape has the higher rank, ``axis < -1``, the second shape overruns the first, or a static
  dimension of the second is larger than the static one it meets (``1`` in the first cannot
  be stretched); otherwise each window dimension combines as in numpy.

Several inputs fold left to right (``((s0 ∘ s1) ∘ s2)``), as OpenVINO's ops do.

API
---
``broadcast_pair(a, b, mode="numpy", axis=-1) -> Shape | None``
    Pure: the combined shape of two :class:`~irrun.shape.Shape`, ``None`` when they do not
    broadcast.
``broadcast_dims(a, b) -> Dim | None``
    Pure: ``Dimension::broadcast_merge`` of two :class:`~irrun.shape.Dim`.
``broadcast_shapes(op, infos, mode="numpy", axis=-1, ports=None) -> Shape | None``
    The combined shape of the inputs ``infos[p].shape`` for ``p`` in ``ports`` (default: all),
    folded in that order. On failure it reports ``input-dims`` on the op (naming both shapes,
    the mode and the clashing dimension, e.g. ``dimension 1: 3 vs 4 cannot broadcast``) and
    returns ``None``.
``broadcast_failure(a, b, mode="numpy", axis=-1) -> str | None``
    Why two shapes do not broadcast (the text ``broadcast_shapes`` reports), ``None`` if they do.

Examples
--------
>>> str(broadcast_pair(Shape.parse("2,1,?"), Shape.parse("3,2..4")))
'[2,3,2..4]'
>>> str(broadcast_pair(Shape.parse("?"), Shape.parse("?")))
'[?]'
>>> broadcast_pair(Shape.parse("2,3"), Shape.parse("4")) is None
True
>>> broadcast_failure(Shape.parse("2,3"), Shape.parse("4"))
'dimension 1: 3 vs 4 cannot broadcast'
>>> str(broadcast_pair(Shape.parse("2,3,4,5"), Shape.parse("3,4"), "pdpd", axis=1))
'[2,3,4,5]'
>>> str(broadcast_pair(Shape.parse("..."), Shape.parse("2"), "numpy"))
'[...]'
"""

from __future__ import annotations

from irrun.shape import Dim, Shape, shape_of_dims, static_dim

__all__ = [
    "MODES",
    "broadcast_pair",
    "broadcast_dims",
    "broadcast_failure",
    "broadcast_shapes",
]

#: The ``auto_broadcast`` values OpenVINO accepts (as irrun's Attribute choices).
MODES = ("none", "numpy", "pdpd")

_ONE = static_dim(1)


def _may_be_one(dim: Dim) -> bool:
    return dim.lower <= 1 and (dim.upper is None or dim.upper >= 1)


def broadcast_dims(a: Dim, b: Dim) -> Dim | None:
    """``Dimension::broadcast_merge``: the dimension two broadcast dimensions give, or ``None``.

    >>> broadcast_dims(Dim.dynamic(), Dim(3)), broadcast_dims(Dim(1), Dim(0))
    (Dim('3'), Dim('0'))
    >>> broadcast_dims(Dim.interval(1, 5), Dim.interval(0, 2))
    Dim('..5')
    """
    a_one, b_one = _may_be_one(a), _may_be_one(b)
    if a_one and b_one:
        if a == b:
            return a
        upper = None if a.upper is None or b.upper is None else max(a.upper, b.upper)
        lower = min(a.lower, b.lower)
        return static_dim(lower) if lower == upper else Dim(lower, upper)
    if a_one:
        return b
    if b_one:
        return a
    return a.merge(b)


def _merge(a: Shape, b: Shape, mode: str, axis: int) -> tuple[Shape | None, str | None]:
    """``(result, None)`` or ``(None, why not)``."""
    if a.dims == b.dims and mode != "pdpd" and a.dims is not None:
        return a, None  # equal shapes broadcast to themselves (the common case)
    if mode == "numpy":
        sizes = _static_numpy(a, b)
        if sizes is not None:
            return sizes, None
    if mode == "none":
        if a.dims is None:
            return b, None
        if b.dims is None:
            return a, None
        if len(a.dims) != len(b.dims):
            return None, f"ranks {len(a.dims)} vs {len(b.dims)} differ"
        dims = []
        for index, (x, y) in enumerate(zip(a.dims, b.dims)):
            merged = x.merge(y)
            if merged is None:
                return None, f"dimension {index}: {x} vs {y} differ"
            dims.append(merged)
        return shape_of_dims(tuple(dims)), None
    if a.dims is None or b.dims is None:
        return Shape.dynamic_rank(), None
    if mode == "numpy":
        rank = max(len(a.dims), len(b.dims))
        left = (_ONE,) * (rank - len(a.dims)) + a.dims
        right = (_ONE,) * (rank - len(b.dims)) + b.dims
        dims = []
        for index, (x, y) in enumerate(zip(left, right)):
            merged = broadcast_dims(x, y)
            if merged is None:
                return None, f"dimension {index}: {x} vs {y} cannot broadcast"
            dims.append(merged)
        return shape_of_dims(tuple(dims)), None
    if mode != "pdpd":
        raise ValueError(f"unknown auto_broadcast mode {mode!r}")
    big, small = len(a.dims), len(b.dims)
    if small > big:
        return None, f"rank {small} of the second is above rank {big} of the first"
    if axis < -1:
        return None, f"axis {axis} is below -1"
    start = big - small if axis == -1 else axis
    if start + small > big:
        return None, f"axis {start} + rank {small} = {start + small} overruns rank {big}"
    dims = list(a.dims)
    for i, y in enumerate(b.dims):
        x = dims[start + i]
        if x.is_static and y.is_static and y.lower > x.lower:
            return None, f"dimension {start + i}: {y} cannot stretch {x}"
        merged = broadcast_dims(x, y)
        if merged is None:
            return None, f"dimension {start + i}: {x} vs {y} cannot broadcast"
        dims[start + i] = merged
    return shape_of_dims(tuple(dims)), None


#: (sizes, sizes) -> their numpy broadcast (or None): real models broadcast the same few
#: static pairs (a feature map and its per-channel scale) again and again.
_STATIC_NUMPY: dict[tuple, Shape | None] = {}
_STATIC_NUMPY_LIMIT = 4096
_UNSET = object()


def _static_numpy(a: Shape, b: Shape) -> Shape | None:
    """The numpy broadcast of two static shapes that broadcast (``None`` when either is not
    static or they clash: the general path then explains), on plain sizes."""
    left, right = a._static_sizes(), b._static_sizes()
    if left is None or right is None:
        return None
    key = (left, right)
    found = _STATIC_NUMPY.get(key, _UNSET)
    if found is not _UNSET:
        return found
    rank = max(len(left), len(right))
    left = (1,) * (rank - len(left)) + left
    right = (1,) * (rank - len(right)) + right
    sizes = []
    for x, y in zip(left, right):
        if x == y or y == 1:
            sizes.append(x)
        elif x == 1:
            sizes.append(y)
        else:
            sizes = None
            break
    found = None if sizes is None else shape_of_dims(tuple([static_dim(size) for size in sizes]))
    if len(_STATIC_NUMPY) < _STATIC_NUMPY_LIMIT:
        _STATIC_NUMPY[key] = found
    return found


def broadcast_pair(a: Shape, b: Shape, mode: str = "numpy", axis: int = -1) -> Shape | None:
    """The shape ``a`` and ``b`` broadcast to under ``mode`` (``pdpd``: ``b`` into ``a`` at
    ``axis``), or ``None`` when they do not broadcast."""
    return _merge(a, b, mode, axis)[0]


def broadcast_failure(a: Shape, b: Shape, mode: str = "numpy", axis: int = -1) -> str | None:
    """Why ``a`` and ``b`` do not broadcast under ``mode`` (``None`` when they do)."""
    return _merge(a, b, mode, axis)[1]


_HINTS = {
    "none": 'give the inputs equal shapes, or use auto_broadcast="numpy"',
    "numpy": "make the clashing dimensions equal, or one of them 1",
    "pdpd": "make the second shape fit inside the first at the axis (dimensions equal or 1)",
}


def broadcast_shapes(op, infos, mode: str = "numpy", axis: int = -1, ports=None) -> Shape | None:
    """The broadcast shape of ``infos[p].shape`` for ``p`` in ``ports`` (default: every input),
    folded left to right; reports ``input-dims`` on ``op`` and returns ``None`` on a clash."""
    if ports is None and len(infos) == 2:  # the common case: two inputs that broadcast
        merged = _merge(infos[0].shape, infos[1].shape, mode, axis)[0]
        if merged is not None:
            return merged
    positions = list(range(len(infos)) if ports is None else ports)
    first = positions[0]
    result = infos[first].shape
    for position in positions[1:]:
        shape = infos[position].shape
        merged, why = _merge(result, shape, mode, axis)
        if merged is None:
            so_far = f"input {first}" if position == positions[1] else "the inputs before it"
            where = f" at axis {axis}" if mode == "pdpd" else ""
            op.context.error(
                "input-dims",
                f"{op.describe()}: input {position} {shape} does not broadcast with {so_far} "
                f"{result} (auto_broadcast {mode}{where}): {why}",
                port=op.input_port(position),
                hint=_HINTS[mode],
            )
            return None
        result = merged
    return result
