"""Pictures of a model's graph: layers as boxes, edges labelled with the dims they carry.

:func:`draw` lays the graph out top to bottom by topological generation and
renders it as SVG or PNG with Graphviz's ``dot`` program (through the
``graphviz`` package) when it is installed, otherwise with networkx and
matplotlib; DOT text needs neither. A validation report colours the layers it
has problems with, and ``around=`` cuts a neighbourhood out of a big model.
"""

from __future__ import annotations

import html
import importlib
import io
import os
import shutil
from dataclasses import dataclass, field

from irrun.text import short_text

__all__ = [
    "draw",
    "choose_engine",
    "layers_drawn",
    "EngineMissingError",
    "FORMATS",
    "ENGINES",
    "ERROR_FILL",
    "WARNING_FILL",
]

#: Output formats, and the file extensions that select them.
FORMATS = {"svg": "svg", "png": "png", "dot": "dot", "gv": "dot", "html": "html", "htm": "html"}
#: Layout engines: ``auto`` takes Graphviz when its ``dot`` program is on PATH, else matplotlib.
ENGINES = ("auto", "graphviz", "matplotlib")

#: Fill and border of a layer with an error, and of one with only warnings.
ERROR_FILL, ERROR_BORDER = "#ef9a9a", "#c62828"
WARNING_FILL, WARNING_BORDER = "#ffcc80", "#ef6c00"
_ROLE_FILLS = {"Parameter": "#e3f2fd", "Result": "#e8f5e9", "Const": "#eeeeee"}
_PLAIN_FILL, _PLAIN_BORDER, _OPEN_END_FILL = "#ffffff", "#455a64", "#f5f5f5"
_NAME_LIMIT = 48  # characters of a name shown in a box; longer names are shortened
_FONT = "Helvetica,Arial,sans-serif"
_INSTALL = "pip install 'irrun[draw]'"
_PNG_PIXELS = 40e6  # a bigger PNG is shrunk to this many pixels; SVG scales without limit
_DOT_SPAN_BUDGET = 1500  # sum of the ranks edges span; past it Graphviz gets a cheaper layout


@dataclass
class _Node:
    """One box of the picture: a layer, or an open input/output of a fragment."""

    key: str  # DOT node id: L<layer id>, in<n>, out<n>
    title: str  # first line (the name); shown as written, escaped only when rendered
    lines: list[str]  # op, output types and shapes, problem codes
    fill: str = _PLAIN_FILL
    border: str = _PLAIN_BORDER
    open_end: bool = False  # a fragment's unconnected port rather than a layer
    center: bool = False  # the layer an around= view is centred on
    cut: bool = False  # has neighbours outside an around= view
    tooltip: list[str] = field(default_factory=list)
    order: int = 0  # document order, to break ties
    generation: int = 0
    slot: float = 0.0  # horizontal position within the generation


@dataclass
class _Edge:
    tail: str
    head: str
    label: str
    tail_slot: float = 0.5  # where along the tail's box the edge leaves it (its output port)
    head_slot: float = 0.5  # where along the head's box it enters (its input port)


@dataclass
class _Scene:
    title: str
    nodes: dict[str, _Node]
    edges: list[_Edge]
    generations: list[list[str]]  # node keys, top to bottom, each in left-to-right order


