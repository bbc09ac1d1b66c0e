"""Port maps of the sub-graph ops (TensorIterator-1, Loop-5, If-8), shared by their modules.

IR facts (``<port_map>``, ``<then_port_map>``, ``<else_port_map>``, ``<back_edges>``):

- ``<input external_port_id="E" internal_layer_id="P" .../>`` feeds the outer layer's input
  port ``E`` to the body Parameter layer ``P``. With an ``axis`` it is *sliced*: each
  iteration sees a ``part_size`` piece of that axis, from ``start`` to ``end`` (both
  included, negative ones counted from the end) in steps of ``stride``. An input that a
  back edge also feeds is *merged*: the first iteration sees the outer input, the next ones
  the Result at the back edge's ``from-layer``. Any other input is *invariant*.
- ``<output external_port_id="E" internal_layer_id="R" .../>`` gives the outer output port
  ``E`` the body Result ``R``: its last iteration's value, or with an ``axis`` every
  iteration's value concatenated along that axis.
- Loop's ``purpose="current_iteration"`` input (the body Parameter holding the iteration
  number; ``external_port_id="-1"``) and ``purpose="execution_condition"`` output (the body
  Result deciding whether to go on).

:func:`read_port_maps` reads them and reports what does not fit (a port the layer lacks, a
body layer that is not a Parameter or Result, an output mapped twice) as ``port-map`` errors
naming the line of the layer.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["InputMap", "OutputMap", "PortMaps", "read_port_maps", "part_count"]

PORT_MAP_CODE = "port-map"


@dataclass(frozen=True, slots=True)
class InputMap:
    """One ``<input>`` of a port map: outer input ``index`` (``None`` for a special port)
    feeds body Parameter ``body_id``; ``axis`` is set for a sliced input."""

    index: int | None
    body_id: int
    axis: int | None = None
    start: int = 0
    end: int = -1
    stride: int = 1
    part_size: int = 1
    purpose: str | None = None


@dataclass(frozen=True, slots=True)
class OutputMap:
    """One ``<output>`` of a port map: body Result ``body_id`` gives outer output ``index``
    (``None`` for a special port); ``axis`` is set for a concatenated output."""

    index: int | None
    body_id: int
    axis: int | None = None
    start: int = 0
    end: int = -1
    stride: int = 1
    part_size: int = 1
    purpose: str | None = None


@dataclass(slots=True)
class PortMaps:
    """A body's port maps: inputs, outputs, and back edges (Result id -> Parameter id)."""

    inputs: list
    outputs: list
    back_edges: dict


_INT_FIELDS = ("axis", "start", "end", "stride", "part_size")


def read_port_maps(op, map_tag: str, body_tag: str) -> PortMaps | None:
    """The port maps of ``op``'s layer for one body; ``None`` (problems reported) when they
    do not fit the layer's ports or the body's layers."""
    layer = op.layer
    body = layer.bodies.get(body_tag)
    if body is None:
        _problem(op, f"has no <{body_tag}>", f"add the <{body_tag}> sub-graph the op runs")
        return None
    entries = layer.port_maps.get(map_tag)
    if entries is None:
        _problem(op, f"has no <{map_tag}>", f"add a <{map_tag}> mapping its ports to the body")
        return None
    by_id = {b.id: b for b in body.layers}
    input_index = {port.id: i for i, port in enumerate(layer.inputs)}
    output_index = {port.id: i for i, port in enumerate(layer.outputs)}
    inputs, outputs, ok = [], [], True
    for entry in entries:
        values = {}
        for name in ("external_port_id", "internal_layer_id", *_INT_FIELDS):
            text = entry.get(name)
            if text is None:
                continue
            try:
                values[name] = int(text)
            except ValueError:
                _problem(op, f"<{map_tag}> has {name}={text!r}, which is not an integer",
                         f"write {name} as an integer")  # fmt: skip
                return None
        kind, purpose = entry.get("kind"), entry.get("purpose")
        if kind not in ("input", "output") or "internal_layer_id" not in values:
            _problem(op, f"<{map_tag}> has an entry <{kind}> without internal_layer_id",
                     "give each entry external_port_id and internal_layer_id")  # fmt: skip
            ok = False
            continue
        body_id = values["internal_layer_id"]
        wanted = "Parameter" if kind == "input" else "Result"
        target = by_id.get(body_id)
        if target is None or target.type != wanted:
            found = "no such layer" if target is None else f"it is a {target.type}"
            _problem(op, f"<{map_tag}> maps {kind} port {values.get('external_port_id')} to "
                     f"body layer {body_id}, which should be a {wanted} of its <{body_tag}> "
                     f"({found})", f"name the id of a {wanted} layer of the body")  # fmt: skip
            ok = False
            continue
        external = values.get("external_port_id", -1)
        if purpose is not None:
            index = None
        else:
            index = (input_index if kind == "input" else output_index).get(external)
            if index is None:
                ids = sorted(input_index if kind == "input" else output_index)
                _problem(op, f"<{map_tag}> maps {kind} port {external}, which the layer does "
                         f"not have (its {kind} ports are {ids})",
                         f"use one of the layer's {kind} port ids")  # fmt: skip
                ok = False
                continue
        fields = {name: values[name] for name in _INT_FIELDS if name in values}
        if fields.get("part_size", 1) < 1 or fields.get("stride", 1) == 0:
            _problem(op, f"<{map_tag}> slices {kind} port {external} with part_size "
                     f"{fields.get('part_size', 1)} and stride {fields.get('stride', 1)}",
                     "part_size must be at least 1 and stride non-zero")  # fmt: skip
            ok = False
            continue
        cls = InputMap if kind == "input" else OutputMap
        (inputs if kind == "input" else outputs).append(cls(index, body_id, purpose=purpose,
                                                            **fields))  # fmt: skip
    back_edges = {}
    for edge in layer.back_edges:
        try:
            source, target = int(edge["from-layer"]), int(edge["to-layer"])
        except (KeyError, ValueError):
            _problem(op, f"has a back edge {edge} without integer from-layer and to-layer",
                     'write <edge from-layer="RESULT_ID" to-layer="PARAMETER_ID"/>')  # fmt: skip
            ok = False
            continue
        kinds = (getattr(by_id.get(source), "type", None), getattr(by_id.get(target), "type", None))
        if kinds != ("Result", "Parameter"):
            _problem(op, f"has a back edge from body layer {source} to {target}; a back edge "
                     "goes from a body Result to a body Parameter",
                     "point from-layer at a Result and to-layer at a Parameter")  # fmt: skip
            ok = False
            continue
        back_edges[source] = target
    mapped = [m.index for m in outputs if m.index is not None]
    for index, port in enumerate(layer.outputs if ok else ()):  # one problem, one error
        count = mapped.count(index)
        if count != 1:
            how = "is not mapped to" if count == 0 else f"is mapped {count} times to"
            _problem(op, f"output port {port.id} {how} a body Result in <{map_tag}>",
                     "map each output port to exactly one Result of the body")  # fmt: skip
            ok = False
    return PortMaps(inputs, outputs, back_edges) if ok else None


