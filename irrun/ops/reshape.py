"""Reshape-1: the same elements in another shape.

Spec facts: inputs data (any type) and the target pattern (a 1-D integer tensor: OpenVINO
2026 refuses a scalar, "Pattern shape must have rank 1"; an empty one gives a scalar);
attribute ``special_zero`` (required; OpenVINO silently takes false). A pattern value ``-1``
(at most one) is inferred so that the element counts match;
``0`` copies the input dimension at the same index when ``special_zero`` is true and is a
literal zero-size dimension otherwise; values below -1 are refused.

Shape inference follows OpenVINO's ``reshape_shape_inference.hpp`` over intervals: the pattern
may be a partial value (each element exact, an interval, or unknown: ``?``); equal static dims
of input and pattern cancel out of the two products; the ``-1`` dimension of a dynamic product
is ``[ceil(in_min / out_max), in_max // out_min]``. OpenVINO also cancels dynamic dims it can
prove equal (symbols): irrun cannot, so its interval may be wider than OpenVINO's, never
narrower; where OpenVINO's interval is empty (``1..0``: no run can succeed, yet it reports
nothing) irrun gives ``?``. Errors (OpenVINO's wording in quotes): two -1 ("More than one
dimension has size of -1"), a value below -1 ("Output pattern dim[0] has invalid bounds"), a
special zero beyond the input rank ("'0' dimension is out of range"), a -1 that cannot be a
whole number ("Non-'-1' output dimensions do not evenly divide the input dimensions", "Cannot
infer '-1' dimension with zero-size output dimension ..."), and static shapes whose element
counts differ ("Requested output shape ... is incompatible with input shape"). The kernel is
``np.reshape`` (a view).
"""

from __future__ import annotations

from math import prod

import numpy as np

from irrun.ops._shape_ops import (
    INFINITE,
    ceil_div,
    check_integer_input,
    check_vector_input,
    make_dim,
    upper,
)
from irrun.ops._values import elements_of, source_axis, with_elements
from irrun.ops.base import Attribute, Op, TensorInfo, lazy_text
from irrun.ops.registry import register
from irrun.shape import Dim, Shape, shape_of_dims, static_dim

_ONE = static_dim(1)


