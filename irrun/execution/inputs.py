"""Seeded random inputs of each input's element type and shape, for running without a file.

- Floating-point inputs: standard normal values (rounded to the type: f16, bf16...).
- Boolean inputs: ``True`` or ``False``, evenly.
- Integer inputs: uniform in a range. When the input (directly or through Convert, Reshape,
  Squeeze or Unsqueeze) is the indices of a Gather whose data size along the gathered axis
  is known (token ids into an embedding table), the range is ``[0, that size)`` (the smallest
  such size when it indexes several tables); otherwise :data:`DEFAULT_INTEGER_RANGE`
  (``[0, 10)``), cut to what the type holds. Sequence lengths (of LSTMSequence,
  GRUSequence, RNNSequence, ReverseSequence) over ``s`` steps are drawn from ``[1, s]``.
- String inputs: one lowercase letter each.
- Dynamic dims: from ``shapes`` (``{input name: shape}``), else the dim's lower bound when it
  is at least 1. The other dims (no lower bound: ``?`` or ``0..``) are 1 on the leading axis
  of an input of rank 2 or more (the batch), and elsewhere the smallest of
  :data:`TRIED_SIZES` for which the model's shape rules accept every input (one size for all
  of them: a converted CNN's ``[?,3,?,?]`` image gets the smallest size its kernels, strides
  and reshapes take, a transformer's ``[?,?]`` tokens a sequence of 1); never above a dim's
  upper bound. When no one size fits them all (a channel dim left open beside the image's,
  ``[?,?,?,?]``), the first gets the smallest of :data:`ONE_BY_ONE_SIZES` accepted while the
  others stay open, and the others one size as above (``[1,3,224,224]``; then the first two,
  and so on; a single open dim gets the smallest of them). When that fails too,
  :data:`DEFAULT_DIM` (1): :func:`choose_inputs` names those inputs (the command line says
  that nothing fits and asks for ``--shape``), and the run says which layer refuses it (a
  video model that takes 16 frames of 224x224 only). An input of dynamic rank
  needs its shape in ``shapes``.
"""

from __future__ import annotations

import os

import numpy as np

from irrun.errors import InputFileError, InputValueError
from irrun.text import short_text

__all__ = [
    "random_inputs",
    "choose_inputs",
    "save_inputs",
    "DEFAULT_DIM",
    "DEFAULT_INTEGER_RANGE",
    "TRIED_SIZES",
    "ONE_BY_ONE_SIZES",
]

#: The size a dynamic dim gets when neither ``shapes`` nor its lower bound says.
DEFAULT_DIM = 1
#: The sizes tried, smallest first, for dynamic dims that say nothing of their size.
#: (powers of two, then the image sizes of common vision models: 224, 240, 256, 299, 384 ...)
TRIED_SIZES = (1, 2, 4, 8, 16, 32, 64, 128, 224, 240, 256, 288, 299, 320, 384, 448, 512)
#: The sizes tried for one dim at a time, when no one size fits every open dim at once
#: (1 to 16 take channel counts: 3 for an image).
ONE_BY_ONE_SIZES = tuple(sorted(set(range(1, 17)) | set(TRIED_SIZES)))
#: ``[low, high)`` of integer inputs whose use says nothing of their range.
DEFAULT_INTEGER_RANGE = (0, 10)
#: Layers an index passes through unchanged in value.
_VALUE_PRESERVING = {"Convert", "Reshape", "Squeeze", "Unsqueeze"}


def random_inputs(model, *, seed: int = 0, shapes: dict | None = None) -> dict:
    """Seeded random arrays for every input of ``model``, keyed by input name.

    Parameters
    ----------
    model : irrun.Model
    seed : int
        The seed of :func:`numpy.random.default_rng`: the same seed gives the same arrays.
    shapes : dict, optional
        ``{input name (or any of its tensor names): shape}`` for inputs with dynamic dims.

    Returns
    -------
    dict
        ``{input name: array}``, ready for :func:`irrun.run`.

    Raises
    ------
    InputValueError
        A shape in ``shapes`` names no input or does not fit the input's partial shape, or an
        input of dynamic rank has no shape given.

    Examples
    --------
    >>> import irrun
    >>> model = irrun.load('<layer id="1" name="neg" type="Negative" version="opset1">'
    ...     '<input><port id="0" precision="I32"><dim>-1</dim><dim>3</dim></port></input>'
    ...     '<output><port id="1" precision="I32"><dim>-1</dim><dim>3</dim></port></output>'
    ...     '</layer>')
    >>> inputs = random_inputs(model, seed=1, shapes={"neg:in0": [2, 3]})
    >>> inputs["neg:in0"].shape, inputs["neg:in0"].dtype.name
    ((2, 3), 'int32')
    >>> bool((random_inputs(model, seed=1, shapes={"neg:in0": [2, 3]})["neg:in0"]
    ...       == inputs["neg:in0"]).all())
    True
    """
    return choose_inputs(model, seed=seed, shapes=shapes)[0]


