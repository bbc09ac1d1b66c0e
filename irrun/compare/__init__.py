"""Differential mode: run one IR with irrun and with OpenVINO and compare every tensor.

:func:`compare` runs the model with irrun (every layer's outputs kept), then reads the same
files with ``openvino.Core().read_model``, adds a Result for every output of every layer
(Results, Parameters and Constants aside), compiles it for the device and runs it on the same
inputs. Tensors are matched by layer name and output index (OpenVINO keeps the IR layer names as
friendly names) and compared bit for bit: NaN payloads count and -0.0 differs from 0.0. Each
port's inferred shape and element type is compared with OpenVINO's after ``read_model``.

A tensor that differs while all its inputs agreed is a *first divergence*. If a known deviation
of OpenVINO's CPU plugin from the specification explains it (``CPU_DEVIATIONS``: small
predicates over the layer and its input arrays), it is labelled as such instead; tensors that
differ because an input already differed are *downstream*.

OpenVINO is optional (``pip install 'irrun[openvino]'``). By default it runs in a child process,
because some inputs crash its CPU plugin (Gather-7/-8 with ``batch_dims > 0`` on a single batch
segfaults in OpenVINO 2026.4); a crash is then reported as :class:`OpenVINOError`.
"""

from __future__ import annotations

import os

import numpy as np

from irrun.compare.arrays import compare_arrays
from irrun.compare.common import (
    _SKIPPED_TYPES,
    DIFFERS,
    DOWNSTREAM,
    INSTALL_COMMAND,
    KNOWN,
    MATCH,
    NOT_COMPARED,
    OpenVINOError,
    OpenVINONotInstalled,
)
from irrun.compare.deviations import CPU_DEVIATIONS, known_deviation
from irrun.compare.openvino_runner import (
    _decode_output,
    _openvino_feeds,
    _run_isolated,
    _shape_text,
    require_openvino,
    run_openvino,
)
from irrun.compare.report import Comparison, TensorComparison
from irrun.errors import ExecutionError, FragmentError, InputFileError, UnsupportedOpError

__all__ = [
    "compare",
    "Comparison",
    "TensorComparison",
    "CPU_DEVIATIONS",
    "OpenVINONotInstalled",
    "OpenVINOError",
    "require_openvino",
    "INSTALL_COMMAND",
]


