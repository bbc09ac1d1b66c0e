"""The compiled form of a model: validated once, ops built once, constants folded once.

:class:`CompiledModel` does, once per model, everything a run does not need to repeat:

- validation (a model with errors is refused, with the errors listed);
- building each layer's op (attributes parsed once);
- a flat schedule: each tensor gets a slot of a list, each layer a tuple (its kernel, the
  slots it reads and writes, the shape and element type each output must have, the slots
  whose last reader it is), so a run is one loop over tuples;
- constant folding: every layer whose inputs all come from Consts (f16/INT8/INT4 weight
  decompression: Const → Convert → Subtract → Multiply) is computed once and its value kept,
  and only the values still read by the rest of the model stay in memory
  (:attr:`CompiledModel.folded_bytes` counts them; ``fold_constants=False`` keeps the
  decompression lazy, done again on each run, when memory matters more than time).

A run then feeds the inputs into their slots, calls each kernel, checks each produced array
against the inferred shape and element type (a comparison of two tuples and two dtypes when
the inferred shape is static) and drops every intermediate after its last reader.

Buffers, planned once (:func:`_plan_buffers`) for layers whose op has ``evaluate_into`` and
whose outputs have static shapes:

- in place: an element-wise layer writes its output into an input it is the last reader of,
  when this run alone owns that input (never a fed input, a weight, a folded value, a model
  output, or an array some live view still reads);
- kept buffers: big intermediates (:data:`REUSE_MIN_BYTES`) are written into buffers the
  compiled model keeps between runs (:attr:`CompiledModel.reused_bytes`), shared by
  intermediates whose lifetimes do not overlap, so that repeated runs do not fault fresh
  pages in. One run at a time uses them (a concurrent run allocates as usual); a result that
  may share memory with them is copied out;
- ``run(..., out={name: array})`` writes outputs into the caller's arrays.

Stepping and partial runs use none of them: they hand intermediates to the caller.

Stepping (:meth:`CompiledModel.steps`, ``on_step``, ``capture``, ``stop_after``,
``partial``) walks the same schedule without folding, one :class:`Step` per layer, so every
layer, Consts and folded ones included, is seen as it is computed.
"""

from __future__ import annotations

import math
import os
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from functools import partial as bind

import numpy as np

from irrun.arrays import load_npz, match_inputs
from irrun.errors import (
    ExecutionError,
    InputValueError,
    InternalError,
    IRError,
    UnsupportedOpError,
    ValidationFailed,
)
from irrun.execution.decompression import find_chains, fold_chain
from irrun.ops.base import OpContext
from irrun.ops.registry import LATEST_OPSET, has_kernel, resolve_layer, runnable
from irrun.shape import Shape

__all__ = [
    "CompiledModel",
    "compile_model",
    "Step",
    "Results",
    "NotRun",
    "tensor_name",
    "NOT_FOLDED",
]

#: Op types never folded even with constant inputs: each run must draw anew or touch state.
NOT_FOLDED = frozenset({"RandomUniform", "Multinomial", "ReadValue", "Assign"})

#: An element-wise layer whose output is at least this big writes it into an input it is the
#: last reader of (in place). Below it, a fresh array costs no more than the check.
IN_PLACE_MIN_BYTES = 1 << 16

#: A layer output at least this big, of a static shape, is written into a buffer the compiled
#: model keeps between runs (glibc returns blocks above 32 MiB to the system on free, so a
#: fresh one is faulted in again on every run).
REUSE_MIN_BYTES = 1 << 20

#: Shapes (with dtypes) remembered per output port as having passed the check against a
#: dynamic inferred shape.
_PASSED_PER_PORT = 8


@dataclass
class Step:
    """One executed layer: what went in, what came out, how long it took.

    A step holds its input and output arrays; the executor itself has already
    dropped the ones no later layer needs, so they are freed with the step.
    ``bridged`` is True when the outputs were given (``bridge=``), not computed.
    """

    layer: object
    inputs: list
    outputs: list
    seconds: float
    bridged: bool = False

    @property
    def tensors(self) -> dict:
        """The outputs keyed by tensor name."""
        return {tensor_name(p): a for p, a in zip(self.layer.outputs, self.outputs)}

    def __repr__(self) -> str:
        shapes = ", ".join(f"{a.dtype}{list(a.shape)}" for a in self.outputs)
        took = f"{self.seconds * 1e3:.2f} ms"
        return f"<Step {self.layer.describe()} -> {shapes or 'nothing'} ({took})>"


@dataclass(frozen=True)
class NotRun:
    """A layer a partial run could not compute: ``reason`` says why (no kernel, or the layer
    whose output it needed was not computed)."""

    layer: object
    reason: str

    def __str__(self) -> str:
        return f"line {self.layer.line}: {self.layer.describe()}: {self.reason}"


class Results(dict):
    """The arrays a run returns, keyed by name; a dict that renders as a table in Jupyter.

    ``not_run`` lists the layers a partial run could not compute (:class:`NotRun`), and
    ``bridged`` the layers whose outputs were given instead of computed.
    """

    not_run: tuple | list = ()
    bridged: tuple | list = ()

    def _repr_html_(self) -> str:
        from irrun.render.html import arrays_html

        return arrays_html(self)


def tensor_name(port) -> str:
    """A port's tensor name: its smallest tensor name, else ``<layer name>:<port id>``."""
    from irrun.ir.names import smallest_name

    if port.names:
        return smallest_name(port.names)
    return f"{port.layer.name or port.layer.id}:{port.id}"


class _CheckFailed(Exception):
    """A kernel's array is not what validation inferred (carries the InternalError)."""

    def __init__(self, error):
        super().__init__(error.message)
        self.error = error


class State:
    """The variables of ReadValue/Assign layers, kept between runs of one compiled model.

    ``read(variable_id)`` gives the value committed by an earlier run (``None``: never
    written, or reset); ``write(variable_id, array)`` stages a value that becomes visible to
    the next run when this one ends (as in OpenVINO).
    """

    def __init__(self):
        self.values: dict[str, np.ndarray] = {}
        self.pending: dict[str, np.ndarray] = {}

    def read(self, variable_id):
        """The committed value of ``variable_id`` (``None`` when none)."""
        return self.values.get(variable_id)

    def write(self, variable_id, array) -> None:
        """Stage ``array`` as the value of ``variable_id`` for the next run."""
        self.pending[variable_id] = array

    def commit(self) -> None:
        """Make this run's writes visible (called when a run ends)."""
        self.values.update(self.pending)
        self.pending.clear()

    def discard(self) -> None:
        """Forget this run's writes (a run that failed)."""
        self.pending.clear()

    def reset(self) -> None:
        """Forget every variable: the next run reads their initial values."""
        self.values.clear()
        self.pending.clear()


@dataclass
class _Node:
    """One scheduled layer."""

    layer: object
    op: object
    evaluate: object  # callable(arguments) -> list of arrays, or None: no kernel
    ins: tuple  # slots read, one per input port
    outs: tuple  # ((slot, static shape or None, dtype or None), ...) per output port
    frees: tuple = ()  # slots whose last reader this layer is
    folded: bool = False
    sink: bool = False
    into: object = None  # callable(arguments, outputs) writing the outputs given, or None


