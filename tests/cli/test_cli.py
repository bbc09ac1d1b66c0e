"""The click app: help, exit codes, lazy imports, packaging of irrun.cli."""

import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from tests.helpers.cli import invoke

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "ir"


def test_help_lists_every_command_and_exit_codes():
    result = invoke("--help")
    assert result.exit_code == 0
    for command in ("inspect", "validate", "execute", "compare", "graph"):
        assert command in result.output
    assert "2  unusable input" in result.output


@pytest.mark.parametrize("command", ["inspect", "validate", "execute", "compare", "graph"])
def test_every_subcommand_has_complete_help(command):
    result = invoke(command, "--help")
    assert result.exit_code == 0
    assert "MODEL.xml" in result.output and "--weights" in result.output


def test_help_imports_no_heavy_module():
    code = (
        "import sys\nfrom irrun.cli.main import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in ('numpy', 'lxml', 'networkx', 'ml_dtypes') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_python_dash_m_irrun_works():
    out = subprocess.run(
        [sys.executable, "-m", "irrun", "inspect", str(EXAMPLES / "tiny.xml")],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    assert "IR v11 'tiny'" in out.stdout


def test_bare_cli_import_is_refused(tmp_path):
    code = "import cli"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode != 0
    assert "must be imported as 'irrun.cli'" in out.stderr


def test_inspect_text_and_json():
    result = invoke("inspect", EXAMPLES / "tiny.xml")
    assert result.exit_code == 0
    assert "data  f32     [2,?]" in result.output
    assert "Gather opset8     1" in result.output
    summary = json.loads(invoke("inspect", EXAMPLES / "tiny.xml", "--format", "json").output)
    assert summary["outputs"] == [
        {"name": "out", "names": ["out"], "shape": "[2,?]", "element_type": "f32"}
    ]
    assert summary["weights_bytes"] == 24


def test_validate_declared_48_exits_1_with_the_arithmetic():
    result = invoke("validate", "examples/ir/concat_declared_48.xml")
    assert result.exit_code == 1
    assert result.output.splitlines()[0] == (
        "examples/ir/concat_declared_48.xml:26: error[shape-mismatch]: layer 1 (Concat-1) output "
        "port 0 declares [1,48,50,50], but its inputs give [1,56,50,50] (axis 1: 8 + 16 + 32 = 56)"
    )
    assert result.output.splitlines()[-1].endswith(
        "1 error, 0 warnings; 1 layer checked, 0 trusted"
    )


def test_validate_spec_examples_pass():
    result = invoke("validate", EXAMPLES / "concat_spec_examples.xml")
    assert result.exit_code == 0
    assert "(snippet at line 4): 0 errors" in result.output


def test_validate_werror_turns_warnings_into_failure(tmp_path):
    text = (
        (EXAMPLES / "tiny.xml")
        .read_text()
        .replace('type="Concat" version="opset1"', 'type="Konkat" version="extension"')
    )
    (tmp_path / "m.xml").write_text(text)
    (tmp_path / "m.bin").write_bytes((EXAMPLES / "tiny.bin").read_bytes())
    assert invoke("validate", tmp_path / "m.xml").exit_code == 0
    result = invoke("validate", tmp_path / "m.xml", "--werror")
    assert result.exit_code == 1 and "warning[unknown-op]" in result.output


def test_execute_prints_and_writes_outputs(tmp_path):
    result = invoke("execute", EXAMPLES / "tiny.xml", "--inputs", EXAMPLES / "tiny_inputs.npz")
    assert result.exit_code == 0
    assert "out: float32 [2, 5]" in result.output
    out = tmp_path / "out.npz"
    result = invoke("execute", EXAMPLES / "tiny.xml", "--inputs", EXAMPLES / "tiny_inputs.npz",
                    "--output", out)  # fmt: skip
    assert result.exit_code == 0
    with np.load(out) as archive:
        assert archive["out"].tolist() == [[3, 1, 1, 2, 3], [6, 4, 4, 5, 6]]


def test_execute_refuses_invalid_model_with_exit_1():
    result = invoke("execute", EXAMPLES / "concat_declared_48.xml", "--inputs",
                    EXAMPLES / "tiny_inputs.npz", catch_exceptions=True)  # fmt: skip
    assert result.exit_code == 1
    assert "8 + 16 + 32 = 56" in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ("<net version='11'><layers>", "not well-formed"),
        ("", "not well-formed"),
        ("<model/>", "root element is <model>"),
        ("<net version='7'/>", "legacy IR version 7"),
    ],
)
def test_unreadable_models_exit_2_without_traceback(tmp_path, content, needle):
    path = tmp_path / "bad.xml"
    path.write_text(content)
    result = invoke("inspect", path, catch_exceptions=True)
    assert result.exit_code == 2
    assert "irrun: error:" in result.output and str(path) in result.output
    assert needle in result.output
    assert "Traceback" not in result.output


