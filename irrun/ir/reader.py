"""Turning IR XML (a ``<net>`` document or bare ``<layer>`` snippets) into a :class:`Model`.

The reader is deliberately lenient about the *graph* (duplicate ids, edges to
missing ports, cycles, wrong declared dims): it keeps everything with its line
so that validation can report every problem at once. It raises only for what
makes the file unreadable as IR: malformed XML, a wrong root or version, ids
and dims that are not integers, unknown precisions or element types.
"""

from __future__ import annotations

import os
from functools import lru_cache

from irrun.element_types import _BY_PRECISION, from_precision
from irrun.errors import FragmentError, InputFileError, IRError, IRFormatError, XMLSyntaxError
from irrun.gc_pause import gc_paused
from irrun.ir import constants
from irrun.ir.files import read_regular_file
from irrun.ir.names import smallest_name, split_names
from irrun.ir.pieces import PieceFailed
from irrun.ir.weights import Weights
from irrun.ir.xml import FRAGMENT_ROOT, parse_document, parse_in_pieces, safe_parser
from irrun.model import Edge, Graph, Layer, Model, ModelInput, ModelOutput, Port
from irrun.numbers import parse_int
from irrun.shape import Dim, Shape, static_dim
from irrun.text import short_text

__all__ = ["load", "load_all"]


def _checked_walker():
    """The optional C accelerator :mod:`irrun.ir._walk` (built by setup.py where a C compiler
    is found), if it reads a small document exactly as expected; else ``None`` and every
    element is read through lxml here (same results, slower)."""
    try:
        from lxml import etree

        from irrun.ir import _walk
    except Exception:  # not built (no C compiler), or refused to load (another lxml layout)
        return None
    probe = etree.fromstring(
        '<net><layers>\n<layer id="7" name="a&amp;b" type="T" version="v1"><data k=""/>'
        '<output><port id="2" precision="I8" names="x"><dim>3</dim></port></output></layer>'
        '<!-- c --><layer id="8" type="T"><rt_info/></layer></layers>'
        '<edges><edge from-layer="7" from-port="2" to-layer="8" to-port="0"/></edges></net>',
        safe_parser(),
    )
    expected = [
        (7, "a&b", "T", "v1", 2, None, {"k": ""}, 2, [],
         [("sig", ("2", "I8", False, "3"), ("x",), 2)], 0),
        2,
    ]  # fmt: skip
    caches = {}, {("2", "I8", False, "3"): "sig"}
    try:
        works = (
            _walk.layers(probe[0], 0, False, *caches, {}) == expected
            and _walk.edges(probe[1], 10) == [(7, 2, 8, 0, 12)]
            and _walk.layers(probe[1], 0, False, *caches, {}) is None
        )
    except Exception:  # pragma: no cover - an incompatible build
        return None
    return _walk if works else None


_walk = _checked_walker()

_BODY_TAGS = ("body", "then_body", "else_body")
_PORT_MAP_TAGS = ("port_map", "then_port_map", "else_port_map")
_DYNAMIC_RANK = Shape.dynamic_rank()


def load(source, weights=None) -> Model:
    """Load an OpenVINO IR model, or a fragment of bare ``<layer>`` snippets.

    Parameters
    ----------
    source : str, os.PathLike or bytes
        Path of an ``.xml`` file, or the XML itself (a ``str`` starting with
        ``<``, or ``bytes``).
    weights : str, os.PathLike or bytes, optional
        The weights: a ``.bin`` path, or its bytes. By default the ``.bin``
        beside the XML (same name) is used when it exists; a model without
        Consts needs none.

    Returns
    -------
    Model

    Raises
    ------
    irrun.IRError
        A subclass saying what is wrong and where: ``InputFileError``,
        ``XMLSyntaxError``, ``IRFormatError``, ``FragmentError``...

    Examples
    --------
    >>> import irrun
    >>> model = irrun.load('<layer id="1" type="Concat"><data axis="0"/>'
    ...                    '<input><port id="0"><dim>2</dim></port><port id="1"><dim>3</dim>'
    ...                    '</port></input><output><port id="2"><dim>5</dim></port></output>'
    ...                    '</layer>')
    >>> [i.name for i in model.inputs], model.outputs[0].shape
    (['1:in0', '1:in1'], Shape('[5]'))
    """
    models = load_all(source, weights)
    if len(models) > 1:
        lines = ", ".join(str(m.layers[0].line) for m in models)
        raise FragmentError(
            f"the file holds {len(models)} separate <layer> snippets (at lines {lines}) whose "
            "ids repeat; load them one by one with irrun.load_all()",
            file=models[0].file,
        )
    return models[0]


