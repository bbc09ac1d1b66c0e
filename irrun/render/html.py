"""HTML tables for Jupyter (``_repr_html_`` of Model and Report)."""

from __future__ import annotations

from html import escape

__all__ = ["model_html", "report_html", "layer_html", "arrays_html", "html_table"]

_STYLE = "border-collapse:collapse;font-family:monospace;font-size:12px"
_SEVERITY_COLORS = {"error": "#c62828", "warning": "#ef6c00"}


def html_table(headers, rows) -> str:
    """A compact HTML table: ``headers`` are escaped, ``rows`` cells are HTML already."""
    head = "".join(f"<th style='text-align:left;padding:2px 8px'>{escape(h)}</th>" for h in headers)
    body = "".join(
        "<tr>" + "".join(f"<td style='padding:2px 8px'>{cell}</td>" for cell in row) + "</tr>"
        for row in rows
    )
    return f"<table style='{_STYLE}'><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def model_html(model) -> str:
    """Inputs, outputs and layer counts of a model as HTML tables."""
    kind = "fragment" if model.is_fragment else f"IR v{model.ir_version}"
    title = f"<b>{escape(model.name or model.file)}</b> ({kind}, {len(model.layers)} layers)"
    io_rows = [
        ("input", escape(i.name), escape(str(i.element_type or "?")), escape(str(i.shape)))
        for i in model.inputs
    ] + [
        ("output", escape(o.name), escape(str(o.element_type or "?")), escape(str(o.shape)))
        for o in model.outputs
    ]
    counts = [(escape(k), str(v)) for k, v in model.count_by_type().items()]
    return (
        f"<div>{title}{html_table(['', 'name', 'type', 'shape'], io_rows)}"
        f"{html_table(['layer type', 'count'], counts)}</div>"
    )


def report_html(report) -> str:
    """Diagnostics as an HTML table with severity colours, then the summary."""
    rows = []
    for d in report.diagnostics:
        color = _SEVERITY_COLORS.get(d.severity, "#333")
        message = escape(d.message)
        if d.hint:
            message += f"<br><i>hint: {escape(d.hint)}</i>"
        for note in d.notes:
            message += f"<br>note: {escape(note)}"
        rows.append(
            (
                f"<span style='color:{color};font-weight:bold'>{escape(d.severity)}</span>",
                escape(d.code),
                str(d.line or ""),
                escape(
                    f"{d.layer_id} {d.layer_name or ''}".strip() if d.layer_id is not None else ""
                ),
                message,
            )
        )
    summary = escape(report.summary())
    table = html_table(["severity", "code", "line", "layer", "message"], rows)
    return f"<div>{table}<p>{summary}</p></div>"


def layer_html(layer) -> str:
    """A layer's identity, attributes and ports (declared and inferred shapes) as HTML."""
    title = (
        f"<b>{escape(layer.describe())}</b> version {escape(str(layer.version))}, line {layer.line}"
    )
    attributes = [(escape(k), escape(v)) for k, v in layer.attributes.items()]
    ports = [
        (
            escape(port.direction),
            str(port.id),
            escape(str(port.element_type or "?")),
            escape(str(port.declared_shape)),
            escape(str(port.inferred_shape) if port.inferred_shape is not None else "-"),
            escape(", ".join(port.names)),
        )
        for port in layer.inputs + layer.outputs
    ]
    parts = [title]
    if attributes:
        parts.append(html_table(["attribute", "value"], attributes))
    parts.append(html_table(["port", "id", "type", "declared", "inferred", "names"], ports))
    return "<div>" + "".join(parts) + "</div>"


def arrays_html(arrays: dict) -> str:
    """Named arrays (run results) as a table: name, dtype, shape and a short preview."""
    import numpy as np

    rows = []
    for name, array in arrays.items():
        with np.printoptions(threshold=24, edgeitems=3, precision=4):
            preview = np.array2string(np.asarray(array), separator=", ")
        if len(preview) > 200:
            preview = preview[:200] + " ..."
        rows.append((escape(name), escape(str(array.dtype)), escape(str(list(array.shape))),
                     f"<pre style='margin:0'>{escape(preview)}</pre>"))  # fmt: skip
    return f"<div>{html_table(['name', 'dtype', 'shape', 'values'], rows)}</div>"
