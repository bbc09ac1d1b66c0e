"""Einsum-7: the Einstein summation of its inputs along an equation.

Spec facts: one or more inputs of one numeric element type (not boolean); attribute
``equation`` (required): comma-separated input subscripts, optionally ``->`` and an output
subscript. A subscript is ASCII letters (case matters) with at most one ellipsis ``...``
standing for any number of dims. Without ``->`` (implicit mode) the output is every label
that appears in no *other* input's subscript, sorted (ASCII: capitals first), after ``...``
when any input has one. A label repeated within one input takes its diagonal; a label absent
from the output is summed; ellipsis dims broadcast numpy style across inputs and, when the
output has no ellipsis, are summed.

Shape rule (``einsum_shape_inference.hpp`` of 2025): the number of subscripts (a plain
``split(",")``: ``"ij,"`` has two) must equal the number of inputs; a subscript without
ellipsis must have exactly the input's rank of labels, one with ellipsis at most rank + 1; a
label repeated within one input must have compatible dims (intersected); across inputs
labels and ellipsis shapes *broadcast*-merge (1 against 3 gives 3, as numpy's einsum
broadcasts). An ellipsis at the end that covers no dims is not recorded (OpenVINO's loop stops
at the last dim). An input of dynamic rank gives its labels ``?``, and, when both it and the
output have an ellipsis, makes the whole output of dynamic rank (OpenVINO returns at once,
before looking at later inputs). Output labels must come from the inputs (an output ellipsis
that covers nothing is dropped); the output is the concatenation of their dims.

Kernel: the ellipses expanded to explicit letters (right-aligned across inputs), then
``np.einsum`` (``optimize=True`` for floats, which contracts pairwise through BLAS); f16/bf16
compute in f32 and round once, integers in their own type (wrapping). An output subscript
that repeats a label (``ii`` in implicit mode, ``ii->ii``) passes OpenVINO's shape inference
but neither its CPU plugin nor irrun runs it. Against the CPU plugin: ``rtol=1e-5, atol=1e-5``
(summation order).
"""

from __future__ import annotations

import numpy as np

from irrun.ops._broadcast import broadcast_pair
from irrun.ops.base import Attribute, Op, TensorInfo, common_element_type, lazy_text
from irrun.ops.registry import register
from irrun.shape import Dim, Shape

ELLIPSIS = "..."
_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


class EquationError(ValueError):
    """An Einsum equation OpenVINO refuses to parse."""


def labels_of(subscript: str) -> list[str]:
    """The labels of one subscript: letters and ``...`` (``EquationError`` for anything else,
    or for a second ellipsis).

    >>> labels_of("a...bB")
    ['a', '...', 'b', 'B']
    """
    labels, index = [], 0
    while index < len(subscript):
        if subscript.startswith(ELLIPSIS, index) and ELLIPSIS not in labels:
            labels.append(ELLIPSIS)
            index += 3
            continue
        char = subscript[index]
        if not (char.isascii() and char.isalpha()):
            raise EquationError(
                f"subscript {subscript!r} must be letters with at most one '...', but has "
                f"{char!r} at position {index}"
            )
        labels.append(char)
        index += 1
    return labels


def parse_equation(equation: str) -> tuple[list[list[str]], list[str]]:
    """``(input labels, output labels)`` of an equation, the output recovered as OpenVINO
    does in implicit mode.

    >>> parse_equation("ij,jk")
    ([['i', 'j'], ['j', 'k']], ['i', 'k'])
    >>> parse_equation("...j,Bj")[1]
    ['...', 'B']
    """
    inputs_text, arrow, output_text = equation.partition("->")
    subscripts = inputs_text.split(",")
    inputs = [labels_of(s) for s in subscripts]
    if arrow:
        return inputs, labels_of(output_text)
    implicit = sorted(
        label
        for index, labels in enumerate(inputs)
        for label in labels
        if label != ELLIPSIS
        and not any(label in other for j, other in enumerate(subscripts) if j != index)
    )
    if any(ELLIPSIS in labels for labels in inputs):
        implicit.insert(0, ELLIPSIS)
    return inputs, implicit


