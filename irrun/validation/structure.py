"""Structural checks that hold for every layer type, known or not."""

from __future__ import annotations

from irrun.graph_order import find_cycle
from irrun.text import short_text

__all__ = ["check_structure"]


def check_structure(graph, emit, *, is_fragment: bool, is_body: bool = False) -> None:
    """Report duplicate ids, bad edges, unfed or over-fed inputs, cycles and missing Results.

    ``emit(code, message, layer=None, line=None, port=None, hint=None)`` records a diagnostic.
    """
    layers = graph.layers
    first_seen: dict[int, object] = graph._by_id  # the first layer of each id, as indexed
    unique = len(first_seen) == len(layers)  # (the usual case: no id to look up per layer)
    if not unique:
        first_seen = {}
    input_ports, repeated_port_ids = 0, False
    for layer in layers:
        if not unique:
            if layer.id in first_seen:
                emit(
                    "duplicate-layer-id",
                    f"layer id {layer.id} ({layer.name!r}) is already used by "
                    f"{first_seen[layer.id].describe()} at line {first_seen[layer.id].line}",
                    layer=layer,
                    hint="give every layer a unique id (and update the edges that refer to it)",
                )
                continue
            first_seen[layer.id] = layer
        inputs, outputs = layer.inputs, layer.outputs
        input_ports += len(inputs)
        if len(inputs) < 2 and len(outputs) < 2:
            continue
        for direction, ports in (("input", inputs), ("output", outputs)):
            count = len(ports)
            if count < 2:
                continue
            if count == 2:  # the common case, without building a set
                if ports[0].id != ports[1].id:
                    continue
            elif len({port.id for port in ports}) == count:
                continue
            repeated_port_ids = True
            seen: dict[int, object] = {}
            for port in ports:
                if port.id in seen:
                    emit(
                        "duplicate-port-id",
                        f"{layer.describe()} has two {direction} ports with id {port.id} "
                        f"(lines {seen[port.id].line} and {port.line})",
                        layer=layer,
                        line=port.line,
                        hint="number inputs 0..n-1 and outputs after them",
                    )
                seen.setdefault(port.id, port)

    # Edges the graph index accepted (existing ports, first edge into each input) need no
    # further check; only the others are examined, and only they build messages.
    # (Every edge indexed, the usual case: nothing to examine.)
    unindexed = graph.edges if len(graph._producers) != len(graph.edges) else ()
    indexed = {id(entry[0]) for entry in graph._producers.values()} if unindexed else set()
    extra: dict[tuple[int, int], list] = {}
    for edge in unindexed:
        if id(edge) in indexed:
            continue
        source = first_seen.get(edge.from_layer)
        target = first_seen.get(edge.to_layer)
        where = f"edge {edge.from_layer}:{edge.from_port} -> {edge.to_layer}:{edge.to_port}"
        missing = [lid for lid, layer in ((edge.from_layer, source), (edge.to_layer, target))
                   if layer is None]  # fmt: skip
        if missing:
            emit(
                "edge-endpoint",
                f"{where} names layer {', '.join(map(str, missing))}, which does not exist",
                line=edge.line,
                hint="point the edge at an existing layer id, or delete it",
            )
            continue
        if source.output_port(edge.from_port) is None:
            emit("edge-port", _port_problem(where, source, edge.from_port, "output", "from-port"),
                 line=edge.line, hint=_port_hint(source, "output"))  # fmt: skip
            continue
        if target.input_port(edge.to_port) is None:
            emit("edge-port", _port_problem(where, target, edge.to_port, "input", "to-port"),
                 line=edge.line, hint=_port_hint(target, "input"))  # fmt: skip
            continue
        extra.setdefault((edge.to_layer, edge.to_port), []).append(edge)

    for (layer_id, port_id), later in extra.items():
        edges = [graph._producers[(layer_id, port_id)][0], *later]
        if len(edges) > 1:
            sources = ", ".join(f"{e.from_layer}:{e.from_port} (line {e.line})" for e in edges)
            layer = first_seen[layer_id]
            emit(
                "multiple-producers",
                f"{layer.describe()} input port {port_id} is fed by {len(edges)} edges: {sources}",
                layer=layer,
                line=edges[1].line,
                hint="an input port takes exactly one edge; delete the extra ones",
            )

    producers = graph._producers
    # Without repeated port ids, each input port has at most one producer entry: as many
    # entries as input ports means every input is fed (the usual case, checked at once).
    unfed_possible = not is_fragment and (repeated_port_ids or len(producers) != input_ports)
    whole_graph = not is_fragment and not is_body  # (unused Parameters, no Result)
    has_result = False
    if unfed_possible or whole_graph:
        for layer in first_seen.values():
            for port in layer.inputs if unfed_possible else ():
                if (layer.id, port.id) not in producers:
                    emit(
                        "unconnected-input",
                        f"{layer.describe()} input port {port.id} has no edge feeding it",
                        layer=layer,
                        line=port.line,
                        hint="add an <edge> to this port, or remove the port",
                    )
            layer_type = layer.type
            if layer_type == "Result":
                has_result = True
            elif layer_type == "Parameter" and whole_graph:
                if not any(graph.consumers(port) for port in layer.outputs):
                    emit(
                        "unused-parameter",
                        f"{layer.describe()} feeds nothing; OpenVINO drops layers that no "
                        "Result depends on, so this input disappears",
                        layer=layer,
                    )
        if not unique:  # a Result among the layers of a repeated id counts too
            has_result = any(x.type == "Result" for x in layers)

    cycle = find_cycle(graph) if len(graph.acyclic_order()) != len(graph._by_id) else []
    if cycle:
        path = " -> ".join(f"{i} {first_seen[i].name!r}" for i in cycle)
        emit(
            "cycle",
            f"the layers form a cycle: {path}; IR graphs must be acyclic (loops belong in a "
            "Loop or TensorIterator body)",
            layer=first_seen[cycle[0]],
        )

    if getattr(graph, "ir_version", None) == 10:
        _check_v10_name_collisions(graph, emit)

    if whole_graph and not has_result:
        emit(
            "no-result",
            "the model has no Result layer, so OpenVINO would give it no outputs (and drop "
            "every layer)",
            hint="add a Result layer fed by the tensor you want out",
        )


