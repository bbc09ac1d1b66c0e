"""The op status table: every op version of OpenVINO's opsets, with what irrun does with it,
and the README shows exactly that table."""

from __future__ import annotations

from pathlib import Path

from irrun.op_status import op_status, status_table
from irrun.ops.opsets import OPSETS
from irrun.ops.registry import has_kernel, resolve

README = Path(__file__).resolve().parents[1] / "README.md"


def test_every_op_version_of_every_opset_is_listed_once():
    listed = [(s.type, s.version) for s in op_status()]
    assert len(listed) == len(set(listed))
    wanted = {(name, version) for table in OPSETS.values() for name, version in table.items()}
    assert set(listed) == wanted


def test_each_row_says_what_the_registry_has():
    for s in op_status():
        op_class = resolve(s.type, s.opsets[0])
        assert s.checked == (op_class is not None and op_class.version == s.version), s
        if s.checked and s.type != "Parameter":
            assert s.runs == has_kernel(op_class), s
    by_label = {s.label: s for s in op_status()}
    assert by_label["Gather-1"].opsets == (1, 2, 3, 4, 5, 6)
    assert by_label["Gather-8"].opsets[0] == 8
    assert (by_label["Concat-1"].checked, by_label["Concat-1"].runs) == (True, True)
    assert by_label["Parameter-1"].runs


def test_the_table_has_a_row_per_op_version_and_a_count():
    lines = status_table().splitlines()
    rows = [line for line in lines[2:] if line.startswith("| ")]
    assert len(rows) == len(op_status())
    assert "| Gather-8 | 8-17 | yes | yes |" in rows or "| Gather-8 | 8-16 | yes | yes |" in rows
    checked = sum(s.checked for s in op_status())
    assert lines[-1].startswith(f"{len(rows)} op versions in opset1 to opset{max(OPSETS)}: "
                                f"{checked} checked")  # fmt: skip


def test_the_readme_shows_the_table():
    text = README.read_text(encoding="utf-8")
    start = text.index("<!-- op status table")
    shown = text[text.index("\n", start) + 1 : text.index("<!-- end of op status table -->")]
    assert shown.strip() == status_table(), "write status_table() between the markers"


def test_the_readme_counts_what_the_table_counts():
    rows = op_status()
    text = README.read_text(encoding="utf-8")
    checked, runs = sum(s.checked for s in rows), sum(s.runs for s in rows)
    assert checked == len(rows)  # (else the README's "every one of" needs other words)
    assert f"it checks every one of the {len(rows)} op\n  versions" in text
    assert f"irrun checks (shape and type rule) every one of the {len(rows)} op versions" in text
    assert runs == len(rows)  # (else the README's "runs ... every one of them" needs other words)
    assert "and runs (NumPy kernel) every one of them." in text
