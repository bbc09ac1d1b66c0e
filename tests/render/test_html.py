"""Jupyter HTML of Model, Layer, Report and run results: parsed, cell by cell."""

from pathlib import Path

import numpy as np
from lxml import html

import irrun

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "ir"


def rows(fragment: str, table: int = 0) -> list[list[str]]:
    tree = html.fromstring(fragment)
    body = tree.findall(".//table")[table]
    return [[cell.text_content().strip() for cell in row] for row in body.iter("tr")]


def test_model_html_lists_inputs_outputs_and_layer_counts():
    model = irrun.load(EXAMPLES / "tiny.xml")
    page = model._repr_html_()
    assert rows(page, 0) == [
        ["", "name", "type", "shape"],
        ["input", "data", "f32", "[2,?]"],
        ["output", "out", "f32", "[2,?]"],
    ]
    assert ["Gather opset8", "1"] in rows(page, 1)
    assert "IR v11" in html.fromstring(page).text_content()


def test_layer_html_shows_attributes_and_declared_and_inferred_shapes():
    model = irrun.load(EXAMPLES / "tiny.xml")
    model.validate()
    page = model.layer("cat")._repr_html_()
    assert rows(page, 0) == [["attribute", "value"], ["axis", "1"]]
    assert rows(page, 1)[-1] == ["output", "2", "f32", "[2,?]", "[2,2..]", "out"]


def test_report_html_has_severity_code_line_and_message():
    model = irrun.load(EXAMPLES / "concat_declared_48.xml")
    page = model.validate()._repr_html_()
    header, first = rows(page)[:2]
    assert header == ["severity", "code", "line", "layer", "message"]
    assert first[:4] == ["error", "shape-mismatch", "26", "1"]
    assert "8 + 16 + 32 = 56" in first[4]
    severity = html.fromstring(page).find(".//tbody//span")
    assert "color:#c62828" in severity.get("style")
    assert "1 error, 0 warnings" in html.fromstring(page).text_content()


def test_run_results_render_as_a_table():
    model = irrun.load(EXAMPLES / "tiny.xml")
    results = model.run({"data": np.arange(6, dtype=np.float32).reshape(2, 3)})
    table = rows(results._repr_html_())
    assert table[0] == ["name", "dtype", "shape", "values"]
    assert table[1][:3] == ["out", "float32", "[2, 5]"]
    assert table[1][3] == "[[2., 0., 0., 1., 2.],\n [5., 3., 3., 4., 5.]]"


def test_model_draw_method_gives_a_picture_of_the_neighbourhood():
    model = irrun.load(EXAMPLES / "tiny.xml")
    dot = model.draw(format="dot", around="cat", radius=1)
    assert dot.startswith("digraph irrun {")
    for name in ("cat", "g", "data", "out/sink"):
        assert f"<b>{name}</b>" in dot
    assert "<b>idx</b>" not in dot  # two steps away from cat
