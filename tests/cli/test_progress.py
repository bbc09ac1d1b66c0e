"""Progress: a plain callback in the library, a bar on a terminal only, --no-progress."""

from __future__ import annotations

import io
import time

from irrun.cli.common import TerminalProgress

from irrun.progress import FINISHED, stage, steps
from tests.helpers.cli import invoke
from tests.helpers.ir_text import Net


class Terminal(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self):
        return True


def test_steps_reports_start_about_a_hundred_steps_and_the_end():
    calls = []
    items = list(steps(range(250), "checking", lambda *call: calls.append(call)))
    assert items == list(range(250))
    assert calls[:3] == [("checking", 0, 250), ("checking", 2, 250), ("checking", 4, 250)]
    assert calls[-1] == ("checking", 250, 250) and len(calls) == 126
    assert list(steps(iter([1, 2]), "x", None)) == [1, 2]  # no callback: nothing to count


def test_a_stage_of_unknown_length_reports_its_start_and_end_even_on_errors():
    calls = []
    try:
        with stage("loading m.xml", lambda *call: calls.append(call)):
            raise ValueError("boom")
    except ValueError:
        pass
    assert calls == [("loading m.xml", 0, None), ("loading m.xml", FINISHED, None)]


def test_a_terminal_gets_clicks_bar_erased_at_the_end():
    stream = Terminal()
    with TerminalProgress(stream=stream, delay=0) as progress:
        for done in (0, 2, 4):
            progress("validating m.xml", done, 4)
    assert stream.getvalue() == (
        "\r\x1b[?25lvalidating m.xml  [###############---------------]   50%\r\x1b[2K\x1b[?25h"
    )


def test_a_stage_of_unknown_length_shows_the_seconds():
    stream = Terminal()
    with TerminalProgress(stream=stream, delay=0) as progress:
        progress("loading m.xml", 0, None)
        deadline = time.monotonic() + 10
        while not stream.getvalue() and time.monotonic() < deadline:  # the first tick
            time.sleep(0.05)
        progress("loading m.xml", FINISHED, None)
    assert stream.getvalue() == "\r\x1b[2Kloading m.xml ... 0 s\r\x1b[2K\x1b[?25h"


def test_quick_work_draws_nothing():
    stream = Terminal()
    with TerminalProgress(stream=stream, delay=5) as progress:
        for done in range(5):
            progress("validating m.xml", done, 4)
        progress("loading m.xml", 0, None)
    assert stream.getvalue() == ""


def test_no_terminal_or_no_progress_draws_nothing():
    for progress in (TerminalProgress(stream=io.StringIO(), delay=0),
                     TerminalProgress(enabled=False, stream=Terminal(), delay=0)):  # fmt: skip
        progress("validating m.xml", 1, 4)
        progress("loading m.xml", 0, None)
        progress.close()
        assert progress.stream.getvalue() == ""


def test_validate_piped_prints_no_progress(tmp_path):
    net = Net()
    x = net.param("x", "1,4")
    for index in range(2000):
        x = net.op(f"r{index}", "Relu", "opset1", None, [x], [1, 4])
    net.result(x)
    (tmp_path / "m.xml").write_text(net.text())
    piped = invoke("validate", tmp_path / "m.xml")
    quiet = invoke("validate", tmp_path / "m.xml", "--no-progress")
    assert piped.exit_code == quiet.exit_code == 0
    assert piped.stderr == quiet.stderr == ""
    assert piped.stdout == quiet.stdout
    assert piped.stdout.endswith(": 0 errors, 0 warnings; 2,002 layers checked, 0 trusted\n")


def test_validate_reports_its_layers_to_the_callback():
    import irrun
    from irrun.api import validate

    net = Net()
    x = net.param("x", "1,4")
    for index in range(298):
        x = net.op(f"r{index}", "Relu", "opset1", None, [x], [1, 4])
    net.result(x)
    calls = []
    report = validate(irrun.load(net.text()), progress=lambda *call: calls.append(call))
    assert report.ok
    assert calls[:2] == [("validating", 0, 300), ("validating", 3, 300)]
    assert calls[-1] == ("validating", 300, 300) and len(calls) == 101