def load_all(source, weights=None) -> list[Model]:
    """Like :func:`load`, but a fragment file of several independent snippets
    (layers whose ids repeat, as in the OpenVINO op specification) gives one
    :class:`Model` per snippet instead of an error. A ``<net>`` gives a list of one."""
    data, file, directory_hint = _read_source(source)
    with gc_paused(), _interning():
        split = parse_in_pieces(data, file)
        if split is not None:
            model = _read_net_in_pieces(*split, file, weights, directory_hint)
            if model is not None:
                return [model]
        root, is_fragment = parse_document(data, file)
        blob = _open_weights(weights, directory_hint)
        if is_fragment:
            return _read_fragments(root, file, blob)
        return [_read_net(root, file, blob)]


class _interning:
    """Share short repeated texts within one load (see :data:`_INTERNED`); emptied when the
    load ends, however it ends (a KeyboardInterrupt while emptying it repeats the clearing)."""

    __slots__ = ()

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, traceback):
        interrupted = None
        while True:
            try:
                _INTERNED.clear()
                break
            except BaseException as caught:
                interrupted = caught
        if interrupted is not None and exc is None:
            raise interrupted
        return False


#: Short texts the accelerator read during the current load (types, versions, precisions,
#: dims...): one object per distinct text across the model; emptied after each load.
_INTERNED: dict[str, str] = {}


# -- sources -----------------------------------------------------------------------------------
def _read_source(source):
    if isinstance(source, bytes):
        return source, "<bytes>", None
    if isinstance(source, str) and source.lstrip().startswith("<"):
        return source.encode("utf-8"), "<string>", None
    if not isinstance(source, (str, os.PathLike)):
        raise InputFileError(f"cannot load {type(source).__name__}: give a path or XML text")
    path = os.fspath(source)
    return read_regular_file(path, "model"), path, path


def _open_weights(weights, model_path):
    if isinstance(weights, (bytes, bytearray, memoryview)):
        return Weights.from_bytes(bytes(weights))
    if weights is not None:
        return Weights(os.fspath(weights))
    if model_path is None:
        return None
    candidate = os.path.splitext(model_path)[0] + ".bin"
    if not os.path.lexists(candidate):
        return None
    return Weights(candidate)


# -- documents ---------------------------------------------------------------------------------
def _read_net_in_pieces(root, pieces, file, weights, directory_hint) -> Model | None:
    """Read a net whose ``<layers>`` and rest arrive in pieces; ``None`` when a piece is not
    well-formed (the caller then parses the whole document and reports that)."""
    try:
        model = _read_net(root, file, None, pieces)
    except (PieceFailed, IRError):
        # The whole-document parse reports it: a syntax error anywhere comes first, and
        # every line is the file's.
        return None
    finally:
        pieces.close()
    # Only now is the whole document known to be well-formed: weights problems come after
    # syntax errors, as when the document is parsed whole.
    model.weights = _open_weights(weights, directory_hint)
    return model


