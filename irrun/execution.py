"""Running a model: the graph walked in topological order through the op registry.

The executor validates first and refuses a model with errors, lists every op
it cannot run before running anything, checks the inputs (no silent casting),
then evaluates each layer with its NumPy kernel, asserts each produced array
has the inferred shape and element type, and frees every intermediate after
its last consumer. Const values stay read-only views of the memory-mapped
weights.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from dataclasses import dataclass

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
from irrun.ops.base import OpContext
from irrun.ops.registry import has_kernel, resolve_layer, runnable
from irrun.shape import Shape

__all__ = ["run", "steps", "Step", "Results", "tensor_name"]


@dataclass
class Step:
    """One executed layer: what went in, what came out, how long it took.

    A step holds its input and output arrays; the executor itself has already
    dropped the ones no later layer needs, so they are freed with the step.
    """

    layer: object
    inputs: list
    outputs: list
    seconds: float

    @property
    def tensors(self) -> dict:
        """The outputs keyed by tensor name."""
        return {tensor_name(p): a for p, a in zip(self.layer.outputs, self.outputs)}

    def __repr__(self) -> str:
        shapes = ", ".join(f"{a.dtype}{list(a.shape)}" for a in self.outputs)
        took = f"{self.seconds * 1e3:.2f} ms"
        return f"<Step {self.layer.describe()} -> {shapes or 'nothing'} ({took})>"


class Results(dict):
    """The arrays :func:`run` returns, keyed by name; a dict that renders as a table in Jupyter."""

    def _repr_html_(self) -> str:
        from irrun.render.html import arrays_html

        return arrays_html(self)


def tensor_name(port) -> str:
    """A port's tensor name: its smallest tensor name, else ``<layer name>:<port id>``."""
    from irrun.ir.names import smallest_name

    if port.names:
        return smallest_name(port.names)
    return f"{port.layer.name or port.layer.id}:{port.id}"


def run(model, inputs, *, capture=False, stop_after=None, on_step=None) -> dict:
    """Run ``model`` on ``inputs`` and return its outputs.

    Parameters
    ----------
    model : irrun.Model
    inputs : dict or str
        Input arrays keyed by Parameter name or any of its tensor names, or the
        path of an ``.npz`` holding them (read by :func:`irrun.arrays.load_npz`).
    capture : bool
        Also return every intermediate tensor, keyed by tensor name.
    stop_after : str, optional
        Stop after this layer (name or id); its outputs are returned, keyed by
        tensor name, together with any model outputs already computed.
    on_step : callable, optional
        Called with a :class:`Step` after each layer (tracing, stepping).

    Returns
    -------
    dict
        Output arrays keyed by the outputs' OpenVINO names (plus every tensor
        when ``capture``).

    Raises
    ------
    ValidationFailed
        The model has validation errors (listed in the message and ``.report``).
    UnsupportedOpError
        The model has layers irrun has no kernel for (all listed).
    InputValueError
        Inputs missing, unknown, or of the wrong shape or dtype.
    WeightsError
        The weights file was truncated or rewritten since the model was loaded.
    ExecutionError
        An op failed (e.g. an out-of-range index where the op leaves it undefined).
    InternalError
        A kernel produced an array of another shape or type than validation inferred (a bug
        in irrun).
    """
    results: dict[str, np.ndarray] = {}
    # One tensor may feed several Results, each an output under its own name.
    output_names: dict[int, list[str]] = {}
    for model_output in model.outputs:
        output_names.setdefault(id(model_output.port), []).append(model_output.name)
    last = None
    for step in steps(model, inputs, stop_after=stop_after):
        for port, array in zip(step.layer.outputs, step.outputs):
            if capture:
                results[tensor_name(port)] = array
            for name in output_names.get(id(port), ()):
                results[name] = array
        if on_step is not None:
            on_step(step)
        last = step
    if stop_after is not None and last is not None:
        results.update(last.tensors)
    # Model outputs first, in model order, then the rest.
    ordered = Results((o.name, results[o.name]) for o in model.outputs if o.name in results)
    ordered.update(results)
    return ordered