def choose_inputs(model, *, seed: int = 0, shapes: dict | None = None) -> tuple[dict, list]:
    """:func:`random_inputs`, and the names of the inputs whose open dims no tried size fits
    (they got :data:`DEFAULT_DIM`, and a run will likely fail: their shapes are better given)."""
    from irrun.validation import validate

    given = _resolve_shapes(model, shapes or {})
    if any(i.port.inferred_shape is None for i in model.inputs):
        validate(model)  # the index ranges read inferred shapes
    chosen = {id(i): _shape(model, i, given.get(id(i))) for i in model.inputs}
    open_dims = {id(i): _open_dims(i) for i in model.inputs
                 if id(i) not in given and i.layer.type == "Parameter"}  # fmt: skip
    unfitted = []
    if any(open_dims.values()):
        fitted = _fitting_shapes(model, chosen, open_dims)
        if fitted is None:
            unfitted = [i.name for i in model.inputs if open_dims.get(id(i))]
        else:
            chosen = fitted
    rng = np.random.default_rng(seed)
    arrays = {}
    for model_input in model.inputs:
        etype = model_input.element_type
        arrays[model_input.name] = _draw(rng, model, model_input, etype, chosen[id(model_input)])
    return arrays, unfitted


def _open_dims(model_input) -> list[int]:
    """The axes of ``model_input`` whose size nothing says (no lower bound), but the batch."""
    partial = model_input.shape
    if not partial.rank_is_static:
        return []
    batch = 0 if partial.rank > 1 else None
    return [
        a for a, dim in enumerate(partial) if not dim.is_static and dim.lower < 1 and a != batch
    ]


def _fitting_shapes(model, chosen: dict, open_dims: dict) -> dict:
    """``chosen`` with the open dims set to the smallest of TRIED_SIZES that the model's shape
    rules accept for every input at once, else with the first ones fitted alone (``None``
    when nothing fits)."""
    by_id = {id(i): i for i in model.inputs}
    dims = [(key, axis) for key, axes in open_dims.items() for axis in axes]
    return _one_size(model, by_id, chosen, {}, dims) or _first_alone(model, by_id, chosen, dims)


def _one_size(model, by_id, chosen: dict, fixed: dict, dims: list) -> dict | None:
    """The shapes with ``fixed`` ({(input key, axis): size}) and the smallest of TRIED_SIZES
    for every dim of ``dims`` that the model accepts (``None``: no size fits)."""
    for size in TRIED_SIZES:
        shapes = _shapes(by_id, chosen, {**fixed, **{dim: size for dim in dims}})
        if _accepted(model, _feeds(by_id, shapes)):
            return shapes
    return None


def _first_alone(model, by_id, chosen: dict, dims: list) -> dict | None:
    """Fit the open dims in turn: each to the smallest of ONE_BY_ONE_SIZES accepted while the
    dims after it stay open (a channel count), then the dims after it to one size together as
    :func:`_one_size` does (the image's); ``None`` when nothing fits. A single open dim gets
    the smallest of ONE_BY_ONE_SIZES (``[1,?,224,224]``: 3)."""
    fixed: dict = {}
    for index, dim in enumerate(dims):
        rest = dims[index + 1 :]
        open_after: dict = {}  # input key -> its axes still open
        for key, axis in rest:
            open_after.setdefault(key, []).append(axis)
        for size in ONE_BY_ONE_SIZES:
            shapes = _shapes(by_id, chosen, {**fixed, dim: size}, open_after)
            if _accepted(model, _feeds(by_id, shapes)):
                fixed[dim] = size
                break
        else:
            return None
        if not rest:  # (every dim fitted: the trial just accepted is the answer)
            return shapes
        found = _one_size(model, by_id, chosen, fixed, rest)
        if found is not None:
            return found
    return None