def _read_net(root, file, blob, pieces=None) -> Model:
    if root.tag != "net":
        raise IRFormatError(
            f"the root element is <{root.tag}>, but OpenVINO IR starts with <net>",
            file=file,
            line=_line(root),
        )
    version_text = root.get("version")
    if version_text is None:
        raise IRFormatError(
            "<net> has no version attribute; OpenVINO reads IR version 10 and 11",
            file=file,
            line=_line(root),
        )
    version = parse_int(version_text, unsigned=True)
    if version is None:
        raise IRFormatError(
            f"<net version={short_text(version_text)!r}> is not an IR version number",
            file=file,
            line=_line(root),
        )
    if version < 10:
        raise IRFormatError(
            f"this is legacy IR version {version} (Inference Engine CNNLayer format), which "
            "current OpenVINO no longer reads; convert the original model again with a current "
            "OpenVINO (ovc) to get IR v11",
            file=file,
            line=_line(root),
        )
    if version > 11:
        raise IRFormatError(
            f"IR version {version} is not supported; OpenVINO 2026 writes and reads versions 10 "
            "and 11",
            file=file,
            line=_line(root),
        )
    model = Model(file, root.get("name", ""), version, False, blob, constants)
    _read_graph(model, root, fragment=False, pieces=pieces)
    rt_info = (root if pieces is None else pieces.rest()).find("rt_info")
    if rt_info is not None:
        model.rt_info = _read_model_rt_info(rt_info)
    _name_model_io(model)
    return model


def _read_fragments(root, file, blob) -> list[Model]:
    for node in [root, *root]:
        stray = node.text if node is root else node.tail
        if node is not root and not isinstance(node.tag, str):  # a comment: only its tail counts
            if stray and stray.strip():
                raise XMLSyntaxError(
                    f"unexpected text {stray.strip()[:40]!r} between <layer> elements",
                    file=file,
                    line=_line(node),
                )
            continue
        if stray and stray.strip():
            line = _line(root) if node is root else _line(node)
            raise XMLSyntaxError(
                f"unexpected text {stray.strip()[:40]!r} between <layer> elements",
                file=file,
                line=line,
            )
        if node is not root and node.tag not in ("layer", "edge", "edges"):
            raise IRFormatError(
                f"unexpected <{str(node.tag)[:40]}> in a fragment; it may hold only <layer> "
                "(and <edge>/<edges>) elements",
                file=file,
                line=_line(node),
            )
    elements = [child for child in root if child.tag == "layer"]
    edges = [child for child in root if child.tag in ("edge", "edges")]
    ids = [_layer_id(element, file) for element in elements]
    name = os.path.basename(file)
    if len(set(ids)) == len(ids):
        model = Model(file, name, None, True, blob, constants)
        _read_graph(model, root, fragment=True)
        _name_model_io(model)
        return [model]
    if edges:
        raise FragmentError(
            "the fragment repeats layer ids and has <edge> elements, so its edges are "
            "ambiguous; give every layer a unique id",
            file=file,
            line=_line(edges[0]),
        )
    models = []
    for element in elements:
        model = Model(file, name, None, True, blob, constants)
        model.layers.append(_read_layer(model, element, fragment=True))
        model._index()
        _name_model_io(model)
        models.append(model)
    return models


def _read_graph(graph: Graph, element, fragment: bool, pieces=None) -> None:
    """Read ``<layers>``/``<edges>`` of ``element`` (a net, a body or a fragment root);
    with ``pieces`` (:mod:`irrun.ir.pieces`), the layers and edges come from there."""
    if pieces is not None:
        for piece, line_offset in pieces:
            _read_layers(graph, piece, fragment, line_offset)
        edge_pieces = pieces.edges()
        if edge_pieces is None:  # not split: in the rest of the document
            edges_element = pieces.rest().find("edges")
            edge_pieces = [] if edges_element is None else [(edges_element, 0)]
        for piece, line_offset in edge_pieces:
            _read_edges(graph, piece, line_offset)
    elif element.tag == FRAGMENT_ROOT:
        _read_layers(graph, list(element.iterchildren("layer")), fragment)
        edge_elements = list(element.iterchildren("edge"))
        for child in element.iterchildren("edges"):
            edge_elements.extend(child)
        _read_edges(graph, edge_elements)
    else:
        layers_element = element.find("layers")
        if layers_element is not None:
            _read_layers(graph, layers_element, fragment)
        edges_element = element.find("edges")
        if edges_element is not None:
            _read_edges(graph, edges_element)
    graph._index()


