"""Pad-1 and Pad-12: extend (or, with negative pads, crop) a tensor at its edges.

Spec facts: inputs data (any element type), pads_begin and pads_end (1-D integer tensors, one
element per data axis; their integer types may differ) and, in ``constant`` mode only, an
optional scalar pad_value of the data's element type (default 0). Attribute ``pad_mode``:
``constant``, ``edge``, ``reflect`` (mirror without the edge element) or ``symmetric``
(mirror with it). Output dim i = data dim i + pads_begin[i] + pads_end[i]. Pad-12 allows
negative pads (they remove elements); OpenVINO's shape inference and CPU plugin accept them in
Pad-1 too, and irrun does the same.

Shape rule (``pad_shape_inference.hpp``): the pads are read as bounds (a ShapeOf-computed pad
is an interval, an unknown one ``(-inf, inf)``); per axis the output interval is
``[lower(dim) + lower(begin) + lower(end), upper(...)]``, its lower bound clipped at 0 and an
upper bound below 0 giving ``?`` (a static ``4`` padded by ``-5`` is ``?``, by ``-4`` is
``0``). Unknown pads of a data of static rank give ``?`` dims. OpenVINO refuses: pads of rank
other than 1, non-integer pads, a pads length above the data rank (or, when known, other than
it), a non-scalar pad_value or one of another element type (constant mode), and on a static
data dim with a pad whose lower bound is above 0: ``edge`` on a dim of 0, ``reflect`` on a dim
below 2; ``reflect`` with a pad (lower bound) not below the dim, ``symmetric`` with one above
it. The output element type is the data's (merged with pad_value's in constant mode).

Kernel: ``np.pad`` with the positive parts of the pads (modes constant/edge/reflect/symmetric
are NumPy's), then a slice removing the negative parts; exact.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._shape_ops import INFINITE, check_integer_input
from irrun.ops._values import signed_elements, signed_values
from irrun.ops.base import Attribute, Op, TensorInfo, common_element_type
from irrun.ops.registry import register
from irrun.shape import Dim, Shape

_MODES = ("constant", "edge", "reflect", "symmetric")
_NAMES = ("pads_begin", "pads_end")


def _bounds(element) -> tuple[int, int]:
    """The ``(lower, upper)`` bounds of one pad element (``INFINITE`` when unbounded)."""
    if isinstance(element, int):
        return element, element
    if isinstance(element, Dim):
        return element.lower, INFINITE if element.upper is None else element.upper
    return -INFINITE, INFINITE


def padded_dim(dim: Dim, begin: tuple[int, int], end: tuple[int, int]) -> Dim:
    """``dim`` padded by pads of bounds ``begin`` and ``end``, as OpenVINO's intervals add.

    >>> str(padded_dim(Dim(2, 8), (-3, -3), (0, 0))), str(padded_dim(Dim(4), (-5, -5), (0, 0)))
    ('..5', '?')
    """
    dim_upper = INFINITE if dim.upper is None else dim.upper
    lower = dim.lower + begin[0] + end[0]
    uppers = (dim_upper, begin[1], end[1])
    upper = INFINITE if INFINITE in uppers else sum(uppers)
    if upper < 0 or upper >= INFINITE:
        return Dim(max(lower, 0), None) if upper >= INFINITE else Dim.dynamic()
    return Dim(max(lower, 0), upper)


class _Pad(Op):
    inputs = (3, 4)
    attributes = (Attribute("pad_mode", "enum", "constant", required=True, choices=_MODES),)

    def _check_inputs(self, inputs) -> bool:
        for index in (1, 2):
            info = inputs[index]
            if not check_integer_input(self, info, index, _NAMES[index - 1]):
                return False
            if info.shape.rank is not None and info.shape.rank != 1:
                self.context.error(
                    "input-rank",
                    f"{self.describe()}: {_NAMES[index - 1]} must be 1-D, but its shape is "
                    f"{info.shape}",
                    port=self.input_port(index),
                    hint="give one pad per data axis in a 1-D tensor",
                )
                return False
        if self.pad_mode == "constant" and len(inputs) == 4:
            rank = inputs[3].shape.rank
            if rank is not None and rank != 0:
                self.context.error(
                    "input-rank",
                    f"{self.describe()}: pad_value must be a scalar, but its shape is "
                    f"{inputs[3].shape}",
                    port=self.input_port(3),
                    hint="give the pad value as a rank-0 tensor",
                )
                return False
        return True

    def _check_spatial(self, axis, dim, pads, inputs) -> bool:
        """OpenVINO's checks of a static data dim against the lower bounds of its pads."""
        size = dim.value
        lows = [pads[0][0], pads[1][0]]
        mode = self.pad_mode
        problem = None
        if max(lows) > 0 and mode == "edge" and size < 1:
            problem = f"edge padding needs a dim of at least 1, but axis {axis} has {size}"
        elif max(lows) > 0 and mode == "reflect" and size < 2:
            problem = f"reflect padding needs a dim of at least 2, but axis {axis} has {size}"
        elif mode == "reflect" and max(lows) >= size:
            problem = (f"reflect padding takes pads below the dim, but axis {axis} of size "
                       f"{size} is padded by {lows[0]} and {lows[1]}")  # fmt: skip
        elif mode == "symmetric" and max(lows) > size:
            problem = (f"symmetric padding takes pads of at most the dim, but axis {axis} of "
                       f"size {size} is padded by {lows[0]} and {lows[1]}")  # fmt: skip
        if problem is None:
            return True
        port = 1 if lows[0] == max(lows) else 2
        self.context.error(
            "input-value",
            f"{self.describe()}: {problem}",
            port=self.input_port(port),
            hint="use smaller pads on that axis or another pad_mode",
        )
        return False

    def infer(self, inputs):
        """Each dim plus its pads' bounds (see the module docstring)."""
        if not self._check_inputs(inputs):
            return None
        data = inputs[0]
        if self.pad_mode == "constant" and len(inputs) == 4:
            etype = common_element_type(self, inputs, "data and pad_value", ports=(0, 3))
            if etype is None:
                return None
        else:
            etype = data.element_type
        rank = data.shape.rank
        if rank is None:
            return [TensorInfo(Shape.dynamic_rank(), etype, why="the data rank is not known")]
        all_pads = []
        for index in (1, 2):
            pads_shape = inputs[index].shape
            count = None
            if pads_shape.rank_is_static and pads_shape[0].is_static:
                count = pads_shape[0].value
            if count is not None and count > rank:
                self.context.error(
                    "input-dims",
                    f"{self.describe()}: {_NAMES[index - 1]} has {count} elements, more than "
                    f"the data rank {rank}",
                    port=self.input_port(index),
                    hint=f"give exactly {rank} pads, one per data axis",
                )
                return None
            elements = signed_elements(inputs[index])
            if elements is not None and len(elements) != rank:
                self.context.error(
                    "input-dims",
                    f"{self.describe()}: {_NAMES[index - 1]} has {len(elements)} elements, "
                    f"but the data has rank {rank}",
                    port=self.input_port(index),
                    hint=f"give exactly {rank} pads, one per data axis",
                )
                return None
            all_pads.append(elements)
        if any(elements is None for elements in all_pads):
            shape = Shape([Dim.dynamic()] * rank)
            return [TensorInfo(shape, etype, why="the pads are not known")]
        dims = []
        for axis, dim in enumerate(data.shape):
            pads = (_bounds(all_pads[0][axis]), _bounds(all_pads[1][axis]))
            if dim.is_static and not self._check_spatial(axis, dim, pads, inputs):
                return None
            dims.append(padded_dim(dim, *pads))
        why = f"data {data.shape} padded by {list(all_pads[0])} and {list(all_pads[1])}"
        return [TensorInfo(Shape(dims), etype, why=why)]

    def evaluate(self, inputs):
        """``np.pad`` by the positive pads, then a slice for the negative ones."""
        data = inputs[0]
        begin, end = signed_values(inputs[1]), signed_values(inputs[2])
        widths = [(max(b, 0), max(e, 0)) for b, e in zip(begin, end)]
        if self.pad_mode == "constant":
            value = inputs[3] if len(inputs) == 4 else 0
            value = np.asarray(value).astype(data.dtype)
            if any(w != (0, 0) for w in widths):
                out = np.pad(data, widths, mode="constant", constant_values=value)
            else:
                out = data
        else:
            if data.size:
                out = np.pad(data, widths, mode=self.pad_mode)
            else:  # nothing to copy: only the shape matters
                out = np.zeros([n + b + e for n, (b, e) in zip(data.shape, widths)], data.dtype)
        crop = tuple(slice(max(-b, 0), out.shape[i] - max(-e, 0) if e < 0 else None)
                     for i, (b, e) in enumerate(zip(begin, end)))  # fmt: skip
        for i, (b, e) in enumerate(zip(begin, end)):
            if data.shape[i] + b + e < 0:
                raise ValueError(
                    f"{self.describe()}: axis {i} of size {data.shape[i]} padded by {b} and {e} "
                    f"is {data.shape[i] + b + e} long"
                )
        return [np.ascontiguousarray(out[crop])]


@register
class Pad1(_Pad):
    """Pad-1 (pad_mode)."""

    type, version = "Pad", 1
    rounds = False


@register
class Pad12(_Pad):
    """Pad-12 (pad_mode; negative pads crop)."""

    type, version = "Pad", 12
    rounds = False
