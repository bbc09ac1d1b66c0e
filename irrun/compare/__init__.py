"""Differential mode: run one IR with irrun and with OpenVINO and compare every tensor.

:func:`compare` runs the model with irrun (every layer's outputs kept), then reads the same
files with ``openvino.Core().read_model``, adds a Result for every output of every layer
(Results, Parameters and Constants aside), compiles it for the device and runs it on the same
inputs. Tensors are matched by layer name and output index (OpenVINO keeps the IR layer names as
friendly names) and compared bit for bit: NaN payloads count and -0.0 differs from 0.0. Each
port's inferred shape and element type is compared with OpenVINO's after ``read_model``.
When irrun's tensors together take more than the memory limit, the layers are compared a part at
a time (OpenVINO exposing only the part's tensors and those they read, irrun running again and
keeping the same), with the same verdicts.

A tensor that differs while all its inputs agreed is a *first divergence*. If a known deviation
of OpenVINO's CPU plugin from the specification explains it (``CPU_DEVIATIONS``: small
predicates over the layer and its input arrays), it is labelled as such instead; tensors that
differ because an input already differed are *downstream*.

OpenVINO is optional (``pip install 'irrun[openvino]'``). By default it runs in a child process,
because some inputs crash its CPU plugin (Gather-7/-8 with ``batch_dims > 0`` on a single batch
segfaults in OpenVINO 2026.4); a crash is then reported as :class:`OpenVINOError`.
"""

from __future__ import annotations

import contextlib
import math
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
            shapes=None, rtol: float | None = None,
            memory_limit: int | None = None) -> Comparison:  # fmt: skip
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
    memory_limit : int, optional
        About how many bytes of tensors to hold at once. When irrun's tensors together take
        more, the layers are compared a part at a time: OpenVINO runs once per part,
        returning only that part's tensors and those they are computed from, and irrun runs
        again keeping the same (``Comparison.passes`` says how many parts; the verdicts are
        those of a comparison at once). ``None``: a sixth of the memory available besides
        the weights (the file mapped, the constants decompressed).

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
    budget = _memory_budget(compiled, weights) if memory_limit is None else memory_limit
    runs = _Runs(compiled, inputs, budget)
    run_openvino_on = _run_isolated if isolate else _run_in_process

    def openvino_run(expose=None):
        answer = run_openvino_on({**request, "expose": expose})
        if "crashed" in answer or "error" in answer:
            raise _openvino_failure(model, answer, runs.inputs_of, device)
        return answer

    missing = compiled.missing_kernels
    if not missing:
        # irrun first: a model it cannot run on these inputs is refused before OpenVINO runs,
        # and its per-layer inputs name suspects if OpenVINO crashes.
        runs.run(None)
    else:
        runs.size(missing)  # (irrun runs what it can, its tensors measured, not kept)
    if not runs.overflowed:
        # Everything at once: every tensor of both runs held together.
        openvino = openvino_run()
        if missing:
            # Layers irrun has no kernel for take OpenVINO's outputs (bridged), so everything
            # else is still compared.
            runs.run(_bridge(missing, openvino))
        builder = _Builder(model, openvino, runs, device, compiled, rtol, isolate, config)
        builder.judge_layers(model.topological_order())
        return builder.comparison()
    # Too many bytes to hold at once: the layers are compared a part at a time, OpenVINO
    # returning only the part's tensors and those of its producers, irrun keeping the same.
    parts = _parts(model, runs.sizes, budget)
    always = [(layer.name, index) for layer in missing for index in range(len(layer.outputs))]
    builder = None
    for part in parts:
        openvino = openvino_run(sorted({*always, *_keys_read(part)}))
        runs.run(_bridge(missing, openvino) if missing else None, keep=part)
        if builder is None:
            builder = _Builder(model, openvino, runs, device, compiled, rtol, isolate, config)
        else:
            builder.next_part(openvino)
        builder.judge_layers(part)
    return builder.comparison(passes=len(parts))