def _shapes(by_id, chosen: dict, sizes: dict, open_after: dict | None = None) -> dict:
    """``chosen`` with ``sizes`` ({(input key, axis): size}, each within its dim's upper
    bound) and the dims of ``open_after`` ({input key: [axis, ...]}) as the inputs declare
    them (partial dims)."""
    shapes = dict(chosen)
    for (key, axis), size in sizes.items():
        dims = list(shapes[key])
        upper = by_id[key].shape[axis].upper
        dims[axis] = size if upper is None else min(size, upper)
        shapes[key] = tuple(dims)
    for key, axes in (open_after or {}).items():
        dims = list(shapes[key])
        for axis in axes:
            dims[axis] = by_id[key].shape[axis]
        shapes[key] = tuple(dims)
    return shapes


def _feeds(by_id, shapes: dict) -> dict:
    """What each Parameter is fed in a trial: layer id -> TensorInfo of the trial's dims."""
    from irrun.ops.base import DYNAMIC_TYPE, TensorInfo
    from irrun.shape import Shape

    return {by_id[key].layer.id: TensorInfo(Shape(dims), by_id[key].element_type or DYNAMIC_TYPE)
            for key, dims in shapes.items()}  # fmt: skip


def _accepted(model, feeds: dict) -> bool:
    """True when shape inference over ``model`` with its Parameters fed ``feeds`` (layer id ->
    TensorInfo) finds no error; the model's own inferred shapes are left as they were."""
    from irrun.validation.emitter import Emitter
    from irrun.validation.inference import infer_graph

    saved = [(port, port.inferred_shape, port.inferred_type) for port in _output_ports(model)]
    emit = Emitter(model.file)
    try:
        infer_graph(model, emit, feeds=feeds)
    finally:
        for port, shape, etype in saved:
            port.inferred_shape, port.inferred_type = shape, etype
    return not any(d.severity == "error" for d in emit.diagnostics)


def _output_ports(graph):
    """Every output port of ``graph`` and of its layers' bodies (inference writes them)."""
    for layer in graph.layers:
        yield from layer.outputs
        for body in (layer.bodies or {}).values():
            yield from _output_ports(body)


def save_inputs(path, inputs: dict) -> None:
    """Write ``inputs`` to the ``.npz`` at ``path``, refusing to replace an existing file."""
    from irrun.arrays import save_npz

    if os.path.lexists(path):
        raise InputFileError(
            f"{os.fspath(path)!r} exists; the inputs are written only to a new file: choose "
            "another name or remove it first",
            file=os.fspath(path),
        )
    save_npz(path, inputs)


def _resolve_shapes(model, shapes: dict) -> dict:
    resolved = {}
    for name, shape in shapes.items():
        try:
            model_input = model.input(name)
        except KeyError as exc:
            raise InputValueError(f"--shape {short_text(name)}: {exc.args[0]}",
                                  file=model.file) from None  # fmt: skip
        try:
            dims = tuple(int(size) for size in shape)
        except (TypeError, ValueError):
            raise InputValueError(
                f"--shape {short_text(name)}: {shape!r} is not a list of sizes (write it as "
                "1,3,224,224)",
                file=model.file,
            ) from None
        if any(size < 0 for size in dims):
            raise InputValueError(f"--shape {short_text(name)}: sizes cannot be negative "
                                  f"({list(dims)})", file=model.file)  # fmt: skip
        resolved[id(model_input)] = dims
    return resolved


def _shape(model, model_input, given) -> tuple:
    from irrun.shape import Shape

    partial = model_input.shape
    if given is not None:
        if partial.rank_is_static and not partial.compatible(Shape(given)):
            raise InputValueError(
                f"--shape {short_text(model_input.name)}={','.join(map(str, given))} does not "
                f"fit the input's shape {partial}",
                file=model.file,
            )
        return given
    if not partial.rank_is_static:
        raise InputValueError(
            f"input {short_text(model_input.name)!r} has a dynamic rank: give its shape, e.g. "
            f"--shape {model_input.name}=1,3,224,224 (shapes={{{model_input.name!r}: [...]}})",
            file=model.file,
        )
    sizes = []
    for dim in partial:
        if dim.is_static:
            sizes.append(dim.lower)
        else:
            size = dim.lower if dim.lower >= 1 else DEFAULT_DIM
            sizes.append(size if dim.upper is None else min(size, dim.upper))
    return tuple(sizes)