def _read_edges(graph: Graph, elements, line_offset: int = 0) -> None:
    """Read the ``<edge>`` children of ``elements`` (an element or a list of them) whose
    ``sourceline + line_offset`` is their line in the file."""
    edges = graph.edges
    if _walk is not None and not isinstance(elements, list):
        walked = _walk.edges(elements, line_offset)
        if walked is not None:
            edges.extend([Edge(a, b, c, d, line) for a, b, c, d, line in walked])
            return
    file = graph.file
    append_edge = edges.append
    for child in elements:
        get = child.get
        a, b, c, d = get("from-layer"), get("from-port"), get("to-layer"), get("to-port")
        # Fast path: four plain decimal ids (what every serializer writes). Joining them
        # checks all four at once (a missing one reads "None" and fails the check).
        if (
            f"{a}{b}{c}{d}".isdigit()
            and 0 < len(a) < 19
            and 0 < len(b) < 19
            and 0 < len(c) < 19
            and 0 < len(d) < 19
            and (a + b + c + d).isascii()
            and child.tag == "edge"
        ):
            line = child.sourceline
            if line >= 65535:
                line = _big_line(child, line)
            append_edge(Edge(int(a), int(b), int(c), int(d), line + line_offset))
            continue
        if not isinstance(child.tag, str):
            continue
        if child.tag != "edge":
            _unexpected(child, "edges", file)
        if any(child.get(n) is None for n in _EDGE_ATTRIBUTES):
            what = _edge_label(graph, child)
            for attribute in _EDGE_ATTRIBUTES:
                _required_uint(child, attribute, file, what=what, line_offset=line_offset)
        append_edge(Edge(*(_required_uint(child, n, file, line_offset=line_offset)
                           for n in _EDGE_ATTRIBUTES), _line(child) + line_offset))  # fmt: skip


_EDGE_ATTRIBUTES = ("from-layer", "from-port", "to-layer", "to-port")


def _read_layers(graph: Graph, elements, fragment: bool, line_offset: int = 0) -> None:
    """Read the ``<layer>`` children of ``elements`` (an element or a list of them) whose
    ``sourceline + line_offset`` is their line in the file."""
    layers = graph.layers
    first = len(layers)
    if _walk is not None and not isinstance(elements, list):
        caches = _PORT_CACHES["input", fragment], _PORT_CACHES["output", fragment]
        walked = _walk.layers(elements, line_offset, fragment, *caches, _INTERNED)
        if walked is not None:
            _read_walked(graph, elements, walked, fragment, line_offset)
            return
    file = graph.file
    append_layer = layers.append
    for child in elements:
        if child.tag != "layer":
            if isinstance(child.tag, str):  # comments and PIs have function tags
                _unexpected(child, "layers", file)
            continue
        append_layer(_read_layer(graph, child, fragment))
    if line_offset:
        _shift_lines(layers, first, line_offset)


def _read_walked(graph: Graph, parent, walked: list, fragment: bool, line_offset: int) -> None:
    """Turn what :func:`irrun.ir._walk.layers` read from ``parent`` into layers; a layer it
    handed back (an int: its child index), or one whose values need a check that raises,
    is read from its element by :func:`_read_layer`."""
    layers = graph.layers
    children = None
    for item in walked:
        layer = _layer_from_walk(graph, item, fragment) if type(item) is tuple else None
        if layer is None:
            if children is None:
                children = list(parent)
            position = item if type(item) is int else item[-1]
            layers.append(_read_layer(graph, children[position], fragment))
            if line_offset:
                _shift_lines(layers, len(layers) - 1, line_offset)
            continue
        layers.append(layer)


def _shift_lines(layers: list[Layer], first: int, offset: int) -> None:
    """Add ``offset`` to the lines of ``layers[first:]`` (read from a piece, see
    :mod:`irrun.ir.pieces`), their ports and anything in their bodies."""
    for layer in layers[first:]:
        layer.line += offset
        if layer.data_line is not None:
            layer.data_line += offset
        for port in layer.inputs:
            port.line += offset
        for port in layer.outputs:
            port.line += offset
        for body in layer.bodies.values():
            _shift_lines(body.layers, 0, offset)
            for edge in body.edges:
                edge.line += offset


