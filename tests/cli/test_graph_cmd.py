"""``irrun graph``: the interactive page (.html), big pictures refused without --force, the
progress bar (a terminal only), and hints worded as the command spells its options."""

from __future__ import annotations

import os
import pty
import re
import select
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from irrun.cli import graph_cmd
from irrun.cli.graph_cmd import PICTURE_LAYER_LIMIT

from irrun.progress import FINISHED
from tests.helpers.cli import invoke
from tests.helpers.ir_text import dims, net, parameter

ROOT = Path(__file__).resolve().parents[2]
TINY = ROOT / "examples" / "ir" / "tiny.xml"
needs_dot = pytest.mark.skipif(
    shutil.which("dot") is None, reason="Graphviz's dot program is missing"
)


def _chain(folder, count):
    """x -> relu1 -> ... -> out: ``count`` layers in all."""
    layers = [parameter(0, "x", [4])]
    edges = []
    for index in range(1, count - 1):
        layers.append(
            f'<layer id="{index}" name="relu{index}" type="Relu" version="opset1">'
            f'<input><port id="0">{dims([4])}</port></input>'
            f'<output><port id="1" precision="FP32">{dims([4])}</port></output></layer>'
        )
        edges.append((index - 1, 0 if index == 1 else 1, index, 0))
    layers.append(
        f'<layer id="{count - 1}" name="out" type="Result" version="opset1">'
        f'<input><port id="0">{dims([4])}</port></input></layer>'
    )
    edges.append((count - 2, 1, count - 1, 0))
    path = folder / f"chain{count}.xml"
    path.write_text(net(layers, edges, name="chain"))
    return path


def _hide(monkeypatch, *modules):
    for module in modules:
        monkeypatch.setitem(sys.modules, module, None)  # `import module` now raises ImportError


# -- the page ----------------------------------------------------------------------------------
@pytest.mark.parametrize("extension", ["html", "htm"])
def test_html_writes_the_interactive_page(tmp_path, extension):
    target = tmp_path / f"tiny.{extension}"
    result = invoke("graph", TINY, "-o", target)
    assert result.exit_code == 0
    assert result.output == f"wrote {target} (6 layers)\n"
    page = target.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>\n")
    assert "<title>tiny (IR v11): 0 errors, 0 warnings; 6 layers checked, 0 trusted</title>" in page
    names = re.findall(r'"key":"L\d+","x":[^}]*?"title":"([^"]*)"', page)
    assert sorted(names) == sorted(["data", "idx", "ax", "g", "cat", "out/sink"])


def test_an_around_page_shows_the_neighbourhood(tmp_path):
    target = tmp_path / "part.html"
    result = invoke("graph", TINY, "-o", target, "--around", "cat", "--radius", "1")
    assert result.output == f"wrote {target} (around 'cat')\n"
    keys = re.findall(r'"key":"([^"]+)","x"', target.read_text(encoding="utf-8"))
    assert sorted(keys) == ["L0", "L3", "L4", "L5"]  # data, g, cat, out/sink


def test_the_page_needs_no_network(tmp_path):
    target = tmp_path / "tiny.html"
    invoke("graph", TINY, "-o", target)
    page = target.read_text(encoding="utf-8")
    # The only address is the SVG namespace, a name and never fetched.
    assert set(re.findall(r"https?://[^\s\"')]+", page)) == {"http://www.w3.org/2000/svg"}
    assert not re.search(r"<(link|img|iframe)\b|\bsrc=|@import", page)
    assert set(re.findall(r"url\(([^)]*)\)", page)) == {"#arrow", "#arrow-hot"}


def test_names_cannot_break_out_of_the_page(tmp_path):
    layers = [parameter(0, "&lt;/script>&lt;script>alert(1)&lt;/script>", [2])]
    layers.append(
        '<layer id="1" name="&lt;!--" type="Result" version="opset1">'
        f'<input><port id="0">{dims([2])}</port></input></layer>'
    )
    model = tmp_path / "names.xml"
    model.write_text(net(layers, [(0, 0, 1, 0)], name="n"))
    target = tmp_path / "names.html"
    assert invoke("graph", model, "-o", target).exit_code == 0
    page = target.read_text(encoding="utf-8")
    assert page.count("</script>") == 2  # the data's and the program's, no third
    assert "<!--" not in page
    assert "\\u003c/script>\\u003cscript>alert(1)\\u003c/script>" in page


