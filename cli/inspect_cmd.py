"""``irrun inspect``: what models hold."""

from __future__ import annotations

import json
import sys

import click
from irrun.cli.common import (
    EXIT_OK,
    format_option,
    handle_errors,
    load_models,
    model_files,
    models_argument,
    named_progress,
    progress_option,
    terminal_progress,
    weights_option,
    worst_exit,
)


@click.command("inspect")
@models_argument
@weights_option
@format_option
@click.option(
    "--layers",
    "show_layers",
    is_flag=True,
    help="Also list every layer: id, name, op, and its ports' element types and shapes, "
    "declared and inferred (the model is validated for that).",
)
@progress_option
@handle_errors
def inspect_command(models, weights, output_format, show_layers, no_progress):
    """Show a model's IR version, inputs and outputs (names, shapes, element types),
    layer counts by type and opset, and the size of its weights. Several files, or
    folders (every .xml in them), may be given.

    Shapes are as declared in the file; run `irrun validate` to check them.
    --layers adds the weights by element type, the layers by op (type, op version,
    opset, count) and a table of every layer, where a port reads
    `f32 [1,25] → [1,24]` when inference gives otherwise than the file declares.
    """
    from irrun.errors import IRError
    from irrun.inspection import inspect_model, inspection_text, layers_text
    from irrun.progress import stage

    files = model_files(models)
    if weights is not None and len(files) > 1:
        raise click.BadParameter("--weights goes with one model only", param_hint="'--weights'")
    summaries, texts, codes = [], [], []
    with terminal_progress(no_progress) as progress:
        for file in files:
            try:
                with stage(f"loading {file}", progress):
                    loaded = load_models(file, weights)
                if show_layers:
                    from irrun.api import validate

                    for model in loaded:
                        validate(model, progress=named_progress(progress, file))
            except IRError as exc:
                if len(files) == 1:
                    raise
                click.echo(f"irrun: error: {exc}", err=True)
                codes.append(exc.exit_code)
                continue
            codes.append(EXIT_OK)
            for model in loaded:
                summary = inspect_model(model, layers=show_layers)
                summaries.append(summary)
                if show_layers:
                    first = model.layers[0].line if model.layers else None
                    text = inspection_text(summary, first)
                    text += "\nlayers:\n" + _indent(layers_text(summary["layer_table"]))
                else:
                    text = _summary_text(summary, model)
                texts.append(text)
    if output_format == "json":
        if summaries:
            click.echo(json.dumps(summaries[0] if len(summaries) == 1 else summaries, indent=2))
    else:
        click.echo("\n\n".join(texts))
        if len(files) > 1:
            click.echo(f"\n{_total(summaries, len(files), len(files) - codes.count(EXIT_OK))}")
    sys.exit(worst_exit(codes))


def _indent(text: str) -> str:
    return "\n".join(f"  {line}" for line in text.splitlines())


def _total(summaries, files: int, unreadable: int) -> str:
    layers = sum(s["layers"] for s in summaries)
    weights = sum(s["weights_bytes"] for s in {s["file"]: s for s in summaries}.values())
    text = f"{files:,} models: {layers:,} layers, {weights:,} bytes of weights"
    return text + (f"; {unreadable:,} not readable" if unreadable else "")


def _summary_text(summary, model) -> str:
    """The short form (without --layers)."""
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
