"""Parameter-1: a model input. Its ``<data shape element_type>`` is the truth; the port's
``<dim>``s only repeat it (losing interval bounds)."""

from __future__ import annotations

from irrun.errors import IRError
from irrun.ops.base import DYNAMIC_TYPE, Op, TensorInfo
from irrun.ops.registry import register
from irrun.shape import Shape


@register
class Parameter(Op):
    """Parameter-1: attributes ``shape`` (partial shape) and ``element_type``."""

    type, version, inputs = "Parameter", 1, (0, 0)
    rounds = False
    from_attributes = True

    def __init__(self, layer, context):
        super().__init__(layer, context)
        self.shape = Shape.dynamic_rank()
        self.element_type = DYNAMIC_TYPE
        if layer.data_line is None and not layer.attributes:
            context.error(
                "missing-attribute",
                f"{self.describe()} has no <data> element; OpenVINO refuses such a Parameter "
                '("Layer data must be defined")',
                hint='add <data shape="..." element_type="..."/> to the layer',
            )
            self.incomplete = True
            return
        if "shape" not in layer.attributes:
            context.warning(
                "missing-attribute",
                f"{self.describe()} has no 'shape' attribute; OpenVINO then makes it a scalar",
                hint='add shape="..." to <data> (e.g. shape="1,3,224,224"; "" for a scalar)',
            )
            self.shape = Shape(())
        else:
            try:
                self.shape = layer.attribute_shape("shape")
            except IRError as exc:
                context.error(
                    "attribute-value",
                    exc.message,
                    line=layer.data_line,
                    hint="write shape as e.g. 1,?,2..8",
                )
        if "element_type" not in layer.attributes:
            context.warning(
                "missing-attribute",
                f"{self.describe()} has no 'element_type'; OpenVINO then makes it dynamic, "
                "and most devices refuse to compile it",
                hint='add element_type="f32" (or the intended type) to <data>',
            )
        else:
            try:
                self.element_type = layer.attribute_element_type("element_type")
            except IRError as exc:
                context.error(
                    "attribute-value",
                    exc.message,
                    line=layer.data_line,
                    hint="use f32, i64, boolean, ...",
                )

    def infer(self, inputs):
        """The declared ``shape`` and ``element_type``."""
        return [TensorInfo(self.shape, self.element_type, why="the Parameter's shape attribute")]
