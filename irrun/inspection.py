"""What a model holds, as plain data: ``irrun inspect`` prints it, a notebook can use it.

:func:`inspect_model` extends :meth:`irrun.Model.summary` with the op histogram (op types by
opset and op version), the weights by element type and, on request, a table of every layer
with its ports declared and inferred. :func:`layers_text` and :func:`inspection_text` render
them as text.
"""

from __future__ import annotations

__all__ = ["inspect_model", "op_histogram", "weights_by_element_type", "layer_table",
           "inspection_text", "layers_text"]  # fmt: skip


def _op_label(layer, lookup_layer) -> str | None:
    """``Gather-8``: the layer's type as written and the op version irrun resolves it to
    (a fragment's layers, without a version, resolve too); ``None`` when unknown."""
    resolution = lookup_layer(layer)
    if resolution.op_class is not None:
        return f"{layer.type}-{resolution.op_class.version}"
    if resolution.op_version is not None:
        return f"{layer.type}-{resolution.op_version}"
    return None


def op_histogram(model) -> list[dict]:
    """Layers by op: ``{"type", "version", "op", "count"}`` per op type and declared opset,
    most frequent first. ``version`` is the opset as written (``opset8``, ``None`` in a
    fragment), ``op`` the op version irrun resolves it to in the IR's spelling (``Gather-8``,
    ``Const-1``), ``None`` for an op irrun does not know."""
    from irrun.ops.registry import lookup_layer

    counts: dict[tuple, list] = {}
    for layer in model.layers:
        key = (layer.type, layer.version)
        found = counts.get(key)
        if found is None:
            counts[key] = found = [_op_label(layer, lookup_layer), 0]
        found[1] += 1
    rows = [{"type": t, "version": v, "op": label, "count": n}
            for (t, v), (label, n) in counts.items()]  # fmt: skip
    return sorted(rows, key=lambda row: (-row["count"], row["type"], row["version"] or ""))


def weights_by_element_type(model) -> dict[str, dict]:
    """``{element type: {"consts": n, "bytes": b}}`` over every Const (bodies included), by
    the ``element_type`` and ``size`` their attributes declare, most bytes first. A Const
    whose attributes cannot be read is counted under ``"?"`` with 0 bytes."""
    from irrun.errors import IRError

    totals: dict[str, list[int]] = {}
    for layer in model.all_layers():
        if layer.type != "Const":
            continue
        try:
            name = str(layer.attribute_element_type("element_type"))
            size = layer.attribute_int("size", 0)
        except IRError:
            name, size = "?", 0
        entry = totals.setdefault(name, [0, 0])
        entry[0] += 1
        entry[1] += max(size, 0)
    ordered = sorted(totals.items(), key=lambda item: (-item[1][1], item[0]))
    return {name: {"consts": consts, "bytes": size} for name, (consts, size) in ordered}


def _port_row(model, port) -> dict:
    row = {
        "port": port.id,
        "element_type": str(port.element_type) if port.element_type else None,
        "declared_shape": str(port.declared_shape),
    }
    if port.direction == "input":  # what flows in: the producer's inferred output
        producer = model.producer(port)
        source = producer if producer is not None else port
        inferred_type, inferred_shape = source.inferred_type, source.inferred_shape
    else:
        inferred_type, inferred_shape = port.inferred_type, port.inferred_shape
        row["names"] = list(port.names)
    row["inferred_type"] = str(inferred_type) if inferred_type is not None else None
    row["inferred_shape"] = str(inferred_shape) if inferred_shape is not None else None
    return row


def layer_table(model) -> list[dict]:
    """One row per layer in file order: ``id``, ``name``, ``type``, ``version``, ``op``
    (``Concat-1``, ``None`` when irrun does not know the op), ``line``, and its ``inputs`` and
    ``outputs`` (port id, element type and shape as declared, and as inferred when the model
    was validated: ``None`` before, or where irrun could not infer)."""
    from irrun.ops.registry import lookup_layer

    labels: dict[tuple, str | None] = {}
    rows = []
    for layer in model.layers:
        key = (layer.type, layer.version)
        if key not in labels:
            labels[key] = _op_label(layer, lookup_layer)
        rows.append({
            "id": layer.id,
            "name": layer.name,
            "type": layer.type,
            "version": layer.version,
            "op": labels[key],
            "line": layer.line,
            "inputs": [_port_row(model, port) for port in layer.inputs],
            "outputs": [_port_row(model, port) for port in layer.outputs],
        })  # fmt: skip
    return rows