def _unexpected(child, parent, file):
    raise IRFormatError(f"unexpected <{child.tag}> inside <{parent}>", file=file, line=_line(child))


def _layer_id(element, file) -> int:
    text = element.get("id")
    if text is not None and text.isdigit() and text.isascii() and len(text) < 19:
        return int(text)
    return _required_uint(element, "id", file, what=_layer_label(element))


def _layer_label(element) -> str:
    """``<layer> 'conv' (Convolution)``: a layer without a usable id, by what it does have."""
    name, layer_type = element.get("name"), element.get("type")
    named = f" {short_text(name)!r}" if name else " (no name)"
    typed = f" ({short_text(layer_type)})" if layer_type else " (no type)"
    return f"<layer>{named}{typed}"


def _edge_label(graph: Graph, element) -> str:
    """``<edge> from layer 3 'conv' (Convolution) to layer 4 ...``: what an edge missing an
    attribute does say, with the names of the layers it connects where they exist."""
    names = {}
    for layer in graph.layers:
        names.setdefault(str(layer.id), layer)
    ends = []
    for end in ("from", "to"):
        text = element.get(f"{end}-layer")
        if text is None:
            continue
        layer = names.get(text.strip())
        shown = layer.describe() if layer is not None else f"layer {short_text(text, 40)!r}"
        ends.append(f"{end} {shown}")
    return "<edge>" + "".join(f" {end}" for end in ends)


#: {(direction, fragment): {(id text, precision, names absent, *dim texts): (port id, element
#: type, shape)}} for ports read before: real models repeat a few port signatures many times.
_PORT_CACHES: dict[tuple[str, bool], dict[tuple, tuple]] = {
    (direction, fragment): {} for direction in ("input", "output") for fragment in (False, True)
}
_PORT_CACHE_LIMIT = 1 << 14


def _layer_from_walk(graph: Graph, item: tuple, fragment: bool) -> Layer | None:
    """A :class:`Layer` from a tuple of :func:`irrun.ir._walk.layers`; ``None`` when a port
    signature is wrong (the element path then reads the layer and raises)."""
    (layer_id, name, layer_type, version, line, output_names, data, data_line, inputs, outputs,
     _) = item  # fmt: skip
    layer = Layer(graph, layer_id, name or "", layer_type, version,
                  {} if data is None else data, line)  # fmt: skip
    if data is not None:
        layer.data_line = data_line
    if output_names is not None:
        layer.output_names = split_names(output_names)
    for direction, walked, ports in (("input", inputs, layer.inputs),
                                     ("output", outputs, layer.outputs)):  # fmt: skip
        for signature, key, names, port_line in walked:
            if signature is None:  # not in the cache when the piece was walked
                signature = _PORT_CACHES[direction, fragment].get(key) or _port_signature(
                    key, direction, fragment
                )
                if signature is None:
                    return None
            port_id, etype, shape = signature
            if type(names) is not tuple:
                names = split_names(names)
            ports.append(Port(layer, port_id, direction, len(ports), key[1], etype, shape,
                              names, port_line))  # fmt: skip
    return layer


def _port_names(text: str | None) -> tuple[str, ...]:
    """A ``names`` attribute as a tuple (most hold one plain name: no splitting then)."""
    if text is None:
        return ()
    if "," in text or "\\" in text:
        return split_names(text)
    return (text,) if text else ()


def _port_signature(key: tuple, direction: str, fragment: bool) -> tuple | None:
    """Parse and remember a port signature (see ``_PORT_CACHES``); ``None`` when it is wrong
    (:func:`_read_port` reports that)."""
    id_text, precision, names_absent, *dims = key
    if id_text is None or not (len(id_text) < 19 and id_text.isdigit() and id_text.isascii()):
        return None
    etype = _BY_PRECISION.get(precision) if precision is not None else None
    if etype is None and direction == "output" and (precision is not None or not fragment):
        return None
    if dims or precision is not None or not names_absent:
        try:
            shape = _port_shape(tuple(dims))
        except ValueError:
            return None
    else:
        shape = _DYNAMIC_RANK
    return _remember_port(key, direction, fragment, (int(id_text), etype, shape))