@dataclass
class _Program:
    """The schedule of one graph (the model, or a body of a sub-graph op)."""

    graph: object
    nodes: list
    slot_count: int
    slots: dict  # id(port) -> slot, for every output port and open input port
    parameters: dict  # body Parameter layer id -> slot (bodies), id(port) -> slot (model inputs)
    results: dict  # body Result layer id -> slot
    missing: list  # nodes without a kernel
    fast: list = field(default_factory=list)  # nodes run when folded values are preloaded
    preloaded: list = field(default_factory=list)  # (slot, array) of folded values
    pooled: list | None = None  # ``fast`` with the big outputs written into kept buffers
    producer_index: dict = field(default_factory=dict)  # slot -> index in ``fast``
    layer_nodes: dict | None = None  # id(layer) -> node (bodies; built on first need)


def compile_model(model, *, fold_constants: bool = True) -> CompiledModel:
    """The compiled form of ``model`` (see :class:`CompiledModel`)."""
    return CompiledModel(model, fold_constants=fold_constants)


class CompiledModel:
    """A model ready to run many times: validated once, ops built once, constants folded.

    Build one with ``model.compile()`` (:func:`irrun.execution.compile`); ``model.run`` uses a
    compiled form cached on the model.

    Parameters
    ----------
    model : irrun.Model
    fold_constants : bool
        Compute the layers fed only by constants (weight decompression) once, here, and keep
        their values (:attr:`folded_bytes`); ``False`` computes them on each run instead.
    state : State, optional
        The variables of ReadValue/Assign layers to use (``irrun.execution.compile`` passes
        the model's own, so that compiling anew keeps them); default: a fresh one.

    Attributes
    ----------
    model : irrun.Model
    folded_bytes : int
        Bytes of the constant values kept that irrun allocated: folded results (decompressed
        weights) and aligned copies of weights the ``.bin`` stores unaligned; views of the
        memory-mapped weights count nothing.
    folded_layers : int
        How many layers were folded (Consts included).
    missing_kernels : list of Layer
        Layers irrun has no kernel for: a full run refuses the model, a partial run, a
        bridged one or a stop before them still runs.
    validations, builds : int
        How many times this compiled form validated the model and built its ops (once each;
        tests use them to show that runs repeat neither).

    Raises
    ------
    ValidationFailed
        The model has validation errors.
    """

    def __init__(self, model, *, fold_constants: bool = True, state: State | None = None):
        self.model = model
        self.fold_constants = fold_constants
        self.validations = 0
        self.builds = 0
        self.runs = 0
        self.state = state if state is not None else State()
        # {id(output port): {(shape, dtype) that passed the slow check}} (see _check)
        self._passed_checks: dict[int, set] = {}
        model.check_weights()
        self._validate()
        self.program = self._compile_graph(model)
        self.missing_kernels = [node.layer for node in self.program.missing]
        self.folded_bytes = 0
        self.folded_layers = 0
        if fold_constants:
            self._fold(self.program)
        else:
            outputs = {self.program.slots[id(o.port)] for o in model.outputs
                       if id(o.port) in self.program.slots}  # fmt: skip
            _set_fast(self.program, lambda n: not _is_noop(n), keep=outputs)
        self._bodies: dict[tuple[int, str], _Program] = {}
        # Model outputs: one tensor may feed several Results, each an output of its own name.
        slots = self.program.slots
        self._outputs = [(o.name, slots[id(o.port)]) for o in model.outputs if id(o.port) in slots]
        self._output_ports = {o.name: (o.port, *_expected(o.port)) for o in model.outputs
                              if id(o.port) in slots}  # fmt: skip
        self._inputs = [(id(i.port), slots[id(i.port)]) for i in model.inputs]
        self._pool = _plan_buffers(self.program, {slot for _, slot in self._outputs})
        self._layer_nodes = None  # id(layer) -> node, built by evaluate_layer on first need

    @property
    def reused_bytes(self) -> int:
        """Bytes of the buffers kept between runs for big intermediates (allocated on the first
        run that uses them): memory held beyond a run's live tensors, which saves faulting
        those pages in again on each run."""
        return 0 if self._pool is None else self._pool.allocated_bytes

    # -- building ---------------------------------------------------------------------
    def _validate(self) -> None:
        from irrun.validation import validate

        self.validations += 1
        report = validate(self.model)
        if not report.ok:
            errors = report.errors
            listing = "\n".join(f"  {d}" for d in errors[:20])
            more = f"\n  ... and {len(errors) - 20} more" if len(errors) > 20 else ""
            if any(d.code == "internal" for d in errors):
                more += "\n(error[internal] is a bug in irrun: please report it with the model)"
            raise ValidationFailed(
                f"the model has {len(errors)} validation error(s); fix them before running:"
                f"\n{listing}{more}",
                report,
                file=self.model.file,
            )

    def _compile_graph(self, graph) -> _Program:
        """Build the ops of ``graph`` and its schedule (slots, checks, last readers)."""
        self.builds += 1
        order = graph.topological_order()
        slots: dict[int, int] = {}
        parameters: dict = {}
        results: dict = {}
        nodes: list[_Node] = []
        missing: list[_Node] = []
        for layer in order:
            for port in layer.outputs:
                slots[id(port)] = len(slots)
        for layer in order:
            ins = []
            for port in layer.inputs:
                producer = graph.producer(port)
                if producer is None or id(producer) not in slots:
                    # An open input port of a fragment: fed like a Parameter.
                    slot = slots[id(port)] = len(slots)
                    parameters[id(port)] = slot
                    ins.append(slot)
                else:
                    ins.append(slots[id(producer)])
            outs = tuple((slots[id(p)], *_expected(p)) for p in layer.outputs)
            op = evaluate = None
            if layer.type == "Parameter":
                # Bodies feed Parameters by body layer id, the model by the input port.
                key = layer.id if graph is not self.model else id(layer.outputs[0])
                parameters[key] = outs[0][0]
            else:
                op_class = resolve_layer(layer)
                if op_class is not None and has_kernel(op_class):
                    op = op_class(layer, OpContext())
                    evaluate = self._bind(op)
            if layer.type == "Result" and ins:
                results[layer.id] = ins[0]
            node = _Node(layer, op, evaluate, tuple(ins), outs,
                         sink=getattr(op, "uses_state", False) and not layer.outputs,
                         into=_into_of(op, outs))  # fmt: skip
            if layer.type != "Parameter" and evaluate is None:
                missing.append(node)
            nodes.append(node)
        keep = set(parameters.values()) | set(results.values())
        if graph is self.model:
            keep |= {slots[id(o.port)] for o in self.model.outputs if id(o.port) in slots}
        _set_last_readers(nodes, keep)
        return _Program(graph, nodes, len(slots), slots, parameters, results, missing)

    def _bind(self, op):
        """The callable a node runs: ``op.evaluate``, given what the contract says the op
        declares it needs (a body runner, the state)."""
        if getattr(op, "runs_bodies", False):
            return bind(op.evaluate, run_body=bind(self._run_body, op.layer))
        if getattr(op, "uses_state", False):
            return bind(op.evaluate, state=self.state)
        # Runs (and steps) silence NumPy's floating-point warnings once, so ops that offer it
        # skip doing so per call.
        return op.evaluate_quiet if _has_quiet(type(op)) else op.evaluate

    def _fold(self, program: _Program) -> None:
        """Compute once every layer fed only by constants; keep the values still read.

        A folded value is let go once every layer that reads it is folded too (the f16 and
        int4 steps of weight decompression do not pile up: only the final weights stay)."""
        constant: dict[int, np.ndarray] = {}  # slot -> value
        outputs = {program.slots[id(o.port)] for o in self.model.outputs
                   if id(o.port) in program.slots}  # fmt: skip
        unvisited = Counter(slot for node in program.nodes for slot in node.ins)
        read = set()  # slots that a layer not folded reads
        folded_layers = 0
        # Weight decompression (codes -> f16, minus a zero point, times a scale, then maybe a
        # Reshape and a Convert to f32) is folded in one pass when the walk reaches its last
        # node: the nodes before it wait until then.
        chains = find_chains(program.nodes)
        for node in program.nodes:
            chain = chains.get(id(node))
            if chain is not None and node is not chain.members[-1]:
                continue
            visited = [node]
            if chain is not None:
                visited = chain.members
                if not self._fold_chain(chain, constant):  # (the ops one by one)
                    for member in visited:
                        self._fold_node(member, constant)
            else:
                self._fold_node(node, constant)
            for member in visited:
                if member.folded:
                    folded_layers += 1
                else:
                    read.update(member.ins)
                for slot in member.ins:
                    unvisited[slot] -= 1
                    if not unvisited[slot] and slot not in read and slot not in outputs:
                        constant.pop(slot, None)  # every reader folded: not needed any more
        self.folded_layers = folded_layers
        # Keep the folded values that something not folded reads, or that are model outputs.
        program.preloaded = [(s, a) for s, a in constant.items() if s in read or s in outputs]
        for _, array in program.preloaded:
            # Every run (and every caller, for a constant output) shares these arrays.
            if isinstance(array, np.ndarray):
                array.flags.writeable = False
        _set_fast(program, lambda n: not n.folded and not _is_noop(n),
                  keep={slot for slot, _ in program.preloaded} | outputs)  # fmt: skip
        self.folded_bytes = _owned_bytes(array for _, array in program.preloaded)

    def _fold_chain(self, chain, constant: dict) -> bool:
        """Fold a weight decompression chain in one pass (:mod:`irrun.execution.decompression`)
        when its operands allow; return whether it was."""
        last = chain.members[-1]
        try:
            result = fold_chain(chain, constant)
            if result is None:
                return False
            self._check(last, [result], [constant.get(slot) for slot in last.ins])
        except Exception:  # noqa: BLE001 - the ops one by one say what is wrong
            return False
        constant[last.outs[0][0]] = result
        for member in chain.members:
            member.folded = True
        return True

    def _fold_node(self, node, constant: dict) -> bool:
        """Compute ``node`` from the ``constant`` values of its inputs into ``constant`` and
        mark it folded, when it can be folded; return whether it was."""
        layer = node.layer
        if node.evaluate is None or layer.type in NOT_FOLDED or layer.type == "Result":
            return False
        if getattr(node.op, "uses_state", False) or getattr(node.op, "runs_bodies", False):
            return False
        if not all(slot in constant for slot in node.ins):
            return False
        try:
            with np.errstate(all="ignore"):  # (see _bind)
                arguments = [constant[slot] for slot in node.ins]
                produced = node.evaluate(arguments)
            self._check(node, produced, arguments)
        except Exception:  # noqa: BLE001 - left to the run, which reports it in order
            return False
        for (slot, _, _), array in zip(node.outs, produced):
            constant[slot] = array
        node.folded = True
        return True

    # -- running ----------------------------------------------------------------------
    def run(self, inputs, *, capture=False, stop_after=None, on_step=None, partial=False,
            bridge=None, threads=None, progress=None, out=None) -> Results:  # fmt: skip
        """Run on ``inputs`` and return the outputs (see :func:`irrun.run` for the
        parameters, the return value and the errors).

        ``partial``: run every layer whose inputs can be computed, list the others in
        ``Results.not_run`` instead of refusing. ``bridge``: ``{layer id: [arrays]}`` used as
        the outputs of those layers instead of computing them (a layer without a kernel).
        ``progress``: called as ``progress(done, total)`` now and then during the run.
        ``out``: ``{output name: array}``, arrays of the outputs' shapes and dtypes that the
        outputs are written into; the results hold those very arrays.
        """
        if threads is not None:
            from irrun.execution.threads import blas_threads

            with blas_threads(threads):
                return self.run(inputs, capture=capture, stop_after=stop_after,
                                on_step=on_step, partial=partial, bridge=bridge,
                                progress=progress, out=out)  # fmt: skip
        given = self._given_outputs(out)
        if capture or stop_after is not None or on_step is not None or partial or bridge:
            results = self._run_stepping(inputs, capture, stop_after, on_step, partial, bridge)
            _fill_given(results, given)
            return results
        return self._run_fast(inputs, progress, given)

    def steps(self, inputs, *, stop_after=None, partial=False, bridge=None) -> Iterator[Step]:
        """Execute one layer at a time, yielding a :class:`Step` per layer.

        The inputs are checked before the first step. Intermediates are freed after their
        last consumer, so keep what you need from each step. A layer irrun has no kernel for
        stops the walk with :class:`~irrun.errors.UnsupportedOpError` when it is reached
        (``partial``: it is skipped, and so is every layer that needs its outputs).
        """
        feeds = self._feeds(inputs)
        stop_layer = self._stop_layer(stop_after)
        return self._steps(feeds, stop_layer, partial, bridge or {}, None)

    def evaluate_layer(self, layer, arrays, *, body=None) -> list | None:
        """Run ``layer``'s kernel once on ``arrays`` (one per input port) and return its
        outputs, or ``None`` when it has none here (no kernel, or a ReadValue/Assign, whose
        run would touch the variables). :func:`irrun.compare.compare` re-runs a layer on
        OpenVINO's own inputs this way, to tell its own differences from inherited ones.
        ``body``: ``(layer, tag)`` of the sub-graph op whose body ``layer`` belongs to (a
        Const of a body gives its value on ``[]``).

        Raises :class:`~irrun.errors.ExecutionError` (or a subclass) when the kernel refuses
        the arrays."""
        node = self._node_of(layer, body)
        if node is None or node.evaluate is None or getattr(node.op, "uses_state", False):
            return None
        return list(_evaluate(self, node, list(arrays)))

    def chosen_body(self, layer, arrays) -> tuple | None:
        """``(tag, feeds)``: the body a sub-graph op runs on ``arrays`` (its inputs) and what
        feeds that body's Parameters (by body layer id), or ``None`` when the op does not say
        (only If picks one body per run)."""
        node = self._node_of(layer, None)
        choose = getattr(node.op, "chosen_body", None) if node is not None else None
        return None if choose is None else choose(list(arrays))

    def _node_of(self, layer, body):
        """The node of ``layer`` in the model's schedule, or in that of ``body``."""
        if body is None:
            if self._layer_nodes is None:
                self._layer_nodes = {id(node.layer): node for node in self.program.nodes}
            return self._layer_nodes.get(id(layer))
        program = self._body_program(*body)
        if program.layer_nodes is None:
            program.layer_nodes = {id(node.layer): node for node in program.nodes}
        return program.layer_nodes.get(id(layer))

    def peak_live_bytes(self, inputs) -> int:
        """Run once on ``inputs`` as :meth:`run` does and return the largest number of bytes
        the intermediate and input tensors held at once (folded values and the weights
        aside), the buffers kept between runs (:attr:`reused_bytes`) included: what the
        schedule's freeing leaves alive, for memory budgets and benchmarks. Arrays that share
        memory (views, outputs written in place) count once."""
        program = self.program
        if program.missing:
            self._refuse_missing(program.missing)
        feeds = self._feeds(inputs)
        pool = self._pool
        use_pool = pool is not None and pool.lock.acquire(blocking=False)
        try:
            nodes = program.pooled if use_pool else program.fast
            pooled = set()
            if use_pool:
                pooled = {id(buffer) for buffer in pool.allocate_all()}
            values = [None] * program.slot_count
            kept = set()
            for slot, array in program.preloaded:
                values[slot] = array
                kept.add(slot)
            live = _LiveBytes(pooled)
            for port_id, slot in self._inputs:
                values[slot] = feeds[port_id]
                live.add(values[slot])
            peak = live.total
            for node in nodes:
                _execute(self, [replace(node, frees=())], values)
                for slot, _, _ in node.outs:
                    live.add(values[slot])
                peak = max(peak, live.total)
                for slot in node.frees:
                    if values[slot] is not None and slot not in kept:
                        live.remove(values[slot])
                    values[slot] = None
        finally:
            if use_pool:
                pool.lock.release()
        self.state.discard()
        return peak + (pool.planned_bytes if use_pool else 0)

    def reset_state(self) -> None:
        """Forget the variables of ReadValue/Assign layers (the next run starts afresh)."""
        self.state.reset()

    def _feeds(self, inputs) -> dict:
        if isinstance(inputs, (str, os.PathLike)):
            inputs = load_npz(inputs)
        return match_inputs(self.model, inputs)

    def _stop_layer(self, stop_after):
        if stop_after is None:
            return None
        try:
            return self.model.layer(stop_after)
        except KeyError as exc:
            raise InputValueError(f"--stop-after: {exc.args[0]}", file=self.model.file) from None

    def _refuse_missing(self, nodes) -> None:
        missing: dict[str, list] = {}
        for node in nodes:
            layer = node.layer
            missing.setdefault(f"{layer.type} ({layer.version or 'no version'})", []).append(layer)
        listing = "; ".join(
            f"{kind}: {len(layers)} layer(s), first {layers[0].name!r} at line {layers[0].line}"
            for kind, layers in missing.items()
        )
        raise UnsupportedOpError(
            f"irrun cannot run {sum(len(v) for v in missing.values())} layer(s) of this model: "
            f"{listing}. {_what_runs()}; `irrun validate` can still check the rest; "
            "`irrun execute --partial` runs the layers that do not need them",
            file=self.model.file,
        )

    def _given_outputs(self, out) -> dict:
        """``{output name: (slot, array)}`` of the ``out=`` arrays, checked against what
        validation inferred for each output (a dynamic one is checked after the run)."""
        if out is None:
            return {}
        if not isinstance(out, dict):
            raise InputValueError(
                f"out must be a dict of output name to array, not {type(out).__name__}",
                file=self.model.file,
            )
        slots = dict(self._outputs)
        given = {}
        for name, array in out.items():
            if name not in slots:
                known = ", ".join(repr(n) for n in slots) or "none"
                raise InputValueError(
                    f"out: {name!r} is not an output of the model (its outputs: {known})",
                    file=self.model.file,
                )
            if not isinstance(array, np.ndarray):
                raise InputValueError(
                    f"out: output {name!r} needs a numpy array, not {type(array).__name__}",
                    file=self.model.file,
                )
            port, shape, dtype = self._output_ports[name]
            if (shape is not None and array.shape != shape) or (
                dtype is not None and array.dtype != dtype
            ):
                inferred = port.inferred_shape
                raise InputValueError(
                    f"out: output {name!r} is {dtype or port.inferred_type}"
                    f"{list(shape) if shape is not None else inferred}, but the array given "
                    f"for it is {array.dtype}{list(array.shape)}",
                    file=self.model.file,
                )
            if not array.flags.writeable:
                raise InputValueError(
                    f"out: the array given for output {name!r} is read-only",
                    file=self.model.file,
                )
            given[name] = (slots[name], array)
        return given

    def _run_fast(self, inputs, progress, given=None) -> Results:
        program = self.program
        if program.missing:
            self._refuse_missing(program.missing)
        feeds = self._feeds(inputs)
        self.model.check_weights()
        values = [None] * program.slot_count
        for slot, array in program.preloaded:
            values[slot] = array
        for port_id, slot in self._inputs:
            values[slot] = feeds[port_id]
        pool = self._pool
        # One run at a time uses the kept buffers; a concurrent run allocates its own.
        use_pool = pool is not None and pool.lock.acquire(blocking=False)
        try:
            nodes = program.pooled if use_pool else program.fast
            given = given or {}
            if given:
                nodes = _writing_into(program, nodes, given, feeds)
            try:
                if progress is None:
                    _execute(self, nodes, values)
                else:
                    step = max(1, len(nodes) // 100)
                    for start in range(0, len(nodes), step):
                        _execute(self, nodes[start : start + step], values)
                        progress(min(start + step, len(nodes)), len(nodes))
            except BaseException:
                self.state.discard()
                raise
            results = Results()
            written = {id(array) for _, array in given.values()}
            for name, slot in self._outputs:
                array = values[slot]
                if name not in given and (
                    id(array) in written or (use_pool and pool.holds(array))
                ):  # the next run overwrites the kept buffers, the caller its own arrays
                    array = array.copy()
                results[name] = array
        finally:
            if use_pool:
                pool.lock.release()
        self.state.commit()
        self.runs += 1
        _fill_given(results, given)
        return results

    def _run_stepping(self, inputs, capture, stop_after, on_step, partial, bridge) -> Results:
        feeds = self._feeds(inputs)
        stop_layer = self._stop_layer(stop_after)
        results: dict[str, np.ndarray] = {}
        output_names: dict[int, list[str]] = {}
        for model_output in self.model.outputs:
            output_names.setdefault(id(model_output.port), []).append(model_output.name)
        not_run: list[NotRun] = []
        bridged: list = []
        last = None
        for step in self._steps(feeds, stop_layer, partial, bridge or {}, not_run, eager=True):
            for port, array in zip(step.layer.outputs, step.outputs):
                if capture:
                    results[tensor_name(port)] = array
                for name in output_names.get(id(port), ()):
                    results[name] = array
            if step.bridged:
                bridged.append(step.layer)
            if on_step is not None:
                on_step(step)
            last = step
        if stop_layer is not None and last is not None and last.layer is stop_layer:
            results.update(last.tensors)
        # Model outputs first, in model order, then the rest.
        ordered = Results((o.name, results[o.name]) for o in self.model.outputs
                          if o.name in results)  # fmt: skip
        ordered.update(results)
        ordered.not_run = not_run
        ordered.bridged = bridged
        return ordered

    def _steps(self, feeds, stop_layer, partial, bridge, not_run, eager=False) -> Iterator[Step]:
        """The stepping walk. A layer that cannot be computed (no kernel and not bridged, or
        an input not computed) is skipped and listed in ``not_run`` when ``partial``, or when
        the stop layer does not need it; otherwise it is refused: all of them before the
        first step when ``eager`` (a run), else when the walk reaches it (stepping)."""
        program = self.program
        model = self.model
        nodes = program.nodes
        needed = None
        if stop_layer is not None:
            nodes = _prefix(nodes, stop_layer)
            needed = {id(n) for n in _ancestors(nodes, stop_layer)}
        if not partial and (eager or needed is not None):
            missing = [n for n in nodes if n.evaluate is None and n.layer.type != "Parameter"
                       and n.layer.id not in bridge
                       and (needed is None or id(n) in needed)]  # fmt: skip
            if missing:
                self._refuse_missing(missing)
        if not_run is None:
            not_run = []
        values = [None] * program.slot_count
        unknown: dict[int, object] = {}  # slot -> the layer that could not compute it
        for port_id, slot in self._inputs:
            values[slot] = feeds[port_id]
        finished = False
        try:
            for node in nodes:
                layer = node.layer
                arguments = [values[slot] for slot in node.ins]
                blocked = next((unknown[s] for s in node.ins if s in unknown), None)
                given = bridge.get(layer.id)
                started = time.perf_counter()
                if layer.type == "Parameter":
                    produced = [values[node.outs[0][0]]]
                elif given is not None:
                    produced = list(given)
                elif blocked is not None or node.evaluate is None:
                    reason = (
                        f"it needs the output of {blocked.describe()}, which was not computed"
                        if blocked is not None
                        else "irrun has no kernel for it"
                    )
                    if not partial and (needed is None or id(node) in needed):
                        self._refuse_missing([node])
                    not_run.append(NotRun(layer, reason))
                    for slot, _, _ in node.outs:
                        unknown[slot] = layer if blocked is None else blocked
                    _free(values, node.frees)
                    continue
                else:
                    produced = _evaluate(self, node, arguments)
                elapsed = time.perf_counter() - started
                if layer.type != "Parameter":
                    try:
                        self._check(node, produced, arguments)
                    except _CheckFailed as failed:
                        raise failed.error from None
                for (slot, _, _), array in zip(node.outs, produced):
                    values[slot] = array
                # Free what no later layer needs before handing the step out.
                _free(values, node.frees)
                yield Step(layer, arguments, list(produced), elapsed, bridged=given is not None)
                if stop_layer is layer:
                    break
                # The caller ran between two steps: the weights that Const views read must
                # still be the ones loaded (a truncated file would kill the process with
                # SIGBUS).
                model.check_weights()
            finished = True
        finally:
            if finished:
                self.state.commit()
                self.runs += 1
            else:
                self.state.discard()

    def _check(self, node, produced, arguments) -> None:
        """Raise :class:`_CheckFailed` unless each array has the inferred shape and type
        (``arguments``: the layer's input arrays, to say what is wrong with them).

        Outputs of a dynamic inferred shape take the slow check (a partial shape's
        compatibility); its verdict depends on the shape and dtype alone, so the pairs that
        passed are remembered per port (a few each) and not checked again on later runs."""
        passed = self._passed_checks
        for (_, shape, dtype), array, port in zip(node.outs, produced, node.layer.outputs):
            if array.shape != shape or array.dtype != dtype:
                key = (array.shape, array.dtype)
                known = passed.get(id(port))
                if known is not None and key in known:
                    continue
                _check_output(self.model, node, port, array, arguments)
                if known is None:
                    known = passed[id(port)] = set()
                if len(known) < _PASSED_PER_PORT:
                    known.add(key)

    # -- bodies -----------------------------------------------------------------------
    def _body_program(self, layer, tag: str) -> _Program:
        """The schedule of body ``tag`` of ``layer`` (built on first need, then kept)."""
        key = (id(layer), tag)
        program = self._bodies.get(key)
        if program is None:
            body = layer.bodies[tag]
            program = self._bodies[key] = self._compile_graph(body)
            if program.missing:
                self._refuse_missing(program.missing)
            _set_fast(program, lambda n: not _is_noop(n), keep=set(program.results.values()))
        return program

    def _run_body(self, layer, tag: str, feeds: dict) -> dict:
        """Run body ``tag`` of ``layer`` with its Parameters fed by body layer id; return
        every body Result's array by its body layer id (the contract of ``runs_bodies``)."""
        program = self._body_program(layer, tag)
        values = [None] * program.slot_count
        for body_id, slot in program.parameters.items():
            if body_id in feeds:
                values[slot] = feeds[body_id]
        _execute(self, program.fast, values)
        return {body_id: values[slot] for body_id, slot in program.results.items()}


def _what_runs() -> str:
    """What irrun runs, said by what it does not (a few op versions of OpenVINO's opsets), or
    by the list when that is shorter (ops unregistered, as some tests do)."""
    from irrun.op_status import op_status

    not_run = [s.label for s in op_status() if not s.runs]
    if len(not_run) > 10:
        return f"It runs {', '.join(runnable())}"
    but = f" but {', '.join(not_run)}" if not_run else ""
    return (f"It runs every op version of OpenVINO's opset1 to opset{LATEST_OPSET}{but} (see "
            "irrun.op_status.op_status()), and no custom op")  # fmt: skip


def _has_quiet(op_class) -> bool:
    """True when the op's ``evaluate_quiet`` belongs with its ``evaluate``: the class that
    defines the ``evaluate`` in use defines ``evaluate_quiet`` too (a subclass that overrides
    ``evaluate`` alone must not run its base's quiet version)."""
    for cls in op_class.__mro__:
        if "evaluate" in cls.__dict__:
            return "evaluate_quiet" in cls.__dict__
    return False


def _has_into(op_class) -> bool:
    """True when the op's ``evaluate_into`` belongs with its ``evaluate``: it is defined by the
    class that defines the ``evaluate`` in use, or by a subclass of it."""
    into = next((c for c in op_class.__mro__ if "evaluate_into" in c.__dict__), None)
    evaluate = next((c for c in op_class.__mro__ if "evaluate" in c.__dict__), None)
    return into is not None and evaluate is not None and issubclass(into, evaluate)


def _writes_fresh(op) -> bool:
    """True when the op's outputs are arrays it allocated (never its inputs nor views of
    them): ops that write their results themselves through ``evaluate_into``."""
    return op is not None and _has_into(type(op)) and getattr(op, "writes_into", True)


def _into_of(op, outs):
    """``op.evaluate_into`` when a run may call it for this node: the op's class defines it
    (with its ``evaluate``), the op writes the outputs itself (``writes_into``, default
    True) and each output has a static shape and a numeric or boolean dtype (strings and
    objects are computed and copied); else ``None``."""
    if not _writes_fresh(op):
        return None
    if not outs or any(shape is None or dtype is None or dtype.kind in "OUST"
                       for _, shape, dtype in outs):  # fmt: skip
        return None
    return op.evaluate_into


def _nbytes(shape, dtype) -> int:
    return math.prod(shape) * dtype.itemsize


class _Pool:
    """Buffers kept between runs, one per group of big intermediates whose lifetimes do not
    overlap; ``lock`` is held by the run using them."""

    def __init__(self, sizes: list):
        self.sizes = sizes
        self.buffers: list = [None] * len(sizes)
        self.lock = threading.Lock()

    @property
    def planned_bytes(self) -> int:
        return sum(self.sizes)

    @property
    def allocated_bytes(self) -> int:
        return sum(b.nbytes for b in self.buffers if b is not None)

    def allocate_all(self) -> list:
        return [self.buffer(index) for index in range(len(self.sizes))]

    def buffer(self, index: int) -> np.ndarray:
        if self.buffers[index] is None:
            self.buffers[index] = np.empty(self.sizes[index], np.uint8)
        return self.buffers[index]

    def view(self, index: int, shape, dtype) -> np.ndarray:
        """Buffer ``index`` seen as an array of ``shape`` and ``dtype``."""
        return self.buffer(index)[: _nbytes(shape, dtype)].view(dtype).reshape(shape)

    def holds(self, array) -> bool:
        """True when ``array`` may share memory with a kept buffer."""
        return isinstance(array, np.ndarray) and any(
            b is not None and np.may_share_memory(array, b) for b in self.buffers
        )


def _plan_buffers(program, keep) -> _Pool | None:
    """Decide once which layers of ``program.fast`` write in place and which write into kept
    buffers (``program.pooled``); return the pool (``None``: no layer uses one).

    In place: an element-wise layer (``in_place`` op, ``evaluate_into``) writes its output
    into an input of the same shape and dtype (a dynamic shape checked on each run) when it
    is that input's last reader and the input is owned by this run alone: produced here by
    a layer that returns fresh arrays (one with ``evaluate_into``), read before only by such
    layers (none made a view of it), neither fed, folded nor a model output (``keep``).

    Kept buffers: the outputs (static, at least :data:`REUSE_MIN_BYTES`, not model outputs)
    of layers with ``evaluate_into``, when no layer keeps arrays beyond the run (state) or
    passes them through bodies. Two outputs share a buffer when the first is dead before the
    second is written: dead after its last reader, or, when a reader may return a view of it
    (any layer without ``evaluate_into``) or wrote its output in place into it, after that
    reader's outputs are dead.
    """
    nodes = program.fast
    producer: dict[int, int] = {}
    readers: dict[int, list] = {}
    for index, node in enumerate(nodes):
        for slot in node.ins:
            readers.setdefault(slot, []).append(index)
        for slot, _, _ in node.outs:
            producer[slot] = index
    program.producer_index = producer
    fresh = [_writes_fresh(node.op) for node in nodes]
    expected = {slot: (shape, dtype) for node in nodes for slot, shape, dtype in node.outs}
    in_place: dict[int, int] = {}  # node index -> the input slot it writes into
    for index, node in enumerate(nodes):
        if not fresh[index] or not getattr(node.op, "in_place", False) or len(node.outs) != 1:
            continue
        _, shape, dtype = node.outs[0]
        if dtype is None or dtype.kind in "OUST":
            continue
        # A static shape is checked here, once; a dynamic one on each run.
        static = shape is not None
        if static and _nbytes(shape, dtype) < IN_PLACE_MIN_BYTES:
            continue
        for position, slot in enumerate(node.ins):
            source = producer.get(slot)
            if (slot in node.frees and slot not in keep and source is not None and fresh[source]
                    and expected[slot][1] == dtype
                    and (not static or expected[slot][0] == shape)
                    and all(fresh[r] for r in readers[slot] if r != index)):  # fmt: skip
                in_place[index] = slot
                into = node.op.evaluate_into
                node.evaluate = _in_place(node.evaluate, into, position, checked=static)
                break
    if any(getattr(n.op, "uses_state", False) or getattr(n.op, "runs_bodies", False)
           for n in nodes):  # fmt: skip
        return None
    # When each slot's memory is last needed (math.inf: beyond the run).
    end: dict[int, float] = {}
    for index in reversed(range(len(nodes))):
        for slot, _, _ in nodes[index].outs:
            last = float(max(readers.get(slot, [index])))
            if slot in keep:
                last = math.inf
            for reader in readers.get(slot, ()):
                if not fresh[reader] or in_place.get(reader) == slot:
                    for out_slot, _, _ in nodes[reader].outs:
                        last = max(last, end[out_slot])
            end[slot] = last
    sizes: list[int] = []
    busy: list[tuple[float, int]] = []  # (end, buffer index) of buffers in use
    idle: list[int] = []
    plans: dict[int, list] = {}  # node index -> (buffer index, shape, dtype) per output
    for index, node in enumerate(nodes):
        if node.into is None or index in in_place:
            continue
        # A model output, or what one may be a view of, would be copied out of the buffer.
        if any(end[slot] == math.inf for slot, _, _ in node.outs):
            continue
        if sum(_nbytes(shape, dtype) for _, shape, dtype in node.outs) < REUSE_MIN_BYTES:
            continue
        idle += [b for e, b in busy if e < index]
        busy = [(e, b) for e, b in busy if e >= index]
        specs = []
        for slot, shape, dtype in node.outs:
            need = _nbytes(shape, dtype)
            fits = [b for b in idle if need <= sizes[b] <= 2 * need]
            if fits:
                chosen = min(fits, key=sizes.__getitem__)
                idle.remove(chosen)
            else:
                chosen = len(sizes)
                sizes.append(need)
            busy.append((end[slot], chosen))
            specs.append((chosen, shape, dtype))
        plans[index] = specs
    if not plans:
        return None
    pool = _Pool(sizes)
    program.pooled = [
        replace(node, evaluate=_into_buffers(node.into, pool, plans[index]))
        if index in plans else node
        for index, node in enumerate(nodes)
    ]  # fmt: skip
    return pool


def _in_place(evaluate, into, position, checked):
    """A node's callable that writes its output into input ``position`` (see
    :func:`_plan_buffers`); unless the plan ``checked`` the shapes (static), it does so only
    when the inputs broadcast to that input's shape and it is big enough to be worth it."""

    def run(arguments):
        target = arguments[position]
        if not target.flags.writeable:  # (not expected: the plan picks fresh arrays)
            return evaluate(arguments)
        if not checked and (target.nbytes < IN_PLACE_MIN_BYTES
                            or not _broadcasts_to(arguments, target.shape)):  # fmt: skip
            return evaluate(arguments)
        into(arguments, [target])
        return [target]

    return run


def _broadcasts_to(arrays, shape) -> bool:
    """True when ``arrays`` broadcast (numpy rules) to exactly ``shape``."""
    if all(a.shape == shape for a in arrays):
        return True
    try:
        return np.broadcast_shapes(*(a.shape for a in arrays)) == shape
    except ValueError:
        return False  # evaluate reports it


def _into_buffers(into, pool, specs):
    """A node's callable that writes its outputs into kept buffers (views made once)."""
    views: list = []

    def run(arguments):
        if not views:
            views.extend(pool.view(*spec) for spec in specs)
        into(arguments, views)
        return views

    return run


def _writing_into(program, nodes, given, feeds) -> list:
    """``nodes`` with the layers producing the ``out=`` outputs writing into those arrays
    (single-output layers with ``evaluate_into``; an array that may overlap an input is
    filled after the run instead)."""
    nodes = list(nodes)
    done = set()
    for slot, array in given.values():
        index = program.producer_index.get(slot)
        if index is None or slot in done:
            continue
        node = nodes[index]
        if node.into is None or len(node.outs) != 1:
            continue
        if any(np.may_share_memory(array, feed) for feed in feeds.values()):
            continue
        done.add(slot)
        writer = nodes[index] = object.__new__(_Node)  # (dataclasses.replace costs 5 µs)
        writer.__dict__.update(node.__dict__, evaluate=_into_given(node.into, [array]))
    return nodes


def _into_given(into, arrays):
    def run(arguments):
        into(arguments, arrays)
        return arrays

    return run


def _fill_given(results, given) -> None:
    """Copy each output into its ``out=`` array (unless it was written there) and return
    those arrays in ``results``."""
    for name, (_, array) in (given or {}).items():
        value = results.get(name)
        if value is None:
            continue  # a partial run or a stop before it did not compute it
        if value is not array:
            if value.shape != array.shape or value.dtype != array.dtype:
                raise InputValueError(
                    f"out: output {name!r} of this run is {value.dtype}{list(value.shape)}, "
                    f"but the array given for it is {array.dtype}{list(array.shape)}"
                )
            np.copyto(array, value)
        results[name] = array


class _LiveBytes:
    """Bytes of distinct memory held by the live arrays (views counted with their base;
    memory-mapped weights and the ``excluded`` buffers not counted)."""

    def __init__(self, excluded=()):
        self.excluded = set(excluded)
        self.references: dict[int, list] = {}
        self.total = 0

    def _root(self, array):
        root = array
        while isinstance(getattr(root, "base", None), np.ndarray):
            root = root.base
        if not isinstance(root, np.ndarray) or root.base is not None:
            return None  # a view of the weights' mmap
        return None if id(root) in self.excluded else root

    def add(self, array) -> None:
        root = self._root(array)
        if root is None:
            return
        entry = self.references.setdefault(id(root), [0, root.nbytes, root])
        if entry[0] == 0:
            self.total += entry[1]
        entry[0] += 1

    def remove(self, array) -> None:
        root = self._root(array)
        entry = None if root is None else self.references.get(id(root))
        if entry is None:
            return
        entry[0] -= 1
        if entry[0] == 0:
            self.total -= entry[1]
            del self.references[id(root)]


def _is_noop(node) -> bool:
    """Parameters (fed before the run) and Results (their input is the output) do nothing."""
    return node.layer.type in ("Parameter", "Result") and not node.sink


def _expected(port) -> tuple:
    """``(static shape tuple or None, numpy dtype or None)`` a produced array is compared with
    (``None``: the slow check, for dynamic shapes and types)."""
    shape = port.inferred_shape
    static = shape.to_tuple() if shape is not None and shape.is_static else None
    etype = port.inferred_type
    dtype = None
    if etype is not None and etype.name != "dynamic":
        try:
            dtype = etype.numpy_dtype
        except (AttributeError, TypeError, ValueError):
            dtype = None
    return static, dtype


def _set_last_readers(nodes, keep) -> None:
    """Give each node the slots it is the last reader of (never those in ``keep``); outputs
    nobody reads are freed by their producer."""
    last: dict[int, int] = {}
    for index, node in enumerate(nodes):
        for slot, _, _ in node.outs:
            last.setdefault(slot, index)
        for slot in node.ins:
            last[slot] = index
    frees: dict[int, list] = {}
    for slot, index in last.items():
        if slot not in keep:
            frees.setdefault(index, []).append(slot)
    for index, node in enumerate(nodes):
        node.frees = tuple(frees.get(index, ()))


def _set_fast(program, runs, keep) -> None:
    """The fast schedule of ``program``: copies of the nodes ``runs`` selects, with their own
    last readers (never the slots in ``keep`` nor the fed ones)."""
    program.fast = [replace(node) for node in program.nodes if runs(node)]
    _set_last_readers(program.fast, set(keep) | set(program.parameters.values()))
    _skip_unread_outputs(program.fast, keep)


def _skip_unread_outputs(nodes, keep) -> None:
    """Let the nodes whose op has ``evaluate_needed(inputs, needed)`` leave out the outputs
    that nothing in ``nodes`` reads and that are not kept (``needed``: one bool per output;
    the op returns a stand-in of the right shape and type for the others). Only for a fast
    schedule: stepping runs and captures see every output."""
    read = {slot for node in nodes for slot in node.ins}
    for node in nodes:
        evaluate_needed = getattr(node.op, "evaluate_needed", None)
        if evaluate_needed is None or node.folded:
            continue
        needed = tuple(slot in read or slot in keep for slot, _, _ in node.outs)
        if not all(needed):
            node.evaluate = bind(evaluate_needed, needed=needed)


def _free(values, slots) -> None:
    for slot in slots:
        values[slot] = None


def _prefix(nodes, stop_layer):
    for index, node in enumerate(nodes):
        if node.layer is stop_layer:
            return nodes[: index + 1]
    return nodes


def _ancestors(nodes, stop_layer) -> list:
    """The nodes ``stop_layer`` depends on (itself included)."""
    producer_of = {}
    for node in nodes:
        for slot, _, _ in node.outs:
            producer_of[slot] = node
    wanted = [n for n in nodes if n.layer is stop_layer]
    seen = {id(n) for n in wanted}
    while wanted:
        node = wanted.pop()
        for slot in node.ins:
            source = producer_of.get(slot)
            if source is not None and id(source) not in seen:
                seen.add(id(source))
                wanted.append(source)
    return [n for n in nodes if id(n) in seen]


def _execute(compiled, nodes, values) -> None:
    """Run ``nodes`` over ``values``: the loop every run spends its dispatch time in."""
    node = arguments = None
    try:
        with np.errstate(all="ignore"):  # once per run (see _bind)
            for node in nodes:
                arguments = [values[slot] for slot in node.ins]
                produced = node.evaluate(arguments)
                for (slot, shape, dtype), array in zip(node.outs, produced):
                    if array.shape != shape or array.dtype != dtype:
                        compiled._check(node, produced, arguments)
                    values[slot] = array
                arguments = None  # (the inputs are freed below, not a layer later)
                for slot in node.frees:
                    values[slot] = None
    except _CheckFailed as failed:
        raise failed.error from None
    except Exception as exc:
        error = None
        if node is not None:
            error = _failure(compiled.model, node.layer, exc, node, arguments)
        if error is None:
            raise
        raise error from None


def _evaluate(compiled, node, arguments):
    try:
        with np.errstate(all="ignore"):  # (see _bind)
            return node.evaluate(arguments)
    except Exception as exc:
        error = _failure(compiled.model, node.layer, exc, node, arguments)
        if error is None:
            raise
        raise error from None


def _failure(model, layer, exc, node=None, arguments=None):
    """The error to report for ``exc`` raised by ``layer``'s kernel (``None``: re-raise it as
    it is, a bug to see with its traceback); ``node`` and its input ``arguments``, when given,
    let the shape rule say what is wrong with inputs that dynamic dims let through."""
    if isinstance(exc, IRError):
        # Keep the kernel's own class (IndexOutOfRangeError...) so callers can tell them apart.
        error_class = type(exc) if isinstance(exc, ExecutionError) else ExecutionError
        return error_class(
            f"{layer.describe()} failed: {exc.message}", file=model.file, line=layer.line
        )
    if isinstance(exc, NotImplementedError) and not str(exc):
        # A bare NotImplementedError is an abstract method reached: irrun's fault, not the
        # model's (a kernel refusing some element types always says which).
        return InternalError(
            f"{layer.describe()} reached a kernel irrun does not have (a bug in irrun: please "
            "report it)",
            file=model.file,
            line=layer.line,
        )
    if isinstance(exc, NotImplementedError):
        # A kernel that runs only some element types (Softmax on integers, Convert to string):
        # the model is valid, irrun cannot run this layer on it.
        return UnsupportedOpError(
            f"{layer.describe()} cannot run in irrun: {exc}", file=model.file, line=layer.line
        )
    if isinstance(exc, (ValueError, TypeError)):
        # Shapes that are dynamic in the file can still disagree at run time (Concat inputs
        # [?,2] and [?,3] fed [2,2] and [3,3]); the kernels say so with ValueError/TypeError,
        # the shape rule on the run's shapes says it best.
        problem = None if arguments is None else _run_time_problem(node, arguments)
        if problem is not None:
            return _run_time_error(model, layer, problem, arguments)
        return ExecutionError(
            f"{layer.describe()} failed on these inputs: {exc}", file=model.file, line=layer.line
        )
    if isinstance(exc, MemoryError):
        shapes = ", ".join(str(p.inferred_shape) for p in layer.outputs)
        return ExecutionError(
            f"{layer.describe()} needs more memory than is available for its output ({shapes})",
            file=model.file,
            line=layer.line,
        )
    return None


def _check_output(model, node, port, array, arguments) -> None:
    layer = node.layer
    inferred = port.inferred_shape
    if inferred is not None and not inferred.compatible(Shape(array.shape)):
        problem = _run_time_problem(node, arguments)
        if problem is not None:  # the inputs of this run, not irrun, are at fault
            raise _CheckFailed(_run_time_error(model, layer, problem, arguments))
        raise _CheckFailed(
            InternalError(
                f"{layer.describe()} output port {port.id} produced shape {list(array.shape)}, "
                f"but validation inferred {inferred} (a bug in irrun: please report it)",
                file=model.file,
                line=port.line,
            )
        )
    etype = port.inferred_type
    if etype is not None and etype.name != "dynamic" and array.dtype != etype.numpy_dtype:
        raise _CheckFailed(
            InternalError(
                f"{layer.describe()} output port {port.id} produced {array.dtype}, but "
                f"validation inferred {etype} (a bug in irrun: please report it)",
                file=model.file,
                line=port.line,
            )
        )


#: Input arrays of at most this many elements give their values to the re-check of shapes.
_RECHECKED_VALUES = 4096


def _run_time_problem(node, arguments) -> tuple[str, bool] | None:
    """What the layer's shape rule says is wrong with the concrete ``arguments`` of a run, and
    whether their shapes alone are (``False``: a value they hold, such as a computed size);
    ``None``: nothing, or the rule cannot tell. Validation saw dynamic dims or values it could
    not know that allow what this layer cannot take (an image too small for a convolution's
    kernel): the run's inputs, not irrun, are then at fault."""
    for with_values in (False, True):
        problem = _rule_problem(node, arguments, with_values)
        if problem is not None:
            return problem, not with_values
    return None


def _rule_problem(node, arguments, with_values: bool) -> str | None:
    """The error the layer's shape rule reports on these arrays' shapes (and small values)."""
    from irrun.element_types import from_numpy_dtype
    from irrun.ops.base import TensorInfo

    op = node.op
    if op is None:
        return None
    try:
        infos = [
            TensorInfo(
                Shape(a.shape),
                from_numpy_dtype(a.dtype),
                a if with_values and a.size <= _RECHECKED_VALUES else None,
            )
            for a in arguments
        ]
        type(op)(node.layer, OpContext()).infer(infos)  # (a plain context raises the error)
    except IRError as exc:
        return exc.message
    except Exception:  # noqa: BLE001 - the rule cannot tell: the caller reports the mismatch
        return None
    return None


def _run_time_error(model, layer, problem, arguments) -> ExecutionError:
    """The error for a layer whose shape rule refuses the inputs of this run."""
    message, by_shapes = problem
    shapes = ", ".join(str(list(a.shape)) for a in arguments)
    why = (
        "the model's dynamic dims allow them, this layer does not: feed other input shapes, "
        "e.g. with --shape NAME=DIMS"
        if by_shapes
        else "a value of this run that the layer refuses"
    )
    return ExecutionError(f"{message} (in this run: input shapes {shapes}; {why})",
                          file=model.file, line=layer.line)  # fmt: skip


def _owned_bytes(arrays) -> int:
    """Bytes of memory irrun allocated for ``arrays`` (views of the memory-mapped weights and
    views of one another counted once, or not at all)."""
    seen, total = set(), 0
    for array in arrays:
        root = array
        while isinstance(getattr(root, "base", None), np.ndarray):
            root = root.base
        if not isinstance(root, np.ndarray) or root.base is not None or id(root) in seen:
            continue  # a view of the weights' mmap (its base is the mmap), or counted already
        seen.add(id(root))
        total += root.nbytes
    return total
