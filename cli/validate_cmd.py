"""``irrun validate``: check models and report every problem at once."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field

import click
from irrun.cli.common import (
    EXIT_INTERNAL,
    EXIT_OK,
    EXIT_PROBLEMS,
    EXIT_UNUSABLE,
    color_option,
    format_option,
    handle_errors,
    jobs_option,
    load_models,
    model_files,
    models_argument,
    named_progress,
    progress_option,
    terminal_progress,
    use_color,
    weights_option,
    worst_exit,
)


def _codes(ctx, param, values) -> frozenset:
    """``--show``/``--hide`` values: codes, repeatable or comma-separated, each one known."""
    import difflib

    from irrun.validation.diagnostics import CODES

    codes = {code.strip() for value in values for code in value.split(",") if code.strip()}
    for code in sorted(codes):
        if code not in CODES:
            close = difflib.get_close_matches(code, CODES, n=3)
            known = f"did you mean {', '.join(close)}?" if close else "see the README for them"
            raise click.BadParameter(f"{code!r} is not a diagnostic code; {known}")
    return frozenset(codes)


@dataclass
class Checked:
    """What checking one file gave: its reports, or why it could not be read."""

    file: str
    reports: list = field(default_factory=list)
    error: str | None = None
    exit_code: int = EXIT_OK


@click.command("validate")
@models_argument
@weights_option
@format_option
@click.option("--werror", is_flag=True, help="Treat warnings as errors (exit 1 on any warning).")
@click.option("--quiet", "-q", is_flag=True, help="Print errors and the summary only.")
@click.option(
    "--max-diagnostics",
    metavar="N",
    type=click.IntRange(min=0),
    help="Print at most N entries per model (a group of warnings is one entry).",
)
@click.option(
    "--show",
    metavar="CODE",
    multiple=True,
    callback=_codes,
    help="Print only diagnostics of CODE, each on its own (repeatable, or CODE,CODE).",
)
@click.option(
    "--hide",
    metavar="CODE",
    multiple=True,
    callback=_codes,
    help="Do not print diagnostics of CODE (repeatable, or CODE,CODE).",
)
@jobs_option
@color_option
@progress_option
@handle_errors
def validate_command(models, weights, output_format, werror, quiet, max_diagnostics, show, hide,
                     jobs, color, no_progress):  # fmt: skip
    """Check MODEL.xml: structure, edges, attributes, and every output's declared dims and
    precision against the shapes and types irrun infers. Several files, or folders (every
    .xml in them), may be given; each is checked on its own, then one line sums them up.

    Every problem is reported at once, in source order, as
    FILE:LINE: SEVERITY[CODE]: MESSAGE, followed by a summary line. Ops irrun
    does not know are trusted (their declared dims are used) and counted.
    More than 3 warnings of one code are grouped into one entry (their op types,
    counts and first lines); --show CODE lists them one by one. --quiet,
    --show, --hide and --max-diagnostics change what is printed, not the exit
    code or the counts; --format json always holds every diagnostic.

    Exits 0 when there are no errors (warnings allowed unless --werror), 1 when
    there are, 2 when the file cannot be read, 3 when irrun failed while checking
    a layer (error[internal]: a bug in irrun). With several models: the worst of theirs.
    """
    files = model_files(models)
    if weights is not None and len(files) > 1:
        raise click.BadParameter("--weights goes with one model only", param_hint="'--weights'")
    text_options = {"group": True, "quiet": quiet, "show": show, "hide": hide,
                    "max_diagnostics": max_diagnostics}  # fmt: skip
    colored = use_color(color, sys.stdout)
    if len(files) == 1:  # one model: unreadable input is the command's error (exit 2)
        with terminal_progress(no_progress) as progress:
            checked = [_check(files[0], weights, werror, progress, single=True)]
    elif jobs > 1:
        checked = _check_in_parallel(files, werror, jobs, no_progress)
    else:
        with terminal_progress(no_progress) as progress:
            checked = [_check_in_worker(file, werror, progress) for file in files]
    reports = [report for item in checked for report in item.reports]
    if output_format == "json":
        payload = []
        for item in checked:
            payload.extend(report.to_dict() for report in item.reports)
            if item.error is not None:
                payload.append({"schema": "irrun.validate/1", "file": item.file, "ok": False,
                                "error": item.error, "exit_code": item.exit_code})  # fmt: skip
        click.echo(json.dumps(payload[0] if len(payload) == 1 else payload, indent=2))
    else:
        from irrun.render.text import report_text, total_line

        for item in checked:
            if item.error is not None:
                click.echo(f"irrun: error: {item.error}", err=True)
            if item.reports:
                texts = (report_text(r, colored, **text_options) for r in item.reports)
                click.echo("\n".join(texts), color=colored)
        if len(files) > 1:
            not_checked = sum(1 for item in checked if item.error is not None)
            failed = sum(1 for item in checked if any(not r.ok for r in item.reports))
            click.echo(total_line(reports, models=len(checked), failed=failed,
                                  not_checked=not_checked))  # fmt: skip
    sys.exit(worst_exit(item.exit_code for item in checked))


def _check(file, weights, werror, progress=None, single=False) -> Checked:
    """Load and validate one file. Unless ``single``, a file that cannot be read becomes a
    :class:`Checked` with its message (the other files are still checked)."""
    from irrun.api import validate
    from irrun.errors import IRError
    from irrun.progress import stage

    try:
        with stage(f"loading {file}", progress):
            models = load_models(file, weights)
        reports = [validate(m, progress=named_progress(progress, file)) for m in models]
    except IRError as exc:
        if single:
            raise
        return Checked(file, error=str(exc), exit_code=exc.exit_code)
    except MemoryError:
        if single:
            raise
        return Checked(file, error="not enough memory for this model", exit_code=EXIT_UNUSABLE)
    if len(models) > 1:  # several independent spec snippets: say which one each report is
        for snippet, report in zip(models, reports):
            report.snippet_line = snippet.layers[0].line
    if any(d.code == "internal" for r in reports for d in r.diagnostics):
        code = EXIT_INTERNAL  # irrun failed on a layer: a bug, whatever else was found
    elif any(not r.ok or (werror and r.warnings) for r in reports):
        code = EXIT_PROBLEMS
    else:
        code = EXIT_OK
    return Checked(file, reports, exit_code=code)


def _check_in_worker(file, werror, progress=None) -> Checked:
    """:func:`_check` of one of several files (in this process or a worker): a bug in irrun
    is reported for that file (exit 3), and the other files are still checked."""
    import os

    try:
        return _check(file, None, werror, progress)
    except Exception as exc:
        if os.environ.get("IRRUN_DEBUG"):
            raise
        why = f"internal error: {type(exc).__name__}: {exc} (a bug in irrun; please report it)"
        return Checked(file, error=why, exit_code=EXIT_INTERNAL)


def _check_in_parallel(files, werror, jobs, no_progress) -> list[Checked]:
    """Check ``files`` in ``jobs`` worker processes; the results come in the files' order."""
    from concurrent.futures import ProcessPoolExecutor

    from irrun.progress import steps

    workers = min(jobs, len(files))
    with terminal_progress(no_progress) as progress, ProcessPoolExecutor(workers) as pool:
        results = pool.map(_check_in_worker, files, [werror] * len(files))
        label = f"validating {len(files)} models in {workers} processes"
        return list(steps(results, label, progress, total=len(files)))