def _remember_port(key: tuple, direction: str, fragment: bool, signature: tuple) -> tuple:
    cache = _PORT_CACHES[direction, fragment]
    if len(cache) >= _PORT_CACHE_LIMIT:
        cache.clear()
    cache[key] = signature
    return signature


def _read_layer(graph: Graph, element, fragment: bool) -> Layer:
    file = graph.file
    get = element.get
    text = get("id")
    if text is not None and len(text) < 19 and text.isdigit() and text.isascii():
        layer_id = int(text)
    else:
        layer_id = _layer_id(element, file)
    layer_type = get("type")
    version = get("version")
    name = get("name")
    if not fragment and (name is None or layer_type is None or version is None):
        missing = next(n for n, v in (("name", name), ("type", layer_type),
                                      ("version", version)) if v is None)  # fmt: skip
        raise IRFormatError(
            f"<layer id=\"{layer_id}\"> has no '{missing}' attribute, which OpenVINO requires",
            file=file,
            line=_line(element),
        )
    if not layer_type:
        raise IRFormatError(f'<layer id="{layer_id}"> has no type', file=file, line=_line(element))
    line = element.sourceline
    if line >= 65535:
        line = _big_line(element, line)
    layer = Layer(graph, layer_id, name or "", layer_type, version, {}, line)
    output_names = get("output_names")
    if output_names is not None:
        layer.output_names = split_names(output_names)
    for child in element:
        tag = child.tag
        if tag == "output" or tag == "input":
            ports = layer.outputs if tag == "output" else layer.inputs
            cache = _PORT_CACHES[tag, fragment]
            # The loop below is the hot path of loading: a port whose (id, precision, dims)
            # were seen before reuses their parsed form; anything else takes _read_port.
            for port_element in child:  # (a plain loop is faster than iterchildren("port"))
                if port_element.tag != "port":
                    continue
                port_get = port_element.get
                precision = port_get("precision")
                names = port_get("names")
                dims = [d.text for d in port_element if d.tag == "dim"]
                found = None
                if len(dims) == len(port_element):  # no rt_info, comment or other child
                    key = (port_get("id"), precision, names is None, *dims)
                    found = cache.get(key)
                if found is None:
                    ports.append(_read_port(layer, port_element, tag, len(ports), fragment))
                    continue
                port_id, etype, shape = found
                names = _port_names(names)
                line = port_element.sourceline
                if line >= 65535:
                    line = _big_line(port_element, line)
                ports.append(Port(layer, port_id, tag, len(ports), precision, etype, shape,
                                  names, line))  # fmt: skip
        elif tag == "data":
            layer.attributes = dict(child.items())
            line = child.sourceline
            layer.data_line = line if line < 65535 else _big_line(child, line)
        elif tag == "rt_info":
            layer.rt_info = _read_rt_info(child)
        elif tag in _BODY_TAGS:
            body = Graph(graph.model, file)
            _read_graph(body, child, fragment=False)
            layer.bodies = {**layer.bodies, tag: body}
        elif tag in _PORT_MAP_TAGS:
            maps = [dict(item.attrib, kind=item.tag) for item in child if isinstance(item.tag, str)]
            layer.port_maps = {**layer.port_maps, tag: maps}
        elif tag == "back_edges":
            layer.back_edges = [dict(item.attrib) for item in child if isinstance(item.tag, str)]
    return layer


