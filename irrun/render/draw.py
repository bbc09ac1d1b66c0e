"""Pictures of a model's graph: layers as boxes, edges labelled with the dims they carry.

:func:`draw` lays the graph out top to bottom by topological generation and
renders it as SVG or PNG with Graphviz's ``dot`` program (through the
``graphviz`` package) when it is installed, otherwise with networkx and
matplotlib; DOT text needs neither, nor does the interactive HTML page
(:mod:`irrun.render.graph_page`). A validation report colours the layers it
has problems with, and ``around=`` cuts a neighbourhood out of a big model.
What the boxes and edges show is built in :mod:`irrun.render.scene`.
"""

from __future__ import annotations

import html
import importlib
import io
import os
import shutil

from irrun.progress import stage
from irrun.render.scene import (
    ERROR_FILL,
    PLAIN_BORDER,
    WARNING_FILL,
    Node,
    Scene,
    scene,
    visible,
)

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

_FONT = "Helvetica,Arial,sans-serif"
_INSTALL = "pip install 'irrun[draw]'"
_PNG_PIXELS = 40e6  # a bigger PNG is shrunk to this many pixels; SVG scales without limit
_DOT_SPAN_BUDGET = 1500  # sum of the ranks edges span; past it Graphviz gets a cheaper layout


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
        :mod:`irrun.progress`): the stages ``"laying out"``, ``"drawing"`` and
        ``"writing"``, each of unknown length, are reported as they begin and end.

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
        with stage("laying out", progress):
            drawn = scene(model, report, around, radius)
        with stage("drawing", progress):
            if picture_format == "dot":
                picture = _dot_text(drawn)
            elif chosen == "graphviz":
                picture = _render_graphviz(drawn, picture_format)
            else:
                picture = _render_matplotlib(drawn, picture_format)
    if path is not None:
        from irrun.ir.files import write_output_file

        with stage("writing", progress):
            write_output_file(path, picture)
    return picture


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


# -- DOT ---------------------------------------------------------------------------------------
def _html(text: str) -> str:
    """Text for a Graphviz HTML-like label (Graphviz also expands backslash escapes there)."""
    return html.escape(text, quote=False).replace("\\", "\\\\")


def _quoted(text: str) -> str:
    """A DOT double-quoted escString."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def _node_statement(node: Node) -> str:
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
        "penwidth": "3" if node.center else ("2" if node.border != PLAIN_BORDER else "1"),
        "tooltip": _quoted("\n".join(visible(line) for line in node.tooltip)),
    }
    return f'  "{node.key}" [{", ".join(f"{k}={v}" for k, v in attributes.items())}];'


def _dot_text(scene: Scene, dpi: float | None = None) -> str:
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


def _render_graphviz(scene: Scene, picture_format: str):
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


def _render_matplotlib(scene: Scene, picture_format: str):
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
                      "linewidth": 3 if node.center else (1.6 if node.border != PLAIN_BORDER
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
