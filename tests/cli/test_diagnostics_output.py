"""What ``irrun validate`` prints on big models: grouped warnings, --quiet, --max-diagnostics,
--show/--hide, the summary first when the text is long, every diagnostic in JSON."""

from __future__ import annotations

import json

import pytest

from tests.helpers.cli import invoke
from tests.helpers.ir_text import Net


def chain(kinds) -> str:
    """A Parameter, then one layer per entry of ``kinds`` in a chain (``Relu`` is opset1,
    any other type a custom op of opset ``extension``), then a Result."""
    net = Net()
    x = net.param("x", "1,16")
    for index, kind in enumerate(kinds):
        version = "opset1" if kind == "Relu" else "extension"
        x = net.op(f"l{index}", kind, version, None, [x], [1, 16])
    net.result(x)
    return net.text()


def branches(count: int) -> str:
    """``count`` Relu layers fed by one Parameter, each declaring [1,17] for [1,16] (each its
    own error), each to its own Result."""
    net = Net()
    x = net.param("x", "1,16")
    for index in range(count):
        net.result(net.op(f"r{index}", "Relu", "opset1", None, [x], [1, 17]))
    return net.text()


SEVEN = ["Foo", "Relu", "Bar", "Foo", "Foo", "Baz", "Relu"]
UNKNOWN = "    hint: its declared output dims and precisions are used as they are"


@pytest.fixture
def run(tmp_path, monkeypatch):
    """``run(text, *options)``: validate ``text`` saved as m.xml; (exit code, output)."""
    monkeypatch.chdir(tmp_path)

    def run(text, *options):
        (tmp_path / "m.xml").write_text(text)
        result = invoke("validate", "m.xml", *options, catch_exceptions=True)
        return result.exit_code, result.output

    return run


def test_more_than_three_warnings_of_one_code_are_one_entry(run):
    code, output = run(chain(SEVEN))
    assert code == 0
    assert output == (
        "m.xml:10: warning[unknown-op]: 5 layers of 3 types not checked: Foo extension ×3 "
        "(first at line 10), Bar extension ×1 (first at line 26), Baz extension ×1 (first at "
        "line 50)\n"
        f"{UNKNOWN}; --show unknown-op lists each one\n"
        "m.xml: 0 errors, 5 warnings; 4 layers checked, 5 trusted\n"
        "m.xml: coverage: 4 of 9 layers checked (44.4 %); trusted: Foo extension ×3, Bar "
        "extension ×1, Baz extension ×1\n"
    )


def test_three_warnings_stay_apart_as_before(run):
    code, output = run(chain(["Foo", "Relu", "Bar", "Foo"]))
    assert code == 0
    assert output == (
        "m.xml:10: warning[unknown-op]: layer 1 'l0' (Foo): irrun does not know op type 'Foo' "
        "of opset 'extension'; not checked, declared dims trusted\n"
        f"{UNKNOWN}\n"
        "m.xml:26: warning[unknown-op]: layer 3 'l2' (Bar): irrun does not know op type 'Bar' "
        "of opset 'extension'; not checked, declared dims trusted\n"
        f"{UNKNOWN}\n"
        "m.xml:34: warning[unknown-op]: layer 4 'l3' (Foo): irrun does not know op type 'Foo' "
        "of opset 'extension'; not checked, declared dims trusted\n"
        f"{UNKNOWN}\n"
        "m.xml: 0 errors, 3 warnings; 3 layers checked, 3 trusted\n"
        "m.xml: coverage: 3 of 6 layers checked (50.0 %); trusted: Foo extension ×2, Bar "
        "extension ×1\n"
    )


def test_show_lists_each_warning_of_the_code_and_max_diagnostics_caps_them(run):
    code, output = run(chain(SEVEN), "--show", "unknown-op", "--max-diagnostics", "2")
    assert code == 0
    assert output == (
        "m.xml:10: warning[unknown-op]: layer 1 'l0' (Foo): irrun does not know op type 'Foo' "
        "of opset 'extension'; not checked, declared dims trusted\n"
        f"{UNKNOWN}\n"
        "m.xml:26: warning[unknown-op]: layer 3 'l2' (Bar): irrun does not know op type 'Bar' "
        "of opset 'extension'; not checked, declared dims trusted\n"
        f"{UNKNOWN}\n"
        "m.xml: 3 more entries not shown (--max-diagnostics 2); --format json lists every "
        "diagnostic\n"
        "m.xml: 0 errors, 5 warnings; 4 layers checked, 5 trusted\n"
        "m.xml: coverage: 4 of 9 layers checked (44.4 %); trusted: Foo extension ×3, Bar "
        "extension ×1, Baz extension ×1\n"
    )