def draw(
    model,
    path=None,
    *,
    format=None,
    report=None,
    around=None,
    radius=2,
    engine="auto",
    progress=None,
):
    """Draw ``model``'s graph as SVG, PNG, DOT or an interactive HTML page, and write it to
    ``path`` when given.

    Each layer is a box showing its name, its op with version (``Gather-8``;
    the type as written when irrun does not know the op) and each output's
    element type and shape (inferred when the model has been validated, else
    declared); each edge is labelled with the dims it carries. Layers are
    placed top to bottom by topological generation. A fragment's unconnected
    input and output ports are drawn as rounded ends named as irrun names them
    (``1:in0``). The HTML page (:func:`irrun.render.graph_page.graph_page`) is
    one self-contained file to pan, zoom and search in a browser, with each
    layer's attributes, ports and diagnostics a click away; it suits models of
    thousands of layers, which a picture does not.

    Parameters
    ----------
    model : irrun.Model
        The model to draw.
    path : str or os.PathLike, optional
        Write the picture here. Its extension (``.svg``, ``.png``, ``.dot``
        or ``.gv``, ``.html`` or ``.htm``) gives the format unless ``format``
        is given.
    format : {"svg", "png", "dot", "html"}, optional
        Default: from ``path``, else ``"svg"``.
    report : irrun.Report, optional
        A validation report of ``model``: layers with errors are filled red
        (:data:`ERROR_FILL`), layers with only warnings orange
        (:data:`WARNING_FILL`), with the diagnostic codes in the box and the
        messages in the SVG tooltip (Graphviz) or the page's side panel.
    around : str or int, optional
        Draw only the layers within ``radius`` edges of this layer (name or
        id), in either direction. Boxes with neighbours left out have a dashed
        border; the centre has a thick one.
    radius : int
        How far ``around`` reaches (default 2).
    engine : {"auto", "graphviz", "matplotlib"}
        ``auto`` uses Graphviz when both the ``graphviz`` package and the
        ``dot`` program are installed, else matplotlib. Not used for DOT or
        HTML, which need neither.
    progress : callable, optional
        A progress callback ``progress(stage, done, total)`` (see
        :mod:`irrun.progress`): called as each of the stages ``"laying out"``,
        ``"drawing"`` and ``"writing"`` begins and ends.

    Returns
    -------
    str or bytes
        SVG text, PNG bytes, DOT text or the HTML page.

    Raises
    ------
    EngineMissingError
        (an ``ImportError``) The engine a picture needs is missing; the message
        gives the command that installs it (``pip install 'irrun[draw]'``),
        the attributes say what is missing.
    KeyError
        ``around`` names no layer (the message lists close matches).
    ValueError
        An unknown format, extension, engine, or a negative ``radius``.

    Examples
    --------
    >>> import irrun
    >>> from irrun.render.draw import draw
    >>> model = irrun.load("examples/ir/tiny.xml")  # doctest: +SKIP
    >>> svg = draw(model, "tiny.svg", report=model.validate())  # doctest: +SKIP
    >>> page = draw(model, "tiny.html", report=model.validate())  # doctest: +SKIP
    >>> print(draw(model, format="dot").splitlines()[0])  # doctest: +SKIP
    digraph irrun {
    """
    picture_format = _picture_format(path, format)
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; use one of {', '.join(ENGINES)}")
    if isinstance(radius, bool) or not isinstance(radius, int) or radius < 0:
        raise ValueError(f"radius must be a whole number of edges, 0 or more, not {radius!r}")
    # Fail before laying anything out when no engine can render the picture.
    chosen = None if picture_format in ("dot", "html") else choose_engine(engine)
    if picture_format == "html":
        from irrun.render.graph_page import graph_page

        picture = graph_page(model, report, around=around, radius=radius, progress=progress)
    else:
        with _stage("laying out", progress):
            scene = _scene(model, report, around, radius)
        with _stage("drawing", progress):
            if picture_format == "dot":
                picture = _dot_text(scene)
            elif chosen == "graphviz":
                picture = _render_graphviz(scene, picture_format)
            else:
                picture = _render_matplotlib(scene, picture_format)
    if path is not None:
        from irrun.ir.files import write_output_file

        with _stage("writing", progress):
            write_output_file(path, picture)
    return picture


class _stage:
    """One stage of :func:`draw` for a progress callback: ``(name, 0, 1)`` as it begins,
    ``(name, 1, 1)`` once it is done (not when it raised)."""

    def __init__(self, name, progress):
        self.name, self.progress = name, progress

    def __enter__(self):
        if self.progress is not None:
            self.progress(self.name, 0, 1)

    def __exit__(self, kind, *_):
        if self.progress is not None and kind is None:
            self.progress(self.name, 1, 1)
        return False


