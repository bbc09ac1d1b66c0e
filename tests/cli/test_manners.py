"""Manners: files written honour the umask, colour follows NO_COLOR and --color/--no-color,
op names are spelt as the IR spells them."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from irrun.cli.common import use_color

from irrun.ir.files import write_output_file
from tests.helpers.cli import invoke

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "ir"


@pytest.fixture
def umask():
    """Set the process's umask for one test (restored afterwards)."""
    previous = os.umask(0o022)
    yield lambda mask: os.umask(mask)
    os.umask(previous)


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.mark.parametrize(("mask", "mode"), [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_a_new_file_gets_0666_less_the_umask(tmp_path, umask, mask, mode):
    umask(mask)
    write_output_file(tmp_path / "out.txt", "text")
    assert _mode(tmp_path / "out.txt") == mode
    assert (tmp_path / "out.txt").read_text() == "text"


def test_a_replaced_file_keeps_its_mode(tmp_path, umask):
    umask(0o022)
    target = tmp_path / "out.txt"
    target.write_text("old")
    target.chmod(0o640)
    write_output_file(target, b"new")
    assert _mode(target) == 0o640 and target.read_bytes() == b"new"


def test_execute_output_honours_the_umask(tmp_path, umask):
    umask(0o022)
    out = tmp_path / "out.npz"
    result = invoke("execute", EXAMPLES / "tiny.xml", "--inputs", EXAMPLES / "tiny_inputs.npz",
                    "--output", out)  # fmt: skip
    assert result.exit_code == 0
    assert _mode(out) == 0o644


def test_no_color_unless_a_terminal_or_asked(monkeypatch):
    class Terminal:
        def isatty(self):
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    assert use_color(None, Terminal()) is True
    assert use_color(False, Terminal()) is False
    monkeypatch.setenv("NO_COLOR", "1")
    assert use_color(None, Terminal()) is False
    assert use_color(True, Terminal()) is True  # an explicit --color wins
    monkeypatch.setenv("NO_COLOR", "")  # empty: as if unset (no-color.org)
    assert use_color(None, Terminal()) is True


def test_validate_color_option_colours_the_labels(monkeypatch):
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("NO_COLOR", "1")
    result = invoke("validate", "examples/ir/concat_declared_48.xml", "--color")
    assert result.output.splitlines()[0].startswith(
        "examples/ir/concat_declared_48.xml:26: \x1b[1;31merror[shape-mismatch]\x1b[0m: layer 1"
    )
    plain = invoke("validate", "examples/ir/concat_declared_48.xml", "--no-color")
    assert "\x1b" not in plain.output


def test_the_list_of_runnable_ops_spells_them_as_the_ir_does():
    from irrun.ops.registry import runnable

    ops = runnable()
    assert "Const-1" in ops and "Constant-1" not in ops
    assert "Concat-1" in ops