@register
class Reshape(Op):
    """Reshape-1 (attribute ``special_zero``, required)."""

    moves_elements = (0,)
    type, version, inputs = "Reshape", 1, (2, 2)
    rounds = False
    attributes = (Attribute("special_zero", "bool", False, required=True),)

    def infer(self, inputs):
        """OpenVINO's Reshape shape rule over intervals (module docstring)."""
        data, target = inputs
        etype = data.element_type
        if not check_integer_input(self, target, 1, "target shape"):
            return None
        if not check_vector_input(self, target, 1, "target shape", scalar=False):
            return None
        elements = elements_of(target)
        target_rank = target.shape.rank
        if elements is None:
            if target_rank == 1 and target.shape[0].is_static:
                count = target.shape[0].value
                dims = [Dim.dynamic()] * count
                return [TensorInfo(Shape(dims), etype, why="the target values are not known")]
            return [TensorInfo(Shape.dynamic_rank(), etype, why="the target is not known")]
        pattern = self._pattern(elements)
        if pattern is None:
            return None
        out = self._output(data.shape, pattern, target, data)
        if out is None:
            return None
        info = TensorInfo(
            out, etype, why=lazy_text("{} reshaped to {}", data.shape, _listing(elements))
        )
        if data.partial is not None and out.rank is not None and out.rank <= 1:
            with_elements(info, data.partial)  # a shape element moved between [] and [1]
        return [info]

    def _pattern(self, elements):
        """``(dims, index of the -1 or None)``, reporting bad values."""
        dims, minus_one = [], None
        for i, element in enumerate(elements):
            if isinstance(element, Dim):
                dims.append(element)
                continue
            if element is None:
                dims.append(Dim.dynamic())
                continue
            if element == -1:
                if minus_one is not None:
                    self._bad_value(
                        f"the target {_listing(elements)} has -1 at both index {minus_one} and "
                        f"index {i}; at most one dimension can be inferred",
                        "keep one -1 and give the other dimension's size",
                    )
                    return None
                minus_one = i
                dims.append(Dim.dynamic())
                continue
            if element < -1:
                self._bad_value(
                    f"the target {_listing(elements)} has {element} at index {i}; a target "
                    "dimension is a size, 0 or -1",
                    "use -1 for the one dimension to infer",
                )
                return None
            dims.append(static_dim(element))
        return dims, minus_one

    def _output(self, shape: Shape, pattern, target: TensorInfo, data: TensorInfo | None = None):
        """The output shape for ``pattern``; ``data``: the input's TensorInfo, whose own dims
        (read by ShapeOf) cancel out of the -1 arithmetic."""
        dims, minus_one = pattern
        special_zero = self.special_zero
        in_dims = shape.dims
        sizes = shape._static_sizes()
        if sizes is not None:
            result = _static_output(sizes, dims, minus_one, special_zero)
            if result is not None:
                return result
        product = _Product()
        out = []
        if in_dims is None:
            for dim in dims:
                if special_zero and dim == 0:
                    out.append(Dim.dynamic())
                    product.set_infinite()
                else:
                    out.append(dim)
                    product.outputs.append(dim)
        else:
            rank = len(in_dims)
            # Target dims that ShapeOf read from this very tensor equal its dims (OpenVINO's
            # symbols): both leave the -1 arithmetic, so [?,16,64] to [d0,-1] is [?,1024].
            same = {}
            for i, dim in enumerate(dims):
                axis = source_axis(dim, data) if i != minus_one else None
                if axis is not None and axis not in same.values():
                    same[i] = axis
            counted = []  # the input dims in the product
            for i, dim in enumerate(dims):
                ignore = special_zero and dim == 0
                if i == minus_one:
                    out.append(Dim.dynamic())
                elif i in same:
                    out.append(in_dims[same[i]])
                elif ignore:
                    if i >= rank:
                        self._bad_value(
                            f"special_zero copies input dimension {i} for the 0 at index {i} of "
                            f"the target {_listing(elements_of(target))}, but the input "
                            f"{shape} has rank {rank}",
                            "give that dimension's size instead of 0",
                        )
                        return None
                    out.append(in_dims[i])
                else:
                    out.append(dim)
                    product.outputs.append(dim)
                if i < rank and not ignore:
                    counted.append(i)
            counted.extend(range(len(dims), rank))
            cancelled = set(same.values())
            product.inputs.extend(in_dims[k] for k in counted if k not in cancelled)
        product.calculate()
        if minus_one is not None:
            inferred = product.resolve_minus_one()
            if product.static_out == 0:
                if product.static_in != 0:
                    self._bad_dims(
                        shape, target,
                        f"the -1 cannot be inferred: the other target dimensions hold 0 "
                        f"elements but the input {shape} is not empty",
                    )  # fmt: skip
                    return None
            elif inferred is None:
                self._bad_dims(
                    shape, target,
                    f"{_count_text(shape)} cannot be reshaped to {_listing(elements_of(target))}: "
                    f"the other target dimensions ({product.explain()}) do not divide it",
                )  # fmt: skip
                return None
            out[minus_one] = Dim.dynamic() if inferred is None else inferred
        result = Shape(out)
        if shape.is_static and result.is_static and minus_one is None:
            # (the dims special_zero copies are in neither product)
            if product.static_in != product.static_out:
                copied = [i for i, d in enumerate(dims) if special_zero and d == 0]
                why = ""
                if copied:
                    # OpenVINO's shape rule skips the check then; its CPU plugin fails, or
                    # gives a tensor of the target's size from the wrong elements.
                    axes = ", ".join(map(str, copied))
                    why = (f"; special_zero copies input dimension{'s' if len(copied) > 1 else ''}"
                           f" {axes}, and OpenVINO's shape rule then skips this check, but no "
                           "run can give it")  # fmt: skip
                self._bad_dims(
                    shape, target,
                    f"{_count_text(shape)} cannot be reshaped to {result} "
                    f"({_count_text(result)}){why}",
                )  # fmt: skip
                return None
        return result

    def _bad_value(self, text: str, hint: str) -> None:
        self.context.error(
            "input-value", f"{self.describe()}: {text}", port=self.input_port(1), hint=hint
        )

    def _bad_dims(self, shape: Shape, target: TensorInfo, text: str) -> None:
        self.context.error(
            "input-dims",
            f"{self.describe()}: {text}",
            port=self.input_port(0),
            hint="make the target's element count match the input's (or use -1 for one dimension)",
        )

    def evaluate(self, inputs):
        """``np.reshape`` (a view) to the pattern resolved for the input's shape."""
        data, target = inputs
        pattern = [int(v) for v in np.asarray(target).reshape(-1)]
        if self.special_zero:
            pattern = [data.shape[i] if v == 0 else v for i, v in enumerate(pattern)]
        if -1 in pattern and data.size == 0:  # numpy refuses -1 with zero elements
            info = TensorInfo(Shape([len(pattern)]), value=np.asarray(target))
            shape = self._output(Shape(data.shape), self._pattern(pattern), info)
            pattern = list(shape.to_tuple())
        return [np.reshape(data, pattern)]


