"""Identity-16: the input, unchanged.

Spec facts: one input of any element type and shape (strings included), no attributes; the
output has its shape, element type and value (a copy). Exact.

OpenVINO's Identity neither folds nor passes on bounds at construction (a Reshape to
``Identity(ShapeOf(x))`` or to ``Identity(Const)`` is ``[?,?]``): irrun passes no partial value
on either, but folds a constant through it as it folds every small constant sub-graph (there
it infers more than OpenVINO's construction, what OpenVINO's constant folding gives later).
"""

from __future__ import annotations

from irrun.ops.base import Op, TensorInfo
from irrun.ops.registry import register


@register
class Identity(Op):
    """Identity-16 (no attributes)."""

    type, version, inputs = "Identity", 16, (1, 1)
    rounds = False
    attributes = ()

    def infer(self, inputs):
        """The input's shape and type (not its value, as in OpenVINO)."""
        (data,) = inputs
        return [TensorInfo(data.shape, data.element_type, why="Identity keeps its input")]

    def evaluate(self, inputs):
        """A copy of the input."""
        return [inputs[0].copy()]
