"""The README's console examples are real: each `$ irrun ...` block is run and compared."""

import re
import shlex
from pathlib import Path

import pytest

from tests.helpers.cli import invoke

ROOT = Path(__file__).resolve().parents[1]
BLOCK = re.compile(r"```console\n\$ (irrun [^\n]*)\n(.*?)```", re.S)


def _examples():
    return BLOCK.findall((ROOT / "README.md").read_text())


def test_readme_has_console_examples():
    assert len(_examples()) >= 3


def test_readme_starts_with_the_two_setup_commands():
    lines = (ROOT / "README.md").read_text().splitlines()
    block = lines[lines.index("```sh") + 1 : lines.index("```sh") + 3]
    assert block[0].startswith("pip install . && irrun ")
    assert block[1] == "pip install -e '.[test]' && pytest -q"


@pytest.mark.parametrize(("command", "expected"), _examples())
def test_readme_console_example(command, expected, monkeypatch):
    monkeypatch.chdir(ROOT)
    result = invoke(*shlex.split(command)[1:], catch_exceptions=True)
    assert result.output == expected


def test_readme_python_examples_run(monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    assert blocks
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {})
    assert "[2,?] [2,2..]" in capsys.readouterr().out