def inspect_model(model, *, layers: bool = False) -> dict:
    """:meth:`irrun.Model.summary` with ``ops`` (:func:`op_histogram`) and
    ``weights_by_element_type``, and with ``layers=True`` also ``layer_table``
    (:func:`layer_table`; validate the model first to fill in the inferred shapes).

    Examples
    --------
    >>> import irrun
    >>> model = irrun.load('<layer id="1" type="Concat"><data axis="0"/><input>'
    ...     '<port id="0"><dim>2</dim></port><port id="1"><dim>3</dim></port></input>'
    ...     '<output><port id="2"><dim>5</dim></port></output></layer>')
    >>> inspect_model(model)["ops"]
    [{'type': 'Concat', 'version': None, 'op': 'Concat-1', 'count': 1}]
    """
    summary = model.summary()
    summary["ops"] = op_histogram(model)
    summary["weights_by_element_type"] = weights_by_element_type(model)
    if layers:
        summary["layer_table"] = layer_table(model)
    return summary


def _port_text(row: dict) -> str:
    etype = row["element_type"] or "?"
    text = f"{etype} {row['declared_shape']}"
    inferred_shape, inferred_type = row["inferred_shape"], row["inferred_type"]
    if inferred_shape is None:
        return text
    if row["element_type"] is None and row["declared_shape"] in ("[]", "[...]"):
        return f"{inferred_type or '?'} {inferred_shape}"  # the port declares nothing
    if inferred_shape != row["declared_shape"] or (inferred_type or "?") != etype:
        shown = inferred_type if inferred_type and inferred_type != etype else ""
        text += f" → {shown + ' ' if shown else ''}{inferred_shape}"
    return text


def layers_text(rows: list[dict]) -> str:
    """The layer table as aligned text: ``id  name  op  inputs  outputs``; a port reads
    ``f32 [1,25]`` as declared, ``f32 [1,25] → [1,24]`` where inference gives otherwise."""
    from irrun.text import short_text

    header = ("id", "name", "op", "inputs", "outputs")
    table = [header]
    for row in rows:
        version = f" {row['version']}" if row["version"] else ""
        op = row["op"] or f"{row['type']}{version} (unknown)"
        table.append((
            str(row["id"]),
            short_text(row["name"] or "", 40),
            short_text(op, 40),
            ", ".join(_port_text(p) for p in row["inputs"]) or "-",
            ", ".join(_port_text(p) for p in row["outputs"]) or "-",
        ))  # fmt: skip
    widths = [max(len(cells[i]) for cells in table) for i in range(4)]
    lines = []
    for cells in table:
        head = [cells[0].rjust(widths[0])] + [c.ljust(w) for c, w in zip(cells[1:4], widths[1:])]
        lines.append("  ".join([*head, cells[4]]).rstrip())
    return "\n".join(lines)


def _bytes(count: int) -> str:
    return f"{count:,} byte{'' if count == 1 else 's'}"


def inspection_text(summary: dict, first_line: int | None = None) -> str:
    """What ``irrun inspect`` prints for one model (``summary`` from :func:`inspect_model`;
    ``first_line``: a fragment's first layer line)."""
    from irrun.text import short_text

    if summary["fragment"]:
        kind = f"fragment (layers from line {first_line if first_line else '?'})"
    else:
        kind = f"IR v{summary['ir_version']} {summary['name']!r}"
    lines = [f"{summary['file']}: {kind}, {summary['layers']:,} layers"]
    if summary["weights_file"]:
        lines.append(f"weights: {summary['weights_file']} ({_bytes(summary['weights_bytes'])})")
    by_type = summary.get("weights_by_element_type") or {}
    if by_type:
        width = max(map(len, by_type))
        for name, entry in by_type.items():
            consts = f"{entry['consts']:,} Const{'' if entry['consts'] == 1 else 's'}"
            lines.append(f"  {name:<{width}}  {_bytes(entry['bytes'])} in {consts}")
    for title in ("inputs", "outputs"):
        lines.append(f"{title}:")
        entries = summary[title] or []
        names = [short_text(e["name"]) for e in entries]
        width = max(map(len, names), default=0)
        for name, entry in zip(names, entries):
            etype = entry["element_type"] or "?"
            lines.append(f"  {name:<{width}}  {etype:<7} {entry['shape']}")
        if not entries:
            lines.append("  (none)")
    ops = summary.get("ops") or []
    lines.append(f"layers by op ({len(ops)} type{'' if len(ops) == 1 else 's'}):")
    labels = [short_text(row["op"] or f"{row['type']} (unknown)") for row in ops]
    versions = [short_text(row["version"] or "") for row in ops]
    label_width = max(map(len, labels), default=0)
    version_width = max(map(len, versions), default=0)
    count_width = max((len(f"{row['count']:,}") for row in ops), default=0)
    most = max((row["count"] for row in ops), default=1)
    for label, version, row in zip(labels, versions, ops):
        bar = "█" * max(1, round(20 * row["count"] / most))
        lines.append(f"  {label:<{label_width}}  {version:<{version_width}}  "
                     f"{row['count']:>{count_width},}  {bar}")  # fmt: skip
    return "\n".join(lines)