def test_a_big_model_gets_its_page_and_its_dot_without_force(tmp_path):
    model = _chain(tmp_path, PICTURE_LAYER_LIMIT + 1)
    for extension in ("html", "dot"):
        target = tmp_path / f"chain.{extension}"
        result = invoke("graph", model, "-o", target)
        assert result.output == f"wrote {target} (301 layers)\n"
        assert target.exists()


# -- big pictures ------------------------------------------------------------------------------
@pytest.mark.parametrize("extension", ["svg", "png"])
def test_a_picture_of_too_many_layers_is_refused_with_a_hint(tmp_path, extension):
    model = _chain(tmp_path, PICTURE_LAYER_LIMIT + 1)
    target = tmp_path / f"chain.{extension}"
    result = invoke("graph", model, "-o", target)
    assert result.exit_code == 2
    assert result.output == (
        f"irrun: error: {model} has 301 layers, too many for a readable .{extension} (over 300, "
        f"and slow to draw); write the interactive page instead (-o {tmp_path / 'chain'}.html), "
        "draw a part (--around LAYER), or give --force to draw it all\n"
    )
    assert not target.exists()


def test_a_picture_of_exactly_the_limit_is_drawn(tmp_path):
    model = _chain(tmp_path, PICTURE_LAYER_LIMIT)
    target = tmp_path / "chain.svg"
    result = invoke("graph", model, "-o", target, "--engine", "graphviz")
    assert result.exit_code == 0, result.output


def test_an_around_view_of_too_many_layers_is_refused(tmp_path):
    model = _chain(tmp_path, 1000)
    target = tmp_path / "part.svg"
    result = invoke("graph", model, "-o", target, "--around", "relu500", "--radius", "200")
    assert result.exit_code == 2
    assert result.output == (
        "irrun: error: --around relu500 --radius 200 reaches 401 layers, too many for a readable "
        f".svg (over 300, and slow to draw); write the interactive page instead "
        f"(-o {tmp_path / 'part'}.html), give a smaller --radius, or give --force to draw it all\n"
    )
    result = invoke("graph", model, "-o", target, "--around", "relu500", "--radius", "3")
    assert result.exit_code == 0
    assert result.output.startswith(f"wrote {target} (around 'relu500', drawn with ")


@needs_dot
def test_force_draws_a_big_picture(tmp_path):
    model = _chain(tmp_path, PICTURE_LAYER_LIMIT + 1)
    target = tmp_path / "chain.svg"
    result = invoke("graph", model, "-o", target, "--force", "--engine", "graphviz")
    assert result.output == f"wrote {target} (301 layers, drawn with graphviz)\n"
    assert target.read_text().count('class="node"') == 301


# -- hints in the command's spelling -----------------------------------------------------------
def test_a_missing_dot_program_is_explained_with_the_options(tmp_path, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name, *args, **kwargs: None)
    result = invoke("graph", TINY, "-o", tmp_path / "g.svg", "--engine", "graphviz")
    assert result.exit_code == 2
    assert result.output == (
        "irrun: error: --engine graphviz needs Graphviz's `dot` program, which is not on PATH; "
        "install Graphviz (apt-get install graphviz, brew install graphviz or conda install "
        "graphviz), or use --engine matplotlib\n"
    )


def test_missing_packages_are_explained_with_the_options(tmp_path, monkeypatch):
    _hide(monkeypatch, "graphviz")
    result = invoke("graph", TINY, "-o", tmp_path / "g.svg", "--engine", "graphviz")
    assert result.output == (
        "irrun: error: --engine graphviz needs the graphviz Python package; install it with: "
        "pip install 'irrun[draw]'\n"
    )
    _hide(monkeypatch, "matplotlib", "matplotlib.figure")
    result = invoke("graph", TINY, "-o", tmp_path / "g.svg", "--engine", "matplotlib")
    assert result.output == (
        "irrun: error: --engine matplotlib needs matplotlib; install it with: "
        "pip install 'irrun[draw]'\n"
    )
    result = invoke("graph", TINY, "-o", tmp_path / "g.png")
    assert result.exit_code == 2
    assert result.output == (
        "irrun: error: drawing an .svg or .png needs Graphviz or matplotlib, and neither is "
        "installed; install them with: pip install 'irrun[draw]' (Graphviz's `dot` program, "
        "e.g. apt-get install graphviz, gives the better layout). An .html page or a .dot file "
        "needs neither.\n"
    )
    assert not any(tmp_path.iterdir())
    result = invoke("graph", TINY, "-o", tmp_path / "g.html")
    assert result.output == f"wrote {tmp_path / 'g.html'} (6 layers)\n"


