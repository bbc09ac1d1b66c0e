"""Writing IR XML text for tests, and finding and editing lines in it.

:func:`net` wraps layers and edges in a ``<net>``; :class:`Net` writes a whole net the way
OpenVINO does (one port per line, every edge consistent) and keeps its ``.bin`` bytes;
:func:`line_of` and :func:`edit` locate and change exactly one piece of a text, so that a
test names the line it expects by what is written there.
"""

from __future__ import annotations

import html
from collections.abc import Iterable

import numpy as np

from irrun.element_types import element_type, from_numpy_dtype

__all__ = ["dims", "edge", "net", "parameter", "Net", "line_of", "edit"]


def dims(values: Iterable) -> str:
    """``<dim>`` elements: ``dims([2, -1])`` → ``<dim>2</dim><dim>-1</dim>``."""
    return "".join(f"<dim>{value}</dim>" for value in values)


def edge(from_layer, from_port, to_layer, to_port) -> str:
    """One ``<edge>`` element."""
    return (
        f'<edge from-layer="{from_layer}" from-port="{from_port}" '
        f'to-layer="{to_layer}" to-port="{to_port}"/>'
    )


def net(layers: str | Iterable[str], edges: str | Iterable = "", *, name: str = "t",
        version: int = 11) -> str:  # fmt: skip
    """An IR document: the XML declaration on line 1, ``<net>`` on 2, ``<layers>`` on 3 and
    the layers from line 4. ``layers`` and ``edges`` are XML text, or lists (of layer texts;
    of edge texts or ``(from_layer, from_port, to_layer, to_port)`` tuples), one per line."""
    if not isinstance(layers, str):
        layers = "\n".join(layers)
    if not isinstance(edges, str):
        edges = "\n".join(item if isinstance(item, str) else edge(*item) for item in edges)
    return (
        f'<?xml version="1.0"?>\n<net name="{html.escape(name, quote=True)}" '
        f'version="{version}">\n<layers>\n{layers}\n</layers>\n<edges>\n{edges}\n</edges>\n'
        "</net>\n"
    )


def parameter(layer_id, name, shape_dims) -> str:
    """An f32 Parameter layer of static dims ``shape_dims``, on one line."""
    shape = ",".join(map(str, shape_dims))
    return (
        f'<layer id="{layer_id}" name="{name}" type="Parameter" version="opset1">'
        f'<data shape="{shape}" element_type="f32"/>'
        f'<output><port id="0" precision="FP32">{dims(shape_dims)}</port></output></layer>'
    )


def _port_dims(shape: str) -> list[int]:
    if shape in ("", "..."):
        return []
    return [-1 if ("?" in d or ".." in d) else int(d) for d in shape.split(",")]


