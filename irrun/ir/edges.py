"""Reading ``<edge>`` elements: the one edge reader.

:func:`edge_record` gives ``(from layer, from port, to layer, to port, line)`` of an
``<edge>`` with every check; the optional accelerator (:mod:`irrun.ir.accelerator`) makes the
same records from plainly written edges.
"""

from __future__ import annotations

from irrun.errors import IRFormatError
from irrun.ir.ids import required_uint
from irrun.ir.lines import BIG_LINE, line_of
from irrun.model import Edge, Graph
from irrun.text import short_text

__all__ = ["read_edges", "edge_record", "EDGE_ATTRIBUTES"]

EDGE_ATTRIBUTES = ("from-layer", "from-port", "to-layer", "to-port")


def read_edges(graph: Graph, elements, line_offset: int, walker=None) -> None:
    """Append an :class:`Edge` per ``<edge>`` child of ``elements`` (an element or a list of
    them) whose ``sourceline + line_offset`` is their line in the file; ``walker`` is the
    accelerator or ``None``."""
    if walker is not None and not isinstance(elements, list):
        records = walker.edges(elements, line_offset)
        if records is not None:
            graph.edges.extend([Edge(*record) for record in records])
            return
    append = graph.edges.append
    for child in elements:
        record = edge_record(graph, child, line_offset)
        if record is not None:
            append(Edge(*record))


def edge_record(graph: Graph, element, line_offset: int) -> tuple | None:
    """``(from layer, from port, to layer, to port, line)`` of an ``<edge>`` element (``None``
    for a comment or processing instruction), or :class:`IRFormatError` for anything else."""
    get = element.get
    a, b, c, d = get("from-layer"), get("from-port"), get("to-layer"), get("to-port")
    # Four plain decimal ids (what every serializer writes). Joining them checks all four at
    # once (a missing one reads "None" and fails the check).
    if (
        f"{a}{b}{c}{d}".isdigit()
        and 0 < len(a) < 19
        and 0 < len(b) < 19
        and 0 < len(c) < 19
        and 0 < len(d) < 19
        and (a + b + c + d).isascii()
        and element.tag == "edge"
    ):
        line = element.sourceline
        if line >= BIG_LINE:
            line = line_of(element)
        return int(a), int(b), int(c), int(d), line + line_offset
    if not isinstance(element.tag, str):  # comments and PIs have function tags
        return None
    file = graph.file
    line = line_of(element) + line_offset
    if element.tag != "edge":
        raise IRFormatError(f"unexpected <{element.tag}> inside <edges>", file=file, line=line)
    what = "<edge>"
    if any(get(name) is None for name in EDGE_ATTRIBUTES):
        what = _edge_label(graph, element)
    values = [required_uint(get(name), name, what, file, line) for name in EDGE_ATTRIBUTES]
    return (*values, line)


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