def part_count(size: int, start: int, end: int, stride: int, part_size: int) -> int:
    """How many iterations a sliced input of ``size`` along its axis gives: OpenVINO counts
    ``(|end - start| + 1) // part_size`` with negative ends counted from the size."""
    start = start + size if start < 0 else start
    end = end + size if end < 0 else end
    return (abs(end - start) + 1) // part_size


def _problem(op, what: str, hint: str) -> None:
    op.context.error(PORT_MAP_CODE, f"{op.describe()} {what}", hint=hint)
    op.incomplete = True


def body_feeds(maps: PortMaps, inputs: list, sliced_shape) -> dict:
    """What each mapped body Parameter is given for inference: the outer input, or for a
    sliced input ``sliced_shape(info, input_map)``."""
    feeds = {}
    for m in maps.inputs:
        if m.index is None:
            continue
        info = inputs[m.index]
        feeds[m.body_id] = sliced_shape(info, m) if m.axis is not None else info
    return feeds


def slice_shape(info, m: InputMap):
    """A sliced input's per-iteration shape: the input's with ``part_size`` on the axis
    (a dynamic rank stays dynamic)."""
    from irrun.ops.base import TensorInfo
    from irrun.shape import Shape, static_dim

    shape = info.shape
    if not shape.rank_is_static:
        return TensorInfo(shape, info.element_type)
    dims = list(shape)
    axis = m.axis + len(dims) if m.axis < 0 else m.axis
    if not 0 <= axis < len(dims):
        return None
    dims[axis] = static_dim(m.part_size)
    return TensorInfo(Shape(dims), info.element_type, why=f"a part of {shape} along axis {axis}")


def iterate(maps: PortMaps, inputs: list, run_body, iterations: int, *,
            condition_id=None, current_iteration=None) -> dict:  # fmt: skip
    """Run a body ``iterations`` times (fewer when the body Result ``condition_id`` turns
    false; -1: until it does) and return the outer outputs by output index.

    Sliced inputs give each iteration its part (in reverse order for a negative stride),
    merged inputs start with the outer value and then take their back edge's Result,
    invariant ones stay. ``current_iteration``: ``(body Parameter id, dtype, shape)`` fed
    the iteration number. Concatenated outputs join every iteration's value along their
    axis (from the end for a negative stride); the others give the last iteration's."""
    import numpy as np

    state, slices = {}, []
    for m in maps.inputs:
        if m.index is None:
            continue
        value = inputs[m.index]
        if m.axis is None:
            state[m.body_id] = value
        else:
            slices.append((m, value, _parts(value, m)))
    into_parameter = maps.back_edges
    collected = {m.index: [] for m in maps.outputs if m.index is not None and m.axis is not None}
    last: dict = {}
    step = 0
    while iterations < 0 or step < iterations:
        for m, _, parts in slices:
            if step >= len(parts):
                break
            state[m.body_id] = parts[step]
        if current_iteration is not None:
            body_id, dtype, shape = current_iteration
            state[body_id] = np.full(shape, step, dtype=dtype)
        produced = run_body(dict(state))
        for m in maps.outputs:
            if m.index is None:
                continue
            if m.axis is not None:
                collected[m.index].append(produced[m.body_id])
            else:
                last[m.index] = produced[m.body_id]
        for result_id, parameter_id in into_parameter.items():
            state[parameter_id] = produced[result_id]
        step += 1
        if condition_id is not None and not bool(np.asarray(produced[condition_id]).reshape(-1)[0]):
            break
    outputs = dict(last)
    for m in maps.outputs:
        if m.index is None or m.axis is None:
            continue
        values = [np.atleast_1d(v) for v in collected[m.index]]
        if m.stride < 0:
            values.reverse()
        outputs[m.index] = np.concatenate(values, axis=m.axis) if values else None
    return outputs


def _parts(value, m: InputMap) -> list:
    """The per-iteration parts of a sliced input (views), in iteration order."""
    size = value.shape[m.axis]
    count = part_count(size, m.start, m.end, m.stride, m.part_size)
    start = m.start + size if m.start < 0 else m.start
    index = [slice(None)] * value.ndim
    parts = []
    for step in range(count):  # one view per iteration: the loop is over iterations only
        low = start + step * m.stride + (0 if m.stride > 0 else 1 - m.part_size)
        index[m.axis] = slice(low, low + m.part_size)
        parts.append(value[tuple(index)])
    return parts
