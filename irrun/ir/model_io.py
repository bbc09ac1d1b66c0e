"""Naming a loaded model's inputs and outputs as OpenVINO's ``read_model`` does."""

from __future__ import annotations

from irrun.ir.names import smallest_name
from irrun.model import Model, ModelInput, ModelOutput

__all__ = ["name_model_io"]


def name_model_io(model: Model) -> None:
    """Fill ``model.inputs`` and ``model.outputs`` (ir-format.md §6.3): Parameters and
    Results; for a fragment, its unconnected input ports and unconsumed output ports too."""
    v10 = model.ir_version == 10
    for layer in model.layers:
        if layer.type == "Parameter" and layer.outputs:
            port = layer.outputs[0]
            names = set(port.names) | ({layer.name} if v10 else set())
            name = smallest_name(names) if names else layer.name
            model.inputs.append(ModelInput(name, tuple(sorted(names)), port, layer))
        elif layer.type == "Result" and layer.inputs:
            producer = model.producer(layer.inputs[0])
            port = producer or layer.inputs[0]
            names = _result_names(layer, producer, v10)
            name = smallest_name(names) if names else layer.name
            model.outputs.append(ModelOutput(name, tuple(sorted(names)), port, layer))
    if model.is_fragment:
        _name_fragment_io(model)


def _result_names(layer, producer, v10: bool) -> set:
    """The tensor names of a Result: IR v10 takes its producer's port names and the producing
    layer's name (``name.index`` when it has several outputs); v11 its ``output_names``, else
    the producer's port names."""
    if v10:
        names = set(producer.names) if producer is not None else set(layer.inputs[0].names)
        if producer is not None:
            owner = producer.layer
            single = len(owner.outputs) == 1
            names.add(owner.name if single else f"{owner.name}.{producer.index}")
        return names
    if layer.output_names:  # an empty output_names counts as absent, as in OpenVINO
        return set(layer.output_names)
    return set(producer.names) if producer is not None else set()


def _name_fragment_io(model: Model) -> None:
    """A fragment's unconnected input ports are its inputs, unconsumed outputs its outputs.

    They are named ``<layer name or id>:in<port id>`` / ``:out<port id>``: spec snippets reuse
    port ids between inputs and outputs, so the direction is part of the name."""
    for layer in model.layers:
        label = layer.name or str(layer.id)
        if layer.type not in ("Parameter", "Const"):
            for port in layer.inputs:
                if model.producer(port) is None:
                    name = f"{label}:in{port.id}"
                    model.inputs.append(ModelInput(name, (name,), port, layer))
        if layer.type != "Result":
            for port in layer.outputs:
                if not model.consumers(port):
                    names = port.names or (f"{label}:out{port.id}",)
                    name = smallest_name(names)
                    model.outputs.append(ModelOutput(name, tuple(sorted(names)), port, layer))
