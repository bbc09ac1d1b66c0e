"""Reading ``<layers>`` and ``<edges>`` into a graph: the one layer reader.

A layer is read in two steps. :func:`layer_record` takes what the ``<layer>`` element says,
checking what makes it unreadable (its id, its type, the attributes OpenVINO requires);
:func:`build_layer` turns the record into a :class:`~irrun.model.Layer` with its ports
(:mod:`irrun.ir.ports`), ``<rt_info>``, sub-graph bodies and port maps. The optional
accelerator (:mod:`irrun.ir.accelerator`) makes the same records from plainly written layers
without an lxml object per element, and hands every other layer back to
:func:`layer_record`.

Everything a load needs to remember is in its :class:`ReadState`, passed explicitly: loads in
several threads share nothing.
"""

from __future__ import annotations

from irrun.errors import IRFormatError
from irrun.ir.edges import read_edges
from irrun.ir.ids import required_uint
from irrun.ir.lines import BIG_LINE, line_of
from irrun.ir.names import split_names
from irrun.ir.ports import port_record, read_ports
from irrun.ir.rt_info import read_rt_info
from irrun.ir.xml import FRAGMENT_ROOT
from irrun.model import Graph, Layer
from irrun.text import short_text

__all__ = ["ReadState", "read_graph", "read_layers", "layer_record", "build_layer", "layer_id"]

_BODY_TAGS = ("body", "then_body", "else_body")
_PORT_MAP_TAGS = ("port_map", "then_port_map", "else_port_map")
#: Children of <layer> that the record keeps as elements, for build_layer to read.
_EXTRA_TAGS = frozenset(("rt_info", "back_edges", *_BODY_TAGS, *_PORT_MAP_TAGS))
#: (direction, fragment) of the port signature caches of a load.
_SIGNATURE_KINDS = (("input", False), ("output", False), ("input", True), ("output", True))


class ReadState:
    """What one load reads with: the file's name, the accelerator (``walker``, or ``None``),
    the port signatures checked so far (see :func:`irrun.ir.ports.read_ports`), by direction
    and fragment-ness, and the short texts the accelerator shares across the model (one object
    per distinct type, precision, dim...)."""

    __slots__ = ("file", "walker", "signatures", "texts")

    def __init__(self, file: str, walker=None):
        self.file = file
        self.walker = walker
        self.signatures = {kind: {} for kind in _SIGNATURE_KINDS}
        self.texts: dict[str, str] = {}


def read_graph(graph: Graph, element, state: ReadState, fragment: bool, pieces=None,
               line_offset: int = 0) -> None:  # fmt: skip
    """Read ``<layers>``/``<edges>`` of ``element`` (a net, a body or a fragment root) into
    ``graph``; with ``pieces`` (:mod:`irrun.ir.pieces`), the layers and edges come from there."""
    walker = state.walker
    if pieces is not None:
        for piece, offset in pieces:
            read_layers(graph, piece, state, fragment, offset)
        edge_pieces = pieces.edges()
        if edge_pieces is None:  # not split: in the rest of the document
            edges_element = pieces.rest().find("edges")
            edge_pieces = [] if edges_element is None else [(edges_element, 0)]
        for piece, offset in edge_pieces:
            read_edges(graph, piece, offset, walker)
    elif element.tag == FRAGMENT_ROOT:
        read_layers(graph, list(element.iterchildren("layer")), state, fragment)
        edge_elements = list(element.iterchildren("edge"))
        for child in element.iterchildren("edges"):
            edge_elements.extend(child)
        read_edges(graph, edge_elements, 0)
    else:
        layers_element = element.find("layers")
        if layers_element is not None:
            read_layers(graph, layers_element, state, fragment, line_offset)
        edges_element = element.find("edges")
        if edges_element is not None:
            read_edges(graph, edges_element, line_offset, walker)
    graph._index()


def read_layers(graph: Graph, elements, state: ReadState, fragment: bool,
                line_offset: int = 0) -> None:  # fmt: skip
    """Append a :class:`Layer` per ``<layer>`` child of ``elements`` (an element or a list of
    them) whose ``sourceline + line_offset`` is their line in the file."""
    records = None
    walker = state.walker
    if walker is not None and not isinstance(elements, list):
        records = walker.layers(elements, line_offset, fragment, state.texts)
    children = None  # the elements as a list, once a layer is handed back
    append = graph.layers.append
    for item in elements if records is None else records:
        if records is not None and type(item) is int:  # handed back: read from its element
            if children is None:
                children = list(elements)
            item = children[item]
        if type(item) is not tuple:
            item = layer_record(item, graph.file, fragment, line_offset)
            if item is None:
                continue
        append(build_layer(graph, item, state, fragment))


