"""What every subcommand shares: loading a model the same way, and turning errors into
one clear paragraph and the documented exit code instead of a traceback."""

from __future__ import annotations

import functools
import os
import sys
import threading

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


# -- several models per call ----------------------------------------------------------------
models_argument = click.argument(
    "models", metavar="MODEL.xml...", nargs=-1, required=True, type=click.Path(dir_okay=True)
)


def model_files(paths) -> list[str]:
    """The model files that ``paths`` name: files as given, folders by every ``*.xml`` in
    them and their sub-folders (sorted). A folder without any is refused (exit 2)."""
    from irrun.errors import InputFileError

    files = []
    for path in paths:
        if os.path.isdir(path):
            found = sorted(
                os.path.join(folder, name)
                for folder, _, names in os.walk(path)
                for name in names
                if name.lower().endswith(".xml")
            )
            if not found:
                raise InputFileError(
                    f"{path!r} is a directory with no .xml file in it or below; give model "
                    "files, or folders that hold them"
                )
            files.extend(found)
        else:
            files.append(path)
    return files


def worst_exit(codes) -> int:
    """The exit code of several models: the worst of theirs (internal > unusable > problems)."""
    return max(codes, default=EXIT_OK)


jobs_option = click.option(
    "--jobs",
    "-j",
    metavar="N",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Check several models in N parallel processes.",
)


# -- colour ---------------------------------------------------------------------------------
color_option = click.option(
    "--color/--no-color",
    "color",
    default=None,
    help="Colour the output. Default: on a terminal, unless NO_COLOR is set.",
)


def use_color(choice: bool | None, stream=None) -> bool:
    """Whether to colour: ``--color``/``--no-color`` when given; otherwise only on a terminal
    and only when the ``NO_COLOR`` environment variable is unset or empty (no-color.org)."""
    if choice is not None:
        return choice
    if os.environ.get("NO_COLOR"):
        return False
    stream = stream if stream is not None else sys.stdout
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


# -- progress -------------------------------------------------------------------------------
progress_option = click.option(
    "--no-progress",
    "no_progress",
    is_flag=True,
    help="No progress bar (it is shown only on a terminal, for work over a second).",
)


class TerminalProgress:
    """A progress callback (see :mod:`irrun.progress`) drawing click's progress bar on a
    terminal.

    A stage appears only once it has lasted ``delay`` seconds, and its line is erased when it
    ends, so quick work prints nothing and the output stays as it is. A stage of unknown
    length shows its name and the seconds elapsed, refreshed by a helper thread. On anything
    but a terminal (a pipe, a file, ``CliRunner``) it draws nothing. Use it as a context
    manager (the last line is erased on exit, also on errors)::

        with TerminalProgress(enabled=not no_progress) as progress:
            report = irrun.validate(model, progress=progress)
    """

    def __init__(self, enabled: bool = True, stream=None, delay: float = 1.0):
        self.stream = stream if stream is not None else sys.stderr
        isatty = getattr(self.stream, "isatty", None)
        self.enabled = bool(enabled and isatty and isatty())
        self.delay = delay
        self._stage = None
        self._started = 0.0
        self._bar = None
        self._ticker = None
        self._drawn = False  # a line of ours is on the terminal
        self._lock = threading.Lock()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()
        return False

    def __call__(self, stage: str, done: int, total: int | None) -> None:
        if not self.enabled:
            return
        import time

        from irrun.progress import FINISHED

        with self._lock:
            if stage != self._stage:
                self._end()
                self._stage, self._started, self._total = stage, time.monotonic(), total
                if total is None:
                    self._start_ticker()
            if done == FINISHED or (total is not None and done >= total):
                self._end()
                return
            if total is None or time.monotonic() - self._started < self.delay:
                return
            if self._bar is None:
                self._bar = click.progressbar(length=total, label=stage, file=self.stream,
                                              show_eta=False, width=30)  # fmt: skip
            self._bar.update(done - self._bar.pos)

    def _start_ticker(self) -> None:
        stop = threading.Event()
        stage, started = self._stage, self._started

        def tick():
            import time

            shown = None
            while not stop.wait(0.25):
                elapsed = time.monotonic() - started
                text = f"\r\x1b[2K{stage} ... {elapsed:.0f} s"
                if elapsed >= self.delay and text != shown:
                    with self._lock:
                        if not stop.is_set():
                            self._write(text)
                            shown = text

        thread = threading.Thread(target=tick, name="irrun-progress", daemon=True)
        self._ticker = (thread, stop)
        thread.start()

    def _write(self, text: str) -> None:
        self.stream.write(text)
        self.stream.flush()
        self._drawn = True

    def _end(self) -> None:
        """Stop the stage's ticker and erase its line (called with the lock held)."""
        if self._ticker is not None:
            thread, stop = self._ticker
            stop.set()
            self._ticker = None
        if self._bar is not None or self._drawn:
            self._write("\r\x1b[2K\x1b[?25h")  # erase the line; click's bar hid the cursor
            self._drawn = False
        self._bar = None
        self._stage = None

    def close(self) -> None:
        """End the current stage (erasing its line)."""
        with self._lock:
            self._end()


def terminal_progress(no_progress: bool) -> TerminalProgress:
    """The progress callback of a command: bars on stderr when it is a terminal and
    ``--no-progress`` was not given."""
    return TerminalProgress(enabled=not no_progress)


def named_progress(progress, name: str):
    """``progress`` with ``name`` (a file) added to its stages: ``validating m.xml``."""
    if progress is None:
        return None
    return lambda stage_name, done, total: progress(f"{stage_name} {name}", done, total)
