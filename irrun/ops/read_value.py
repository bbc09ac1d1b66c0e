"""ReadValue-3 and ReadValue-6: the value of a model variable (state kept between runs), or its
initial value.

Spec facts: ``variable_id`` (required) names the variable; Assign layers with that id write it.
ReadValue-3 has one input, the initial value, and the variable has that input's shape and
type. ReadValue-6 declares the variable's ``variable_shape`` and ``variable_type`` and has an
optional initial value (zero or one input).

Type rule (``read_value.cpp``): ReadValue-3's output is its input's shape and type.
ReadValue-6's output is the declared variable shape and type; with an initial value, the
variable type must be dynamic or equal to the initial value's (a dynamic initial type against a
static variable type is refused) and the variable shape must *relax* the initial shape (a
dynamic rank, or the same rank with each variable dim's interval containing the initial dim's:
``?`` holds anything, ``2..8`` holds ``3..4`` but not ``3..9``). OpenVINO's workaround for old
IRs: a variable of dynamic rank *and* dynamic type takes the initial value's shape and type as
the output's.

Kernel (``uses_state``): the variable's value when a run before this one wrote it and no reset
came since (``state.read``), else the initial value, else (ReadValue-6 without an input) zeros
of the variable shape with its dynamic dims 0: an empty tensor, as the CPU plugin starts a KV
cache ``[1,2,?,4]`` (OpenVINO's core evaluate wants a static shape); a dynamic rank or type is an
error when run. Data movement only: bit-exact.
"""

from __future__ import annotations

import numpy as np

from irrun.ops.base import DYNAMIC_TYPE, Attribute, Op, TensorInfo
from irrun.ops.registry import register
from irrun.shape import Shape

VARIABLE_ID = Attribute("variable_id", "string", "", required=True)


class _ReadValue(Op):
    uses_state = True
    memoizable = False  # (its rule looks at the other layers of its variable)

    def evaluate(self, inputs, state=None):
        """The stored value, else the initial one."""
        if state is None:
            raise NotImplementedError(
                f"{self.label} needs the executor's variable state (variable_id "
                f"{self.variable_id!r})"
            )
        stored = state.read(self.variable_id)
        if stored is not None:
            # a copy: the value stays the variable's whatever the layers after this one do
            return [np.array(stored, copy=True)]
        return [self.initial(inputs)]

    def initial(self, inputs):
        """The value before any Assign wrote the variable."""
        return np.array(inputs[0], copy=True)


@register
class ReadValue3(_ReadValue):
    """ReadValue-3: the variable is its (required) initial value's shape and type."""

    type, version, inputs = "ReadValue", 3, (1, 1)
    attributes = (VARIABLE_ID,)

    def infer(self, inputs):
        """The initial value's shape and type."""
        (init,) = inputs
        why = f"the initial value of variable {self.variable_id!r}"
        return [TensorInfo(init.shape, init.element_type, why=why)]


@register
class ReadValue6(_ReadValue):
    """ReadValue-6: declared variable shape and type, optional initial value."""

    type, version, inputs = "ReadValue", 6, (0, 1)
    attributes = (
        VARIABLE_ID,
        Attribute("variable_type", "element_type", DYNAMIC_TYPE),
        Attribute("variable_shape", "shape", Shape.dynamic_rank()),
    )

    def infer(self, inputs):
        """The declared variable shape and type, checked against the initial value."""
        shape, etype = self.variable_shape, self.variable_type
        why = f"variable {self.variable_id!r} is declared {shape} {etype}"
        if not inputs:
            return [TensorInfo(shape, etype, why=why)]
        init = inputs[0]
        if etype.name != "dynamic" and init.element_type != etype:
            self.context.error(
                "input-type",
                f"{self.describe()}: the initial value is {init.element_type}, but variable "
                f"{self.variable_id!r} is declared {etype} (variable_type); OpenVINO needs the "
                "same type or a dynamic variable_type",
                port=self.input_port(0),
                hint=f"Convert the initial value to {etype}, or declare variable_type="
                f'"{init.element_type}"',
            )
            return None
        if not shape.relaxes(init.shape):
            self.context.error(
                "input-dims",
                f"{self.describe()}: variable {self.variable_id!r} is declared {shape} "
                f"(variable_shape), which does not hold the initial value's shape {init.shape}; "
                "every dim of the variable must contain the initial value's",
                port=self.input_port(0),
                hint=f'widen variable_shape (e.g. to "{_spelled(init.shape)}" or with ? dims)',
            )
            return None
        if not shape.rank_is_static and etype.name == "dynamic":
            why = "a variable of dynamic rank and type takes its initial value's (OpenVINO)"
            return [TensorInfo(init.shape, init.element_type, why=why)]
        return [TensorInfo(shape, etype, why=why)]

    def initial(self, inputs):
        """The initial value, or zeros of the declared variable shape (its dynamic dims 0)."""
        if inputs:
            return super().initial(inputs)
        shape, etype = self.variable_shape, self.variable_type
        if not shape.rank_is_static or etype.name == "dynamic":
            raise ValueError(
                f"{self.describe()}: variable {self.variable_id!r} was never written and has no "
                f"initial value; its zeros need a known rank and type, not {shape} {etype}"
            )
        sizes = tuple(dim.lower if dim.is_static else 0 for dim in shape)
        return np.zeros(sizes, dtype=etype.numpy_dtype)


def _spelled(shape: Shape) -> str:
    return str(shape).strip("[]")