def layer_record(element, file: str, fragment: bool, line_offset: int) -> tuple | None:
    """``(id, name, type, version, output_names, line, data, data line, inputs, outputs,
    extras)`` of a ``<layer>`` element; ``None`` for a comment or processing instruction.

    ``id`` is an int; the texts are as written (``None`` when absent); ``data`` is the dict of
    ``<data>``'s attributes (``None`` without one); ``inputs``/``outputs`` are lists of
    :func:`~irrun.ir.ports.port_record`; ``extras`` a tuple of the ``<rt_info>``, body, port
    map and back-edge elements. Raises :class:`IRFormatError` for an element that is not a
    ``<layer>``, an unusable id, a missing type, or (outside fragments) a missing name or
    version."""
    if element.tag != "layer":
        if not isinstance(element.tag, str):  # comments and PIs have function tags
            return None
        raise IRFormatError(f"unexpected <{element.tag}> inside <layers>", file=file,
                            line=line_of(element) + line_offset)  # fmt: skip
    get = element.get
    name, layer_type, version = get("name"), get("type"), get("version")
    line = element.sourceline
    if line >= BIG_LINE:
        line = line_of(element)
    line += line_offset
    number = _checked_layer(element, name, layer_type, version, fragment, file, line)
    data = data_line = None
    inputs, outputs, extras = [], [], ()
    for child in element:
        tag = child.tag
        if tag == "input" or tag == "output":
            ports = inputs if tag == "input" else outputs
            # (a plain loop is faster than iterchildren("port"))
            ports += [port_record(port, line_offset) for port in child if port.tag == "port"]
        elif tag == "data":
            data = dict(child.items())
            data_line = child.sourceline
            if data_line >= BIG_LINE:
                data_line = line_of(child)
            data_line += line_offset
        elif tag in _EXTRA_TAGS:
            extras += (child,)
    return (number, name, layer_type, version, get("output_names"), line, data, data_line,
            inputs, outputs, extras)  # fmt: skip


def _checked_layer(element, name, layer_type, version, fragment, file, line) -> int:
    """The id of a ``<layer>``, after the checks of :func:`layer_record`."""
    number = layer_id(element, file, line)
    if not fragment and (name is None or layer_type is None or version is None):
        missing = next(n for n, v in (("name", name), ("type", layer_type),
                                      ("version", version)) if v is None)  # fmt: skip
        raise IRFormatError(
            f"<layer id=\"{number}\"> has no '{missing}' attribute, which OpenVINO requires",
            file=file,
            line=line,
        )
    if not layer_type:
        raise IRFormatError(f'<layer id="{number}"> has no type', file=file, line=line)
    return number


def layer_id(element, file: str, line: int | None = None) -> int:
    """The ``id`` of a ``<layer>`` element, or :class:`IRFormatError` naming the layer by what
    it does have (``<layer> 'conv' (Convolution)``)."""
    text = element.get("id")
    if text is not None and text.isdigit() and text.isascii() and len(text) < 19:
        return int(text)
    name, layer_type = element.get("name"), element.get("type")
    named = f" {short_text(name)!r}" if name else " (no name)"
    typed = f" ({short_text(layer_type)})" if layer_type else " (no type)"
    line = line_of(element) if line is None else line
    return required_uint(text, "id", f"<layer>{named}{typed}", file, line)


def build_layer(graph: Graph, record: tuple, state: ReadState, fragment: bool) -> Layer:
    """The :class:`Layer` of a :func:`layer_record` in ``graph``, with its ports (checked:
    precisions, dims) and the parts kept as elements (rt_info, bodies, port maps)."""
    (number, name, layer_type, version, output_names, line, data, data_line, inputs, outputs,
     extras) = record  # fmt: skip
    layer = Layer(graph, number, name or "", layer_type, version,
                  {} if data is None else data, line)  # fmt: skip
    if data is not None:
        layer.data_line = data_line
    if output_names is not None:
        layer.output_names = split_names(output_names)
    signatures = state.signatures
    if inputs:  # (Consts and Parameters have none: no call for them)
        read_ports(layer, inputs, "input", signatures["input", fragment], fragment)
    if outputs:
        read_ports(layer, outputs, "output", signatures["output", fragment], fragment)
    if extras:
        # The record's line is the file's; the element's, less the piece's line offset.
        line_offset = line - line_of(extras[0].getparent())
        for child in extras:
            _read_extra(layer, child, state, line_offset)
    return layer


def _read_extra(layer: Layer, child, state: ReadState, line_offset: int) -> None:
    tag = child.tag
    if tag == "rt_info":
        layer.rt_info = read_rt_info(child)
    elif tag in _BODY_TAGS:
        body = Graph(layer.graph.model, state.file)
        read_graph(body, child, state, fragment=False, line_offset=line_offset)
        layer.bodies = {**layer.bodies, tag: body}
    elif tag in _PORT_MAP_TAGS:
        maps = [dict(item.attrib, kind=item.tag) for item in child if isinstance(item.tag, str)]
        layer.port_maps = {**layer.port_maps, tag: maps}
    else:  # back_edges
        layer.back_edges = [dict(item.attrib) for item in child if isinstance(item.tag, str)]
