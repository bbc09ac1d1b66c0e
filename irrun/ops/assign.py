"""Assign-3 and Assign-6: write a value into a model variable, for the next run's ReadValue.

Spec facts: one input, the new value; ``variable_id`` (required) names the variable, which a
ReadValue layer of the model declares (ReadValue-3: its input's shape and type; ReadValue-6:
``variable_shape`` and ``variable_type``). The output is the input (OpenVINO writes Assign with
one output port, which nothing consumes, and reads it without one as well). Assign is a sink:
it runs although no Result needs it.

Type rule: Assign-3 needs a ReadValue-3 of the same ``variable_id`` among the layers it
depends on ("Can't find variable with id"), its input's element type *equal* to the
variable's (so a dynamic type against a static one is refused) and, when both are static, its
shape equal. Assign-6 needs a ReadValue-6 of the same ``variable_id`` in the model, an input
type compatible with the variable's (``dynamic`` fits any) and an input shape compatible with
the variable shape (dims whose intervals meet). The output is the input's shape and type.

Kernel (``uses_state``): ``state.write(variable_id, value)``; the executor makes the write
visible to the next run's ReadValue. Data movement only: bit-exact.
"""

from __future__ import annotations

import numpy as np

from irrun.attributes import parse_element_type, parse_shape
from irrun.ops.base import DYNAMIC_TYPE, Attribute, Op, TensorInfo
from irrun.ops.registry import register
from irrun.shape import Shape


class _Assign(Op):
    inputs = (1, 1)
    attributes = (Attribute("variable_id", "string", "", required=True),)
    uses_state = True
    memoizable = False  # (its rule looks at the other layers of its variable)

    def evaluate(self, inputs, state=None):
        """The value written to the variable (and passed through)."""
        if state is None:
            raise NotImplementedError(
                f"{self.label} needs the executor's variable state (variable_id "
                f"{self.variable_id!r})"
            )
        value = np.array(inputs[0], copy=True)
        state.write(self.variable_id, value)
        return [value] if self.layer.outputs else []

    def _reader(self, ancestors_only: bool):
        """The ReadValue layer of this op's version declaring the variable (among the layers
        this one depends on, or in the whole graph), or None."""
        graph = getattr(self.layer, "graph", None)
        if graph is None:
            return None

        def declares(layer):
            return (
                layer.type == "ReadValue"
                and layer.attributes.get("variable_id") == self.variable_id
                and _read_value_version(layer) == self.version
            )

        if not ancestors_only:
            return next((layer for layer in graph.layers if declares(layer)), None)
        seen, stack = set(), [port for port in self.layer.inputs]
        while stack:
            port = graph.producer(stack.pop())
            if port is None or id(port.layer) in seen:
                continue
            seen.add(id(port.layer))
            if declares(port.layer):
                return port.layer
            stack.extend(port.layer.inputs)
        return None

    def passed_on(self, value: TensorInfo) -> list[TensorInfo]:
        """The output: the value, when the layer has an output port (OpenVINO writes one; an
        IR without it is read as well, the Assign then a sink only)."""
        if not self.layer.outputs:
            return []
        why = f"the value written to variable {self.variable_id!r}"
        return [TensorInfo(value.shape, value.element_type, why=why)]

    def _missing(self, where: str) -> None:
        self.context.error(
            "input-value",
            f"{self.describe()}: no ReadValue-{self.version} {where} declares variable "
            f'{self.variable_id!r}; OpenVINO refuses the Assign ("Can\'t find variable with id")',
            port=self.input_port(0),
            hint="give the Assign the variable_id of its ReadValue (or add that ReadValue)",
        )


def _read_value_version(layer) -> int:
    """ReadValue's op version from its opset (3 for opset3 to opset5, 6 from opset6)."""
    opset = getattr(layer, "opset", None)
    return 6 if opset is None or opset >= 6 else 3


@register
class Assign3(_Assign):
    """Assign-3: the variable of the ReadValue-3 it depends on."""

    type, version = "Assign", 3

    def infer(self, inputs):
        """The input's shape and type, equal to the variable's."""
        (value,) = inputs
        reader = self._reader(ancestors_only=True)
        if reader is None:
            if getattr(self.layer, "graph", None) is not None:
                self._missing("that this layer depends on")
                return None
        else:
            shape, etype = _inferred(reader)
            if etype is not None and value.element_type != etype:
                self.context.error(
                    "input-type",
                    f"{self.describe()}: the value is {value.element_type}, but variable "
                    f"{self.variable_id!r} is {etype} (the initial value of {reader.describe()})",
                    port=self.input_port(0),
                    hint=f"Convert the value to {etype}",
                )
                return None
            if shape.is_static and value.shape.is_static and shape != value.shape:
                self.context.error(
                    "input-dims",
                    f"{self.describe()}: the value's shape {value.shape} differs from the shape "
                    f"{shape} of variable {self.variable_id!r} (the initial value of "
                    f"{reader.describe()})",
                    port=self.input_port(0),
                    hint="give the value the variable's shape",
                )
                return None
        return self.passed_on(value)


@register
class Assign6(_Assign):
    """Assign-6: the variable a ReadValue-6 of the model declares."""

    type, version = "Assign", 6

    def infer(self, inputs):
        """The input's shape and type, compatible with the declared variable."""
        (value,) = inputs
        reader = self._reader(ancestors_only=False)
        if reader is None:
            if getattr(self.layer, "graph", None) is not None:
                self._missing("of the model")
                return None
        else:
            shape, etype = _declared(reader)
            if not (etype.name == "dynamic" or value.element_type.name == "dynamic"
                    or etype == value.element_type):  # fmt: skip
                self.context.error(
                    "input-type",
                    f"{self.describe()}: the value is {value.element_type}, but variable "
                    f"{self.variable_id!r} is declared {etype} ({reader.describe()})",
                    port=self.input_port(0),
                    hint=f"Convert the value to {etype}",
                )
                return None
            if not value.shape.compatible(shape):
                self.context.error(
                    "input-dims",
                    f"{self.describe()}: the value's shape {value.shape} does not fit the shape "
                    f"{shape} declared for variable {self.variable_id!r} ({reader.describe()})",
                    port=self.input_port(0),
                    hint="give the value a shape the variable_shape allows",
                )
                return None
        return self.passed_on(value)


def _inferred(reader) -> tuple[Shape, object]:
    """A ReadValue-3 layer's output shape and type as inferred (declared when it was not)."""
    port = reader.outputs[0] if reader.outputs else None
    if port is None:
        return Shape.dynamic_rank(), None
    shape = port.inferred_shape if port.inferred_shape is not None else port.declared_shape
    etype = port.inferred_type if port.inferred_type is not None else port.element_type
    return shape, etype


def _declared(reader) -> tuple[Shape, object]:
    """A ReadValue-6 layer's variable_shape and variable_type (dynamic when absent or not
    readable: that layer reports them itself)."""
    try:
        shape = parse_shape(reader.attributes.get("variable_shape", "..."))
    except ValueError:
        shape = Shape.dynamic_rank()
    try:
        etype = parse_element_type(reader.attributes.get("variable_type", "dynamic"))
    except (KeyError, ValueError):
        etype = DYNAMIC_TYPE
    return shape, etype
