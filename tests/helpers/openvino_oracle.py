"""OpenVINO as the oracle for op tests: build a model with ``openvino.opsetN``, save it, load it
with irrun and compare what irrun infers (and computes) with what OpenVINO says.

OpenVINO infers every node's output partial shape and element type when the node is
constructed; those are the expected values. ``check_shapes`` asserts that irrun checked every
layer of the saved IR (none trusted) without errors and inferred exactly OpenVINO's partial
shapes and element types; ``run_openvino`` computes reference outputs on the CPU plugin in f32.

Typical use in ``tests/ops/test_<op>.py``::

    import openvino.opset13 as ops
    from tests.helpers.openvino_oracle import check_shapes, parameter

    def test_relu_shapes():
        x = parameter("[2,?,1..5]", "f32")
        check_shapes(ops.relu(x))
"""

from __future__ import annotations

import tempfile
import warnings
from pathlib import Path

import numpy as np

import irrun
from irrun.shape import Shape

warnings.filterwarnings("ignore", message=".*openvino.runtime.*")
import openvino as ov  # noqa: E402

__all__ = [
    "parameter",
    "constant",
    "model_of",
    "save",
    "load_in_irrun",
    "check_shapes",
    "check_rejected",
    "run_openvino",
    "run_irrun",
    "ov_shape_text",
    "ov_type",
]

_CORE = None
_TYPES = [getattr(ov.Type, n) for n in dir(ov.Type) if isinstance(getattr(ov.Type, n), ov.Type)]


def parameter(shape, element_type="f32", name=None):
    """An OpenVINO Parameter of a partial shape (``"[2,?,1..5]"``, ``"[...]"`` or a list)."""
    import openvino.opset1 as opset1

    partial = ov.PartialShape(shape) if isinstance(shape, str) else ov.PartialShape(list(shape))
    return opset1.parameter(partial, ov_type(element_type), name=name)


def constant(value, element_type=None):
    """An OpenVINO Constant of a numpy value (``element_type``: an OpenVINO type name)."""
    import openvino.opset1 as opset1

    array = np.asarray(value)
    if element_type is not None:
        return opset1.constant(array, ov_type(element_type))
    return opset1.constant(array)


def ov_type(name):
    """OpenVINO's ``Type`` of an element type name (``f32``, ``i64``, ``boolean``)."""
    if not isinstance(name, str):
        return name
    return {t.get_type_name(): t for t in _TYPES}[name]


def model_of(*nodes) -> ov.Model:
    """A model whose Results are the outputs of ``nodes`` (nodes or outputs), with every
    Parameter they depend on."""
    outputs = []
    for node in nodes:
        outputs.extend(node.outputs() if hasattr(node, "outputs") else [node])
    params = []
    seen = set()  # node names: the id() of a temporary wrapper is reused once it is collected
    stack = [o.get_node() for o in outputs]
    while stack:
        node = stack.pop()
        if node.get_name() in seen:
            continue
        seen.add(node.get_name())
        if node.get_type_name() == "Parameter":
            params.append(node)
        stack.extend(i.get_source_output().get_node() for i in node.inputs())
    params.sort(key=lambda p: p.get_friendly_name())
    return ov.Model(outputs, params, "oracle")


def save(model: ov.Model, folder, name="model") -> Path:
    """Save ``model`` as IR (no f16 compression) in ``folder``; returns the ``.xml`` path."""
    path = Path(folder) / f"{name}.xml"
    ov.save_model(model, str(path), compress_to_fp16=False)
    return path


def load_in_irrun(model: ov.Model, folder):
    """``(irrun model, report)`` of ``model`` saved as IR in ``folder`` and validated."""
    loaded = irrun.load(save(model, folder))
    return loaded, loaded.validate()


def ov_shape_text(partial_shape) -> str:
    """OpenVINO's spelling of a partial shape, as irrun's :class:`~irrun.shape.Shape` prints."""
    return str(partial_shape)


def check_shapes(*nodes, folder=None, allow_trusted=(), allow_warnings=False, narrower=()):
    """Assert that irrun infers exactly OpenVINO's output partial shape and element type for
    every layer of the model made of ``nodes`` (see :func:`model_of`), with no error and no
    layer trusted (except types in ``allow_trusted``). Returns the irrun model.

    For op types in ``narrower`` irrun may be more precise than OpenVINO's construction-time
    inference (a Reshape whose target ShapeOf read from the same tensor: irrun cancels that
    dimension, OpenVINO multiplies intervals): each of irrun's dims must then lie within
    OpenVINO's."""
    model = nodes[0] if isinstance(nodes[0], ov.Model) else model_of(*nodes)
    with tempfile.TemporaryDirectory() as tmp:
        loaded, report = load_in_irrun(model, folder or tmp)
        problems = [d for d in report if d.severity == "error" or not allow_warnings]
        assert not problems, report.to_text()
        by_name = {layer.name: layer for layer in loaded.layers}
        for node in model.get_ordered_ops():
            type_name = node.get_type_name()
            if type_name in ("Result",):
                continue
            layer = by_name[node.get_friendly_name()]
            if type_name in allow_trusted:
                continue
            for index, output in enumerate(node.outputs()):
                port = layer.outputs[index]
                expected_shape = ov_shape_text(output.get_partial_shape())
                expected_type = output.get_element_type().get_type_name()
                assert port.inferred_shape is not None, (
                    f"{layer.describe()} output {index} was not inferred (trusted)"
                )
                message = (f"{layer.describe()} output {index}: irrun {port.inferred_shape}, "
                           f"OpenVINO {expected_shape}")  # fmt: skip
                if type_name in narrower:
                    assert Shape.parse(expected_shape).relaxes(port.inferred_shape), message
                else:
                    assert str(port.inferred_shape) == expected_shape, message
                assert port.inferred_type.name == expected_type, (
                    f"{layer.describe()} output {index}: irrun {port.inferred_type}, "
                    f"OpenVINO {expected_type}"
                )
        return loaded


def check_rejected(build) -> Exception:
    """Assert that OpenVINO refuses to build a node (``build()`` raises) and return the error;
    the matching irrun check then goes in the test with the IR written by hand."""
    try:
        build()
    except Exception as exc:  # OpenVINO raises RuntimeError / NodeValidationFailure
        return exc
    raise AssertionError("OpenVINO accepted the node")


def _core():
    global _CORE
    if _CORE is None:
        _CORE = ov.Core()
    return _CORE


def run_openvino(model: ov.Model, inputs: dict) -> list[np.ndarray]:
    """OpenVINO CPU plugin outputs in f32 precision (``INFERENCE_PRECISION_HINT``), in the
    model's output order; ``inputs`` keyed by Parameter friendly name."""
    compiled = _core().compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    request = compiled.create_infer_request()
    feed = {}
    for param in model.get_parameters():
        feed[param.get_friendly_name()] = inputs[param.get_friendly_name()]
    by_name = {i.get_node().get_friendly_name(): i for i in compiled.inputs}
    result = request.infer({by_name[name]: value for name, value in feed.items()})
    return [np.array(result[output]) for output in compiled.outputs]


def run_irrun(model: ov.Model, inputs: dict, folder=None) -> list[np.ndarray]:
    """irrun's outputs for ``model`` (saved as IR) on ``inputs`` (keyed by Parameter friendly
    name), in the model's output order."""
    with tempfile.TemporaryDirectory() as tmp:
        loaded = irrun.load(save(model, folder or tmp))
        outputs = loaded.run(inputs)
        return [outputs[o.name] for o in loaded.outputs]
