"""Reading ``<port>`` elements: the one port reader.

A port is read in two steps. :func:`port_record` takes what the element says, as written:
``(key, names, line, rt_info)`` with ``key = (id text, precision, names is None, *dim
texts)``. :func:`read_ports` turns records into :class:`~irrun.model.Port` objects, parsing
and checking each distinct key once per load (:func:`port_signature`): real models repeat a
few port signatures many times. The optional accelerator (:mod:`irrun.ir.accelerator`) makes
the same records from plainly written ports.
"""

from __future__ import annotations

from irrun.element_types import _BY_PRECISION, from_precision
from irrun.errors import IRFormatError
from irrun.ir.ids import required_uint
from irrun.ir.lines import BIG_LINE, line_of
from irrun.ir.names import split_names
from irrun.ir.rt_info import read_rt_info
from irrun.model import Port
from irrun.numbers import parse_int
from irrun.shape import Dim, Shape, static_dim
from irrun.text import short_text

__all__ = ["port_record", "read_ports", "port_signature"]

_DYNAMIC_RANK = Shape.dynamic_rank()


def port_record(element, line_offset: int) -> tuple:
    """``(key, names, line, rt_info)`` of a ``<port>`` element whose ``sourceline +
    line_offset`` is its line in the file: ``key = (id, precision, names is None, *dims)``
    (texts as written, ``None`` when absent; a ``<dim>`` without text reads ``""``),
    ``names`` the ``names`` text, ``rt_info`` its ``<rt_info>`` element or ``None``."""
    get = element.get
    names = get("names")
    dims = [dim.text or "" for dim in element if dim.tag == "dim"]
    rt_info = element.find("rt_info") if len(dims) != len(element) else None
    line = element.sourceline
    if line >= BIG_LINE:
        line = line_of(element)
    return (get("id"), get("precision"), names is None, *dims), names, line + line_offset, rt_info


def read_ports(layer, records, direction: str, signatures: dict, fragment: bool) -> None:
    """Append a :class:`Port` per record to ``layer.inputs`` or ``layer.outputs``.

    ``signatures`` maps the keys seen in this load (for this direction and ``fragment``) to
    ``(port id, element type, shape)``; new keys are checked and added."""
    ports = layer.inputs if direction == "input" else layer.outputs
    for key, names, line, rt_info in records:
        signature = signatures.get(key)
        if signature is None:
            signature = signatures[key] = port_signature(layer, key, line, direction, fragment)
        port_id, element_type, shape = signature
        if names is None:
            names = ()
        elif "," in names or "\\" in names:
            names = split_names(names)
        else:
            names = (names,) if names else ()
        port = Port(layer, port_id, direction, len(ports), key[1], element_type, shape, names,
                    line)  # fmt: skip
        if rt_info is not None:
            port.rt_info = read_rt_info(rt_info)
        ports.append(port)


def port_signature(layer, key: tuple, line: int, direction: str, fragment: bool) -> tuple:
    """``(port id, element type, declared shape)`` of a port record's ``key``, or
    :class:`IRFormatError` naming the layer, the port and ``line``."""
    id_text, precision, names_absent, *dims = key
    file = layer.graph.file
    if id_text is not None and id_text.isdigit() and id_text.isascii() and len(id_text) < 19:
        port_id = int(id_text)
    else:
        port_id = required_uint(id_text, "id", f"<port> of {layer.describe()}", file, line)
    element_type = _BY_PRECISION.get(precision) if precision is not None else None
    if element_type is None and direction == "output" and (precision is not None or not fragment):
        _bad_output_precision(layer, line, port_id, precision)
    # Input-port precisions are ignored by OpenVINO's reader; an unknown one is kept as text.
    if not (dims or precision is not None or not names_absent):
        # Hand-written IR (and OpenVINO's own reader) treat a bare <port id="0"/> as "not
        # declared"; OpenVINO always writes a precision on a real scalar port.
        return port_id, element_type, _DYNAMIC_RANK
    try:
        shape = Shape(_port_dim(text) for text in dims)
    except ValueError as exc:
        raise IRFormatError(
            f"{layer.describe()} {direction} port {port_id}: {exc}", file=file, line=line
        ) from None
    return port_id, element_type, shape


def _bad_output_precision(layer, line, port_id, precision):
    if precision is None:
        raise IRFormatError(
            f"{layer.describe()} output port {port_id} has no precision attribute, which "
            'OpenVINO requires on output ports (e.g. precision="FP32")',
            file=layer.graph.file,
            line=line,
        )
    try:
        from_precision(precision)
    except KeyError as exc:
        raise IRFormatError(
            f"{layer.describe()} output port {port_id}: {exc.args[0]}",
            file=layer.graph.file,
            line=line,
        ) from None


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
