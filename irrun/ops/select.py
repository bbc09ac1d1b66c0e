"""Select-1: ``cond ? then : else`` elementwise, with auto-broadcast over all three inputs.

Inputs: ``cond`` (boolean), ``then`` and ``else`` of one element type (any). Attribute
``auto_broadcast`` (none/numpy/pdpd, default numpy; pdpd: ``auto_broadcast.auto_broadcast_axis``,
default 0). Shape
rule as OpenVINO's: numpy and none fold ``else``, ``then``, ``cond`` in that order; pdpd
broadcasts ``else`` into ``then``, then ``cond`` into that (one way). Output type: the
then/else type.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._broadcast import broadcast_shapes
from irrun.ops._elementwise import AUTO_BROADCAST, AUTO_BROADCAST_AXIS, Broadcasting, align_pdpd
from irrun.ops.base import TensorInfo, common_element_type
from irrun.ops.registry import register


@register
class Select(Broadcasting):
    """Select-1."""

    type, version, inputs = "Select", 1, (3, 3)
    rounds = False
    attributes = (AUTO_BROADCAST, AUTO_BROADCAST_AXIS)

    def infer(self, inputs):
        """Output: the broadcast of the three shapes, the then/else type."""
        cond = inputs[0].element_type
        if cond.kind not in ("bool", "dynamic"):
            self.context.error(
                "input-type",
                f"{self.describe()}: the condition must be boolean, not {cond}",
                port=self.input_port(0),
                hint="compare it (e.g. NotEqual with 0) or Convert it to boolean",
            )
            return None
        etype = common_element_type(self, inputs, "then and else inputs", ports=(1, 2))
        if etype is None:
            return None
        order = (1, 2, 0) if self.auto_broadcast == "pdpd" else (2, 1, 0)
        shape = broadcast_shapes(self, inputs, self.auto_broadcast,
                                 self.auto_broadcast_axis, ports=order)  # fmt: skip
        return None if shape is None else [TensorInfo(shape, etype)]

    def evaluate(self, inputs):
        """``numpy.where`` on the broadcast inputs."""
        cond, then, other = inputs
        if self.auto_broadcast == "pdpd":
            other = align_pdpd(then, other, self.auto_broadcast_axis)
            cond = align_pdpd(then, cond, self.auto_broadcast_axis)
        return [np.where(cond, then, other).astype(then.dtype, copy=False)]
