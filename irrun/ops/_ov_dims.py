"""OpenVINO's Dimension arithmetic, as the detection ops' shape rules use it: intervals with
``S_MAX`` as infinity, OpenVINO's clipping of negative sizes, its empty interval, and its
multiplication (0 wins over infinity, overflow is infinity).

>>> (OvDim.of_value(4) * OvDim(0, S_MAX)).as_dim()
Dim('?')
>>> (OvDim.of_bounds(0, 4) * OvDim.of_value(3)).as_dim()
Dim('..12')
>>> OvDim.of_bounds(0, -3).as_dim()  # empty: OpenVINO prints it as ?
Dim('?')
"""

from __future__ import annotations

from irrun.shape import Dim

__all__ = ["S_MAX", "OvDim", "max_length"]

S_MAX = 2**63 - 1  # OpenVINO's Interval::s_max, its infinity


class OvDim:
    """An OpenVINO Dimension: ``[lower, upper]`` with ``S_MAX`` as infinity, or empty."""

    __slots__ = ("lower", "upper", "empty")

    def __init__(self, lower: int, upper: int, empty: bool = False):
        self.lower, self.upper, self.empty = lower, upper, empty

    @classmethod
    def of_value(cls, value: int) -> OvDim:
        """``Dimension(value)``: -1 is dynamic, another negative value clips to 0."""
        if value == -1:
            return cls(0, S_MAX)
        value = max(0, min(value, S_MAX))
        return cls(value, value)

    @classmethod
    def of_bounds(cls, lower: int, upper: int) -> OvDim:
        """``Dimension(lower, upper)``: an upper bound of -1 is infinite; below lower: empty."""
        upper = S_MAX if upper == -1 else upper
        if upper < lower:
            return cls(S_MAX, S_MAX, empty=True)
        return cls(max(0, lower), max(0, min(upper, S_MAX)))

    @classmethod
    def of_dim(cls, dim: Dim) -> OvDim:
        """A Dim as an OpenVINO Dimension."""
        return cls(dim.lower, S_MAX if dim.upper is None else dim.upper)

    def __mul__(self, other: OvDim) -> OvDim:
        if self.empty or other.empty:
            return self if self.empty else other
        return OvDim(_times(self.lower, other.lower), _times(self.upper, other.upper))

    @property
    def is_static(self) -> bool:
        """True for one known size."""
        return not self.empty and self.lower == self.upper

    @property
    def max_length(self) -> int:
        """``get_max_length``: the upper bound, -1 when unbounded."""
        return -1 if self.upper == S_MAX else self.upper

    def as_dim(self) -> Dim:
        """As irrun's Dim (an empty interval as ``?``, as OpenVINO prints it)."""
        if self.empty:
            return Dim.dynamic()
        return Dim(self.lower, None if self.upper == S_MAX else self.upper)


def _times(a: int, b: int) -> int:
    """OpenVINO's clipped product: 0 wins over infinity, overflow is infinity."""
    if a == 0 or b == 0:
        return 0
    if a == S_MAX or b == S_MAX or a > S_MAX // b:
        return S_MAX
    return a * b


def max_length(dim: Dim) -> int:
    """``Dimension::get_max_length`` of a Dim: the upper bound, -1 when unbounded."""
    return -1 if dim.upper is None else dim.upper
