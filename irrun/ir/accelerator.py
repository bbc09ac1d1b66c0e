"""The optional native reader of plainly written layers and edges (:mod:`irrun.ir._walk`).

``setup.py`` compiles it where a C compiler is found, against lxml's public C API and the
libxml2 headers lxml ships. It gives exactly the records that
:func:`irrun.ir.layers.layer_record` and :func:`irrun.ir.edges.edge_record` give (those are
the specification) about twice as fast, and hands every other element back to them.

It is used only when it imports (it refuses to when lxml runs with another libxml2 than the
one it was compiled against, or lxml's element type is not the one of its headers) and reads a
small document here exactly as the Python reader does. Setting the environment variable
``IRRUN_NO_ACCELERATOR=1`` turns it off (and ``setup.py`` then builds none): everything is then
read in pure Python, with the same results.
"""

from __future__ import annotations

import os

__all__ = ["load_accelerator", "SWITCH"]

#: The environment variable that turns the accelerator off (any value but "" and "0").
SWITCH = "IRRUN_NO_ACCELERATOR"

_PROBE = (
    '<net><layers>\n<layer id="7" name="a&amp;b" type="T" version="v1"><data k=""/>'
    '<output><port id="2" precision="I8" names="x,y"><dim>3</dim></port></output></layer>'
    '<!-- c --><layer id="8" type="T"><rt_info/></layer>'
    '<layer id="9" name="" type="T" version="v1"><input><port id="0"/></input></layer></layers>'
    '<edges><edge from-layer="7" from-port="2" to-layer="8" to-port="0"/></edges></net>'
)


def load_accelerator():
    """``(module, None)`` when the accelerator is built, allowed and reads as Python does;
    else ``(None, why not)``."""
    if os.environ.get(SWITCH, "").strip() not in ("", "0"):
        return None, f"turned off by {SWITCH}"
    try:
        from irrun.ir import _walk
    except ImportError as exc:  # not built (no C compiler), or refused (another libxml2)
        return None, f"not loaded: {exc}"
    try:
        problem = _self_check(_walk)
    except Exception as exc:  # pragma: no cover - an incompatible build
        problem = f"{type(exc).__name__}: {exc}"
    return (None, f"disagrees with the Python reader: {problem}") if problem else (_walk, None)


def _self_check(walker) -> str | None:
    """What ``walker`` reads differently from the Python reader on a small document."""
    from lxml import etree

    from irrun.ir.edges import edge_record
    from irrun.ir.layers import layer_record
    from irrun.ir.xml import safe_parser
    from irrun.model import Graph

    root = etree.fromstring(_PROBE, safe_parser())
    layers, edges = root
    walked = walker.layers(layers, 5, False, {})
    children = list(layers)
    expected = [index if index == 2 else layer_record(child, "<probe>", False, 5)
                for index, child in enumerate(children) if isinstance(child.tag, str)]  # fmt: skip
    if walked != expected:
        return f"layers {walked!r} != {expected!r}"
    walked = walker.edges(edges, 10)
    expected = [edge_record(Graph(None, "<probe>"), child, 10) for child in edges]
    if walked != expected:
        return f"edges {walked!r} != {expected!r}"
    if walker.layers(edges, 0, False, {}) is not None:
        return "a <layers> holding <edge> elements is not handed back"
    return None