def steps(model, inputs, *, stop_after=None) -> Iterator[Step]:
    """Execute ``model`` one layer at a time, yielding a :class:`Step` per layer.

    The same checks as :func:`run` happen before the first step. Intermediates
    are freed after their last consumer, so keep what you need from each step.

    Examples
    --------
    >>> import numpy as np, irrun
    >>> model = irrun.load('<layer id="1" name="cat" type="Concat" version="opset1">'
    ...     '<data axis="0"/><input><port id="0" precision="FP32"><dim>2</dim></port>'
    ...     '<port id="1" precision="FP32"><dim>3</dim></port></input>'
    ...     '<output><port id="2" precision="FP32"><dim>5</dim></port></output></layer>')
    >>> inputs = {"cat:in0": np.ones(2, np.float32), "cat:in1": np.zeros(3, np.float32)}
    >>> for step in model.steps(inputs):
    ...     print(step.layer.name, [a.tolist() for a in step.outputs])
    cat [[1.0, 1.0, 0.0, 0.0, 0.0]]
    """
    from irrun.validation import validate

    model.check_weights()
    report = validate(model)
    if not report.ok:
        listing = "\n".join(f"  {d}" for d in report.errors[:20])
        more = f"\n  ... and {len(report.errors) - 20} more" if len(report.errors) > 20 else ""
        if any(d.code == "internal" for d in report.errors):
            more += "\n(error[internal] is a bug in irrun: please report it with the model)"
        raise ValidationFailed(
            f"the model has {len(report.errors)} validation error(s); fix them before running:"
            f"\n{listing}{more}",
            report,
            file=model.file,
        )
    order = model.topological_order()
    ops = _build_ops(model, order)
    if isinstance(inputs, (str, os.PathLike)):
        inputs = load_npz(inputs)
    feeds = match_inputs(model, inputs)
    stop_layer = None
    if stop_after is not None:
        try:
            stop_layer = model.layer(stop_after)
        except KeyError as exc:
            raise InputValueError(f"--stop-after: {exc.args[0]}", file=model.file) from None

    remaining = _consumer_counts(model, order)
    values: dict[int, np.ndarray] = {}
    for layer in order:
        arguments = []
        for port in layer.inputs:
            producer = model.producer(port)
            arguments.append(values[id(producer)] if producer is not None else feeds[id(port)])
        started = time.perf_counter()
        if layer.type == "Parameter":
            outputs = [feeds[id(layer.outputs[0])]]
        else:
            outputs = _evaluate(model, layer, ops[layer.id], arguments)
        elapsed = time.perf_counter() - started
        for port, array in zip(layer.outputs, outputs):
            _check_output(model, layer, port, array)
            values[id(port)] = array
        # Free what no later layer needs before handing the step out.
        for port in layer.inputs:
            producer = model.producer(port)
            if producer is not None:
                remaining[id(producer)] -= 1
                if remaining[id(producer)] == 0:
                    del values[id(producer)]
        for port in layer.outputs:
            if remaining[id(port)] == 0:
                del values[id(port)]
        yield Step(layer, arguments, list(outputs), elapsed)
        if stop_layer is layer:
            return
        # The caller ran between two steps: the weights that Const views read must still be
        # the ones loaded (a truncated file would kill the process with SIGBUS).
        model.check_weights()


def _evaluate(model, layer, op, arguments):
    try:
        return op.evaluate(arguments)
    except IRError as exc:
        # Keep the kernel's own class (IndexOutOfRangeError...) so callers can tell them apart.
        error_class = type(exc) if isinstance(exc, ExecutionError) else ExecutionError
        raise error_class(
            f"{layer.describe()} failed: {exc.message}", file=model.file, line=layer.line
        ) from None
    except NotImplementedError as exc:
        # A kernel that runs only some element types (Softmax on integers, Convert to string):
        # the model is valid, irrun cannot run this layer on it.
        raise UnsupportedOpError(
            f"{layer.describe()} cannot run in irrun: {exc}", file=model.file, line=layer.line
        ) from None
    except (ValueError, TypeError) as exc:
        # Shapes that are dynamic in the file can still disagree at run time (Concat inputs
        # [?,2] and [?,3] fed [2,2] and [3,3]); the kernels say so with ValueError/TypeError.
        raise ExecutionError(
            f"{layer.describe()} failed on these inputs: {exc}", file=model.file, line=layer.line
        ) from None
    except MemoryError:
        shapes = ", ".join(str(p.inferred_shape) for p in layer.outputs)
        raise ExecutionError(
            f"{layer.describe()} needs more memory than is available for its output ({shapes})",
            file=model.file,
            line=layer.line,
        ) from None


def _build_ops(model, order):
    ops, missing = {}, {}
    for layer in order:
        if layer.type == "Parameter":
            continue
        op_class = resolve_layer(layer)
        if op_class is None or not has_kernel(op_class):
            missing.setdefault(f"{layer.type} ({layer.version or 'no version'})", []).append(layer)
            continue
        ops[layer.id] = op_class(layer, OpContext())
    if missing:
        listing = "; ".join(
            f"{kind}: {len(layers)} layer(s), first {layers[0].name!r} at line {layers[0].line}"
            for kind, layers in missing.items()
        )
        raise UnsupportedOpError(
            f"irrun cannot run {sum(len(v) for v in missing.values())} layer(s) of this model: "
            f"{listing}. It runs {', '.join(runnable())}; `irrun validate` can still check "
            "the rest",
            file=model.file,
        )
    return ops


def _consumer_counts(model, order):
    counts = {}
    for layer in order:
        for port in layer.outputs:
            counts[id(port)] = len(model.consumers(port))
    return counts


def _check_output(model, layer, port, array) -> None:
    inferred = port.inferred_shape
    if inferred is not None and not inferred.compatible(Shape(array.shape)):
        raise InternalError(
            f"{layer.describe()} output port {port.id} produced shape {list(array.shape)}, but "
            f"validation inferred {inferred} (a bug in irrun: please report it)",
            file=model.file,
            line=port.line,
        )
    etype = port.inferred_type
    if etype is not None and etype.name != "dynamic" and array.dtype != etype.numpy_dtype:
        raise InternalError(
            f"{layer.describe()} output port {port.id} produced {array.dtype}, but validation "
            f"inferred {etype} (a bug in irrun: please report it)",
            file=model.file,
            line=port.line,
        )
