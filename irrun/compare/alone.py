"""A layer run by OpenVINO alone: a one-layer IR of it, fed the arrays it was judged on.

OpenVINO's CPU plugin transforms a model's graph before it runs it (fusions, decompositions,
other layouts), and a layer can then give inside the model what the same op does not give
alone on the same inputs: funnel-transformer's Einsum ``binh,tnh->bnit`` is half off inside
the converted model and exact alone. When irrun's result of a layer differs from OpenVINO's
on OpenVINO's own inputs and no known deviation explains it, :func:`compare` runs the layer
alone; if OpenVINO alone gives irrun's result, the difference is the plugin's inside that
model, labelled, not counted against irrun.
"""

from __future__ import annotations

import os
import tempfile

import numpy as np

__all__ = ["layer_alone_ir", "run_alone"]


def layer_alone_ir(layer, arrays, constants=()) -> bytes | None:
    """IR v11 of ``layer`` alone: a Parameter per input (shaped and typed as ``arrays``), the
    layer with its attributes, a Result per output; ``None`` for a layer that cannot stand
    alone (one with bodies, or inputs of a type a Parameter cannot have). The inputs whose
    indices are in ``constants`` are Consts instead, their bytes one after the other in
    index order in the weights (:func:`constant_blob`): OpenVINO wants some inputs constant
    (a Gather's axis)."""
    from lxml import etree

    from irrun.element_types import from_numpy_dtype

    if layer.bodies or len(arrays) != len(layer.inputs) or not layer.version:
        return None
    try:
        types = [from_numpy_dtype(array.dtype) for array in arrays]
    except (KeyError, TypeError, ValueError):
        return None
    if any(t.is_sub_byte or t.name in ("string", "dynamic") for t in types):
        return None
    net = etree.Element("net", name="alone", version="11")
    layers = etree.SubElement(net, "layers")
    edges = etree.SubElement(net, "edges")

    def port(parent, port_id, precision, dims):
        element = etree.SubElement(parent, "port", id=str(port_id), precision=precision)
        for size in dims:
            etree.SubElement(element, "dim").text = str(size)

    offset = 0
    for index, (array, etype) in enumerate(zip(arrays, types)):
        shape = ",".join(map(str, array.shape))
        if index in constants:
            source = etree.SubElement(layers, "layer", id=str(index),
                                      name=f"irrun_alone_{index}", type="Const",
                                      version="opset1")  # fmt: skip
            etree.SubElement(source, "data", element_type=etype.name, shape=shape,
                             offset=str(offset), size=str(array.nbytes))  # fmt: skip
            offset += array.nbytes
        else:
            source = etree.SubElement(layers, "layer", id=str(index),
                                      name=f"irrun_alone_{index}", type="Parameter",
                                      version="opset1")  # fmt: skip
            etree.SubElement(source, "data", shape=shape, element_type=etype.name)
        port(etree.SubElement(source, "output"), 0, etype.precision, array.shape)
    own_id = len(arrays)
    node = etree.SubElement(layers, "layer", id=str(own_id), name=layer.name, type=layer.type,
                            version=layer.version)  # fmt: skip
    if layer.attributes:
        etree.SubElement(node, "data", {k: str(v) for k, v in layer.attributes.items()})
    inputs = etree.SubElement(node, "input")
    for index, (input_port, array, etype) in enumerate(zip(layer.inputs, arrays, types)):
        port(inputs, input_port.id, etype.precision, array.shape)
        etree.SubElement(edges, "edge", {"from-layer": str(index), "from-port": "0",
                                         "to-layer": str(own_id),
                                         "to-port": str(input_port.id)})  # fmt: skip
    outputs = etree.SubElement(node, "output")
    for number, output in enumerate(layer.outputs):
        dims = [d.to_port_dim() for d in output.declared_shape] if output.declared_shape else []
        etype = output.inferred_type or output.element_type
        precision = output.precision or (etype.precision if etype is not None else "FP32")
        port(outputs, output.id, precision, dims)
        result_id = own_id + 1 + number
        result = etree.SubElement(layers, "layer", id=str(result_id), name=f"irrun_out_{number}",
                                  type="Result", version="opset1")  # fmt: skip
        port(etree.SubElement(result, "input"), 0, precision, dims)
        etree.SubElement(edges, "edge", {"from-layer": str(own_id), "from-port": str(output.id),
                                         "to-layer": str(result_id), "to-port": "0"})  # fmt: skip
    return etree.tostring(net)


def run_alone(layer, arrays, device: str, config: dict, isolate: bool = True):
    """``layer``'s outputs as OpenVINO computes the layer alone on ``arrays`` (``None`` when
    it cannot stand alone, or OpenVINO fails or crashes on it)."""
    from irrun.compare.openvino_runner import _decode_output, _run_isolated, run_openvino

    constants = constant_inputs(layer, arrays)
    text = layer_alone_ir(layer, arrays, constants)
    if text is None:
        return None
    feeds = {
        f"irrun_alone_{index}": (
            _type_name(array),
            array.shape,
            np.ascontiguousarray(array).reshape(-1).view(np.uint8).tobytes(),
        )
        for index, array in enumerate(arrays)
        if index not in constants
    }
    with tempfile.TemporaryDirectory(prefix="irrun-alone-") as folder:
        path = os.path.join(folder, "alone.xml")
        with open(path, "wb") as stream:
            stream.write(text)
        weights = None
        if constants:
            weights = os.path.join(folder, "alone.bin")
            with open(weights, "wb") as stream:
                stream.write(constant_blob(arrays, constants))
        request = {"xml": path, "weights": weights, "device": device, "config": config,
                   "feeds": feeds}  # fmt: skip
        try:
            answer = _run_isolated(request) if isolate else run_openvino(request)
        except Exception:  # noqa: BLE001 - OpenVINO refusing the layer alone: no verdict
            return None
    if "outputs" not in answer:
        return None
    found = {key[1]: _decode_output(*rest) for key, *rest in answer["outputs"]
             if key[0] == layer.name}  # fmt: skip
    if sorted(found) != list(range(len(layer.outputs))):
        return None
    return [found[index] for index in range(len(layer.outputs))]


#: Inputs of at most this many elements that a Const gives in the model are Consts alone too.
SMALL_CONSTANT = 64


def constant_inputs(layer, arrays) -> frozenset:
    """The indices of ``layer``'s inputs that a Const layer gives in the model and that are
    small (:data:`SMALL_CONSTANT` elements at most): axes, shapes, bounds."""
    found = set()
    for index, (port, array) in enumerate(zip(layer.inputs, arrays)):
        producer = layer.graph.producer(port)
        if (producer is not None and producer.layer.type == "Const"
                and getattr(array, "size", SMALL_CONSTANT + 1) <= SMALL_CONSTANT):  # fmt: skip
            found.add(index)
    return frozenset(found)


def constant_blob(arrays, constants) -> bytes:
    """The weights of :func:`layer_alone_ir`: the constant inputs' bytes in index order."""
    return b"".join(np.ascontiguousarray(arrays[index]).tobytes()
                    for index in sorted(constants))  # fmt: skip


def _type_name(array) -> str:
    from irrun.element_types import from_numpy_dtype

    return from_numpy_dtype(array.dtype).name