def _read_port(layer: Layer, element, direction: str, index: int, fragment: bool) -> Port:
    """Read one ``<port>`` with every check (the slow path of :func:`_read_layer`)."""
    get = element.get
    text = get("id")
    if text is not None and text.isdigit() and text.isascii() and len(text) < 19:
        port_id = int(text)
    else:
        port_id = _required_uint(
            element, "id", layer.graph.file, what=f"<port> of {layer.describe()}"
        )
    precision = get("precision")
    etype = _BY_PRECISION.get(precision) if precision is not None else None
    if etype is None and direction == "output" and (precision is not None or not fragment):
        _bad_output_precision(layer, element, port_id, precision)
    # Input-port precisions are ignored by OpenVINO's reader; an unknown one is kept as text.
    dims = tuple([dim.text or "" for dim in element if dim.tag == "dim"])
    names = get("names")
    if dims or precision is not None or names is not None:
        try:
            shape = _port_shape(dims)
        except ValueError as exc:
            raise IRFormatError(
                f"{layer.describe()} {direction} port {port_id}: {exc}",
                file=layer.graph.file,
                line=_line(element),
            ) from None
    else:
        # Hand-written IR (and OpenVINO's own reader) treat a bare <port id="0"/> as "not
        # declared"; OpenVINO always writes a precision on a real scalar port.
        shape = _DYNAMIC_RANK
    port = Port(layer, port_id, direction, index, precision, etype, shape,
                split_names(names) if names else (), _line(element))  # fmt: skip
    if len(element) > len(dims):
        rt_info = element.find("rt_info")
        if rt_info is not None:
            port.rt_info = _read_rt_info(rt_info)
    elif all(dim.text is not None for dim in element):
        # Remember the parsed form for the fast path (dims without text never take it).
        key = (text, precision, names is None, *dims)
        _remember_port(key, direction, fragment, (port_id, etype, shape))
    return port


def _bad_output_precision(layer, element, port_id, precision):
    if precision is None:
        raise IRFormatError(
            f"{layer.describe()} output port {port_id} has no precision attribute, which "
            'OpenVINO requires on output ports (e.g. precision="FP32")',
            file=layer.graph.file,
            line=_line(element),
        )
    try:
        from_precision(precision)
    except KeyError as exc:
        raise IRFormatError(
            f"{layer.describe()} output port {port_id}: {exc.args[0]}",
            file=layer.graph.file,
            line=_line(element),
        ) from None


@lru_cache(maxsize=4096)
def _port_shape(texts: tuple[str, ...]) -> Shape:
    return Shape(_port_dim(text) for text in texts)


@lru_cache(maxsize=4096)
def _port_dim(text: str) -> Dim:
    stripped = text.strip()
    if stripped in ("-1", "?"):
        return Dim.dynamic()
    if stripped.isdigit() and stripped.isascii():
        value = parse_int(stripped, unsigned=True)
        if value is None:
            raise ValueError(
                f"<dim>{short_text(stripped, 40)}</dim> is beyond the 64-bit integer range"
            )
        return static_dim(value)
    if ".." in stripped:  # OpenVINO reads interval dims leniently; keep their bounds
        from irrun.shape import parse_dim

        try:
            return parse_dim(stripped)
        except ValueError:
            pass
    shown = stripped if len(stripped) < 40 else stripped[:40] + "..."
    raise ValueError(
        f"<dim>{shown}</dim> is not a dimension; write a size (0 or more) or -1 for dynamic"
    )


def _required_uint(element, name, file, what=None, line_offset=0) -> int:
    text = element.get(name)
    what = what or f"<{element.tag}>"
    if text is None:
        raise IRFormatError(
            f"{what} has no '{name}' attribute", file=file, line=_line(element) + line_offset
        )
    value = parse_int(text, unsigned=True)
    if value is None:
        raise IRFormatError(
            f"{what} has {name}={short_text(text, 40)!r}, which is not a non-negative integer "
            "(of at most 64 bits)",
            file=file,
            line=_line(element) + line_offset,
        )
    return value


def _line(element) -> int | None:
    """The XML line of ``element`` (see :func:`_big_line`)."""
    line = element.sourceline
    if line is None or line < 65535:
        return line
    return _big_line(element, line)


