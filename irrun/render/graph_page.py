"""The interactive graph page: one self-contained HTML file to explore a model in a browser.

:func:`graph_page` lays the graph out in Python (:func:`irrun.render.layout.layered_layout`,
ranks by topological generation as in :func:`irrun.render.draw.draw`) and writes a page that
carries the layout and every layer's details as JSON, with its script and style sheet inline:
it needs no network and no server. In the browser the graph can be panned (drag) and zoomed
(wheel, ``+``/``-``, ``0`` to fit), layers found by name or type, and a clicked layer's
attributes, ports (declared and inferred shapes and types, producers and consumers) and
diagnostics read in the side panel; layers with errors are red, with warnings orange.

The bodies of sub-graph ops (TensorIterator, Loop, If) are laid out too, each as a view of
its own in ``views`` (nested bodies included): a layer's panel links to its bodies, the page
shows one view at a time (``#b2`` in the address opens view 2, ``#b2:L5`` its layer 5) and a
trail in the header leads back to the model.
"""

from __future__ import annotations

import html
import json
import os
from importlib import resources

from irrun.progress import stage
from irrun.render.scene import op_label, problems, scene
from irrun.text import short_text

__all__ = ["graph_page", "page_data"]

_TITLE_CHAR = 7.6  # px per character of a box's bold 12 px title (a generous estimate;
_LINE_CHAR = 6.7  # the page squeezes a text that turns out wider than its box)
_PADDING, _TITLE_HEIGHT, _LINE_HEIGHT = 20.0, 17.0, 14.0
_MIN_WIDTH, _MAX_WIDTH = 90.0, 420.0
_MESSAGE_LIMIT = 2000  # characters of a diagnostic message kept in the page


def graph_page(model, report=None, *, around=None, radius=2, progress=None) -> str:
    """The interactive HTML page of ``model``'s graph, as text.

    Parameters
    ----------
    model : irrun.Model
        The model to show.
    report : irrun.Report, optional
        Its validation report: boxes then show inferred shapes, layers with problems are
        highlighted and the panel lists their diagnostics.
    around : str or int, optional
        Show only the layers within ``radius`` edges of this layer (name or id).
    radius : int
        How far ``around`` reaches.
    progress : callable, optional
        A progress callback ``progress(stage, done, total)`` (see :mod:`irrun.progress`):
        the stages ``"laying out"`` and ``"drawing"`` are reported as they begin and end.

    Returns
    -------
    str
        A complete HTML document; its script, style sheet and data are inline.

    Examples
    --------
    >>> import irrun
    >>> model = irrun.load("examples/ir/tiny.xml")  # doctest: +SKIP
    >>> page = graph_page(model, model.validate())  # doctest: +SKIP
    >>> page.startswith("<!DOCTYPE html>")  # doctest: +SKIP
    True
    """
    with stage("laying out", progress):
        data = page_data(model, report, around=around, radius=radius)
    with stage("drawing", progress):
        return _page(data)


def _page(data) -> str:
    # "<" as \u003c: no text inside the JSON can close the script element or open a comment.
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")
    assets = resources.files("irrun.render")
    script = assets.joinpath("graph_page.js").read_text(encoding="utf-8")
    style = assets.joinpath("graph_page.css").read_text(encoding="utf-8")
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(data['title'])}</title>\n<style>\n{style}</style>\n</head>\n"
        "<body>\n"
        f'<script type="application/json" id="graph-data">{payload}</script>\n'
        f"<script>\n{script}</script>\n</body>\n</html>\n"
    )


def page_data(model, report=None, *, around=None, radius=2) -> dict:
    """What the page shows, as plain data: the laid-out boxes and edges, each layer's details,
    and the diagnostics (see :func:`graph_page` for the parameters).

    The model's own graph is at the top level; ``views`` lists the bodies of its sub-graph
    ops, depth first, each a dict of the same keys plus ``label`` (which layer's which body)
    and ``parent`` (the view it is in: 0 for the model, else its 1-based number in
    ``views``). A layer's ``bodies`` are ``[tag, layer count, view number]``.
    """
    data = _view_data(model, report, around, radius)
    views: list[dict] = []
    _add_body_views(model, data, 0, report is not None, views)
    data["views"] = views
    return data


