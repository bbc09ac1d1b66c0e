"""Squeeze-1 and Squeeze-15: remove dimensions of size 1.

Spec facts: inputs data and, optionally, axes (a scalar or 1-D integer tensor; negative axes
count from the end, repeats allowed). OpenVINO also accepts float axes, truncated toward 0
(``-1.5`` is ``-1``, ``-0.7`` is ``0``): irrun does the same and warns (``index-type``) that
the specification wants integers; u64 axes are read as int64 (2**64 - 1 is -1).
Without axes (or with empty axes) every dimension equal to 1 goes; a dynamic dimension that may
be 1 makes the output rank unknown. With axes, each listed dimension that may be 1 goes (a
listed dynamic dimension is assumed to be 1), and a listed dimension that cannot be 1 is kept
silently (OpenVINO since 2024.3; older versions refused it). Squeeze-15 adds
``allow_axis_skip`` (default false): when true, a listed dynamic dimension that may be 1 makes
the output rank unknown instead of being dropped. Axes that are not constant: a one-element
axes tensor gives rank r - 1 of unknown dims when some dim may be 1 (else the input shape),
anything else an unknown rank. An axis outside [-r, r-1] is refused.
Partial values pass through (``[1]`` → scalar). The kernel is ``np.reshape`` (a view).
"""

from __future__ import annotations

import numpy as np

from irrun.ops._shape_ops import check_integer_input, check_vector_input
from irrun.ops._values import elements_of, info_of_elements, signed_ints, signed_values
from irrun.ops.base import Attribute, Op, TensorInfo, normalize_axes_or_report
from irrun.ops.registry import register
from irrun.shape import Dim, Shape, static_dim

_ONE = static_dim(1)


class _Squeeze(Op):
    moves_elements = (0,)
    inputs = (1, 2)
    allow_axis_skip = False

    def infer(self, inputs):
        """The rule of the module docstring."""
        data = inputs[0]
        etype = data.element_type
        shape = data.shape
        axes = None
        if len(inputs) == 2:
            axes_info = inputs[1]
            if not check_integer_input(self, axes_info, 1, "axes", floats=True):
                return None
            if not check_vector_input(self, axes_info, 1, "axes", scalar=True):
                return None
            axes = signed_ints(axes_info, floats=True)
            if axes is None:
                if shape.rank_is_static and shape.rank > 0 and axes_info.shape.is_static:
                    if axes_info.shape.element_count() == 1:
                        if any(d.compatible(_ONE) for d in shape):
                            dims = [Dim.dynamic()] * (shape.rank - 1)
                            return [TensorInfo(Shape(dims), etype, why="axes not constant")]
                        return [TensorInfo(shape, etype, why="no dimension can be 1")]
                return [TensorInfo(Shape.dynamic_rank(), etype, why="the axes are not known")]
        if not shape.rank_is_static:
            return [TensorInfo(Shape.dynamic_rank(), etype, why="the input rank is unknown")]
        if axes:
            # (a scalar takes axes in [-1, 0], as OpenVINO allows, and stays a scalar)
            normalised = normalize_axes_or_report(self, axes, shape.rank, port_index=1,
                                                  unique=False, scalar=True)  # fmt: skip
            if normalised is None:
                return None
            chosen = {a for a in normalised if a < shape.rank}
            if self.allow_axis_skip and any(
                shape[a].is_dynamic and shape[a].compatible(_ONE) for a in chosen
            ):
                return [TensorInfo(Shape.dynamic_rank(), etype, why="a listed dim may be 1")]
            dims = [d for i, d in enumerate(shape) if i not in chosen or not d.compatible(_ONE)]
            why = f"{shape} without the size-1 dims at axes {sorted(chosen)}"
        else:
            if any(d.is_dynamic and d.compatible(_ONE) for d in shape):
                return [TensorInfo(Shape.dynamic_rank(), etype, why="a dynamic dim may be 1")]
            dims = [d for d in shape if not d.compatible(_ONE)]
            why = f"{shape} without its size-1 dims"
        out = Shape(dims)
        info = TensorInfo(out, etype, why=why)
        elements = elements_of(data) if data.value is None else None
        if elements is not None and out.rank in (0, 1):
            return [info_of_elements(elements, etype, out, why)]
        return [info]

    def evaluate(self, inputs):
        """``np.reshape`` to the squeezed shape (a view)."""
        data = inputs[0]
        axes = [] if len(inputs) < 2 else signed_values(inputs[1])
        rank = max(data.ndim, 1)
        chosen = {a + rank if a < 0 else a for a in axes}
        if chosen:
            shape = [s for i, s in enumerate(data.shape) if i not in chosen or s != 1]
        else:
            shape = [s for s in data.shape if s != 1]
        return [np.reshape(data, shape)]


@register
class Squeeze1(_Squeeze):
    """Squeeze-1 (no attributes)."""

    type, version = "Squeeze", 1
    rounds = False
    attributes = ()


@register
class Squeeze15(_Squeeze):
    """Squeeze-15: attribute ``allow_axis_skip``."""

    type, version = "Squeeze", 15
    rounds = False
    attributes = (Attribute("allow_axis_skip", "bool", False),)