class Net:
    """Writes IR v11 the way OpenVINO does (one port per line, inputs numbered before outputs).

    Each builder method returns a reference ``(layer id, port id, dims, precision)`` to the
    output it made; consumers copy the producer's dims and precision onto their input port,
    so every edge of a freshly built net is consistent. ``blob`` holds the .bin bytes.
    """

    def __init__(self):
        self.layers: list[str] = []
        self.edges: list[tuple[int, int, int, int]] = []
        self.blob = bytearray()

    def _id(self) -> int:
        return len(self.layers)

    def param(self, name, shape, etype="f32"):
        i, p = self._id(), element_type(etype).precision
        self.layers.append(
            f'    <layer id="{i}" name="{name}" type="Parameter" version="opset1">\n'
            f'      <data shape="{shape}" element_type="{etype}"/>\n'
            "      <output>\n"
            f'        <port id="0" precision="{p}" names="{name}">'
            f"{dims(_port_dims(shape))}</port>\n"
            "      </output>\n"
            "    </layer>\n"
        )
        return (i, 0, _port_dims(shape), p)

    def const(self, name, values):
        values = np.asarray(values)
        etype = from_numpy_dtype(values.dtype)
        return self.const_raw(name, values.tobytes(), etype.name, list(values.shape))

    def const_raw(self, name, raw, etype, shape):
        """A Const of element type ``etype`` (a name: ``u4``, ``boolean``) and ``shape`` whose
        bytes in the .bin are ``raw`` (bytes or an array's bytes), placed where the blob ends."""
        raw = bytes(raw) if not isinstance(raw, np.ndarray) else raw.tobytes()
        i, etype = self._id(), element_type(etype)
        offset = len(self.blob)
        self.blob += raw
        written = ", ".join(map(str, shape))
        self.layers.append(
            f'    <layer id="{i}" name="{name}" type="Const" version="opset1">\n'
            f'      <data element_type="{etype.name}" shape="{written}" offset="{offset}" '
            f'size="{len(raw)}"/>\n'
            "      <output>\n"
            f'        <port id="0" precision="{etype.precision}" names="{name}">'
            f"{dims(shape)}</port>\n"
            "      </output>\n"
            "    </layer>\n"
        )
        return (i, 0, list(shape), etype.precision)

    def op(self, name, op_type, version, data, inputs, out_dims, precision=None):
        i = self._id()
        text = [f'    <layer id="{i}" name="{name}" type="{op_type}" version="{version}">\n']
        if data is not None:
            attrs = " ".join(f'{k}="{v}"' for k, v in data.items())
            text.append(f"      <data {attrs}/>\n")
        text.append("      <input>\n")
        for k, (src, src_port, in_dims, prec) in enumerate(inputs):
            text.append(f'        <port id="{k}" precision="{prec}">{dims(in_dims)}</port>\n')
            self.edges.append((src, src_port, i, k))
        text.append("      </input>\n      <output>\n")
        precision = precision or inputs[0][3]
        out = len(inputs)
        text.append(
            f'        <port id="{out}" precision="{precision}" names="{name}">'
            f"{dims(out_dims)}</port>\n"
        )
        text.append("      </output>\n    </layer>\n")
        self.layers.append("".join(text))
        return (i, out, list(out_dims), precision)

    def result(self, ref, name=None):
        i = self._id()
        src, src_port, in_dims, prec = ref
        self.layers.append(
            f'    <layer id="{i}" name="{name or f"out{i}"}" type="Result" version="opset1">\n'
            "      <input>\n"
            f'        <port id="0" precision="{prec}">{dims(in_dims)}</port>\n'
            "      </input>\n"
            "    </layer>\n"
        )
        self.edges.append((src, src_port, i, 0))
        return i

    def text(self) -> str:
        edges = "".join(f"    {edge(*item)}\n" for item in self.edges)
        return (
            '<?xml version="1.0"?>\n<net name="net" version="11">\n  <layers>\n'
            + "".join(self.layers)
            + "  </layers>\n  <edges>\n"
            + edges
            + "  </edges>\n</net>\n"
        )


def _segment(text: str, within: str | None) -> tuple[int, int]:
    """The character range of the layer named ``within`` (or the whole text)."""
    if within is None:
        return 0, len(text)
    start = text.index(f'name="{within}"')
    start = text.rindex("<layer ", 0, start)
    return start, text.index("</layer>", start)


def line_of(text: str, needle: str, within: str | None = None) -> int:
    """1-based line of the only occurrence of ``needle`` (inside layer ``within``)."""
    start, end = _segment(text, within)
    segment = text[start:end]
    assert segment.count(needle) == 1, f"{needle!r} occurs {segment.count(needle)} times"
    return text.count("\n", 0, start + segment.index(needle)) + 1


def edit(text: str, old: str, new: str, within: str | None = None) -> str:
    """Replace the only occurrence of ``old`` (inside layer ``within``) by ``new``."""
    start, end = _segment(text, within)
    segment = text[start:end]
    assert segment.count(old) == 1, f"{old!r} occurs {segment.count(old)} times"
    return text[:start] + segment.replace(old, new) + text[end:]
