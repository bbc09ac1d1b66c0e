"""Where inside its body an If's difference starts, and whether a known deviation explains it.

OpenVINO returns an If's outputs, not the tensors of its bodies, so a difference that starts
inside a body shows at the If. When irrun's If differs from OpenVINO's on OpenVINO's own
inputs and nothing at the If explains it, :func:`compare` runs the body the condition picks
with OpenVINO alone (the body of OpenVINO's own model, fed what the If feeds it) and judges
each body layer as the model's layers are judged: irrun's kernel on OpenVINO's inputs of that
layer, exact or within rounding. The first body layer that differs is looked up among the
known CPU deviations (torchvision's batched NMS, converted to an If around a
NonMaxSuppression, meets the plugin's suppression at IoU equal to the threshold there).
"""

from __future__ import annotations

import numpy as np

from irrun.compare.alone import _type_name
from irrun.compare.arrays import compare_arrays
from irrun.compare.deviations import known_deviation
from irrun.compare.openvino_runner import _decode_output, _run_isolated, run_openvino
from irrun.compare.tolerance import gap_within, rounding_gap

__all__ = ["deviation_inside"]

#: OpenVINO's index of each body of an If (``ov.Node.get_function``).
_BODY_INDEX = {"then_body": 0, "else_body": 1}


def deviation_inside(judge, layer, arrays) -> str | None:
    """The label of the known deviation where ``layer``'s (an If's) difference starts inside
    the body it runs on ``arrays`` (OpenVINO's inputs of it), or ``None`` when it is not one
    (or the body cannot be run alone, or nothing in it differs)."""
    compiled = judge.compiled
    if layer.type != "If" or len(arrays) != len(layer.inputs):
        return None
    try:
        chosen = compiled.chosen_body(layer, arrays)
    except Exception:  # noqa: BLE001 - a condition irrun cannot read: no verdict
        return None
    if chosen is None:
        return None
    tag, feeds = chosen
    body = layer.bodies[tag]
    theirs = _openvino_body(judge, layer, tag, body, feeds)
    if theirs is None:
        return None
    where = (layer, tag)
    own: dict = {}  # (body layer id, output index) -> irrun's array, for Const and Parameter
    for body_layer in body.topological_order():
        kind = body_layer.type
        if kind == "Parameter":
            own[(body_layer.id, 0)] = feeds.get(body_layer.id)
            continue
        if kind in ("Const", "Constant"):
            values = _evaluated(compiled, body_layer, [], where)
            for index, value in enumerate(values or ()):
                own[(body_layer.id, index)] = value
            continue
        if kind == "Result":
            continue
        inputs = _inputs(body, body_layer, own, theirs)
        if inputs is None:
            continue  # an input OpenVINO did not return: this layer cannot be judged
        ours = _evaluated(compiled, body_layer, inputs, where)
        if ours is None:
            continue
        for index, array in enumerate(ours):
            reported = theirs.get((body_layer.name, index))
            if reported is None or _agrees(judge, body_layer, array, reported):
                continue
            label = known_deviation(body_layer, inputs, judge.device, (array, reported))
            if not label:
                return None
            return f"inside its {tag}, at {body_layer.describe()} output {index}: {label}"
    return None


def _openvino_body(judge, layer, tag, body, feeds) -> dict | None:
    """Every tensor of the body as OpenVINO computes it alone, by (layer name, output index)."""
    model = judge.compiled.model
    weights = model.weights.path if model.weights is not None else None
    names = {b.id: b.name for b in body.layers if b.type == "Parameter"}
    encoded = {}
    for body_id, array in feeds.items():
        if body_id not in names or array is None:
            return None
        try:
            type_name = _type_name(array)
        except (KeyError, TypeError, ValueError):
            return None
        raw = np.ascontiguousarray(array).reshape(-1).view(np.uint8).tobytes()
        encoded[names[body_id]] = (type_name, array.shape, raw)
    request = {"xml": str(model.file), "weights": weights, "device": judge.device,
               "config": judge.config, "feeds": encoded,
               "body": [(layer.name, _BODY_INDEX[tag])]}  # fmt: skip
    try:
        answer = _run_isolated(request) if judge.isolate else run_openvino(request)
    except Exception:  # noqa: BLE001 - OpenVINO refusing the body alone: no verdict
        return None
    if "outputs" not in answer:
        return None
    return {key: _decode_output(*rest) for key, *rest in answer["outputs"]}


def _inputs(body, body_layer, own, theirs) -> list | None:
    """The layer's inputs: OpenVINO's tensors, irrun's own for Parameters and Consts."""
    arrays = []
    for port in body_layer.inputs:
        producer = body.producer(port)
        if producer is None:
            return None
        key = (producer.layer.id, producer.index)
        array = own[key] if key in own else theirs.get((producer.layer.name, producer.index))
        if array is None:
            return None
        arrays.append(array)
    return arrays


def _evaluated(compiled, body_layer, inputs, where) -> list | None:
    try:
        return compiled.evaluate_layer(body_layer, inputs, body=where)
    except Exception:  # noqa: BLE001 - a kernel refusing OpenVINO's inputs: no verdict
        return None


def _agrees(judge, body_layer, ours, theirs) -> bool:
    """Exactly OpenVINO's, or within rounding for an op that rounds."""
    from irrun.element_types import from_numpy_dtype
    from irrun.ops.registry import resolve_layer

    if ours.shape != theirs.shape or ours.dtype != theirs.dtype:
        return False
    try:
        etype = from_numpy_dtype(ours.dtype)
    except (KeyError, TypeError, ValueError):
        etype = None
    if compare_arrays(ours, theirs, etype) is None:
        return True
    tolerance = judge.tolerance(resolve_layer(body_layer), etype)
    return tolerance is not None and gap_within(rounding_gap(ours, theirs), etype, tolerance)
