"""BitwiseLeftShift-15 and BitwiseRightShift-15: elementwise ``a << b`` and ``a >> b`` with
auto-broadcast.

Inputs: two tensors of one integer element type (OpenVINO refuses floats and booleans).
Attributes: ``auto_broadcast`` (none/numpy/pdpd, default numpy) and, for pdpd, the axis.
Output: the broadcast shape (:mod:`irrun.ops._broadcast`), the inputs' type. A right shift of
a signed type is arithmetic (the sign is kept). A shift by a negative amount or by the type's
bit width or more is undefined in OpenVINO (its C++ shift); irrun gives NumPy's result there
(0, or -1 for a negative value shifted right). Exact.

The CPU plugin computes these shifts in i32: a u32 or u64 shifted right gets the sign of bit
31 (``4294967295 >> 1`` is 4294967295, not 2147483647) and i64 values lose their upper 32 bits;
OpenVINO's core has a reference only for i32. irrun computes in the type itself, as the spec
says (tested against the plugin for the types it gets right, and against explicit values).
"""

from __future__ import annotations

import numpy as np

from irrun.ops._elementwise import BinaryOp
from irrun.ops.registry import register


class _Shift(BinaryOp):
    version = 15
    category = "arithmetic"

    def infer(self, inputs):
        """The broadcast shape, the inputs' integer type."""
        for index, info in enumerate(inputs):
            etype = info.element_type
            if etype.name != "dynamic" and not etype.is_integer:
                self.context.error(
                    "input-type",
                    f"{self.describe()} takes an integer type, but input {index} is {etype}",
                    port=self.input_port(index),
                    hint="Convert the inputs to an integer type",
                )
                return None
        return super().infer(inputs)


@register
class BitwiseLeftShift(_Shift):
    """BitwiseLeftShift-15."""

    type = "BitwiseLeftShift"

    def compute(self, a, b):
        return np.left_shift(a, b.astype(a.dtype))


@register
class BitwiseRightShift(_Shift):
    """BitwiseRightShift-15."""

    type = "BitwiseRightShift"

    def compute(self, a, b):
        return np.right_shift(a, b.astype(a.dtype))