#: The diagnostic code of a v10 layer named like another layer's tensor (see below).
NAME_COLLISION = "name-collision"


def _check_v10_name_collisions(graph, emit) -> None:
    """IR v10: OpenVINO's ``read_model`` refuses a model where a layer (other than a Result) is
    named like a tensor of another layer ("Model operation names have collisions with tensor
    names"); v11 allows it. A layer's own tensor may carry its name."""
    owners: dict[str, list] = {}
    for layer in graph.layers:
        for port in layer.outputs:
            for name in port.names:
                owners.setdefault(name, []).append(layer)
    if not owners:
        return
    for layer in graph.layers:
        if layer.type == "Result" or not layer.name:
            continue
        others = [owner for owner in owners.get(layer.name, ()) if owner is not layer]
        if others:
            emit(
                NAME_COLLISION,
                f"{layer.describe()} is named like the tensor {short_text(layer.name)!r} of "
                f"{others[0].describe()} (line {others[0].line}); OpenVINO refuses this in IR "
                'v10 ("Model operation names have collisions with tensor names")',
                layer=layer,
                hint="rename the layer or the tensor, or convert the model again with ovc to get "
                "IR v11, where this is allowed",
            )


def _port_problem(where, layer, port_id, direction, attribute) -> str:
    other = layer.input_port(port_id) if direction == "output" else layer.output_port(port_id)
    extra = ""
    if other is not None:
        extra = f" (port {port_id} is one of its {other.direction} ports)"
    ids = [p.id for p in (layer.outputs if direction == "output" else layer.inputs)]
    return (
        f"{where}: {attribute} {port_id} is not an {direction} port of {layer.describe()}{extra}; "
        f"its {direction} ports are {ids or 'none'}"
    )


def _port_hint(layer, direction) -> str:
    return f"use one of {layer.describe()}'s {direction} port ids"
