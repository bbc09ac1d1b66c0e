"""``irrun inspect``: what a model holds."""

from __future__ import annotations

import json

import click
from irrun.cli.common import (
    format_option,
    handle_errors,
    load_models,
    model_argument,
    weights_option,
)


@click.command("inspect")
@model_argument
@weights_option
@format_option
@handle_errors
def inspect_command(model, weights, output_format):
    """Show a model's IR version, inputs and outputs (names, shapes, element types),
    layer counts by type and opset, and the size of its weights.

    Shapes are as declared in the file; run `irrun validate` to check them.
    """
    models = load_models(model, weights)
    summaries = [m.summary() for m in models]
    if output_format == "json":
        click.echo(json.dumps(summaries[0] if len(summaries) == 1 else summaries, indent=2))
        return
    for index, summary in enumerate(summaries):
        if index:
            click.echo()
        click.echo(_summary_text(summary, models[index]))


def _summary_text(summary, model) -> str:
    from irrun.text import short_text

    if summary["fragment"]:
        first = model.layers[0].line if model.layers else "?"
        kind = f"fragment (layers from line {first})"
    else:
        kind = f"IR v{summary['ir_version']} {summary['name']!r}"
    lines = [f"{summary['file']}: {kind}, {summary['layers']} layers"]
    if summary["weights_file"]:
        lines.append(f"weights: {summary['weights_file']} ({summary['weights_bytes']:,} bytes)")
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
    lines.append("layers:")
    keys = {short_text(key): count for key, count in summary["layer_counts"].items()}
    width = max(map(len, keys), default=0)
    for key, count in keys.items():
        lines.append(f"  {key:<{width}}  {count}")
    return "\n".join(lines)
