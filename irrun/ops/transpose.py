"""Transpose-1: permute the dimensions of a tensor.

Spec facts: inputs data and order (a 1-D integer tensor). ``out.shape[i] = in.shape[order[i]]``;
an empty order reverses the dimensions. The order must be a permutation of 0..r-1: OpenVINO
refuses negative entries and repeats ("Permutation ... is not valid") and an order whose length
is not the rank ("Input order must have shape [n], where n is the rank of arg."). An order that
is not constant gives the input's rank with unknown dims; an input of unknown rank gives an
unknown rank, or the length of a constant (non-empty) order.
Partial orders count as not constant.

Kernel: ``np.transpose``, made contiguous with ``np.ascontiguousarray`` (a copy) — OpenVINO's
outputs are contiguous, and later kernels (MatMul, reshape of the result) run faster on
contiguous data; irrun's executor itself does not need it.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._shape_ops import check_integer_input, check_vector_input
from irrun.ops._values import signed_ints, signed_values
from irrun.ops.base import Op, TensorInfo, lazy_text
from irrun.ops.registry import register
from irrun.shape import Dim, Shape


@register
class Transpose(Op):
    """Transpose-1 (no attributes)."""

    moves_elements = (0,)
    type, version, inputs = "Transpose", 1, (2, 2)
    rounds = False
    attributes = ()

    def infer(self, inputs):
        """Permute the dims by the order."""
        data, order_info = inputs
        etype = data.element_type
        if not check_integer_input(self, order_info, 1, "order"):
            return None
        if not check_vector_input(self, order_info, 1, "order", scalar=False):
            return None
        shape = data.shape
        order = signed_ints(order_info)
        if not shape.rank_is_static and not order:
            return [TensorInfo(Shape.dynamic_rank(), etype, why="the input rank is unknown")]
        if order is None:
            length = order_info.shape.dims[0] if order_info.shape.rank_is_static else None
            if length is not None and not length.compatible(Dim(shape.rank)):
                self._bad_length(shape, f"{length}")
                return None
            return [TensorInfo(Shape([Dim.dynamic()] * shape.rank), etype,
                               why="the order is not known")]  # fmt: skip
        if not shape.rank_is_static:
            if sorted(order) != list(range(len(order))):
                self._bad_order(order, len(order))
                return None
            return [TensorInfo(Shape([Dim.dynamic()] * len(order)), etype, why="rank unknown")]
        rank = shape.rank
        if not order:
            order = list(range(rank - 1, -1, -1))
        elif len(order) != rank:
            self._bad_length(shape, str(len(order)))
            return None
        if sorted(order) != list(range(rank)):
            self._bad_order(order, rank)
            return None
        out = Shape([shape[i] for i in order])
        return [TensorInfo(out, etype, why=lazy_text("{} permuted by {}", shape, order))]

    def _bad_length(self, shape, length):
        self.context.error(
            "input-dims",
            f"{self.describe()}: the order has {length} elements, but the input {shape} has rank "
            f"{shape.rank}; the order must list every dimension once",
            port=self.input_port(1),
            hint=f"give an order of {shape.rank} axes (or an empty order to reverse them)",
        )

    def _bad_order(self, order, rank):
        self.context.error(
            "input-value",
            f"{self.describe()}: the order {order} is not a permutation of 0..{rank - 1} (each "
            "axis once, no negative axes)",
            port=self.input_port(1),
            hint=f"list each of 0..{rank - 1} exactly once",
        )

    def evaluate(self, inputs):
        """``np.transpose``, copied to contiguous memory (module docstring)."""
        data, order = inputs
        axes = signed_values(order) or None
        return [np.ascontiguousarray(np.transpose(data, axes))]
