"""What a picture of a model's graph shows, before any engine draws it: a box per layer (its
name, op and output shapes, coloured by its problems), an edge per connection (labelled with
the dims it carries), and ranks by topological generation, each ordered to cut crossings.

:func:`scene` builds it for :func:`irrun.render.draw.draw` (DOT, Graphviz, matplotlib) and for
:func:`irrun.render.graph_page.graph_page` (the interactive page) alike.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from irrun.text import short_text

__all__ = ["scene", "problems", "op_label", "ERROR_FILL", "WARNING_FILL"]

#: Fill and border of a layer with an error, and of one with only warnings.
ERROR_FILL, ERROR_BORDER = "#ef9a9a", "#c62828"
WARNING_FILL, WARNING_BORDER = "#ffcc80", "#ef6c00"
_ROLE_FILLS = {"Parameter": "#e3f2fd", "Result": "#e8f5e9", "Const": "#eeeeee"}
_PLAIN_FILL, PLAIN_BORDER, _OPEN_END_FILL = "#ffffff", "#455a64", "#f5f5f5"
_NAME_LIMIT = 48  # characters of a name shown in a box; longer names are shortened


@dataclass
class Node:
    """One box of the picture: a layer, or an open input/output of a fragment."""

    key: str  # DOT node id: L<layer id>, in<n>, out<n>
    title: str  # first line (the name); shown as written, escaped only when rendered
    lines: list[str]  # op, output types and shapes, problem codes
    fill: str = _PLAIN_FILL
    border: str = PLAIN_BORDER
    open_end: bool = False  # a fragment's unconnected port rather than a layer
    center: bool = False  # the layer an around= view is centred on
    cut: bool = False  # has neighbours outside an around= view
    tooltip: list[str] = field(default_factory=list)
    role: str = ""  # the layer's type, "open" for a fragment's open port
    order: int = 0  # document order, to break ties
    generation: int = 0
    slot: float = 0.0  # horizontal position within the generation


@dataclass
class Edge:
    tail: str
    head: str
    label: str
    tail_slot: float = 0.5  # where along the tail's box the edge leaves it (its output port)
    head_slot: float = 0.5  # where along the head's box it enters (its input port)


@dataclass
class Scene:
    title: str
    nodes: dict[str, Node]
    edges: list[Edge]
    generations: list[list[str]]  # node keys, top to bottom, each in left-to-right order


# -- what to draw ------------------------------------------------------------------------------
_NAMED_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(char: str) -> str:
    if char.isprintable():
        return char
    code = ord(char)
    return _NAMED_ESCAPES.get(char) or (f"\\x{code:02x}" if code < 256 else f"\\u{code:04x}")


def visible(text: str) -> str:
    """``text`` with control and other unprintable characters shown as escapes (``\\n``)."""
    return text if text.isprintable() else "".join(map(_escape, text))


def _shown(text: str) -> str:
    return short_text(visible(text), _NAME_LIMIT)


def op_label(layer) -> str:
    from irrun.ops.registry import resolve_layer

    op_class = resolve_layer(layer)
    if op_class is not None:  # the type as the IR spells it (Const), the version irrun resolved
        return f"{_shown(layer.type)}-{op_class.version}"
    return _shown(f"{layer.type} {layer.version}" if layer.version else layer.type)


def _typed_shape(element_type, shape) -> str:
    """``f32 [2,?]``; just the shape when the element type is unknown."""
    known = element_type is not None and element_type.name != "dynamic"
    return f"{element_type} {shape}" if known else str(shape)


def _port_text(port) -> str:
    return _typed_shape(port.inferred_type or port.element_type, port.shape)


def problems(report) -> tuple[dict, list]:
    """Diagnostics of each layer id, and those of no layer."""
    by_layer: dict[int, list] = {}
    unplaced = []
    for diagnostic in report or ():
        if diagnostic.layer_id is None:
            unplaced.append(diagnostic)
        else:
            by_layer.setdefault(diagnostic.layer_id, []).append(diagnostic)
    return by_layer, unplaced


def _layer_node(layer, order, diagnostics) -> Node:
    lines = [op_label(layer)]
    several = len(layer.outputs) > 1
    lines += [f"{p.id}: {_port_text(p)}" if several else _port_text(p) for p in layer.outputs]
    node = Node(
        key=f"L{layer.id}",
        title=_shown(layer.name) if layer.name else f"layer {layer.id}",
        lines=lines,
        fill=_ROLE_FILLS.get(layer.type, _PLAIN_FILL),
        tooltip=[layer.describe()],
        role=layer.type,
        order=order,
    )
    if diagnostics:
        worst = "error" if any(d.severity == "error" for d in diagnostics) else "warning"
        node.fill, node.border = (
            (ERROR_FILL, ERROR_BORDER) if worst == "error" else (WARNING_FILL, WARNING_BORDER)
        )
        codes = list(dict.fromkeys(d.code for d in diagnostics))
        more = f" +{len(codes) - 3}" if len(codes) > 3 else ""
        node.lines.append(f"{worst}: {', '.join(codes[:3])}{more}")
        node.tooltip += [f"{d.severity}[{d.code}]: {short_text(d.message, 300)}"
                         for d in diagnostics[:5]]  # fmt: skip
    return node


def scene(model, report, around, radius) -> Scene:
    import networkx as nx

    by_layer, unplaced = problems(report)
    graph = nx.MultiDiGraph()
    nodes: dict[str, Node] = {}
    position = {id(layer): index for index, layer in enumerate(model.layers)}
    layers = dict(model.graph.nodes(data="layer"))
    for layer_id, layer in layers.items():
        node = _layer_node(layer, 2 * position[id(layer)] + 1, by_layer.get(layer_id, ()))
        nodes[node.key] = node
        graph.add_node(node.key)
    edges = []
    for tail, head, (from_port, to_port) in model.graph.edges(keys=True):
        port = layers[tail].output_port(from_port)
        target = layers[head].input_port(to_port)
        edges.append(
            Edge(f"L{tail}", f"L{head}", str(port.shape) if port else "",
                  _slot(port, layers[tail].outputs), _slot(target, layers[head].inputs))
        )  # fmt: skip
    # A fragment's inputs are unconnected input ports, its outputs unconsumed output ports.
    for index, model_input in enumerate(model.inputs):
        port = model_input.port
        if port.direction == "input" and f"L{port.layer.id}" in nodes:
            node = _open_end(f"in{index}", model_input, 2 * position[id(port.layer)])
            nodes[node.key] = node
            edges.append(Edge(node.key, f"L{port.layer.id}", str(model_input.shape),
                               head_slot=_slot(port, port.layer.inputs)))  # fmt: skip
    for index, model_output in enumerate(model.outputs):
        port = model_output.port
        if model_output.layer is port.layer and f"L{port.layer.id}" in nodes:
            node = _open_end(f"out{index}", model_output, 2 * position[id(port.layer)] + 1)
            nodes[node.key] = node
            edges.append(Edge(f"L{port.layer.id}", node.key, str(model_output.shape),
                               tail_slot=_slot(port, port.layer.outputs)))  # fmt: skip
    graph.add_nodes_from(nodes)
    graph.add_edges_from((edge.tail, edge.head) for edge in edges)

    if around is not None:
        center = f"L{model.layer(around).id}"
        kept = set(nx.ego_graph(graph.to_undirected(as_view=True), center, radius=radius))
        for key in kept:
            nodes[key].cut = any(other not in kept for other in nx.all_neighbors(graph, key))
        nodes[center].center = True
        nodes = {key: node for key, node in nodes.items() if key in kept}
        edges = [edge for edge in edges if edge.tail in kept and edge.head in kept]
        graph = graph.subgraph(kept)

    kind = "fragment" if model.is_fragment else f"IR v{model.ir_version}"
    title = f"{_shown(model.name or os.path.basename(str(model.file)))} ({kind})"
    if around is not None:
        title += f", around {nodes[center].title} (radius {radius})"
    if report is not None:
        title += f": {report.summary()}"
        if unplaced:
            title += f"; not on a layer: {', '.join(dict.fromkeys(d.code for d in unplaced))}"
    generations = _ordered_generations(graph, nodes)
    return Scene(title, nodes, edges, generations)


def _slot(port, ports) -> float:
    """Where a port sits along its layer's box: its ports spread evenly, left to right."""
    return 0.5 if port is None else (port.index + 0.5) / len(ports)


