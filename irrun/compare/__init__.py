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
    ROUNDING,
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
from irrun.compare.tolerance import ROUNDING_RTOL, gap_within, relative_of, rounding_gap
from irrun.errors import ExecutionError, FragmentError, InputFileError, UnsupportedOpError

__all__ = [
    "compare",
    "Comparison",
    "TensorComparison",
    "CPU_DEVIATIONS",
    "ROUNDING_RTOL",
    "OpenVINONotInstalled",
    "OpenVINOError",
    "require_openvino",
    "INSTALL_COMMAND",
]


def compare(model, inputs=None, *, device: str = "CPU", isolate: bool = True, seed: int = 0,
            shapes=None, rtol: float | None = None) -> Comparison:  # fmt: skip
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
    rtol : float, optional
        How far a float tensor of an op that rounds may be from OpenVINO's and still count as
        *within rounding*: relative to the largest magnitude of OpenVINO's tensor (see
        :mod:`irrun.compare.tolerance`). ``None``: :data:`ROUNDING_RTOL` of its element type
        (1e-4 for f32); ``0``: bit for bit.

    Returns
    -------
    Comparison
        One :class:`TensorComparison` per output of every layer except Parameters, Constants
        and Results, in irrun's execution order. A layer whose inputs already differ is run
        again on OpenVINO's own inputs, so that its own difference is told from the one it
        inherits: a divergence is found where it starts even behind float rounding. A layer
        irrun has no kernel for is *bridged*: OpenVINO's outputs are fed to the layers after
        it, which are compared as usual; ``Comparison.bridged`` names those layers.

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

    if rtol is not None and not rtol >= 0:  # (NaN fails this too)
        raise ValueError(f"rtol must be a number >= 0 or None, not {rtol!r}")

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
    return _build(model, openvino, outputs_of, inputs_of, irrun_error, device, compiled, rtol,
                  bridged, not_run, isolate=isolate, config=config)  # fmt: skip


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


#: Why an Assign's output is not compared.
_ASSIGN_NOT_RETURNED = (
    "an Assign gives out the value it stores, which is compared at the layer that computes it "
    "(OpenVINO cannot return it)"
)


def _bitwise(entry, ours, theirs, etype):
    """The bitwise comparison: ``None`` (equal), its numbers (also set on ``entry``), or
    ``True`` for another shape or dtype (``entry.reason`` says which)."""
    if ours.shape != theirs.shape:
        entry.reason = f"irrun produced shape {list(ours.shape)}, OpenVINO {list(theirs.shape)}"
        return True
    if ours.dtype != theirs.dtype:
        entry.reason = f"irrun produced {ours.dtype}, OpenVINO {theirs.dtype}"
        return True
    found = compare_arrays(ours, theirs, etype)
    for name, value in (found or {}).items():
        setattr(entry, name, value)
    return found


def _inherit(entry, differing, *, shaped: bool, tolerance) -> None:
    """The status of a tensor whose layer agrees with OpenVINO: ``downstream`` of the first
    divergence above it that is not rounding (or of any, for another shape), else
    ``rounding``."""
    sources = [e for e in differing if e.status != ROUNDING]
    if sources or shaped:
        source = (sources or differing)[0]
        entry.status = DOWNSTREAM
        entry.cause = source.cause if source.status == DOWNSTREAM else source.where
    else:
        entry.status = ROUNDING
        entry.tolerance = tolerance


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


def _build(model, openvino, outputs_of, inputs_of, irrun_error, device, compiled, rtol=None,
           bridged=(), not_run=None, isolate=True, config=None) -> Comparison:  # fmt: skip
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

    judge = _Judge(compiled, produced, name_counts, inputs_of, device, rtol, isolate, config)
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
            elif key not in produced and layer.type == "Assign":
                entry.reason = _ASSIGN_NOT_RETURNED
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
                judge(entry, layer, op_class, ours, theirs, etype, entries)
        judge.done(layer)
    return Comparison(
        file=model.file,
        device=device,
        openvino_version=openvino["version"],
        tensors=tensors,
        irrun_error=irrun_error.message if irrun_error is not None else None,
        irrun_error_line=irrun_error.line if irrun_error is not None else None,
        bridged=[layer.describe() for layer in bridged],
        rtol=_rtol_text(rtol),
    )


def _rtol_text(rtol) -> str:
    """The tolerance as the report states it."""
    if rtol == 0:
        return "bit for bit"
    if rtol is None:
        return ", ".join(f"{name} {value:g}" for name, value in ROUNDING_RTOL.items())
    return f"{rtol:g}"