def test_hide_and_quiet_leave_the_summary(run):
    _, hidden = run(chain(SEVEN), "--hide", "unknown-op")
    assert hidden == (
        "m.xml: 0 errors, 5 warnings; 4 layers checked, 5 trusted\n"
        "m.xml: coverage: 4 of 9 layers checked (44.4 %); trusted: Foo extension ×3, Bar "
        "extension ×1, Baz extension ×1\n"
    )
    code, quiet = run(chain(SEVEN), "--quiet")
    assert (code, quiet) == (0, "m.xml: 0 errors, 5 warnings; 4 layers checked, 5 trusted\n")
    code, quiet = run(chain(SEVEN), "-q", "--werror")  # what is printed, not the exit code
    assert code == 1


def test_quiet_keeps_every_error_with_its_hint(run):
    code, output = run(branches(2), "--quiet")
    assert code == 1
    assert output == (
        "m.xml:15: error[shape-mismatch]: layer 1 'r0' (Relu-1) output port 1 declares [1,17], "
        "but its inputs give [1,16]\n"
        "    hint: declare <dim>1</dim><dim>16</dim> on output port 1\n"
        "m.xml:28: error[shape-mismatch]: layer 3 'r1' (Relu-1) output port 1 declares [1,17], "
        "but its inputs give [1,16]\n"
        "    hint: declare <dim>1</dim><dim>16</dim> on output port 1\n"
        "m.xml: 2 errors, 0 warnings; 5 layers checked, 0 trusted\n"
    )


def test_a_long_report_prints_its_summary_first_and_last(run):
    code, output = run(branches(12))
    lines = output.splitlines()
    assert code == 1 and len(lines) == 2 * 12 + 2
    assert lines[0] == lines[-1] == "m.xml: 12 errors, 0 warnings; 25 layers checked, 0 trusted"
    assert lines[1].startswith("m.xml:15: error[shape-mismatch]: layer 1 'r0' (Relu-1)")
    _, short = run(branches(10))  # 20 lines of diagnostics: not long yet
    assert short.splitlines()[0].startswith("m.xml:15: error[shape-mismatch]")


def test_errors_are_never_grouped(run):
    _, output = run(branches(5))
    assert output.count("error[shape-mismatch]") == 5


def test_json_keeps_every_diagnostic_whatever_is_printed(run):
    _, output = run(chain(SEVEN), "--format", "json", "--quiet", "--hide", "unknown-op",
                    "--max-diagnostics", "0")  # fmt: skip
    report = json.loads(output)
    assert [d["code"] for d in report["diagnostics"]] == ["unknown-op"] * 5
    assert [d["layer"]["op"] for d in report["diagnostics"]] == [
        "Foo extension", "Bar extension", "Foo extension", "Foo extension", "Baz extension"
    ]  # fmt: skip


def test_an_unknown_code_is_a_usage_error_with_close_matches(run):
    code, output = run(chain(SEVEN), "--show", "unknown-ops")
    assert code == 2
    assert (
        "Invalid value for '--show': 'unknown-ops' is not a diagnostic code; did you mean "
        "unknown-op, unknown-opset" in output
    )
    code, _ = run(chain(SEVEN), "--hide", "unknown-op,unused-parameter")
    assert code == 0


def test_a_3000_layer_model_with_unknown_ops_prints_at_most_20_lines(run):
    kinds = [["Foo", "Bar", "Baz", "Relu", "Relu", "Qux"][i % 6] for i in range(2998)]
    code, output = run(chain(kinds))
    lines = output.splitlines()
    assert code == 0 and len(lines) <= 20
    assert lines == [
        "m.xml:10: warning[unknown-op]: 1,999 layers of 4 types not checked: Foo extension ×500 "
        "(first at line 10), Bar extension ×500 (first at line 18), Baz extension ×500 (first "
        "at line 26), Qux extension ×499 (first at line 50)",
        f"{UNKNOWN}; --show unknown-op lists each one",
        "m.xml: 0 errors, 1,999 warnings; 1,001 layers checked, 1,999 trusted",
        "m.xml: coverage: 1,001 of 3,000 layers checked (33.4 %); trusted: Bar extension ×500, "
        "Baz extension ×500, Foo extension ×500, Qux extension ×499",
    ]