def _big_line(element, line: int) -> int:
    """The true line of a node lxml places at ``line`` >= 65535.

    libxml2 keeps 16 bits of line number per node; past line 65535, lxml reports the line
    where the text that follows the node's start ends: its first child text, else the
    first child's, else the text after it (or the next sibling's line). The newlines of
    that text are stepped back over."""
    text = element.text
    if not isinstance(element.tag, str):  # a comment or PI: its text is its content
        tail = element.tail
        if tail:
            return line - tail.count("\n") - (text or "").count("\n")
        following = element.getnext()
        return _line(following) - (text or "").count("\n") if following is not None else line
    if text:
        return line - text.count("\n")
    if len(element):
        return _line(element[0])  # the first child starts where this start tag ends
    tail = element.tail
    if tail:
        return line - tail.count("\n")
    following = element.getnext()
    if following is not None:  # starts where this empty element ends
        return _line(following)
    # The last child, with nothing after it: its parent's end tag follows on the same line.
    # Go up to the first ancestor with a next sibling, whose line less the newlines of the
    # text in between is this one (the walk only moves forward through the document).
    newlines, node = 0, element
    while (parent := node.getparent()) is not None:
        newlines += (parent.tail or "").count("\n")
        following = parent.getnext()
        if following is not None:
            return _line(following) - newlines
        node = parent
    return line


# -- rt_info -----------------------------------------------------------------------------------
def _read_rt_info(element) -> dict:
    """Layer/port ``<rt_info>``: ``{name: value}`` for each ``<attribute>``; other attributes of
    an entry (``layout="[N,C,H,W]"``) come as a dict. Unknown entries are kept as they are."""
    info = {}
    for child in element:
        if not isinstance(child.tag, str):
            continue
        name = child.get("name", child.tag)
        extra = {k: v for k, v in child.attrib.items() if k not in ("name", "version")}
        if len(child):
            info[name] = _read_rt_info(child)
        elif set(extra) == {"value"}:
            info[name] = extra["value"]
        else:
            info[name] = extra
    return info


def _read_model_rt_info(element) -> dict:
    """Model ``<rt_info>``: element names are keys, ``value`` attributes values, nesting kept."""
    info = {}
    for child in element:
        if not isinstance(child.tag, str):
            continue
        key = child.get("name", child.tag) if child.tag == "info" else child.tag
        info[key] = _read_model_rt_info(child) if len(child) else child.get("value")
    return info


# -- model inputs and outputs ------------------------------------------------------------------
def _name_model_io(model: Model) -> None:
    """Name inputs and outputs as OpenVINO's ``read_model`` does (ir-format.md §6.3)."""
    v10 = model.ir_version == 10
    for layer in model.layers:
        if layer.type == "Parameter" and layer.outputs:
            port = layer.outputs[0]
            names = set(port.names) | ({layer.name} if v10 else set())
            name = smallest_name(names) if names else layer.name
            model.inputs.append(ModelInput(name, tuple(sorted(names)), port, layer))
        elif layer.type == "Result" and layer.inputs:
            producer = model.producer(layer.inputs[0])
            port = producer or layer.inputs[0]
            if v10:
                names = set(port.names)
                if producer is not None:
                    owner = producer.layer
                    single = len(owner.outputs) == 1
                    names.add(owner.name if single else f"{owner.name}.{producer.index}")
            elif layer.output_names:  # an empty output_names counts as absent, as in OpenVINO
                names = set(layer.output_names)
            else:
                names = set(port.names) if producer is not None else set()
            name = smallest_name(names) if names else layer.name
            model.outputs.append(ModelOutput(name, tuple(sorted(names)), port, layer))
    if model.is_fragment:
        _name_fragment_io(model)


def _name_fragment_io(model: Model) -> None:
    """A fragment's unconnected input ports are its inputs, unconsumed outputs its outputs.

    They are named ``<layer name or id>:in<port id>`` / ``:out<port id>``: spec snippets reuse
    port ids between inputs and outputs, so the direction is part of the name."""
    for layer in model.layers:
        label = layer.name or str(layer.id)
        if layer.type not in ("Parameter", "Const"):
            for port in layer.inputs:
                if model.producer(port) is None:
                    name = f"{label}:in{port.id}"
                    model.inputs.append(ModelInput(name, (name,), port, layer))
        if layer.type != "Result":
            for port in layer.outputs:
                if not model.consumers(port):
                    names = port.names or (f"{label}:out{port.id}",)
                    name = smallest_name(names)
                    model.outputs.append(ModelOutput(name, tuple(sorted(names)), port, layer))