def layers_drawn(model, around=None, radius=2) -> int:
    """How many layers :func:`draw` shows: all of them, or those within ``radius`` edges of
    ``around`` (``KeyError`` when it names no layer)."""
    if around is None:
        return len(model.graph)
    import networkx as nx

    undirected = model.graph.to_undirected(as_view=True)
    return len(nx.ego_graph(undirected, model.layer(around).id, radius=radius))


# -- choosing ----------------------------------------------------------------------------------
def _picture_format(path, format) -> str:
    if format is not None:
        if format not in FORMATS:
            raise ValueError(f"unknown format {format!r}; use svg, png, dot or html")
        return FORMATS[format]
    if path is None:
        return "svg"
    extension = os.path.splitext(os.fspath(path))[1].lower().lstrip(".")
    if extension not in FORMATS:
        raise ValueError(
            f"cannot tell the format from {os.fspath(path)!r}: name the file .svg, .png, .dot "
            "or .html (or give format=)"
        )
    return FORMATS[extension]


def _optional(module: str):
    """The module, or ``None`` when it (or something it needs) is not installed."""
    try:
        return importlib.import_module(module)
    except ImportError:
        return None


class EngineMissingError(ImportError):
    """No engine can draw the picture asked for.

    The message is worded for Python callers (``engine='matplotlib'``); a front end can word
    its own from the attributes.

    Attributes
    ----------
    engine : str
        The engine asked for: ``"auto"``, ``"graphviz"`` or ``"matplotlib"``.
    missing : str
        What is missing: ``"graphviz-package"`` (the Python binding), ``"dot-program"``
        (Graphviz itself), ``"matplotlib"``, or ``"any"`` (for ``auto``: neither engine).
    install : str
        The command that installs the Python packages: ``pip install 'irrun[draw]'``.
    """

    def __init__(self, message: str, *, engine: str, missing: str):
        super().__init__(message)
        self.engine = engine
        self.missing = missing
        self.install = _INSTALL


#: How to install Graphviz's ``dot`` program, for messages.
GRAPHVIZ_INSTALL = "apt-get install graphviz, brew install graphviz or conda install graphviz"


def choose_engine(engine: str = "auto") -> str:
    """The engine :func:`draw` uses for an SVG or PNG: ``"graphviz"`` or ``"matplotlib"``.

    ``"auto"`` takes Graphviz when both the ``graphviz`` package and the
    ``dot`` program are installed, else matplotlib. Raises
    :class:`EngineMissingError` (with the command that installs it) when the
    engine asked for, or for ``"auto"`` any engine, is missing.
    """
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; use one of {', '.join(ENGINES)}")
    if engine in ("auto", "graphviz"):
        has_binding = _optional("graphviz") is not None
        dot = shutil.which("dot")
        if has_binding and dot:
            return "graphviz"
        if engine == "graphviz":
            if not has_binding:
                raise EngineMissingError(
                    "engine='graphviz' needs the graphviz Python package; install it with: "
                    f"{_INSTALL}",
                    engine=engine,
                    missing="graphviz-package",
                )
            raise EngineMissingError(
                "engine='graphviz' needs Graphviz's `dot` program, which is not on PATH; install "
                f"Graphviz ({GRAPHVIZ_INSTALL}), or use engine='matplotlib'",
                engine=engine,
                missing="dot-program",
            )
    if _optional("matplotlib.figure") is not None:
        return "matplotlib"
    if engine == "matplotlib":
        raise EngineMissingError(
            f"engine='matplotlib' needs matplotlib; install it with: {_INSTALL}",
            engine=engine,
            missing="matplotlib",
        )
    raise EngineMissingError(
        "drawing an svg or png picture needs Graphviz or matplotlib, and neither is installed; "
        f"install them with: {_INSTALL} (Graphviz's `dot` program, e.g. apt-get install "
        "graphviz, gives the better layout). format='dot' and format='html' need neither.",
        engine=engine,
        missing="any",
    )