def _draw(rng, model, model_input, etype, shape) -> np.ndarray:
    if etype is None or etype.name == "dynamic":
        return rng.standard_normal(shape, dtype=np.float32)
    dtype = etype.numpy_dtype
    if etype.kind == "float":
        return rng.standard_normal(shape).astype(dtype)
    if etype.kind == "bool":
        return rng.integers(0, 2, shape).astype(bool)
    if etype.kind == "string":
        letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
        return letters[rng.integers(0, 26, shape)].astype(dtype)
    low, high = _index_range(model, model_input.port) or DEFAULT_INTEGER_RANGE
    info = np.iinfo(dtype) if np.issubdtype(dtype, np.integer) else None
    if info is not None:
        low, high = max(low, int(info.min)), min(high, int(info.max) + 1)
    if etype.bits < 8:  # u4, i4, u1...: what the packed type holds
        top = 1 << etype.bits
        low, high = (
            (max(low, -top // 2), min(high, top // 2))
            if etype.kind == "int"
            else (max(low, 0), min(high, top))
        )
    return rng.integers(low, max(high, low + 1), shape).astype(dtype)


def _index_range(model, port) -> tuple | None:
    """``(0, n)`` when the tensor of ``port`` indexes a Gather's data of ``n`` rows along its
    axis (through value-preserving layers), the smallest such ``n``; else ``(1, s + 1)`` when
    it is the sequence lengths of a recurrent sequence op or ReverseSequence over ``s``
    steps, the smallest such ``s``; else ``None``."""
    sizes, lengths = [], []
    pending, seen = [port], set()
    while pending:
        output = pending.pop()
        if id(output) in seen:
            continue
        seen.add(id(output))
        for consumer in model.consumers(output):
            layer = consumer.layer
            if layer.type in _VALUE_PRESERVING and layer.inputs and layer.inputs[0] is consumer:
                pending.extend(layer.outputs)
            elif layer.type == "Gather" and len(layer.inputs) >= 2 and layer.inputs[1] is consumer:
                size = _gathered_size(model, layer)
                if size is not None:
                    sizes.append(size)
            else:
                steps = _sequence_length_bound(model, layer, consumer)
                if steps is not None:
                    lengths.append(steps)
    if sizes:
        return (0, min(sizes))
    return (1, min(lengths) + 1) if lengths else None


#: Sequence length inputs: op type -> (its input index, the input whose dim bounds it and
#: that dim's index, or None: the op's ``seq_axis`` attribute).
_LENGTHS = {
    "LSTMSequence": (3, 0, 1),
    "GRUSequence": (2, 0, 1),
    "RNNSequence": (2, 0, 1),
    "ReverseSequence": (1, 0, None),
}


def _sequence_length_bound(model, layer, consumer) -> int | None:
    """The number of steps a sequence length fed to ``consumer`` may reach (the sequence
    dim of the data it measures, when static and at least 1), or ``None``."""
    entry = _LENGTHS.get(layer.type)
    if entry is None or len(layer.inputs) <= entry[0] or layer.inputs[entry[0]] is not consumer:
        return None
    _, data_input, axis = entry
    if axis is None:
        try:
            axis = int(layer.attributes.get("seq_axis", "1"))
        except ValueError:
            return None
    return _static_size(model, layer.inputs[data_input], axis)


def _static_size(model, port, axis: int) -> int | None:
    """The inferred size of the tensor feeding ``port`` along ``axis``, when static and at
    least 1; else ``None``."""
    data = model.producer(port)
    shape = data.inferred_shape if data is not None else None
    if shape is None or not shape.rank_is_static:
        return None
    rank = shape.rank
    if not -rank <= axis < rank:
        return None
    dim = shape[axis]
    return dim.lower if dim.is_static and dim.lower > 0 else None


def _gathered_size(model, layer) -> int | None:
    axis = 0
    if len(layer.inputs) >= 3:
        source = model.producer(layer.inputs[2])
        if source is None or source.layer.type != "Const":
            return None
        try:
            axis = int(np.asarray(model.constant(source.layer)).reshape(-1)[0])
        except Exception:  # noqa: BLE001 - an unreadable axis says nothing of the range
            return None
    return _static_size(model, layer.inputs[0], axis)