def test_an_unknown_extension_names_every_format(tmp_path):
    result = invoke("graph", TINY, "-o", tmp_path / "g.pdf")
    assert result.exit_code == 2
    assert (
        f"Invalid value for '-o' / '--output': '{tmp_path / 'g.pdf'}': the extension gives the "
        "format; name the file .html, .svg, .png or .dot" in result.output
    )


def test_help_tells_of_the_page_force_and_progress():
    output = invoke("graph", "--help").output
    for text in ("GRAPH.html|svg|png|dot", "interactive page", "--force", "--no-progress",
                 "more than 300 layers"):  # fmt: skip
        assert text in output


# -- progress ----------------------------------------------------------------------------------
def test_no_bar_when_not_on_a_terminal(tmp_path):
    model = _chain(tmp_path, 50)
    result = invoke("graph", model, "-o", tmp_path / "c.html")
    assert result.stderr == ""
    assert result.output == f"wrote {tmp_path / 'c.html'} (50 layers)\n"


class _Recorder:
    """Stands in for the command's terminal progress: records every call."""

    def __init__(self, calls):
        self.calls = calls

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        return False

    def __call__(self, *call):
        self.calls.append(call)


def test_the_command_reports_each_stage(tmp_path, monkeypatch):
    calls, asked = [], []

    def recorder(no_progress):
        asked.append(no_progress)
        return _Recorder(calls)

    monkeypatch.setattr(graph_cmd, "terminal_progress", recorder)
    assert invoke("graph", TINY, "-o", tmp_path / "t.html").exit_code == 0
    assert calls == [
        (f"loading {TINY}", 0, None), (f"loading {TINY}", FINISHED, None),
        *[("validating", done, 6) for done in range(7)],
        ("laying out", 0, None), ("laying out", FINISHED, None),
        ("drawing", 0, None), ("drawing", FINISHED, None),
        ("writing", 0, None), ("writing", FINISHED, None),
    ]  # fmt: skip
    calls.clear()
    invoke("graph", TINY, "-o", tmp_path / "t.dot", "--no-validate", "--no-progress")
    assert [call for call in calls if call[1] == 0] == [
        (f"loading {TINY}", 0, None), ("laying out", 0, None), ("drawing", 0, None),
        ("writing", 0, None),
    ]  # fmt: skip
    assert asked == [False, True]


def _in_a_terminal(*args) -> tuple[int, str]:
    """Run ``irrun ARGS`` with its output on a pseudo-terminal; return (exit code, output)."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "irrun", *map(str, args)],
        stdin=follower, stdout=follower, stderr=follower, cwd=ROOT,
        env={**os.environ, "COLUMNS": "100"},
    )  # fmt: skip
    os.close(follower)
    output = b""
    while True:
        ready, _, _ = select.select([leader], [], [], 60)
        if not ready:
            process.kill()
            raise TimeoutError("irrun graph did not finish in a minute")
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the other end closed
            break
        if not chunk:
            break
        output += chunk
    os.close(leader)
    return process.wait(), output.decode("utf-8", "replace")


def test_on_a_terminal_progress_is_shown_then_erased(tmp_path):
    model = _chain(tmp_path, 6000)
    target = tmp_path / "c.html"
    code, output = _in_a_terminal("graph", model, "-o", target)
    assert code == 0
    # Whatever stage lasted over a second had its line; each line is erased when it ends.
    shown = [line for line in re.split(r"\r\x1b\[2K(?:\x1b\[\?25h)?", output) if line]
    assert shown[-1] == f"wrote {target} (6,000 layers)\r\n"
    assert all(re.fullmatch(r"(loading|validating|laying out|drawing|writing).*", line)
               for line in shown[:-1])  # fmt: skip
    code, output = _in_a_terminal("graph", model, "-o", target, "--no-progress")
    assert code == 0
    assert output == f"wrote {target} (6,000 layers)\r\n"