def _open_end(key, end, order) -> Node:
    return Node(
        key=key,
        title=_shown(end.name),
        lines=[_typed_shape(end.element_type, end.shape)],
        fill=_OPEN_END_FILL,
        open_end=True,
        role="open",
        tooltip=[f"{'input' if key.startswith('in') else 'output'} {visible(end.name)}"],
        order=order,
    )


def _ordered_generations(graph, nodes) -> list[list[str]]:
    """Topological generations (a cycle's layers share one), each ordered to cut crossings."""
    import networkx as nx

    acyclic = nx.is_directed_acyclic_graph(graph)
    if acyclic:
        generations = [list(g) for g in nx.topological_generations(graph)]
    else:  # an invalid model can have cycles: treat each strongly connected part as one
        condensed = nx.condensation(graph)
        generations = [
            [key for part in g for key in condensed.nodes[part]["members"]]
            for g in nx.topological_generations(condensed)
        ]
    # Sources (Consts, Parameters) go just above their first consumer rather than all at the
    # top: in a real model that keeps weight edges one rank long instead of crossing the page.
    # So do the layers that only constants feed (a compressed weight's Convert, a shape
    # computed from constants): they belong beside their consumer, not in the first rows.
    level = {key: index for index, generation in enumerate(generations) for key in generation}
    constant = {}
    if acyclic:
        for generation in generations:
            for key in generation:
                producers = list(graph.predecessors(key))
                constant[key] = (all(constant[p] for p in producers) if producers
                                 else nodes[key].role not in ("Parameter", "open"))  # fmt: skip
    for generation in reversed(generations):  # consumers first: they may have moved
        for key in generation:
            movable = graph.in_degree(key) == 0 or constant.get(key, False)
            if movable and graph.out_degree(key) > 0:
                level[key] = min(level[successor] for successor in graph.successors(key)) - 1
    used = sorted(set(level.values()))  # leave no row empty
    row = {index: position for position, index in enumerate(used)}
    generations = [[] for _ in used]
    for key, index in level.items():
        generations[row[index]].append(key)
    for index, generation in enumerate(generations):
        generation.sort(key=lambda key: nodes[key].order)
        for slot, key in enumerate(generation):
            nodes[key].generation = index
            nodes[key].slot = slot - (len(generation) - 1) / 2

    # Barycentre ordering: down, up, down; each box moves towards the mean of its neighbours.
    def reorder(generation, neighbours):
        def mean(key):
            own = nodes[key].generation
            slots = [nodes[other].slot for other in neighbours(key)
                     if other in nodes and nodes[other].generation != own]  # fmt: skip
            return sum(slots) / len(slots) if slots else nodes[key].slot

        generation.sort(key=lambda key: (mean(key), nodes[key].order))
        for slot, key in enumerate(generation):
            nodes[key].slot = slot - (len(generation) - 1) / 2

    down, up = generations[1:], generations[-2::-1]
    for sweep, neighbours in ((down, graph.predecessors), (up, graph.successors),
                              (down, graph.predecessors)):  # fmt: skip
        for generation in sweep:
            reorder(generation, neighbours)
    return generations
