"""Partial shapes: :class:`Dim` (a size or an interval of sizes) and :class:`Shape`.

OpenVINO shapes may be static (``[2,3]``), have dynamic dimensions (``?``),
bounded intervals (``1..10``, ``..10``, ``2..``) or a dynamic rank (``[...]``).
These two immutable types model all of that, print the way OpenVINO spells it,
and do the little interval arithmetic shape inference needs (sum, merge,
"can these be equal").

Examples
--------
>>> Shape.parse("1,?,2..8")
Shape('[1,?,2..8]')
>>> Dim(8) + Dim(16) + Dim(32)
Dim('56')
>>> Dim.interval(1, 5).compatible(Dim(7))
False
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["Dim", "Shape", "parse_dim"]

_INTERVAL = re.compile(r"^([0-9]*)\.\.([0-9]*)$")
_INT64_MAX = 2**63 - 1
_UNSET = object()  # a Shape's _sizes not computed yet


class Dim:
    """One dimension: a static size or an interval ``[lower, upper]``.

    ``upper`` is ``None`` for an unbounded interval. ``Dim(5)`` is static,
    ``Dim.dynamic()`` is ``?`` (``[0, ∞)``), ``Dim.interval(1, 10)`` is ``1..10``.
    """

    __slots__ = ("lower", "upper")

    def __init__(self, lower: int, upper: int | None = -1):
        if upper == -1:
            upper = lower
        if lower < 0 or (upper is not None and upper < lower):
            raise ValueError(f"invalid dimension interval [{lower}, {upper}]")
        object.__setattr__(self, "lower", int(lower))
        object.__setattr__(self, "upper", None if upper is None else int(upper))

    def __setattr__(self, name, value):
        raise AttributeError("Dim is immutable")

    def __reduce__(self):  # pickle and copy rebuild through the constructor
        return Dim, (self.lower, self.upper)

    @classmethod
    def dynamic(cls) -> Dim:
        """Return the fully dynamic dimension ``?``."""
        return _DYNAMIC

    @classmethod
    def interval(cls, lower: int, upper: int | None) -> Dim:
        """Return the interval ``lower..upper`` (``upper=None``: unbounded)."""
        return cls(lower, upper)

    @property
    def is_static(self) -> bool:
        """True when the dimension has one known size."""
        return self.lower == self.upper

    @property
    def is_dynamic(self) -> bool:
        """True when the size is not known exactly."""
        return self.lower != self.upper

    @property
    def value(self) -> int:
        """The size of a static dimension (``ValueError`` for a dynamic one)."""
        if self.lower != self.upper:
            raise ValueError(f"dimension {self} is not static")
        return self.lower

    def compatible(self, other: Dim) -> bool:
        """True when the two dimensions can have the same size (their intervals meet)."""
        if self is other:
            return True
        lower = max(self.lower, other.lower)
        uppers = [u for u in (self.upper, other.upper) if u is not None]
        return not uppers or lower <= min(uppers)

    def merge(self, other: Dim) -> Dim | None:
        """The intersection of both intervals, or ``None`` when they cannot be equal."""
        if self is other or other is _DYNAMIC:
            return self
        if self is _DYNAMIC:
            return other
        if not self.compatible(other):
            return None
        uppers = [u for u in (self.upper, other.upper) if u is not None]
        return Dim(max(self.lower, other.lower), min(uppers) if uppers else None)

    def __add__(self, other: Dim) -> Dim:
        if not isinstance(other, Dim):
            return NotImplemented
        if self.lower == self.upper and other.lower == other.upper:
            return static_dim(self.lower + other.lower)
        upper = None if self.upper is None or other.upper is None else self.upper + other.upper
        return Dim(self.lower + other.lower, upper)

    def __mul__(self, other: Dim) -> Dim:
        if not isinstance(other, Dim):
            return NotImplemented
        if self.upper == 0 or other.upper == 0:
            return Dim(0)
        upper = None if self.upper is None or other.upper is None else self.upper * other.upper
        return Dim(self.lower * other.lower, upper)

    def __eq__(self, other) -> bool:
        if isinstance(other, int):
            return self.lower == self.upper == other
        if not isinstance(other, Dim):
            return NotImplemented
        return self.lower == other.lower and self.upper == other.upper

    def __hash__(self) -> int:
        return hash((self.lower, self.upper))

    def __str__(self) -> str:
        if self.lower == self.upper:
            return str(self.lower)
        if self.upper is None:
            return "?" if self.lower == 0 else f"{self.lower}.."
        return f"..{self.upper}" if self.lower == 0 else f"{self.lower}..{self.upper}"

    def __repr__(self) -> str:
        return f"Dim('{self}')"

    def to_port_dim(self) -> int:
        """The ``<dim>`` value OpenVINO writes: the size, or -1 for any non-static dimension."""
        return self.lower if self.lower == self.upper else -1


_DYNAMIC = Dim(0, None)


def parse_dim(text: str) -> Dim:
    """Parse one dimension as written in a ``shape`` attribute.

    Accepts ``5``, ``?``, ``-1``, ``1..10``, ``..10`` and ``2..``.
    Raises ``ValueError`` with the offending text otherwise.
    """
    text = text.strip()
    if text in ("?", "-1"):
        return _DYNAMIC
    if text.isdigit() and text.isascii():
        if len(text.lstrip("0")) > 19 or int(text) > _INT64_MAX:
            raise ValueError(f"dimension {text[:40]!r} is beyond the 64-bit integer range")
        return static_dim(int(text))
    match = _INTERVAL.match(text)
    if match and (match.group(1) or match.group(2)):
        if max(len(g.lstrip("0")) for g in match.groups()) > 19:
            raise ValueError(f"interval {text[:40]!r} is beyond the 64-bit integer range")
        lower = int(match.group(1)) if match.group(1) else 0
        upper = int(match.group(2)) if match.group(2) else None
        if upper is not None and upper < lower:
            raise ValueError(f"interval {text!r} has its upper bound below its lower bound")
        return Dim(lower, upper)
    shown = text if len(text) <= 40 else text[:40] + "..."
    raise ValueError(f"cannot parse dimension {shown!r}")


class Shape:
    """An immutable partial shape: a tuple of :class:`Dim`, or a dynamic rank.

    ``Shape([2, 3])`` is static, ``Shape([2, Dim.dynamic()])`` has a dynamic
    dimension, ``Shape.dynamic_rank()`` is ``[...]``. A shape iterates over its
    dims, has ``len()`` equal to its rank (a ``TypeError`` for dynamic rank) and
    compares equal to a tuple or list of ints when static.
    """

    # _sizes: the static sizes as ints (None when not static), computed on first use: inference
    # asks the same (shared, cached) shapes for them over and over.
    __slots__ = ("dims", "_sizes")

    def __init__(self, dims=()):
        if dims is not None:
            dims = tuple(dims)
            for d in dims:  # (a loop: cheaper than all() over a generator)
                if type(d) is not Dim:
                    dims = tuple(d if isinstance(d, Dim) else static_dim(int(d)) for d in dims)
                    break
        object.__setattr__(self, "dims", dims)

    def __setattr__(self, name, value):
        raise AttributeError("Shape is immutable")

    def __reduce__(self):  # pickle and copy rebuild through the constructor
        return Shape, (self.dims,)

    @classmethod
    def dynamic_rank(cls) -> Shape:
        """The shape of unknown rank, ``[...]``."""
        return _DYNAMIC_RANK

    @classmethod
    def parse(cls, text: str) -> Shape:
        """Parse a ``<data shape="...">`` string: ``""`` scalar, ``...`` dynamic rank,
        ``2,?,1..10`` (brackets and spaces tolerated)."""
        return _parse_shape(text)

    @classmethod
    def _parse_uncached(cls, text: str) -> Shape:
        text = text.strip()
        if text in ("...", "[...]"):
            return _DYNAMIC_RANK
        if text.startswith("[") and text.endswith("]"):
            text = text[1:-1]
        items = [item for item in text.split(",") if item.strip()]
        return cls(_parse_dim_cached(item) for item in items)

    @property
    def rank_is_static(self) -> bool:
        """True when the number of dimensions is known."""
        return self.dims is not None

    @property
    def rank(self) -> int | None:
        """The number of dimensions, or ``None`` for a dynamic rank."""
        return None if self.dims is None else len(self.dims)

    @property
    def is_static(self) -> bool:
        """True when the rank and every dimension are known."""
        sizes = getattr(self, "_sizes", _UNSET)  # (cheaper than catching AttributeError)
        if sizes is _UNSET:
            sizes = self._static_sizes()
        return sizes is not None

    def _static_sizes(self) -> tuple[int, ...] | None:
        sizes = getattr(self, "_sizes", _UNSET)
        if sizes is not _UNSET:
            return sizes
        dims = self.dims
        sizes = None
        if dims is not None:
            sizes = []
            for d in dims:  # (a loop: cheaper than two generators)
                lower = d.lower
                if lower != d.upper:
                    sizes = None
                    break
                sizes.append(lower)
            if sizes is not None:
                sizes = tuple(sizes)
        object.__setattr__(self, "_sizes", sizes)
        return sizes

    def to_tuple(self) -> tuple[int, ...]:
        """The static sizes as a tuple of ints (``ValueError`` if not static)."""
        sizes = getattr(self, "_sizes", _UNSET)
        if sizes is _UNSET:
            sizes = self._static_sizes()
        if sizes is not None:
            return sizes
        if self.dims is None:
            raise ValueError("shape [...] has a dynamic rank")
        return tuple(d.value for d in self.dims)  # raises for the first dynamic dim

    def compatible(self, other: Shape) -> bool:
        """True when both shapes can describe the same tensor."""
        if self is other or self.dims is None or other.dims is None or self.dims == other.dims:
            return True
        return len(self.dims) == len(other.dims) and all(
            a.compatible(b) for a, b in zip(self.dims, other.dims)
        )

    def relaxes(self, other: Shape) -> bool:
        """True when this shape allows every shape ``other`` allows (OpenVINO's
        ``PartialShape::relaxes``; ``other`` then refines this one).

        >>> Shape.parse("?,1..8").relaxes(Shape.parse("2,3")), Shape.parse("2,3").relaxes(
        ...     Shape.parse("?,3"))
        (True, False)
        """
        if self.dims is None:
            return True
        if other.dims is None or len(self.dims) != len(other.dims):
            return False
        for outer, inner in zip(self.dims, other.dims):
            if inner.lower < outer.lower:
                return False
            if outer.upper is not None and (inner.upper is None or inner.upper > outer.upper):
                return False
        return True

    def merge(self, other: Shape) -> Shape | None:
        """The most precise shape both describe, or ``None`` when they conflict."""
        if self is other or self.dims == other.dims:
            return self
        if self.dims is None:
            return other
        if other.dims is None:
            return self
        if len(self.dims) != len(other.dims):
            return None
        merged = [a.merge(b) for a, b in zip(self.dims, other.dims)]
        return None if any(m is None for m in merged) else Shape(merged)

    def element_count(self) -> int:
        """Number of elements of a static shape (Python int, never overflows)."""
        count = 1
        for size in self.to_tuple():
            count *= size
        return count

    def __iter__(self):
        if self.dims is None:
            raise TypeError("shape [...] has a dynamic rank")
        return iter(self.dims)

    def __len__(self) -> int:
        if self.dims is None:
            raise TypeError("shape [...] has a dynamic rank")
        return len(self.dims)

    def __getitem__(self, index):
        if self.dims is None:
            raise TypeError("shape [...] has a dynamic rank")
        if isinstance(index, slice):
            return shape_of_dims(self.dims[index])
        return self.dims[index]

    def __eq__(self, other) -> bool:
        if isinstance(other, Shape):
            return self.dims == other.dims
        if isinstance(other, (tuple, list)) and self.dims is not None:
            return len(self.dims) == len(other) and all(d == o for d, o in zip(self.dims, other))
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.dims)

    def __str__(self) -> str:
        if self.dims is None:
            return "[...]"
        return "[" + ",".join(str(d) for d in self.dims) + "]"

    def __repr__(self) -> str:
        return f"Shape('{self}')"


_DYNAMIC_RANK = Shape(None)


def shape_of_dims(dims: tuple) -> Shape:
    """A Shape from a tuple already made of Dim objects (no checks: internal use)."""
    shape = object.__new__(Shape)
    object.__setattr__(shape, "dims", dims)
    return shape


@lru_cache(maxsize=8192)
def _parse_shape(text: str) -> Shape:
    return Shape._parse_uncached(text)


@lru_cache(maxsize=8192)
def _parse_dim_cached(text: str) -> Dim:
    return parse_dim(text)


@lru_cache(maxsize=8192)
def static_dim(size: int) -> Dim:
    """The static dimension ``size``, one shared object per size (so that comparing shapes
    mostly compares identities)."""
    return Dim(size)