def test_an_option_without_its_value_is_a_usage_error():
    result = invoke("execute", EXAMPLES / "tiny.xml", "--seed", catch_exceptions=True)
    assert result.exit_code == 2
    assert "Option '--seed' requires an argument" in result.output


def test_wheel_holds_exactly_the_source_modules(tmp_path):
    # Build from a clean copy: a build/ folder left in the checkout would leak stale files.
    source = tmp_path / "src"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", "build", "dist", "*.egg-info", "__pycache__", ".hypothesis",
        "*.so", "*.pyd"))  # fmt: skip
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(tmp_path), str(source)],
        check=True, capture_output=True,
    )  # fmt: skip
    wheel = next(tmp_path.glob("irrun-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    modules = {n for n in names if n.endswith(".py")}
    expected = {f"irrun/cli/{p.name}" for p in (ROOT / "cli").glob("*.py")}
    expected |= {p.relative_to(ROOT).as_posix() for p in (ROOT / "irrun").rglob("*.py")}
    assert modules == expected
    # The reader's C accelerator, compiled from source, wherever this machine could build it.
    extensions = [n for n in names if n.startswith("irrun/ir/_walk.") and n != "irrun/ir/_walk.c"]
    from irrun.ir import reader

    assert len(extensions) == (1 if reader._walk is not None else 0)


def test_execute_dump_writes_every_tensor_by_name(tmp_path):
    dump = tmp_path / "all.npz"
    result = invoke("execute", EXAMPLES / "tiny.xml", "--inputs", EXAMPLES / "tiny_inputs.npz",
                    "--dump", dump)  # fmt: skip
    assert result.exit_code == 0
    with np.load(dump) as archive:
        assert sorted(archive.files) == ["ax:0", "data", "idx:0", "out", "picked"]
        assert archive["picked"].tolist() == [[3, 1], [6, 4]]
        assert archive["idx:0"].tolist() == [-1, 0]


def test_execute_trace_prints_a_line_per_layer():
    result = invoke("execute", EXAMPLES / "tiny.xml", "--inputs", EXAMPLES / "tiny_inputs.npz",
                    "--trace", catch_exceptions=True)  # fmt: skip
    assert result.exit_code == 0
    lines = [line.split() for line in result.stderr.splitlines()]
    assert [(fields[0], fields[1]) for fields in lines] == [
        ("data", "Parameter"), ("idx", "Const"), ("ax", "Const"), ("g", "Gather"),
        ("cat", "Concat"), ("out/sink", "Result"),
    ]  # fmt: skip
    assert lines[3][2:4] == ["[2,", "2]"] and lines[3][4] == "float32" and lines[3][6] == "B"


def test_execute_stop_after_prints_that_layers_outputs():
    result = invoke("execute", EXAMPLES / "tiny.xml", "--inputs", EXAMPLES / "tiny_inputs.npz",
                    "--stop-after", "g")  # fmt: skip
    assert result.exit_code == 0
    assert result.output.splitlines()[0] == "picked: float32 [2, 2]"
