"""Result-1: a model output. One input, no outputs."""

from __future__ import annotations

from irrun.ops.base import Op
from irrun.ops.registry import register


@register
class Result(Op):
    """Result-1: passes its input out of the model."""

    type, version, inputs = "Result", 1, (1, 1)
    rounds = False

    def infer(self, inputs):
        """A Result has no output ports."""
        return []

    def evaluate(self, inputs):
        """Nothing to compute: the executor reads the Result's input."""
        return []
