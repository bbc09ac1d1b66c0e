"""Golden files: ``irrun validate`` on one small broken IR per error code, compared exactly.

``examples/ir/broken/<code>.xml`` holds one mistake that produces the diagnostic ``<code>``
(an XML comment at its top says what is wrong); ``<code>.bin`` sits beside it when the model
needs weights; ``<code>.expected.txt`` is the exact text ``irrun validate`` must print, with
paths relative to the repository root. Every file must make ``irrun validate`` exit with 1.

How to regenerate
-----------------
From the repository root, for one file (or a loop over all of them)::

    irrun validate examples/ir/broken/<code>.xml > examples/ir/broken/<code>.expected.txt

then READ the new text and check it is right and helpful: a golden file blesses exactly what
it holds. Where irrun's output is wrong, write the right text by hand and fix irrun.

The three ``.bin`` files are little-endian int64 values, written with::

    import numpy as np
    i64 = lambda *v: np.array(v, dtype="<i8").tobytes()
    open("index-range.bin", "wb").write(i64(0, 3, 1, -4) + i64(1))   # indices, then axis
    open("bin-range.bin", "wb").write(i64(0, 2) + i64(1))            # 24 bytes
    open("const-size.bin", "wb").write(i64(0, 2) + i64(1))
"""

from __future__ import annotations

from pathlib import Path

import pytest

from irrun.validation.diagnostics import CODES
from tests.helpers.cli import invoke

ROOT = Path(__file__).resolve().parents[2]
BROKEN = ROOT / "examples" / "ir" / "broken"
ERROR_CODES = sorted(code for code, (severity, _) in CODES.items()
                     if severity == "error" and code != "internal")  # fmt: skip
#: Files whose single mistake legitimately causes a second error too (a duplicated port id
#: also leaves an edge pointing at no port).
TWO_ERRORS = {"duplicate-port-id"}


def _golden_files():
    return sorted(BROKEN.glob("*.xml"))


def _run(monkeypatch, *args):
    monkeypatch.chdir(ROOT)
    return invoke("validate", *args, catch_exceptions=True)


def test_one_golden_file_per_error_code():
    names = {p.stem for p in _golden_files()}
    assert names == set(ERROR_CODES)
    for xml in _golden_files():
        assert xml.with_suffix(".expected.txt").is_file(), xml.name


@pytest.mark.parametrize("xml", _golden_files(), ids=lambda p: p.stem)
def test_golden_file_starts_with_a_comment(xml):
    head = xml.read_text(encoding="utf-8").splitlines()[:2]
    assert head[0] == '<?xml version="1.0"?>'
    assert head[1].startswith("<!-- ")


@pytest.mark.parametrize("xml", _golden_files(), ids=lambda p: p.stem)
def test_golden_output(xml, monkeypatch):
    relative = xml.relative_to(ROOT).as_posix()
    result = _run(monkeypatch, relative)
    expected = xml.with_suffix(".expected.txt").read_text(encoding="utf-8")
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert result.stdout == expected
    assert result.exit_code == 1


@pytest.mark.parametrize("xml", _golden_files(), ids=lambda p: p.stem)
def test_golden_file_reports_its_own_code_as_an_error(xml, monkeypatch):
    """Independent of the exact text: the file's code is among the errors of the JSON report."""
    import json

    result = _run(monkeypatch, xml.relative_to(ROOT).as_posix(), "--format", "json")
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert report["ok"] is False
    errors = [d["code"] for d in report["diagnostics"] if d["severity"] == "error"]
    assert xml.stem in errors
    if xml.stem in TWO_ERRORS:
        assert sorted(errors) == sorted([xml.stem, "edge-port"])
    else:
        assert errors == [xml.stem]  # the mistake in each file causes exactly one error