class _Body:
    """A body of a sub-graph op seen as a graph of its own: its layers and edges, its
    Parameters and Results as boxes (no open ends), the file of the model it is in."""

    inputs = outputs = ()
    is_fragment = False

    def __init__(self, body, model, name):
        self._body = body
        self.layers, self.graph = body.layers, body.graph
        self.name, self.file, self.ir_version = name, model.file, model.ir_version

    def layer(self, key):
        return self._body.layer(key)

    def producer(self, port):
        return self._body.producer(port)

    def consumers(self, port):
        return self._body.consumers(port)


def _add_body_views(model, data, number, validated, views) -> None:
    """Append to ``views`` a view of each body of each sub-graph layer shown in ``data`` (view
    ``number``), and of theirs in turn, and give each such layer the numbers of its views."""
    done = set()
    for box in data["nodes"]:
        details = box.get("layer")
        if details is None or not details["bodies"] or id(details) in done:
            continue
        done.add(id(details))
        layer = model.layer(details["id"])
        for entry in details["bodies"]:
            tag = entry[0]
            title = f"{layer.name or f'layer {layer.id}'} · {tag}"
            body = _Body(layer.bodies[tag], model, title)
            view = _view_data(body, None, None, 0)
            # Problems inside a body are reported on its layer (in the view above), with the
            # body named in the message; this view shows the shapes validation inferred.
            view.update(validated=validated, parent=number,
                        label=f"{layer.type} {layer.name or layer.id!r} · {tag}")  # fmt: skip
            view["kind"] = f"{tag} of {layer.describe()}"
            views.append(view)
            entry.append(len(views))
            _add_body_views(body, view, len(views), validated, views)


def _view_data(model, report, around, radius) -> dict:
    import numpy as np

    from irrun.render.layout import layered_layout

    drawn = scene(model, report, around, radius)
    copies = _copy_shared_constants(drawn)
    keys = [key for generation in drawn.generations for key in generation]
    keys += sorted(copies, key=lambda key: (copies[key].generation, copies[key].slot))
    keys.sort(key=lambda key: drawn.nodes.get(key, copies.get(key)).generation)
    drawn.nodes.update(copies)
    index = {key: position for position, key in enumerate(keys)}
    nodes = [drawn.nodes[key] for key in keys]
    sizes = np.array([_box_size(node) for node in nodes]).reshape(-1, 2)
    edges = [edge for edge in drawn.edges if edge.tail in index and edge.head in index]
    layout = layered_layout(
        sizes,
        [(index[edge.tail], index[edge.head]) for edge in edges],
        [node.generation for node in nodes],
        [node.slot for node in nodes],
        tail_slots=[edge.tail_slot for edge in edges],
        head_slots=[edge.head_slot for edge in edges],
    )
    by_layer, unplaced = problems(report)
    layers = dict(model.graph.nodes(data="layer"))
    boxes = []
    details = {}
    for position, node in enumerate(nodes):
        layer = (
            layers.get(int(node.key[1:].partition("#")[0])) if node.key.startswith("L") else None
        )
        diagnostics = by_layer.get(layer.id, ()) if layer is not None else ()
        box = {
            "key": node.key,
            "x": round(float(layout.x[position]), 1),
            "y": round(float(layout.y[position]), 1),
            "w": float(sizes[position, 0]),
            "h": float(sizes[position, 1]),
            "title": node.title,
            "lines": node.lines,
            "role": "open" if node.open_end else (layer.type if layer is not None else ""),
            "severity": _worst(diagnostics),
            "center": node.center,
            "cut": node.cut,
        }
        if layer is not None:
            if layer.id not in details:
                details[layer.id] = _layer_details(model, layer, diagnostics, index)
            box["layer"] = details[layer.id]
            if "#" in node.key:
                box["copy"] = True  # search and the problem list show the first box only
        else:
            box["end"] = node.tooltip[0] if node.tooltip else node.title
        boxes.append(box)
    kind = "fragment" if model.is_fragment else f"IR v{model.ir_version}"
    return {
        "title": drawn.title,
        "name": model.name or os.path.basename(str(model.file)),
        "file": str(model.file),
        "kind": kind,
        "layer_count": len(model.layers),
        "summary": report.summary() if report is not None else None,
        "coverage": report.coverage() if report is not None else None,
        "validated": report is not None,
        "width": round(layout.width, 1),
        "height": round(layout.height, 1),
        "nodes": boxes,
        "edges": [
            {
                "tail": index[edge.tail],
                "head": index[edge.head],
                "label": edge.label,
                "points": route,
            }
            for edge, route in zip(edges, layout.routes)
        ],  # fmt: skip
        "unplaced": [_diagnostic(d) for d in unplaced],
    }


