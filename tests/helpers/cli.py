"""Running the ``irrun`` command: in-process with click's ``CliRunner``, or in a fresh
interpreter, and checking that it answered cleanly."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

from click.testing import CliRunner, Result
from irrun.cli.main import main

__all__ = ["invoke", "Outcome", "outcome", "isolated", "expect", "passwd_markers"]


def invoke(*args, catch_exceptions: bool = False) -> Result:
    """Run ``irrun ARGS`` in-process (arguments turned into strings, paths included).

    An exception the command lets out propagates unless ``catch_exceptions`` is true; exit
    codes are in ``result.exit_code`` either way.
    """
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=catch_exceptions)


@dataclass
class Outcome:
    """What one irrun command did: exit code, everything it printed, how long it took."""

    exit_code: int
    output: str
    seconds: float
    exception: BaseException | None = None


def outcome(*args) -> Outcome:
    """Run ``irrun ARGS`` in-process, catching everything, and time it."""
    start = time.perf_counter()
    result = invoke(*args, catch_exceptions=True)
    seconds = time.perf_counter() - start
    exception = result.exception if not isinstance(result.exception, SystemExit) else None
    return Outcome(result.exit_code, result.output, seconds, exception)


def isolated(*args, limit_as: int | None = None, timeout: float = 60, cwd=None, env=None):
    """Run ``irrun ARGS`` in a fresh interpreter, optionally under ``RLIMIT_AS``.

    Raises ``subprocess.TimeoutExpired`` (failing the test) if it does not finish in time.
    """
    code = textwrap.dedent(
        f"""
        import resource
        limit = {limit_as!r}
        if limit:
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        from irrun.cli.main import main
        main(args={[str(a) for a in args]!r}, prog_name="irrun")
        """
    )
    environment = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    environment.pop("IRRUN_DEBUG", None)
    environment.update(env or {})
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        timeout=timeout,
        cwd=cwd,
        env=environment,
    )
    seconds = time.perf_counter() - start
    output = (done.stdout + done.stderr).decode("utf-8", errors="replace")
    return Outcome(done.returncode, output, seconds)


def expect(outcome: Outcome, code: int, *needles, max_chars: int = 10_000) -> str:
    """Check an outcome: exit code, no traceback, short, and every needle in the output."""
    text = outcome.output
    assert outcome.exception is None, f"uncaught {outcome.exception!r}\n{text[:2000]}"
    assert "Traceback" not in text, text[:3000]
    assert "internal error" not in text, text[:2000]
    assert outcome.exit_code == code, f"exit {outcome.exit_code}, expected {code}:\n{text[:2000]}"
    assert len(text) < max_chars, f"{len(text):,} characters of output:\n{text[:500]}"
    for needle in needles:
        assert str(needle) in text, f"{needle!r} not in:\n{text[:2000]}"
    return text


def passwd_markers() -> list[str]:
    """Strings that would show that /etc/passwd leaked into irrun's output."""
    markers = ["root:", "/bin/bash", "/usr/sbin/nologin", "daemon:"]
    try:
        lines = Path("/etc/passwd").read_text().splitlines()
    except OSError:
        return markers
    return markers + [line for line in lines[:5] if len(line) > 8]
