"""Several models per call: files and folders, one summary, the worst exit code, --jobs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.helpers.cli import invoke

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "ir"


@pytest.fixture
def models(tmp_path, monkeypatch):
    """A folder ``m`` with a valid model (``m/tiny.xml`` and its .bin), a broken one
    (``m/sub/bad.xml``, exit 1) and an unreadable one (``m/sub/empty.xml``, exit 2)."""
    folder = tmp_path / "m"
    (folder / "sub").mkdir(parents=True)
    shutil.copy(EXAMPLES / "tiny.xml", folder / "tiny.xml")
    shutil.copy(EXAMPLES / "tiny.bin", folder / "tiny.bin")
    shutil.copy(EXAMPLES / "concat_declared_48.xml", folder / "sub" / "bad.xml")
    (folder / "sub" / "empty.xml").write_text("")
    monkeypatch.chdir(tmp_path)
    return folder


BAD = (
    "m/sub/bad.xml:26: error[shape-mismatch]: layer 1 (Concat-1) output port 0 declares "
    "[1,48,50,50], but its inputs give [1,56,50,50] (axis 1: 8 + 16 + 32 = 56)\n"
    "    hint: declare <dim>1</dim><dim>56</dim><dim>50</dim><dim>50</dim> on output port 0\n"
    "m/sub/bad.xml: 1 error, 0 warnings; 1 layer checked, 0 trusted\n"
)
TINY = "m/tiny.xml: 0 errors, 0 warnings; 6 layers checked, 0 trusted\n"


def test_two_files_give_their_reports_and_one_summary(models):
    result = invoke("validate", "m/tiny.xml", "m/sub/bad.xml", catch_exceptions=True)
    assert result.exit_code == 1
    assert result.output == TINY + BAD + "2 models: 1 error, 0 warnings; 1 with errors\n"


def test_valid_models_only_exit_0(models):
    result = invoke("validate", "m/tiny.xml", "m/tiny.xml", catch_exceptions=True)
    assert result.exit_code == 0
    assert result.output == TINY + TINY + "2 models: 0 errors, 0 warnings; all valid\n"


def test_a_folder_is_every_xml_in_it_and_the_exit_code_the_worst(models):
    result = invoke("validate", "m", catch_exceptions=True)
    assert result.exit_code == 2  # the unreadable file is worse than the broken one
    assert result.stdout == (
        BAD + TINY + "3 models: 1 error, 0 warnings; 1 with errors, 1 not checked\n"
    )
    assert result.stderr.startswith("irrun: error: m/sub/empty.xml")


def test_jobs_give_the_same_output_in_the_same_order(models):
    one = invoke("validate", "m/sub/bad.xml", "m/tiny.xml", "m/sub/empty.xml",
                 catch_exceptions=True)  # fmt: skip
    parallel = invoke("validate", "m/sub/bad.xml", "m/tiny.xml", "m/sub/empty.xml", "--jobs",
                      "2", catch_exceptions=True)  # fmt: skip
    assert parallel.exit_code == one.exit_code == 2
    assert parallel.stdout == one.stdout
    assert parallel.stderr == one.stderr


def test_json_of_several_models_is_a_list(models):
    result = invoke("validate", "m/tiny.xml", "m/sub/empty.xml", "--format", "json",
                    catch_exceptions=True)  # fmt: skip
    payload = json.loads(result.stdout)
    assert [entry["file"] for entry in payload] == ["m/tiny.xml", "m/sub/empty.xml"]
    assert payload[0]["ok"] is True
    assert payload[1]["ok"] is False and payload[1]["exit_code"] == 2
    assert payload[1]["error"].startswith("m/sub/empty.xml")


def test_weights_go_with_one_model_only(models):
    result = invoke("validate", "m/tiny.xml", "m/tiny.xml", "--weights", "m/tiny.bin",
                    catch_exceptions=True)  # fmt: skip
    assert result.exit_code == 2
    assert "Invalid value for '--weights': --weights goes with one model only" in result.output


def test_a_folder_without_models_is_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "nothing").mkdir()
    result = invoke("validate", "nothing", catch_exceptions=True)
    assert result.exit_code == 2
    assert result.output == (
        "irrun: error: 'nothing' is a directory with no .xml file in it or below; give model "
        "files, or folders that hold them\n"
    )


def test_one_unreadable_model_alone_is_reported_as_before(models):
    result = invoke("validate", "m/sub/empty.xml", catch_exceptions=True)
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.startswith("irrun: error: m/sub/empty.xml")


def test_inspect_several_models(models):
    result = invoke("inspect", "m/tiny.xml", "m/sub/bad.xml", catch_exceptions=True)
    assert result.exit_code == 0
    assert "\n\nm/sub/bad.xml: fragment (layers from line 3), 1 layers\n" in result.output
    assert result.output.endswith("\nlayers:\n  Concat  1\n\n2 models: 7 layers, 24 bytes of "
                                  "weights\n")  # fmt: skip
    assert result.output.startswith("m/tiny.xml: IR v11 'tiny', 6 layers\n")
    result = invoke("inspect", "m", catch_exceptions=True)
    assert result.exit_code == 2
    assert result.stdout.endswith("\n3 models: 7 layers, 24 bytes of weights; 1 not readable\n")
