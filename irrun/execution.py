"""Running a model: the graph walked in topological order through the op registry.

The executor validates first and refuses a model with errors, lists every op
it cannot run before running anything, checks the inputs (no silent casting),
then evaluates each layer with its NumPy kernel, asserts each produced array
has the inferred shape and element type, and frees every intermediate after
its last consumer. Const values stay read-only views of the memory-mapped
weights.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from irrun.errors import (
    ExecutionError,
    InputValueError,
    IRError,
    UnsupportedOpError,
    ValidationFailed,
)
from irrun.ops.base import OpContext
from irrun.ops.registry import resolve

__all__ = ["run", "Step", "load_inputs", "save_npz", "portable_array", "tensor_name"]


@dataclass
class Step:
    """One executed layer: what went in, what came out, how long it took."""

    layer: object
    inputs: list
    outputs: list
    seconds: float

    def __repr__(self) -> str:
        shapes = ", ".join(f"{a.dtype}{list(a.shape)}" for a in self.outputs)
        took = f"{self.seconds * 1e3:.2f} ms"
        return f"<Step {self.layer.describe()} -> {shapes or 'nothing'} ({took})>"


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
        path of an ``.npz`` holding them (see :func:`load_inputs`).
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
    ExecutionError
        An op failed (e.g. an out-of-range index where the op leaves it undefined).
    """
    report = model.validate()
    if not report.ok:
        listing = "\n".join(f"  {d}" for d in report.errors[:20])
        more = f"\n  ... and {len(report.errors) - 20} more" if len(report.errors) > 20 else ""
        raise ValidationFailed(
            f"the model has {len(report.errors)} validation error(s); fix them before running:"
            f"\n{listing}{more}",
            report,
            file=model.file,
        )
    order = model.topological_order()
    ops = _build_ops(model, order)
    feeds = _match_inputs(model, load_inputs(inputs) if isinstance(inputs, str) else inputs)
    stop_layer = model.layer(stop_after) if stop_after is not None else None

    remaining = _consumer_counts(model, order)
    keep = {id(o.port) for o in model.outputs}
    values: dict[int, np.ndarray] = {}
    results: dict[str, np.ndarray] = {}
    for layer in order:
        arguments = []
        for port in layer.inputs:
            producer = model.producer(port)
            arguments.append(values[id(producer)] if producer is not None else feeds[id(port)])
        started = time.perf_counter()
        if layer.type == "Parameter":
            outputs = [feeds[id(layer.outputs[0])]]
        else:
            try:
                outputs = ops[layer.id].evaluate(arguments)
            except IRError as exc:
                raise ExecutionError(
                    f"{layer.describe()} failed: {exc.message}", file=model.file, line=layer.line
                ) from None
        elapsed = time.perf_counter() - started
        for port, array in zip(layer.outputs, outputs):
            _check_output(model, layer, port, array)
            values[id(port)] = array
            if capture:
                results[tensor_name(port)] = array
        if on_step is not None:
            on_step(Step(layer, arguments, list(outputs), elapsed))
        # Free what no later layer needs (model outputs are kept until the end).
        for port in layer.inputs:
            producer = model.producer(port)
            if producer is not None:
                remaining[id(producer)] -= 1
                if remaining[id(producer)] == 0 and id(producer) not in keep:
                    del values[id(producer)]
        if stop_layer is layer:
            for port in layer.outputs:
                results[tensor_name(port)] = values[id(port)]
            break
    for output in model.outputs:
        if id(output.port) in values:
            results[output.name] = values[id(output.port)]
    return results


def _build_ops(model, order):
    ops, missing = {}, {}
    for layer in order:
        if layer.type == "Parameter":
            continue
        op_class = resolve(layer.type, layer.opset) if _known(layer) else None
        if op_class is None or not op_class.can_evaluate:
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
            f"{listing}. It runs Parameter, Const, Result, Concat, Gather, GatherND and "
            "GatherElements; `irrun validate` can still check the rest",
            file=model.file,
        )
    return ops


def _known(layer) -> bool:
    return layer.version is None or layer.opset is not None


def _consumer_counts(model, order):
    counts = {}
    for layer in order:
        for port in layer.outputs:
            counts[id(port)] = len(model.consumers(port))
    return counts


def load_inputs(path: str) -> dict:
    """Read input arrays from an ``.npz`` file (never unpickling anything).

    Raises :class:`~irrun.errors.InputFileError` for an unreadable or non-npz
    file and :class:`~irrun.errors.InputValueError` for object arrays.
    """
    import zipfile

    from irrun.errors import InputFileError
    from irrun.ir.files import regular_file_size

    regular_file_size(path, "inputs")
    try:
        with np.load(path, allow_pickle=False) as archive:
            if not hasattr(archive, "files"):
                raise InputFileError(f"inputs file {path!r} is a .npy, not an .npz", file=path)
            return {key: archive[key] for key in archive.files}
    except ValueError as exc:
        raise InputValueError(
            f"inputs file {path!r} holds an object array, which irrun never unpickles ({exc})",
            file=path,
        ) from None
    except (OSError, zipfile.BadZipFile, EOFError) as exc:
        raise InputFileError(
            f"inputs file {path!r} is not a readable .npz archive: {exc}", file=path
        ) from None


