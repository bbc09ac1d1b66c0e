"""ConvertLike-1: convert ``data`` to the element type of ``like``.

Spec facts: inputs data (any type) and like (any type; only its element type matters, its
shape and values are ignored); no attributes; the output has data's shape and like's element
type. The conversion rules are Convert's (:mod:`irrun.ops._conversion`). A ``like`` of dynamic type
gives a dynamic output type.
"""

from __future__ import annotations

from irrun.ops._conversion import convert_array, convert_partial, input_type
from irrun.ops.base import Op, TensorInfo
from irrun.ops.registry import register


@register
class ConvertLike(Op):
    """ConvertLike-1 (no attributes)."""

    type, version, inputs = "ConvertLike", 1, (2, 2)
    rounds = False
    attributes = ()

    def infer(self, inputs):
        """Output: data's shape with like's element type."""
        data, like = inputs
        destination = like.element_type
        info = TensorInfo(data.shape, destination, why=f"converted to {destination} (like input 1)")
        if data.value is None and data.partial is not None:
            info.partial = convert_partial(data.partial, data.element_type, destination)
        return [info]

    def evaluate(self, inputs):
        """Convert's kernel, to like's element type."""
        data, like = inputs
        destination = input_type(self, like, 1)
        return [convert_array(data, input_type(self, data, 0), destination)]
