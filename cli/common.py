"""What every subcommand shares: loading a model the same way, and turning errors into
one clear paragraph and the documented exit code instead of a traceback."""

from __future__ import annotations

import functools
import os
import sys

import click

#: Exit codes of every command.
EXIT_OK, EXIT_PROBLEMS, EXIT_UNUSABLE, EXIT_INTERNAL = 0, 1, 2, 3

model_argument = click.argument("model", metavar="MODEL.xml", type=click.Path(dir_okay=True))
weights_option = click.option(
    "--weights",
    metavar="PATH",
    type=click.Path(dir_okay=True),
    help="Weights file (.bin). Default: the .bin beside MODEL.xml, when it exists.",
)


def inputs_option(help_text: str):
    """``--inputs DATA.npz`` (required), with the command's own help text."""
    return click.option(
        "--inputs",
        "inputs_path",
        metavar="DATA.npz",
        required=True,
        type=click.Path(dir_okay=True),
        help=help_text,
    )


format_option = click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="Output format.",
)


def handle_errors(command):
    """Run a command body; map irrun errors to their exit code with a one-paragraph message."""

    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        from irrun.errors import IRError

        try:
            return command(*args, **kwargs)
        except IRError as exc:
            click.echo(f"irrun: error: {exc}", err=True)
            sys.exit(exc.exit_code)
        except MemoryError:
            click.echo("irrun: error: not enough memory for this model or its inputs", err=True)
            sys.exit(EXIT_UNUSABLE)
        except (click.exceptions.Exit, click.ClickException, SystemExit, KeyboardInterrupt):
            raise
        except Exception as exc:  # a bug in irrun, not bad input: say so plainly
            if os.environ.get("IRRUN_DEBUG"):
                raise
            click.echo(
                f"irrun: internal error: {type(exc).__name__}: {exc}\n"
                "This is a bug in irrun; please report it with the model. "
                "Set IRRUN_DEBUG=1 to see the traceback.",
                err=True,
            )
            sys.exit(EXIT_INTERNAL)

    return wrapper


def refuse_overwrites(outputs, inputs) -> None:
    """Refuse (exit 2) an output that is empty, is one of the files read, or is another output.

    ``outputs`` and ``inputs`` are ``(role, path)`` pairs (``("--output", "out.npz")``,
    ``("the model", "m.xml")``; a ``None`` path is skipped). Paths are compared after
    resolving symbolic links, and as files when both exist (hard links), so nothing the
    command reads is replaced and no output silently overwrites another.
    """
    from irrun.errors import InputFileError

    seen = [(role, path) for role, path in inputs if path is not None]
    for role, path in outputs:
        if path is None:
            continue
        if not str(path).strip():
            raise InputFileError(f"{role} is empty; give the name of the file to write")
        for other_role, other in seen:
            if _same_file(path, other):
                harm = (
                    "one would overwrite the other: give each its own file"
                    if other_role.startswith("-")
                    else "writing it would destroy that file: choose another name"
                )
                raise InputFileError(
                    f"{role} {str(path)!r} is {other_role} ({str(other)!r}); {harm}"
                )
        seen.append((role, path))


def _same_file(first, second) -> bool:
    if os.path.realpath(first) == os.path.realpath(second):
        return True
    try:
        return os.path.samefile(first, second)
    except OSError:  # one of them does not exist (yet)
        return False


def load_models(model: str, weights: str | None):
    """Load MODEL (every snippet of a fragment file) the way all subcommands do."""
    from irrun.api import load_all

    return load_all(model, weights)
