"""Convert-1: change the element type of a tensor, element by element.

Spec facts: one input of any element type but string; attribute ``destination_type``
(required; OpenVINO silently takes ``undefined`` when it is missing); the output has the input's
shape and the destination type. Partial values (shapes from ShapeOf) pass through integer to
integer Converts: exact elements convert like the kernel does, size intervals stay when the
destination type holds them. The conversion rules (rounding, saturation, OpenVINO's quirks)
are those of :mod:`irrun.ops._conversion`.
"""

from __future__ import annotations

from irrun.ops._conversion import convert_array, convert_partial, input_type
from irrun.ops.base import DYNAMIC_TYPE, Attribute, Op, TensorInfo, lazy_text
from irrun.ops.registry import register

__all__ = ["Convert"]


@register
class Convert(Op):
    """Convert-1 (attribute ``destination_type``, required)."""

    type, version, inputs = "Convert", 1, (1, 1)
    rounds = False
    memoizable = False  # (the rule costs less than the key that would skip it)
    attributes = (Attribute("destination_type", "element_type", DYNAMIC_TYPE, required=True),)

    def infer(self, inputs):
        """Output: the input's shape, the destination type; partial values pass through."""
        data = inputs[0]
        destination = self.destination_type
        info = TensorInfo(data.shape, destination, why=lazy_text("converted to {}", destination))
        if data.partial is not None and data.value is None:  # (partial first: no fold forced)
            info.partial = convert_partial(data.partial, data.element_type, destination)
        return [info]

    def evaluate(self, inputs):
        """:func:`convert_array` from the input's element type to ``destination_type``."""
        return [convert_array(inputs[0], input_type(self, inputs[0]), self.destination_type)]