@register
class Einsum(Op):
    """Einsum-7 (equation)."""

    type, version, inputs = "Einsum", 7, (1, None)
    attributes = (Attribute("equation", "string", "", required=True),)

    def setup(self):
        """Parse the equation once (``attribute-value`` when OpenVINO would refuse it)."""
        try:
            self.parsed = parse_equation(self.equation)
        except EquationError as exc:
            self.parsed = None
            self.context.error(
                "attribute-value",
                f"{self.describe()}: equation {self.equation!r}: {exc}",
                hint='write the equation as subscripts of letters, e.g. equation="ij,jk->ik"',
                line=self.layer.data_line,
            )
            self.incomplete = True

    def _error(self, message, port=None, hint=None):
        self.context.error(
            "input-dims",
            f"{self.describe()}: equation {self.equation!r}: {message}",
            port=None if port is None else self.input_port(port),
            hint=hint or "make the dims of each label agree with the equation",
        )

    def infer(self, inputs):
        """Each label's dims from the inputs, concatenated in the output's order."""
        if self.parsed is None:
            return None
        etype = common_element_type(self, inputs)
        if etype is None:
            return None
        if etype.name != "dynamic" and etype.kind not in ("float", "int", "uint"):
            self.context.error(
                "input-type",
                f"{self.describe()}: the inputs must be numeric, but they are {etype}",
                port=self.input_port(0),
                hint="Convert the inputs to a number type (f32, i32, ...)",
            )
            return None
        input_labels, output_labels = self.parsed
        if len(input_labels) != len(inputs):
            self._error(
                f"{len(input_labels)} input subscripts for {len(inputs)} inputs",
                hint="give one subscript per input",
            )
            return None
        known: dict[str, Shape] = {}
        for index, (labels, info) in enumerate(zip(input_labels, inputs)):
            shape = info.shape
            if shape.rank is None:
                if ELLIPSIS in labels and ELLIPSIS in output_labels:
                    why = f"input {index} of dynamic rank has an ellipsis"
                    return [TensorInfo(Shape.dynamic_rank(), etype, why=why)]
                for label in labels:
                    known.setdefault(label, Shape([Dim.dynamic()]))
                continue
            if not self._merge_input(index, labels, shape, known):
                return None
        dims = []
        for label in output_labels:
            if label == ELLIPSIS and label not in known:
                continue
            if label not in known:
                self._error(f"output label {label!r} is in no input subscript",
                            hint="use only labels of the inputs in the output")  # fmt: skip
                return None
            dims.extend(known[label])
        why = lazy_text("equation {}: labels {}", self.equation, known)
        return [TensorInfo(Shape(dims), etype, why=why)]

    def _merge_input(self, index, labels, shape, known) -> bool:
        """Record the dims of one input of known rank in ``known`` (False on an error)."""
        rank, has_ellipsis = len(shape), ELLIPSIS in labels
        if (has_ellipsis and rank < len(labels) - 1) or (not has_ellipsis and rank != len(labels)):
            wanted = f"at least {len(labels) - 1}" if has_ellipsis else f"{len(labels)}"
            self._error(f"input {index} {shape} has rank {rank}, but its subscript "
                        f"{''.join(labels)!r} needs rank {wanted}", port=index)  # fmt: skip
            return False
        own: dict[str, Dim] = {}
        dim_index = 0
        for label in labels:
            if dim_index >= rank:
                break
            if label == ELLIPSIS:
                count = rank - len(labels) + 1
                part = Shape(shape.dims[dim_index : dim_index + count])
                merged = part if label not in known else broadcast_pair(known[label], part)
                if merged is None:
                    self._error(f"the ellipsis dims {part} of input {index} do not broadcast "
                                f"with {known[label]}", port=index)  # fmt: skip
                    return False
                known[label] = merged
                dim_index += count
                continue
            dim = shape[dim_index]
            if label in own:
                merged = own[label].merge(dim)
                if merged is None:
                    self._error(f"label {label!r} repeated in input {index} {shape} has the "
                                f"dims {own[label]} and {dim}", port=index)  # fmt: skip
                    return False
                own[label] = merged
            else:
                own[label] = dim
            dim_index += 1
        for label, dim in own.items():
            mine = Shape([dim])
            merged = mine if label not in known else broadcast_pair(known[label], mine)
            if merged is None:
                self._error(f"label {label!r} is {known[label][0]} before input {index} and "
                            f"{dim} in it (they must be equal, or one of them 1)",
                            port=index)  # fmt: skip
                return False
            known[label] = merged
        return True

    def evaluate(self, inputs):
        """``np.einsum`` with the ellipses spelled out as letters."""
        input_labels, output_labels = self.parsed
        plain = [label for label in output_labels if label != ELLIPSIS]
        if len(set(plain)) != len(plain):
            raise NotImplementedError(
                f"{self.describe()}: the output subscript {''.join(output_labels)!r} of "
                f"equation {self.equation!r} repeats a label (OpenVINO's CPU plugin does not "
                "run it either)"
            )
        equation = _explicit(input_labels, output_labels, [np.ndim(a) for a in inputs])
        arrays = [np.asarray(a) for a in inputs]
        dtype = arrays[0].dtype
        narrow = dtype.kind == "f" and dtype.itemsize < 4 or dtype.name == "bfloat16"
        if narrow:
            arrays = [a.astype(np.float32) for a in arrays]
        floating = narrow or dtype.kind == "f"
        out = np.einsum(equation, *arrays, optimize=floating and len(arrays) > 1)
        return [np.array(out, dtype=dtype, order="C")]  # (ascontiguousarray makes 0-d 1-d)


def _explicit(input_labels, output_labels, ranks) -> str:
    """The equation with each ellipsis replaced by letters the equation does not use,
    right-aligned across the inputs (numpy then broadcasts them as OpenVINO does)."""
    used = {label for labels in input_labels + [output_labels] for label in labels}
    free = [c for c in _LETTERS if c not in used]
    counts = [rank - len(labels) + 1 if ELLIPSIS in labels else 0
              for labels, rank in zip(input_labels, ranks)]  # fmt: skip
    width = max(counts, default=0)
    spare = free[:width]
    if len(spare) < width:
        raise ValueError(f"Einsum: {width} ellipsis dims need more letters than are free")
    pieces = []
    for labels, count in zip(input_labels, counts):
        letters = "".join(spare[width - count :]) if count else ""
        pieces.append("".join(letters if label == ELLIPSIS else label for label in labels))
    output = "".join("".join(spare) if label == ELLIPSIS else label for label in output_labels)
    return ",".join(pieces) + "->" + output