def compare(model, inputs=None, *, device: str = "CPU", isolate: bool = True, seed: int = 0,
            shapes=None) -> Comparison:  # fmt: skip
    """Run ``model`` with irrun and with OpenVINO on ``inputs`` and compare every tensor.

    Parameters
    ----------
    model : irrun.Model
        A model loaded from a file (:func:`irrun.load`); OpenVINO reads the same ``.xml`` and
        the model's weights file.
    inputs : dict or str, optional
        Input arrays keyed by Parameter name or tensor name, or an ``.npz`` path, as for
        :func:`irrun.run`; ``None``: seeded random inputs (``seed``, ``shapes``: see
        :func:`irrun.execution.random_inputs`).
    device : str
        OpenVINO device. On CPU, f32 inference precision is requested (no bf16 shortcuts), and
        known CPU-plugin deviations (:data:`CPU_DEVIATIONS`) are labelled.
    isolate : bool
        Run OpenVINO in a child process (default), so that a crash of the plugin becomes an
        :class:`OpenVINOError` instead of ending this process.

    Returns
    -------
    Comparison
        One :class:`TensorComparison` per output of every layer except Parameters, Constants
        and Results, in irrun's execution order. A layer irrun has no kernel for is
        *bridged*: OpenVINO's outputs are fed to the layers after it, which are compared as
        usual; ``Comparison.bridged`` names those layers.

    Raises
    ------
    OpenVINONotInstalled
        The optional ``openvino`` package is missing (an ``ImportError`` whose message is the
        install command).
    OpenVINOError
        OpenVINO failed to read, compile or run the model, or crashed.
    ValidationFailed, UnsupportedOpError, InputValueError
        irrun cannot run the model on these inputs at all (as for :func:`irrun.run`); a
        layer without a kernel is bridged, not refused.
    FragmentError, InputFileError
        The model is a fragment, or not a file OpenVINO can read.

    Examples
    --------
    >>> from irrun.compare import compare
    >>> comparison = compare(irrun.load("m.xml"), "inputs.npz")  # doctest: +SKIP
    >>> comparison.ok, comparison.first_divergence  # doctest: +SKIP
    (True, None)
    >>> print(comparison.to_text())  # doctest: +SKIP
    m.xml:40: layer 3 'g' (Gather) output port 3: match
    ...
    """
    from irrun.arrays import load_npz, match_inputs
    from irrun.execution import compile as compile_model

    if not isolate:
        try:
            import openvino  # noqa: F401
        except ImportError as exc:
            raise OpenVINONotInstalled(
                f"comparing with OpenVINO needs the optional openvino package ({exc}); install "
                f"it with: {INSTALL_COMMAND}"
            ) from None
    else:
        require_openvino()
    if model.is_fragment:
        raise FragmentError(
            f"{model.file} is a fragment of <layer> snippets; OpenVINO reads only full IR "
            "(<net>) files",
            file=model.file,
        )
    if not os.path.isfile(model.file):
        raise InputFileError(
            "compare needs the model as a file OpenVINO can read, not XML text; save it first",
            file=model.file,
        )
    weights = model.weights.path if model.weights is not None else None
    if weights is not None and not os.path.isfile(weights):
        raise InputFileError(
            "compare needs the weights as a file OpenVINO can read, not bytes; save them first",
            file=model.file,
        )
    if inputs is None:
        from irrun.execution import random_inputs

        inputs = random_inputs(model, seed=seed, shapes=shapes)
    elif isinstance(inputs, (str, os.PathLike)):
        inputs = load_npz(inputs)

    # The compiled form validates the model (one with errors is refused before OpenVINO is
    # started) and knows which layers irrun has no kernel for.
    compiled = compile_model(model)
    feeds = match_inputs(model, inputs)
    config = {"INFERENCE_PRECISION_HINT": "f32"} if device.upper() == "CPU" else {}
    request = {
        "xml": os.fspath(model.file),
        "weights": weights,
        "device": device,
        "config": config,
        "feeds": _openvino_feeds(model, feeds),
    }
    outputs_of: dict[int, np.ndarray] = {}
    inputs_of: dict[int, list] = {}
    bridged: list = []
    not_run: dict[int, str] = {}

    def record(step):
        inputs_of[id(step.layer)] = step.inputs
        for port, array in zip(step.layer.outputs, step.outputs):
            outputs_of[id(port)] = array
        if step.bridged:
            bridged.append(step.layer)

    def run_irrun(bridge):
        try:
            results = compiled.run(inputs, on_step=record, bridge=bridge, partial=bool(bridge))
        except UnsupportedOpError:
            raise
        except ExecutionError as exc:
            if not inputs_of:
                raise
            return exc
        for entry in results.not_run:
            not_run[id(entry.layer)] = entry.reason
        return None

    if not compiled.missing_kernels:
        # irrun first: a model it cannot run on these inputs is refused before OpenVINO runs,
        # and its per-layer inputs name suspects if OpenVINO crashes.
        irrun_error = run_irrun(None)
        openvino = _run_isolated(request) if isolate else _run_in_process(request)
        if "crashed" in openvino or "error" in openvino:
            raise _openvino_failure(model, openvino, inputs_of, device)
    else:
        # Layers irrun has no kernel for take OpenVINO's outputs (bridged), so everything
        # else is still compared.
        openvino = _run_isolated(request) if isolate else _run_in_process(request)
        if "crashed" in openvino or "error" in openvino:
            raise _openvino_failure(model, openvino, inputs_of, device)
        irrun_error = run_irrun(_bridge(compiled.missing_kernels, openvino))
    return _build(model, openvino, outputs_of, inputs_of, irrun_error, device, bridged, not_run)


def _bridge(layers, openvino) -> dict:
    """``{layer id: [arrays]}``: OpenVINO's outputs of ``layers``, where it returned them all."""
    produced = {key: (type_name, shape, payload)
                for key, type_name, shape, payload in openvino["outputs"]}  # fmt: skip
    bridge = {}
    for layer in layers:
        keys = [(layer.name, index) for index in range(len(layer.outputs))]
        if all(key in produced for key in keys):
            bridge[layer.id] = [_decode_output(*produced[key]) for key in keys]
    return bridge


def _run_in_process(request: dict) -> dict:
    try:
        return run_openvino(request)
    except Exception as exc:  # OpenVINO reports everything as RuntimeError and friends
        return {"error": f"{type(exc).__name__}: {exc}"}


def _openvino_failure(model, openvino: dict, inputs_of: dict, device: str) -> OpenVINOError:
    if "crashed" in openvino:
        message = f"OpenVINO crashed ({openvino['crashed']}) running the model on {device}"
        suspects = [
            f"{layer.describe()} at line {layer.line}: {label}"
            for layer in model.topological_order()
            if id(layer) in inputs_of
            for label in [known_deviation(layer, inputs_of[id(layer)], device)]
            if label
        ]
        if suspects:
            message += "; known CPU-plugin problems in this model: " + "; ".join(suspects)
        elif openvino.get("stderr"):
            message += f": {openvino['stderr']}"
    else:
        message = f"OpenVINO failed on the model ({device}): {openvino['error']}"
    return OpenVINOError(message, file=model.file)