class _Judge:
    """Sets the status of each computed tensor (see :meth:`__call__`)."""

    def __init__(self, compiled, produced, name_counts, inputs_of, device, rtol, isolate=True,
                 config=None):  # fmt: skip
        self.compiled = compiled
        self.isolate = isolate  # OpenVINO runs in a child process
        self.config = config or {}  # OpenVINO's compile settings, for a layer run alone
        self.produced = produced  # (layer name, output index) -> OpenVINO's tensor
        self.names = name_counts  # layer name -> how many of OpenVINO's layers have it
        self.inputs_of = inputs_of
        self.device = device
        self.rtol = rtol
        # id(layer) -> (OpenVINO's inputs, irrun's outputs on them), or None: not run again
        self.rerun: dict[int, tuple | None] = {}
        self.inside: dict[int, str | None] = {}  # id(layer) -> deviation_inside's answer

    def done(self, layer) -> None:
        """Every output of ``layer`` is judged: its run again is let go."""
        self.rerun.pop(id(layer), None)

    def tolerance(self, op_class, etype) -> float | None:
        """The rtol a float difference of this op may have, or ``None`` (must be exact)."""
        if self.rtol == 0 or etype is None or etype.kind != "float":
            return None
        if op_class is not None and not op_class.rounds:
            return None
        if self.rtol is not None:
            return self.rtol
        return ROUNDING_RTOL.get(etype.name)

    def __call__(self, entry, layer, op_class, ours, theirs, etype, entries) -> None:
        """Set ``entry``'s status.

        Bits equal: ``match``. Otherwise the layer's own result is what it gives on OpenVINO's
        inputs: its result here when its inputs matched, else it is run again on OpenVINO's
        outputs of its producers. That own result exactly OpenVINO's, or within rounding for
        an op that rounds, means the layer agrees: the tensor is ``downstream`` of the first
        real divergence above it, or ``rounding`` when only rounding is above it. Otherwise
        the layer diverges itself: a known CPU deviation, or ``differs`` (its numbers then
        those of its own result when it was run again)."""
        found = _bitwise(entry, ours, theirs, etype)
        if not found:
            entry.status = MATCH
            return
        upstream = [
            entries[id(producer)]
            for port in layer.inputs
            if (producer := layer.graph.producer(port)) is not None and id(producer) in entries
        ]
        differing = [e for e in upstream if e.values_differ]
        tolerance = self.tolerance(op_class, etype)
        if found is True:  # another shape or dtype: inherited when an input differed
            agrees = bool(differing)
        else:
            agrees = self._agrees(entry, layer, ours, theirs, etype, bool(differing), tolerance)
        if agrees:
            _inherit(entry, differing, shaped=found is True, tolerance=tolerance)
        else:
            self._diverges(entry, layer, ours, theirs, found is True, differing, etype, tolerance)

    def _agrees(self, entry, layer, ours, theirs, etype, inputs_differ, tolerance) -> bool:
        """Whether the layer's own result is OpenVINO's (exactly, or within rounding for an op
        that rounds); records the run again and its numbers on ``entry``. A layer that cannot
        be run again is taken to agree (its difference is the inputs')."""
        if tolerance is not None:
            gap = rounding_gap(ours, theirs)
            entry.relative_diff = relative_of(gap)
            if not inputs_differ:
                return gap_within(gap, etype, tolerance)
        if not inputs_differ:
            return False
        own = self._own_result(layer, entry.output_index)
        if own is None:
            return True
        entry.isolated = True
        if own.shape != theirs.shape or own.dtype != theirs.dtype:
            return False
        own_found = compare_arrays(own, theirs, etype)
        if own_found is None:
            entry.own_relative_diff = 0.0
            return True
        if tolerance is not None:
            gap = rounding_gap(own, theirs)
            entry.own_relative_diff = relative_of(gap)
            if gap_within(gap, etype, tolerance):
                return True
        for name, value in own_found.items():  # the divergence is its own: its numbers
            setattr(entry, name, value)
        entry.relative_diff = entry.own_relative_diff
        return False

    def _diverges(self, entry, layer, ours, theirs, shaped: bool, differing, etype=None,
                  tolerance=None) -> None:  # fmt: skip
        """The status of a layer whose own result is not OpenVINO's: a known CPU deviation
        (on the inputs it was judged on, or on irrun's own; or the layer gives irrun's result
        when OpenVINO runs it alone on those inputs), downstream of one when it was judged on
        OpenVINO's reported tensors behind it, else ``differs``."""
        arrays = self.inputs_of.get(id(layer), [])
        results = (ours, theirs)  # (another shape too: NonMaxSuppression keeping fewer boxes)
        if entry.isolated:  # judged on OpenVINO's inputs: the deviation is looked for there
            arrays, outputs = self.rerun[id(layer)]
            results = (outputs[entry.output_index], theirs)
        label = known_deviation(layer, arrays, self.device, results)
        if not label and entry.isolated:  # (some show only on irrun's own inputs)
            label = known_deviation(layer, self.inputs_of.get(id(layer), []), self.device,
                                    (ours, theirs))  # fmt: skip
        if not label and layer.bodies:  # (OpenVINO returns no tensor of a body)
            label = self._inside(layer, arrays)
        if not label and (entry.isolated or not differing):
            label = self._alone(layer, entry.output_index, arrays, results, etype, tolerance)
        known = [e for e in differing if e.status == KNOWN]
        if label:
            entry.status, entry.deviation = KNOWN, label
        elif entry.isolated and known:
            # Behind a CPU deviation, OpenVINO's reported tensors need not be the values it
            # went on computing with (a 64-bit result it holds in 32 bits): not judged alone.
            entry.status, entry.cause = DOWNSTREAM, known[0].where
        else:
            entry.status = DIFFERS

    def _inside(self, layer, arrays) -> str | None:
        """The known deviation inside ``layer``'s body where its difference starts (looked
        for once per layer: every output of it shares the answer)."""
        from irrun.compare.inside import deviation_inside

        key = id(layer)
        if key not in self.inside:
            self.inside[key] = deviation_inside(self, layer, arrays)
        return self.inside[key]

    def _alone(self, layer, index, arrays, results, etype, tolerance) -> str | None:
        """The label of a layer that OpenVINO computes otherwise inside the model than alone:
        run alone on ``arrays`` (the inputs it was judged on) it gives irrun's result
        (``results``: irrun's and OpenVINO's in the model), exactly or within rounding."""
        from irrun.compare.alone import run_alone

        alone = run_alone(layer, arrays, self.device, self.config, self.isolate)
        if alone is None or index >= len(alone):
            return None
        own, inside = results[0], results[1]
        by_itself = alone[index]
        if by_itself.shape != own.shape or by_itself.dtype != own.dtype:
            return None
        if compare_arrays(own, by_itself, etype) is not None:
            if tolerance is None or not gap_within(rounding_gap(own, by_itself), etype, tolerance):
                return None
        gap = relative_of(rounding_gap(inside, by_itself)) if tolerance is not None else None
        how = f" (inside: {gap:.1e} of the largest |value| from the op alone)" if gap else ""
        return (
            f"{layer.type} inside this model: OpenVINO's {self.device} plugin computes it "
            f"otherwise than the same op alone on the same inputs, which gives irrun's "
            f"result{how}; a transformation of the plugin's graph changed it"
        )

    def _own_result(self, layer, index: int):
        """``layer``'s output ``index`` computed by irrun from OpenVINO's outputs of its
        producers (Parameters and Constants as irrun read them: the same values), or ``None``
        when that cannot be done (an input OpenVINO did not return, a kernel that refuses)."""
        key = id(layer)
        if key not in self.rerun:
            self.rerun[key] = self._rerun(layer)
        found = self.rerun[key]
        if found is None:
            return None
        outputs = found[1]
        return outputs[index] if index < len(outputs) else None

    def _rerun(self, layer):
        own_inputs = self.inputs_of.get(id(layer))
        if own_inputs is None or len(own_inputs) != len(layer.inputs):
            return None
        arrays = []
        for position, port in enumerate(layer.inputs):
            producer = layer.graph.producer(port)
            if producer is None:
                return None
            source = producer.layer
            if source.type in _SKIPPED_TYPES:  # Parameter, Const: what both sides read
                arrays.append(own_inputs[position])
                continue
            found = self.produced.get((source.name, producer.index))
            if found is None or self.names.get(source.name, 0) != 1:
                return None
            arrays.append(_decode_output(*found))
        try:
            outputs = self.compiled.evaluate_layer(layer, arrays)
        except Exception:  # a kernel refusing OpenVINO's inputs: the difference stays unsplit
            return None
        return None if outputs is None else (arrays, outputs)