def _copy_shared_constants(drawn) -> dict:
    """Give each consumer of a shared Const its own copy of the box, just above it.

    A constant that layers far apart read (a scalar axis, a shape) would send edges across
    the whole model; as in Netron, each consumer but the first gets a copy (key
    ``L<id>#<n>``) and its edge comes from that. Returns the copies; ``drawn.edges`` is
    rewired in place.
    """
    from dataclasses import replace

    fed: dict[str, list] = {}
    for edge in drawn.edges:
        fed.setdefault(edge.tail, []).append(edge)
    sources = {edge.head for edge in drawn.edges}
    copies = {}
    for key, edges in fed.items():
        node = drawn.nodes.get(key)
        if node is None or node.role != "Const" or len(edges) < 2 or key in sources:
            continue
        edges = sorted(edges, key=lambda edge: drawn.nodes[edge.head].generation)
        for number, edge in enumerate(edges[1:], start=1):
            consumer = drawn.nodes[edge.head]
            copy = replace(node, key=f"{key}#{number}", generation=consumer.generation - 1,
                           slot=consumer.slot, cut=False, center=False)  # fmt: skip
            copies[copy.key] = copy
            edge.tail = copy.key
    return copies


def _box_size(node) -> tuple[float, float]:
    widest = max([len(node.title) * _TITLE_CHAR] + [len(line) * _LINE_CHAR for line in node.lines])
    width = min(max(widest + _PADDING, _MIN_WIDTH), _MAX_WIDTH)
    return width, _TITLE_HEIGHT + _LINE_HEIGHT * len(node.lines) + 10.0


def _worst(diagnostics) -> str:
    severities = {d.severity for d in diagnostics}
    return "error" if "error" in severities else ("warning" if severities else "")


def _diagnostic(diagnostic) -> dict:
    return {
        "severity": diagnostic.severity,
        "code": diagnostic.code,
        "line": diagnostic.line,
        "port": diagnostic.port,
        "message": short_text(diagnostic.message, _MESSAGE_LIMIT),
        "hint": diagnostic.hint,
        "notes": [short_text(note, _MESSAGE_LIMIT) for note in diagnostic.notes],
    }


def _type_text(element_type) -> str | None:
    return None if element_type is None else str(element_type)


def _end(port, index) -> dict:
    """The layer at the other end of an edge: its node (when shown), name and port."""
    layer = port.layer
    return {
        "node": index.get(f"L{layer.id}"),
        "text": f"{layer.name or f'layer {layer.id}'} : {port.id}",
    }


def _layer_details(model, layer, diagnostics, index) -> dict:
    """Everything the side panel shows about a layer."""
    inputs = []
    for port in layer.inputs:
        producer = model.producer(port)
        # What arrives on an input is what validation inferred for the output feeding it.
        arriving = port if port.inferred_shape is not None or producer is None else producer
        inputs.append(
            {
                "port": port.id,
                "declared_type": _type_text(port.element_type),
                "inferred_type": _type_text(arriving.inferred_type),
                "declared_shape": str(port.declared_shape),
                "inferred_shape": None
                if arriving.inferred_shape is None
                else str(arriving.inferred_shape),
                "from": None if producer is None else _end(producer, index),
            }
        )
    outputs = []
    for port in layer.outputs:
        outputs.append(
            {
                "port": port.id,
                "declared_type": _type_text(port.element_type),
                "inferred_type": _type_text(port.inferred_type),
                "declared_shape": str(port.declared_shape),
                "inferred_shape": None if port.inferred_shape is None else str(port.inferred_shape),
                "names": list(port.names),
                "to": [_end(consumer, index) for consumer in model.consumers(port)],
            }
        )
    return {
        "id": layer.id,
        "name": layer.name,
        "type": layer.type,
        "version": layer.version,
        "op": op_label(layer),
        "line": layer.line,
        "attributes": [[name, short_text(value, 300)] for name, value in layer.attributes.items()],
        "inputs": inputs,
        "outputs": outputs,
        "diagnostics": [_diagnostic(d) for d in diagnostics],
        # A TensorIterator's, Loop's or If's bodies: the panel links to their views (numbers
        # added by _add_body_views).
        "bodies": [[tag, len(body.layers)] for tag, body in layer.bodies.items()],
    }