def _build(model, openvino, outputs_of, inputs_of, irrun_error, device, bridged=(),
           not_run=None) -> Comparison:  # fmt: skip
    from irrun.element_types import from_numpy_dtype
    from irrun.execution import tensor_name
    from irrun.ops.registry import resolve_layer

    name_counts: dict[str, int] = {}
    for name in openvino["names"]:
        name_counts[name] = name_counts.get(name, 0) + 1
    produced = {}
    for key, type_name, shape, payload in openvino["outputs"]:
        produced[key] = (type_name, shape, payload)
    irrun_names: dict[str, int] = {}
    for layer in model.layers:
        irrun_names[layer.name] = irrun_names.get(layer.name, 0) + 1

    order = model.topological_order()
    not_run = not_run or {}
    bridged_ids = {id(layer) for layer in bridged}
    # Steps come in this order, so irrun stopped at the first layer without one.
    failed = next((layer for layer in order
                   if id(layer) not in inputs_of and id(layer) not in not_run), None)  # fmt: skip
    entries: dict[int, TensorComparison] = {}
    tensors = []
    for layer in order:
        if layer.type in _SKIPPED_TYPES:
            continue
        op_class = resolve_layer(layer)
        op = f"{op_class.type}-{op_class.version}" if op_class is not None else layer.type
        for index, port in enumerate(layer.outputs):
            key = (layer.name, index)
            etype = port.inferred_type or port.element_type
            ov_port = openvino["ports"].get(key)
            entry = TensorComparison(
                tensor=tensor_name(port),
                layer=layer.describe(),
                layer_id=layer.id,
                layer_name=layer.name,
                layer_type=layer.type,
                op=op,
                port=port.id,
                output_index=index,
                line=port.line or layer.line,
                status=NOT_COMPARED,
                inferred_shape=str(port.shape),
                element_type=etype.name if etype is not None else None,
            )
            ambiguous = irrun_names.get(layer.name, 0) > 1 or name_counts.get(layer.name, 0) > 1
            if ov_port is not None and not ambiguous:
                entry.openvino_shape = _shape_text(ov_port[0])
                entry.openvino_type = ov_port[1]
            tensors.append(entry)
            entries[id(port)] = entry
            ours = outputs_of.get(id(port))
            if ambiguous:
                entry.reason = f"layer name {layer.name!r} is not unique: it cannot be matched"
            elif name_counts.get(layer.name, 0) == 0:
                entry.reason = f"OpenVINO's model has no layer named {layer.name!r}"
            elif key not in produced:
                entry.reason = f"OpenVINO did not return output {index} of {layer.name!r}"
            elif id(layer) in bridged_ids:
                entry.reason = (
                    "bridged: irrun has no kernel for it; OpenVINO's output was fed to the "
                    "layers after it"
                )
            elif id(layer) in not_run:
                entry.reason = f"irrun could not run it: {not_run[id(layer)]}"
            elif ours is None and id(layer) in inputs_of:
                entry.reason = "irrun did not return it"
            elif ours is None and failed is layer:
                entry.reason = f"irrun failed here: {irrun_error.message}"
            elif ours is None:
                entry.reason = f"irrun stopped before it, at {failed.describe()}"
            else:
                theirs = _decode_output(*produced[key])
                if etype is None or etype.name == "dynamic":
                    etype = from_numpy_dtype(ours.dtype)
                _judge(entry, layer, ours, theirs, etype, entries, inputs_of, device)
    return Comparison(
        file=model.file,
        device=device,
        openvino_version=openvino["version"],
        tensors=tensors,
        irrun_error=irrun_error.message if irrun_error is not None else None,
        irrun_error_line=irrun_error.line if irrun_error is not None else None,
        bridged=[layer.describe() for layer in bridged],
    )


def _judge(entry, layer, ours, theirs, etype, entries, inputs_of, device) -> None:
    """Set the status of one computed tensor."""
    if ours.shape != theirs.shape:
        entry.reason = f"irrun produced shape {list(ours.shape)}, OpenVINO {list(theirs.shape)}"
        found = True
    elif ours.dtype != theirs.dtype:
        entry.reason = f"irrun produced {ours.dtype}, OpenVINO {theirs.dtype}"
        found = True
    else:
        found = compare_arrays(ours, theirs, etype)
        if found is not None:
            for name, value in found.items():
                setattr(entry, name, value)
    if not found:
        entry.status = MATCH
        return
    upstream = [
        entries[id(producer)]
        for port in layer.inputs
        if (producer := layer.graph.producer(port)) is not None and id(producer) in entries
    ]
    differing = [e for e in upstream if e.values_differ]
    if differing:
        entry.status = DOWNSTREAM
        source = differing[0]
        entry.cause = source.cause if source.status == DOWNSTREAM else source.where
        return
    label = known_deviation(layer, inputs_of.get(id(layer), []), device)
    if label:
        entry.status, entry.deviation = KNOWN, label
    else:
        entry.status = DIFFERS
