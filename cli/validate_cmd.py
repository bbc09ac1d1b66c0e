"""``irrun validate``: check a model and report every problem at once."""

from __future__ import annotations

import json
import sys

import click
from irrun.cli.common import (
    EXIT_INTERNAL,
    EXIT_OK,
    EXIT_PROBLEMS,
    format_option,
    handle_errors,
    load_models,
    model_argument,
    weights_option,
)


@click.command("validate")
@model_argument
@weights_option
@format_option
@click.option("--werror", is_flag=True, help="Treat warnings as errors (exit 1 on any warning).")
@handle_errors
def validate_command(model, weights, output_format, werror):
    """Check MODEL.xml: structure, edges, attributes, and every output's declared dims and
    precision against the shapes and types irrun infers.

    Every problem is reported at once, in source order, as
    FILE:LINE: SEVERITY[CODE]: MESSAGE, followed by a summary line. Ops irrun
    does not know are trusted (their declared dims are used) and counted.

    Exits 0 when there are no errors (warnings allowed unless --werror), 1 when
    there are, 2 when the file cannot be read, 3 when irrun failed while checking
    a layer (error[internal]: a bug in irrun).
    """
    from irrun.api import validate

    models = load_models(model, weights)
    reports = [validate(m) for m in models]
    if len(models) > 1:  # several independent spec snippets: say which one each report is
        for snippet, report in zip(models, reports):
            report.snippet_line = snippet.layers[0].line
    if output_format == "json":
        payload = [r.to_dict() for r in reports]
        click.echo(json.dumps(payload[0] if len(payload) == 1 else payload, indent=2))
    else:
        color = sys.stdout.isatty()
        click.echo("\n".join(r.to_text(color=color) for r in reports), color=color)
    if any(d.code == "internal" for r in reports for d in r.diagnostics):
        sys.exit(EXIT_INTERNAL)  # irrun failed on a layer: a bug, whatever else was found
    failed = any(not r.ok or (werror and r.warnings) for r in reports)
    sys.exit(EXIT_PROBLEMS if failed else EXIT_OK)