def _memory_budget(compiled, weights) -> int:
    """Bytes of tensors :func:`compare` keeps at once by default: a sixth of the memory the
    system has available once the weights are read and decompressed (each tensor is held
    about four times over: irrun's, OpenVINO's in its process, its bytes on their way here,
    decoded here), at least 256 MiB."""
    available = None
    try:
        with open("/proc/meminfo", encoding="ascii") as stream:
            for line in stream:
                if line.startswith("MemAvailable:"):
                    available = int(line.split()[1]) * 1024
                    break
    except (OSError, ValueError, IndexError):
        pass
    if available is None:
        try:
            available = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        except (ValueError, OSError, AttributeError):
            available = 8 << 30
    # (the mapped weights file and irrun's decompressed constants stay for the whole run)
    available -= compiled.folded_bytes + (os.path.getsize(weights) if weights else 0)
    return max(available // 6, 256 << 20)


class _Runs:
    """irrun's runs for a comparison: the tensors they keep (every layer's, or those of a
    part of the layers), the bytes of every tensor, which layers ran, bridged or could not
    run, and the error that stopped a run."""

    def __init__(self, compiled, inputs, budget: int):
        self.compiled = compiled
        self.inputs = inputs
        self.budget = budget
        self.outputs_of: dict[int, np.ndarray] = {}  # id(port) -> irrun's tensor
        self.inputs_of: dict[int, list] = {}  # id(layer) -> irrun's inputs of it
        self.sizes: dict[int, int] = {}  # id(port) -> bytes of its tensor
        self.ran: set[int] = set()  # id(layer) of every layer run (or bridged)
        self.bridged: dict[int, object] = {}  # id(layer) -> a layer given OpenVINO's outputs
        self.not_run: dict[int, str] = {}  # id(layer) -> why a partial run left it out
        self.error = None  # the ExecutionError that stopped the last run part-way
        self.overflowed = False  # the tensors outgrew the budget: compared in parts
        self._kept_bytes = 0
        self._keep = None  # ids of the layers whose tensors are kept (None: every one)

    def _record(self, step) -> None:
        layer = step.layer
        key = id(layer)
        self.ran.add(key)
        if step.bridged:
            self.bridged[key] = layer
        measured = 0
        for port, array in zip(layer.outputs, step.outputs):
            size = getattr(array, "nbytes", 0)
            self.sizes[id(port)] = size
            measured += size
        if self._keep is not None and key not in self._keep:
            return
        if self._keep is None:
            self._kept_bytes += measured
            if self._kept_bytes > self.budget:  # let go: the rest is measured only
                self.overflowed = True
                self._keep = frozenset()
                self.outputs_of.clear()
                self.inputs_of.clear()
                return
        self.inputs_of[key] = step.inputs
        for port, array in zip(layer.outputs, step.outputs):
            self.outputs_of[id(port)] = array

    def run(self, bridge, keep=None) -> None:
        """Run once (``bridge``: OpenVINO's outputs of the layers without a kernel), keeping
        the tensors of the layers in ``keep`` (``None``: of every layer, until they outgrow
        the budget)."""
        self.outputs_of.clear()
        self.inputs_of.clear()
        self._keep = None if keep is None else frozenset(id(layer) for layer in keep)
        self._kept_bytes = 0
        self.error = None
        try:
            results = self.compiled.run(self.inputs, on_step=self._record, bridge=bridge,
                                        partial=bool(bridge))  # fmt: skip
        except UnsupportedOpError:
            raise
        except ExecutionError as exc:
            if not self.ran:
                raise
            self.error = exc
            return
        for entry in results.not_run:
            self.not_run[id(entry.layer)] = entry.reason

    def size(self, missing) -> None:
        """Measure the tensors of a model with layers irrun has no kernel for: run what can
        be run, keeping nothing; a tensor it cannot compute counts with its inferred shape
        when that is static."""
        self._keep = frozenset()
        with contextlib.suppress(ExecutionError):  # (the run that counts reports it)
            self.compiled.run(self.inputs, on_step=self._record, partial=True)
        self.ran.clear()
        self.bridged.clear()
        self.not_run.clear()
        total = sum(self.sizes.values())
        for layer in self.compiled.model.layers:
            for port in layer.outputs:
                if id(port) not in self.sizes:
                    self.sizes[id(port)] = _static_bytes(port)
                    total += self.sizes[id(port)]
        self.overflowed = total > self.budget
        self._keep = None


def _static_bytes(port) -> int:
    """The bytes of ``port``'s tensor by its inferred shape and type, 0 when not static."""
    shape = port.shape
    etype = port.inferred_type or port.element_type
    if not shape.is_static or etype is None or etype.numpy_dtype is None:
        return 0
    return math.prod(shape.to_tuple()) * np.dtype(etype.numpy_dtype).itemsize


def _parts(model, sizes: dict, budget: int) -> list[list]:
    """The compared layers in execution order, cut into runs whose tensors (their own and
    those of the layers they read) take at most ``budget`` bytes; a layer that alone takes
    more is a part of its own."""
    parts, part, producers, total = [], [], set(), 0
    for layer in model.topological_order():
        if layer.type in _SKIPPED_TYPES:
            continue
        cost = sum(sizes.get(id(port), 0) for port in layer.outputs)
        reads = []
        for port in layer.inputs:
            producer = layer.graph.producer(port)
            if producer is not None and producer.layer.type not in _SKIPPED_TYPES:
                reads.append(producer)
        extra = sum(sizes.get(id(p), 0) for p in reads if id(p) not in producers)
        if part and total + cost + extra > budget:
            parts.append(part)
            part, producers, total = [], set(), 0
            extra = sum(sizes.get(id(p), 0) for p in reads)
        part.append(layer)
        total += cost + extra
        producers.update(id(port) for port in layer.outputs)
        producers.update(id(p) for p in reads)
    if part:
        parts.append(part)
    return parts or [[]]


def _keys_read(layers) -> set:
    """OpenVINO's keys, ``(layer name, output index)``, of the outputs of ``layers`` and of
    the outputs they read."""
    keys = set()
    for layer in layers:
        keys.update((layer.name, index) for index in range(len(layer.outputs)))
        for port in layer.inputs:
            producer = layer.graph.producer(port)
            if producer is not None:
                keys.add((producer.layer.name, producer.index))
    return keys


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


class _Builder:
    """Builds the :class:`Comparison` layer by layer, from irrun's runs and OpenVINO's
    answers (one, or one per part of the layers)."""

    def __init__(self, model, openvino, runs, device, compiled, rtol, isolate, config):
        self.model = model
        self.openvino = openvino
        self.runs = runs
        self.device = device
        self.rtol = rtol
        self.name_counts: dict[str, int] = {}
        for name in openvino["names"]:
            self.name_counts[name] = self.name_counts.get(name, 0) + 1
        self.irrun_names: dict[str, int] = {}
        for layer in model.layers:
            self.irrun_names[layer.name] = self.irrun_names.get(layer.name, 0) + 1
        self.produced = _produced(openvino)
        self.judge = _Judge(compiled, self.produced, self.name_counts, runs.inputs_of, device,
                            rtol, isolate, config)  # fmt: skip
        self.entries: dict[int, TensorComparison] = {}
        self.tensors: list[TensorComparison] = []
        # Steps come in execution order, so irrun stopped at the first layer without one.
        self.failed = next((layer for layer in model.topological_order()
                            if id(layer) not in runs.ran and id(layer) not in runs.not_run),
                           None)  # fmt: skip

    def next_part(self, openvino) -> None:
        """OpenVINO's answer for the next part of the layers."""
        self.openvino = openvino
        self.produced = self.judge.produced = _produced(openvino)
        self.judge.inputs_of = self.runs.inputs_of

    def judge_layers(self, layers) -> None:
        """A :class:`TensorComparison` for every output of ``layers`` (in execution order)."""
        from irrun.element_types import from_numpy_dtype
        from irrun.execution import tensor_name
        from irrun.ops.registry import resolve_layer

        runs, produced, judge = self.runs, self.produced, self.judge
        name_counts = self.name_counts
        for layer in layers:
            if layer.type in _SKIPPED_TYPES:
                continue
            op_class = resolve_layer(layer)
            op = f"{op_class.type}-{op_class.version}" if op_class is not None else layer.type
            for index, port in enumerate(layer.outputs):
                key = (layer.name, index)
                etype = port.inferred_type or port.element_type
                ov_port = self.openvino["ports"].get(key)
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
                ambiguous = (self.irrun_names.get(layer.name, 0) > 1
                             or name_counts.get(layer.name, 0) > 1)  # fmt: skip
                if ov_port is not None and not ambiguous:
                    entry.openvino_shape = _shape_text(ov_port[0])
                    entry.openvino_type = ov_port[1]
                self.tensors.append(entry)
                self.entries[id(port)] = entry
                ours = runs.outputs_of.get(id(port))
                if ambiguous:
                    entry.reason = f"layer name {layer.name!r} is not unique: it cannot be matched"
                elif name_counts.get(layer.name, 0) == 0:
                    entry.reason = f"OpenVINO's model has no layer named {layer.name!r}"
                elif key not in produced and layer.type == "Assign":
                    entry.reason = _ASSIGN_NOT_RETURNED
                elif key not in produced:
                    entry.reason = f"OpenVINO did not return output {index} of {layer.name!r}"
                elif id(layer) in runs.bridged:
                    entry.reason = (
                        "bridged: irrun has no kernel for it; OpenVINO's output was fed to the "
                        "layers after it"
                    )
                elif id(layer) in runs.not_run:
                    entry.reason = f"irrun could not run it: {runs.not_run[id(layer)]}"
                elif ours is None and id(layer) in runs.ran:
                    entry.reason = "irrun did not return it"
                elif ours is None and self.failed is layer:
                    entry.reason = f"irrun failed here: {runs.error.message}"
                elif ours is None:
                    entry.reason = f"irrun stopped before it, at {self.failed.describe()}"
                else:
                    theirs = _decode_output(*produced[key])
                    if etype is None or etype.name == "dynamic":
                        etype = from_numpy_dtype(ours.dtype)
                    judge(entry, layer, op_class, ours, theirs, etype, self.entries)
            judge.done(layer)

    def comparison(self, passes: int = 1) -> Comparison:
        """The comparison of every layer judged."""
        error = self.runs.error
        bridged = [layer for layer in self.model.topological_order()
                   if id(layer) in self.runs.bridged]  # fmt: skip
        return Comparison(
            file=self.model.file,
            device=self.device,
            openvino_version=self.openvino["version"],
            tensors=self.tensors,
            irrun_error=error.message if error is not None else None,
            irrun_error_line=error.line if error is not None else None,
            bridged=[layer.describe() for layer in bridged],
            rtol=_rtol_text(self.rtol),
            passes=passes,
        )


def _produced(openvino) -> dict:
    """OpenVINO's tensors keyed ``(layer name, output index)``: ``(type, shape, bytes)``."""
    return {key: (type_name, shape, payload)
            for key, type_name, shape, payload in openvino["outputs"]}  # fmt: skip


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