def _static_output(sizes, dims, minus_one, special_zero) -> Shape | None:
    """What :meth:`Reshape._output` gives for a static input and a target of plain static
    dims, on ints; ``None`` when the general path must decide (a dynamic or ShapeOf-read
    target dim, a problem to report, an empty -1 product, a count beyond 64 bits)."""
    rank = len(sizes)
    out = []
    in_count = out_count = 1
    for i, dim in enumerate(dims):
        if i == minus_one:  # (its pattern dim is ``?``)
            out.append(None)
            if i < rank:
                in_count *= sizes[i]
            continue
        if type(dim) is not Dim or dim.lower != dim.upper:
            return None
        size = dim.lower
        if special_zero and size == 0:
            if i >= rank:
                return None
            out.append(sizes[i])  # copied: out of both products
        else:
            out.append(size)
            out_count *= size
            if i < rank:
                in_count *= sizes[i]
    for k in range(len(dims), rank):
        in_count *= sizes[k]
    if in_count >= INFINITE or out_count >= INFINITE:
        return None
    if minus_one is not None:
        if out_count == 0 or in_count % out_count:
            return None
        out[minus_one] = in_count // out_count
    elif in_count != out_count:  # (copied dims are in neither count)
        return None
    return shape_of_dims(tuple([static_dim(size) for size in out]))


class _Product:
    """OpenVINO's reshape ``Product<Dimension>``: static and dynamic parts of the input and
    output element counts, with equal static dims cancelled."""

    def __init__(self):
        self.inputs: list[Dim] = []
        self.outputs: list[Dim] = []
        self.static_in = self.static_out = 1
        self.dynamic_in = self.dynamic_out = _ONE
        self.infinite = False

    def set_infinite(self):
        self.infinite = True

    def calculate(self):
        outs = list(self.outputs)
        for dim in self.inputs:
            match = next((j for j, o in enumerate(outs) if o == dim and dim.is_static
                          and dim != 0), None)  # fmt: skip
            if match is None:
                self._mul_in(dim)
            else:
                del outs[match]
        for dim in outs:
            self._mul_out(dim)
        if self.infinite:
            self.dynamic_in = Dim.dynamic()
            self.dynamic_out = Dim.dynamic()
        if self.static_in != self.static_out:
            self.dynamic_in = _times(self.dynamic_in, static_dim(self.static_in))
            self.dynamic_out = _times(self.dynamic_out, static_dim(self.static_out))

    def _mul_in(self, dim):
        if dim.is_static:
            self.static_in *= dim.value
        else:
            self.dynamic_in = _times(dim, self.dynamic_in)

    def _mul_out(self, dim):
        if dim.is_static:
            self.static_out *= dim.value
        else:
            self.dynamic_out = _times(dim, self.dynamic_out)

    def resolve_minus_one(self) -> Dim | None:
        """The -1 dimension, or ``None`` when no whole number fits."""
        dim, product = self.dynamic_in, self.dynamic_out
        if dim.is_static and product.is_static:
            divisor = product.value
            if divisor == 0:
                return dim
            if divisor == 1:
                return dim
            return make_dim(ceil_div(dim.lower, divisor), dim.upper // divisor)
        low, high = dim.lower, upper(dim)
        if dim.upper is not None and product.lower != 0 and product != Dim.dynamic():
            high = high // product.lower
        else:
            high = INFINITE
        if product.upper != 0:
            low = ceil_div(low, upper(product))
        # OpenVINO keeps an empty interval here without an error (it prints [2..5,1..0] for []
        # reshaped to [d,-1] with d in 2..5): irrun, which has no empty Dim, says ``?``.
        return make_dim(low, high) or Dim.dynamic()

    def explain(self) -> str:
        """The other target dimensions as a product (``2 * 3``)."""
        return " * ".join(str(d) for d in self.outputs) or "1"


def _times(a: Dim, b: Dim) -> Dim:
    """OpenVINO's interval product (bounds saturate at infinity; 0 times anything is 0)."""
    low = _clip_times(a.lower, b.lower)
    high = _clip_times(upper(a), upper(b))
    return make_dim(low, high) or Dim.dynamic()


def _clip_times(x: int, y: int) -> int:
    if x == 0 or y == 0:
        return 0
    if x >= INFINITE or y >= INFINITE:
        return INFINITE
    return min(x * y, INFINITE)


def _count_text(shape: Shape) -> str:
    """``2*3*4 = 24 elements``."""
    sizes = shape.to_tuple()
    if len(sizes) <= 1:
        return f"{shape} ({prod(sizes)} elements)"
    return "*".join(str(s) for s in sizes) + f" = {prod(sizes)} elements"


def _listing(elements) -> str:
    if elements is None:
        return "?"
    return "[" + ",".join("?" if e is None else str(e) for e in elements) + "]"
