"""ShapeOf-1 and ShapeOf-3: the shape of a tensor as a 1-D integer tensor.

Spec facts: one input of any type; ShapeOf-1 has no attributes and gives i64; ShapeOf-3 has
``output_type`` (i64 default, or i32; OpenVINO refuses anything else: "Output type must be i32
or i64"). The output shape is ``[rank]`` (a scalar gives ``[0]``, a dynamic rank ``[?]``).
When the input shape is static the value is a constant (and folds); otherwise it is a partial
value (each dynamic dimension an interval) so that Reshape, Broadcast, Range ... downstream
infer what OpenVINO infers through its bound evaluation.
"""

from __future__ import annotations

import numpy as np

from irrun.element_types import ELEMENT_TYPES
from irrun.ops._values import elements_from_shape, info_of_elements
from irrun.ops.base import Attribute, Op, TensorInfo
from irrun.ops.registry import register
from irrun.shape import Dim, Shape

_I64 = ELEMENT_TYPES["i64"]


class _ShapeOf(Op):
    inputs = (1, 1)
    attributes = (Attribute("output_type", "element_type", _I64, since=3),)
    output_type = _I64  # ShapeOf-1's

    def infer(self, inputs):
        """``[rank]`` of the output type; the value as far as the input shape tells it."""
        shape = inputs[0].shape
        etype = self.output_type
        if not shape.rank_is_static:
            return [TensorInfo(Shape([Dim.dynamic()]), etype, why="the input has a dynamic rank")]
        out = Shape([len(shape)])
        elements = elements_from_shape(shape, inputs[0])
        return [info_of_elements(elements, etype, out, why=f"shape of {shape}")]

    def evaluate(self, inputs):
        """The input's shape as an array of the output type."""
        return [np.array(np.shape(inputs[0]), dtype=self.output_type.numpy_dtype)]


@register
class ShapeOf1(_ShapeOf):
    """ShapeOf-1: output i64."""

    type, version = "ShapeOf", 1
    rounds = False


@register
class ShapeOf3(_ShapeOf):
    """ShapeOf-3: ``output_type`` i64 (default) or i32."""

    type, version = "ShapeOf", 3
    rounds = False

    def setup(self):
        if self.output_type.name not in ("i32", "i64"):
            self.context.error(
                "attribute-value",
                f"{self.describe()}: output_type {self.output_type} is not allowed; OpenVINO "
                'refuses it ("Output type must be i32 or i64")',
                hint='use output_type="i64" (or "i32")',
                line=self.layer.data_line,
            )
            self.incomplete = True