# -- what to draw ------------------------------------------------------------------------------
_NAMED_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(char: str) -> str:
    if char.isprintable():
        return char
    code = ord(char)
    return _NAMED_ESCAPES.get(char) or (f"\\x{code:02x}" if code < 256 else f"\\u{code:04x}")


def _visible(text: str) -> str:
    """``text`` with control and other unprintable characters shown as escapes (``\\n``)."""
    return text if text.isprintable() else "".join(map(_escape, text))


def _shown(text: str) -> str:
    return short_text(_visible(text), _NAME_LIMIT)


def _op_label(layer) -> str:
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


def _problems(report) -> tuple[dict, list]:
    """Diagnostics of each layer id, and those of no layer."""
    by_layer: dict[int, list] = {}
    unplaced = []
    for diagnostic in report or ():
        if diagnostic.layer_id is None:
            unplaced.append(diagnostic)
        else:
            by_layer.setdefault(diagnostic.layer_id, []).append(diagnostic)
    return by_layer, unplaced


def _layer_node(layer, order, diagnostics) -> _Node:
    lines = [_op_label(layer)]
    several = len(layer.outputs) > 1
    lines += [f"{p.id}: {_port_text(p)}" if several else _port_text(p) for p in layer.outputs]
    node = _Node(
        key=f"L{layer.id}",
        title=_shown(layer.name) if layer.name else f"layer {layer.id}",
        lines=lines,
        fill=_ROLE_FILLS.get(layer.type, _PLAIN_FILL),
        tooltip=[layer.describe()],
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


def _scene(model, report, around, radius) -> _Scene:
    import networkx as nx

    by_layer, unplaced = _problems(report)
    graph = nx.MultiDiGraph()
    nodes: dict[str, _Node] = {}
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
            _Edge(f"L{tail}", f"L{head}", str(port.shape) if port else "",
                  _slot(port, layers[tail].outputs), _slot(target, layers[head].inputs))
        )  # fmt: skip
    # A fragment's inputs are unconnected input ports, its outputs unconsumed output ports.
    for index, model_input in enumerate(model.inputs):
        port = model_input.port
        if port.direction == "input" and f"L{port.layer.id}" in nodes:
            node = _open_end(f"in{index}", model_input, 2 * position[id(port.layer)])
            nodes[node.key] = node
            edges.append(_Edge(node.key, f"L{port.layer.id}", str(model_input.shape),
                               head_slot=_slot(port, port.layer.inputs)))  # fmt: skip
    for index, model_output in enumerate(model.outputs):
        port = model_output.port
        if model_output.layer is port.layer and f"L{port.layer.id}" in nodes:
            node = _open_end(f"out{index}", model_output, 2 * position[id(port.layer)] + 1)
            nodes[node.key] = node
            edges.append(_Edge(f"L{port.layer.id}", node.key, str(model_output.shape),
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
    return _Scene(title, nodes, edges, generations)


def _slot(port, ports) -> float:
    """Where a port sits along its layer's box: its ports spread evenly, left to right."""
    return 0.5 if port is None else (port.index + 0.5) / len(ports)


def _open_end(key, end, order) -> _Node:
    return _Node(
        key=key,
        title=_shown(end.name),
        lines=[_typed_shape(end.element_type, end.shape)],
        fill=_OPEN_END_FILL,
        open_end=True,
        tooltip=[f"{'input' if key.startswith('in') else 'output'} {_visible(end.name)}"],
        order=order,
    )


def _ordered_generations(graph, nodes) -> list[list[str]]:
    """Topological generations (a cycle's layers share one), each ordered to cut crossings."""
    import networkx as nx

    if nx.is_directed_acyclic_graph(graph):
        generations = [list(g) for g in nx.topological_generations(graph)]
    else:  # an invalid model can have cycles: treat each strongly connected part as one
        condensed = nx.condensation(graph)
        generations = [
            [key for part in g for key in condensed.nodes[part]["members"]]
            for g in nx.topological_generations(condensed)
        ]
    # Sources (Consts, Parameters) go just above their first consumer rather than all at the
    # top: in a real model that keeps weight edges one rank long instead of crossing the page.
    level = {key: index for index, generation in enumerate(generations) for key in generation}
    for key in level:
        if graph.in_degree(key) == 0 and graph.out_degree(key) > 0:
            level[key] = min(level[successor] for successor in graph.successors(key)) - 1
    generations = [[] for _ in generations]
    for key, index in level.items():
        generations[index].append(key)
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


# -- DOT ---------------------------------------------------------------------------------------
def _html(text: str) -> str:
    """Text for a Graphviz HTML-like label (Graphviz also expands backslash escapes there)."""
    return html.escape(text, quote=False).replace("\\", "\\\\")


def _quoted(text: str) -> str:
    """A DOT double-quoted escString."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def _node_statement(node: _Node) -> str:
    rows = [f"<b>{_html(node.title)}</b>"]
    rows += [f'<font point-size="9">{_html(line)}</font>' for line in node.lines]
    style = ["filled", "rounded"] if not node.open_end else ["filled"]
    if node.cut:
        style.append("dashed")
    attributes = {
        "label": f"<{'<br/>'.join(rows)}>",
        "shape": "oval" if node.open_end else "box",
        "style": _quoted(",".join(style)),
        "fillcolor": _quoted(node.fill),
        "color": _quoted(node.border),
        "penwidth": "3" if node.center else ("2" if node.border != _PLAIN_BORDER else "1"),
        "tooltip": _quoted("\n".join(_visible(line) for line in node.tooltip)),
    }
    return f'  "{node.key}" [{", ".join(f"{k}={v}" for k, v in attributes.items())}];'


def _dot_text(scene: _Scene, dpi: float | None = None) -> str:
    """The scene as DOT: one rank per topological generation."""
    # Graphviz routes a labelled edge through a label node on every rank it spans, and lets
    # network simplex run to the end: minutes for a few hundred long edges. Past a budget of
    # rank spans, labels go beside the edges (xlabel) and the positioning stops early.
    spans = sum(
        max(abs(scene.nodes[e.head].generation - scene.nodes[e.tail].generation), 1)
        for e in scene.edges
    )
    large = spans > _DOT_SPAN_BUDGET
    edge_label, limits = ("xlabel", "nslimit=1, ") if large else ("label", "")
    if dpi is not None:
        limits += f"dpi={dpi:.0f}, "
    lines = [
        "digraph irrun {",
        f"  graph [{limits}rankdir=TB, labelloc=t, fontname={_quoted(_FONT)}, fontsize=12, "
        f"nodesep=0.3, ranksep=0.45, label=<{_html(scene.title)}>];",
        f'  node [fontname={_quoted(_FONT)}, fontsize=11, margin="0.15,0.06"];',
        f'  edge [fontname={_quoted(_FONT)}, fontsize=9, color="#546e7a", '
        'fontcolor="#37474f", arrowsize=0.7];',
    ]
    for generation in scene.generations:
        lines.append("  { rank=same;")
        lines += [f"  {_node_statement(scene.nodes[key])}" for key in generation]
        lines.append("  }")
    for edge in scene.edges:
        lines.append(f'  "{edge.tail}" -> "{edge.head}" [{edge_label}=<{_html(edge.label)}>];')
    lines.append("}")
    return "\n".join(lines) + "\n"


def _render_graphviz(scene: _Scene, picture_format: str):
    import graphviz

    source = graphviz.Source(_dot_text(scene), engine="dot")
    if picture_format == "svg":
        return source.pipe(format="svg", encoding="utf-8")
    # A big graph at Graphviz's 96 dpi is a PNG of hundreds of megapixels that viewers refuse:
    # lay it out once to learn its size in inches, then choose the resolution.
    _, _, width, height = source.pipe(format="plain", encoding="utf-8").split(None, 4)[:4]
    dpi = _png_dpi(float(width), float(height), 96)
    return graphviz.Source(_dot_text(scene, dpi=dpi), engine="dot").pipe(format="png")


def _png_dpi(width: float, height: float, preferred: float) -> float:
    """Dots per inch that keep a ``width`` x ``height`` inch picture within
    :data:`_PNG_PIXELS` pixels and 30,000 a side (Agg and cairo stop near 32,767)."""
    area = max(width * height, 1e-6)
    return max(min(preferred, (_PNG_PIXELS / area) ** 0.5, 30000 / max(width, height, 1e-6)), 1)


# -- matplotlib --------------------------------------------------------------------------------
_FONT_SIZE = 8  # points
_CHAR_WIDTH = 0.62 * _FONT_SIZE / 72  # inches per character, a generous estimate
_LINE_HEIGHT = 1.25 * _FONT_SIZE / 72


def _render_matplotlib(scene: _Scene, picture_format: str):
    """Draw the scene with matplotlib: positions from networkx's multipartite layout
    (one row per generation, in the barycentre order), boxes measured after a first draw
    so that arrows end on their borders. One data unit is one inch."""
    import matplotlib
    import networkx as nx
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.transforms import Bbox

    nodes = scene.nodes
    texts = {key: "\n".join([node.title, *node.lines]) for key, node in nodes.items()}
    widest = max((len(line) for text in texts.values() for line in text.split("\n")), default=1)
    tallest = max((text.count("\n") + 1 for text in texts.values()), default=1)
    column = widest * _CHAR_WIDTH + 0.5
    row = tallest * _LINE_HEIGHT + 0.55
    across = max((len(g) for g in scene.generations), default=1)
    width = max(across * column, len(scene.title) * _CHAR_WIDTH * 1.2, 2.0)
    height = len(scene.generations) * row + 0.4

    layout_graph = nx.Graph()
    for key, node in nodes.items():
        layout_graph.add_node(key, generation=node.generation)
    # multipartite_layout places each generation on one row, centred; its spacing is uniform,
    # so the generation index gives y and the barycentre order decides who takes which x.
    layout = nx.multipartite_layout(layout_graph, subset_key="generation", align="horizontal")
    positions = {}
    for generation in scene.generations:
        slots = sorted(layout[key][0] for key in generation)
        unit = (slots[1] - slots[0]) if len(slots) > 1 else 1.0
        for key, x in zip(generation, slots):
            positions[key] = (x / unit * column if len(slots) > 1 else 0.0,
                              -nodes[key].generation * row)  # fmt: skip

    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "irrun"}):
        figure = Figure(figsize=(width, height), dpi=_png_dpi(width, height, 100))
        canvas = FigureCanvasAgg(figure)
        axes = figure.add_axes((0, 0, 1, 1))
        axes.set_axis_off()
        axes.set_xlim(-width / 2, width / 2)
        axes.set_ylim(-height + row / 2 + 0.2, row / 2 + 0.2)
        axes.text(0, row / 2, scene.title, ha="center", va="top", fontsize=_FONT_SIZE + 2,
                  parse_math=False)  # fmt: skip
        boxes = {}
        for key, node in nodes.items():
            x, y = positions[key]
            boxes[key] = axes.text(
                x, y, texts[key], ha="center", va="center", fontsize=_FONT_SIZE,
                parse_math=False, zorder=3, gid=f"node-{node.key}",
                bbox={"boxstyle": "round4,pad=0.5" if node.open_end else "round,pad=0.5",
                      "facecolor": node.fill, "edgecolor": node.border,
                      "linewidth": 3 if node.center else (1.6 if node.border != _PLAIN_BORDER
                                                          else 0.8),
                      "linestyle": "--" if node.cut else "-"},
            )  # fmt: skip
        canvas.draw()
        renderer = canvas.get_renderer()
        to_data = axes.transData.inverted()
        extents = {}
        for key, text in boxes.items():
            (x0, y0), (x1, y1) = to_data.transform(
                text.get_bbox_patch().get_window_extent(renderer).get_points()
            )
            extents[key] = ((x0 + x1) / 2, (y0 + y1) / 2, abs(x1 - x0) / 2, abs(y1 - y0) / 2)
        seen: dict[tuple[str, str], int] = {}  # edges so far between two boxes, either way
        for edge in scene.edges:
            pair = (min(edge.tail, edge.head), max(edge.tail, edge.head))
            count = seen[pair] = seen.get(pair, -1) + 1
            bend = 0.0 if count == 0 else 0.45 * ((count + 1) // 2) * (1 if count % 2 else -1)
            _matplotlib_edge(axes, extents[edge.tail], extents[edge.head], edge.label, bend)
        # bbox_inches="tight" would keep the whole (estimated) axes; crop to what was drawn.
        canvas.draw()
        drawn = [text.get_window_extent(renderer) for text in axes.texts]
        drawn += [text.get_bbox_patch().get_window_extent(renderer) for text in boxes.values()]
        drawn += [patch.get_window_extent(renderer) for patch in axes.patches]
        crop = Bbox.union(drawn).transformed(figure.dpi_scale_trans.inverted()).padded(0.1)
        buffer = io.BytesIO()
        metadata = {"Date": None} if picture_format == "svg" else {}
        dpi = _png_dpi(crop.width, crop.height, 110)
        figure.savefig(buffer, format=picture_format, dpi=dpi, bbox_inches=crop,
                       metadata=metadata)  # fmt: skip
    data = buffer.getvalue()
    return data.decode("utf-8") if picture_format == "svg" else data


def _border_point(box, towards):
    """Where the ray from the centre of ``box`` towards a point leaves the box."""
    x, y, half_width, half_height = box
    dx, dy = towards[0] - x, towards[1] - y
    if dx == 0 and dy == 0:
        return x, y - half_height
    scale = min(half_width / abs(dx) if dx else float("inf"),
                half_height / abs(dy) if dy else float("inf"))  # fmt: skip
    return x + dx * min(scale, 1.0), y + dy * min(scale, 1.0)


def _matplotlib_edge(axes, tail, head, label, bend):
    from matplotlib.patches import FancyArrowPatch
    from matplotlib.path import Path

    if tail is head:  # a layer feeding itself (an invalid model): a loop on the right side
        x, y, half_width, half_height = tail
        right = x + half_width
        vertices = [(right, y + half_height / 2), (right + 0.4, y + half_height),
                    (right + 0.4, y - half_height), (right, y - half_height / 2)]  # fmt: skip
        path = Path(vertices, [Path.MOVETO, Path.CURVE4, Path.CURVE4, Path.CURVE4])
        middle = (right + 0.3, y)
    else:
        start, end = _border_point(tail, head[:2]), _border_point(head, tail[:2])
        (x0, y0), (x1, y1) = start, end
        # A quadratic Bezier; its control point bends parallel edges apart.
        control = ((x0 + x1) / 2 + bend * (y1 - y0), (y0 + y1) / 2 - bend * (x1 - x0))
        path = Path([start, control, end], [Path.MOVETO, Path.CURVE3, Path.CURVE3])
        middle = tuple(0.25 * s + 0.5 * c + 0.25 * e for s, c, e in zip(start, control, end))
    axes.add_patch(
        FancyArrowPatch(
            path=path, arrowstyle="-|>", mutation_scale=9, color="#546e7a", linewidth=0.9, zorder=1
        )  # fmt: skip
    )
    if label:  # beside the edge, as Graphviz puts it, so that it hides no line or arrowhead
        axes.annotate(label, middle, xytext=(4, 0), textcoords="offset points", ha="left",
                      va="center", fontsize=_FONT_SIZE - 1, color="#37474f", parse_math=False,
                      zorder=2, annotation_clip=False,
                      bbox={"boxstyle": "square,pad=0.05", "facecolor": "white",
                            "edgecolor": "none", "alpha": 0.8})  # fmt: skip
