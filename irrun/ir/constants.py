"""Reading a Const layer's value: its ``<data>`` attributes checked, then its bytes decoded."""

from __future__ import annotations

from irrun.errors import IRError, WeightsError
from irrun.ir.weights import const_layout_problem, decode_checked_const

__all__ = ["const_problem", "read_const"]


def _const_attributes(layer):
    """``(element_type, shape tuple, offset, size)`` of a Const; raises IRFormatError subclasses."""
    etype = layer.attribute_element_type("element_type")
    shape = layer.attribute_shape("shape")
    if not shape.is_static:
        from irrun.errors import AttributeValueError

        raise AttributeValueError(
            f"{layer.describe()}: a Const shape must be static, got {shape}",
            file=layer.graph.file,
            line=layer.line,
        )
    return etype, shape.to_tuple(), layer.attribute_int("offset"), layer.attribute_int("size")


def const_problem(layer) -> str | None:
    """Why this Const cannot be read (attributes or byte range), or ``None``."""
    try:
        etype, shape, offset, size = _const_attributes(layer)
    except IRError as exc:
        return exc.message
    return const_layout_problem(etype, shape, offset, size, layer.graph.model.weights)


def read_const(layer):
    """Decode a Const layer's value (read-only numpy array)."""
    etype, shape, offset, size = _const_attributes(layer)
    weights = layer.graph.model.weights
    problem = const_layout_problem(etype, shape, offset, size, weights)
    if problem:
        raise WeightsError(f"{layer.describe()}: {problem}", file=layer.graph.file, line=layer.line)
    try:
        return decode_checked_const(etype, shape, offset, weights)
    except WeightsError as exc:
        raise WeightsError(
            f"{layer.describe()}: {exc.message}", file=layer.graph.file, line=layer.line
        ) from None