def _match_inputs(model, given: dict) -> dict[int, np.ndarray]:
    """Map given arrays to input ports, checking names, shapes and dtypes."""
    feeds: dict[int, np.ndarray] = {}
    used = set()
    missing = []
    for model_input in model.inputs:
        keys = [k for k in given if k == model_input.layer.name or k in model_input.names]
        if model_input.name in given:
            keys = [model_input.name]
        if not keys:
            missing.append(model_input)
            continue
        used.add(keys[0])
        feeds[id(model_input.port)] = _check_input(model_input, keys[0], given[keys[0]])
    unknown = sorted(set(given) - used)
    if missing or unknown:
        parts = []
        if missing:
            parts.append(
                "missing: " + ", ".join(f"{i.name!r} ({i.element_type} {i.shape})" for i in missing)
            )
        if unknown:
            parts.append(f"unknown: {', '.join(map(repr, unknown))}")
        expected = ", ".join(repr(i.name) for i in model.inputs) or "none"
        raise InputValueError(
            f"the inputs do not match the model ({'; '.join(parts)}); it expects {expected}",
            file=model.file,
        )
    return feeds


def _check_input(model_input, key, array) -> np.ndarray:
    array = np.asarray(array)
    etype = model_input.element_type
    if etype is not None and etype.name != "dynamic":
        wanted = etype.numpy_dtype
        if etype.name == "bf16" and array.dtype == np.float32:
            # npz has no bfloat16: bf16 travels as float32 holding exactly representable values.
            converted = array.astype(wanted)
            if not np.array_equal(converted.astype(np.float32), array, equal_nan=True):
                raise InputValueError(
                    f"input {key!r} is bf16: its float32 values must be exactly representable "
                    "in bfloat16 (irrun never rounds silently)"
                )
            array = converted
        elif array.dtype != wanted:
            raise InputValueError(
                f"input {key!r} must be {etype} (numpy {wanted}), but the array is {array.dtype}; "
                f"convert it first, e.g. array.astype({str(wanted)!r})"
            )
    if not array.dtype.isnative:
        array = array.astype(array.dtype.newbyteorder("="))
    shape = model_input.shape
    if shape.rank_is_static and not shape.compatible(_shape_of(array)):
        raise InputValueError(
            f"input {key!r} must have shape {shape}, but the array has shape {list(array.shape)}"
        )
    return array


def _shape_of(array):
    from irrun.shape import Shape

    return Shape(array.shape)


def _check_output(model, layer, port, array) -> None:
    inferred = port.inferred_shape
    if inferred is not None and not inferred.compatible(_shape_of(array)):
        raise ExecutionError(
            f"{layer.describe()} output port {port.id} produced shape {list(array.shape)}, but "
            f"validation inferred {inferred} (a bug in irrun: please report it)",
            file=model.file,
            line=port.line,
        )
    etype = port.inferred_type
    if etype is not None and etype.name != "dynamic" and array.dtype != etype.numpy_dtype:
        raise ExecutionError(
            f"{layer.describe()} output port {port.id} produced {array.dtype}, but validation "
            f"inferred {etype} (a bug in irrun: please report it)",
            file=model.file,
            line=port.line,
        )


def portable_array(array: np.ndarray) -> np.ndarray:
    """The array as ``.npz`` can store it without pickling, converted exactly.

    bfloat16, float8 and float4 become float32; 1-, 2- and 4-bit integers become
    int8/uint8; strings become fixed-width unicode. Other arrays are returned as they are.
    """
    dtype = array.dtype
    if dtype.kind == "T":
        return array.astype(str)
    if dtype.type.__module__.startswith("ml_dtypes"):
        import ml_dtypes

        if dtype.name.startswith(("int", "uint")):
            return array.astype(np.int8 if ml_dtypes.iinfo(dtype).min < 0 else np.uint8)
        return array.astype(np.float32)
    return array


def save_npz(path: str, arrays: dict) -> None:
    """Write arrays to an ``.npz`` (see :func:`portable_array`), leaving no partial file behind.

    Raises :class:`~irrun.errors.InputFileError` when the folder is missing or not writable.
    """
    import os
    import tempfile

    from irrun.errors import InputFileError

    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise InputFileError(f"cannot write {path!r}: folder {folder!r} does not exist", file=path)
    if os.path.isdir(path):
        raise InputFileError(f"cannot write {path!r}: it is a directory", file=path)
    try:
        handle, temporary = tempfile.mkstemp(suffix=".npz", dir=folder)
    except OSError as exc:
        raise InputFileError(f"cannot write in {folder!r}: {exc.strerror}", file=path) from None
    try:
        with os.fdopen(handle, "wb") as stream:
            np.savez(stream, **{k: portable_array(v) for k, v in arrays.items()})
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise
