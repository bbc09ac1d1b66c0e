"""The graph page's data and layout, without a browser: boxes in ranks that never overlap,
edges that run down from their tail's bottom to their head's top through a point on each rank
they cross, every layer's details, around views, fragments, and the page's own files."""

from __future__ import annotations

import json
import re
import time
from fnmatch import fnmatch
from pathlib import Path

import numpy as np
import tomllib

import irrun
from irrun.progress import FINISHED
from irrun.render import layout as layout_module
from irrun.render.draw import draw
from irrun.render.graph_page import graph_page, page_data
from irrun.render.layout import layered_layout
from tests.helpers.ir_text import Net, dims, net, parameter

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "ir"


def _no_overlap(layout, sizes, ranks, gap):
    for rank in np.unique(ranks):
        members = np.flatnonzero(ranks == rank)
        members = members[np.argsort(layout.x[members])]
        left = layout.x[members] - sizes[members, 0] / 2
        right = layout.x[members] + sizes[members, 0] / 2
        assert np.all(left[1:] >= right[:-1] + gap - 1e-6)


# -- layout ------------------------------------------------------------------------------------
def test_boxes_of_a_rank_share_a_row_and_keep_apart():
    rng = np.random.default_rng(7)
    ranks = rng.integers(0, 12, 300)
    sizes = np.column_stack([rng.uniform(60, 240, 300), rng.choice([40.0, 54.0], 300)])
    tails = rng.integers(0, 300, 600)
    heads = rng.integers(0, 300, 600)
    keep = ranks[tails] < ranks[heads]
    edges = np.column_stack([tails[keep], heads[keep]])
    layout = layered_layout(sizes, edges, ranks, gap_x=28)
    _no_overlap(layout, sizes, ranks, 28)
    for rank in range(12):  # one row per rank: equal centres, rows in rank order
        assert np.ptp(layout.y[ranks == rank]) == 0
    row = [layout.y[ranks == rank][0] for rank in range(12)]
    assert row == sorted(row)
    assert np.all(layout.x - sizes[:, 0] / 2 >= 20 - 1e-6)  # within the margins
    assert np.all(layout.x + sizes[:, 0] / 2 <= layout.width - 20 + 1e-6)
    assert np.all(layout.y + sizes[:, 1] / 2 <= layout.height - 20 + 1e-6)


def test_ranks_are_as_tall_as_their_tallest_box_and_a_gap_apart():
    layout = layered_layout([[50, 30], [50, 60], [50, 30]], [[0, 2], [1, 2]], [0, 0, 1],
                            gap_y=46, margin=20)  # fmt: skip
    assert layout.y.tolist() == [50.0, 50.0, 141.0]  # 20 + 60 / 2; 20 + 60 + 46 + 30 / 2
    assert layout.height == 20 + 60 + 46 + 30 + 20


def test_edges_run_from_the_tail_bottom_to_the_head_top():
    sizes = np.array([[80, 40], [120, 40], [60, 40]], float)
    layout = layered_layout(sizes, [[0, 2], [1, 2]], [0, 0, 1], head_slots=[0.25, 0.75])
    first, second = layout.routes
    assert first[:2] == [round(layout.x[0], 1), round(layout.y[0] + 20, 1)]
    head_left = layout.x[2] - 30
    assert first[2:] == [round(head_left + 15, 1), round(layout.y[2] - 20, 1)]
    assert second[2:] == [round(head_left + 45, 1), round(layout.y[2] - 20, 1)]


def test_a_long_edge_passes_a_point_on_every_rank_it_crosses():
    # 0 -> 1 -> 2 -> 3 and a skip 0 -> 3: the skip crosses ranks 1 and 2.
    sizes = np.full((4, 2), 50.0)
    layout = layered_layout(sizes, [[0, 1], [1, 2], [2, 3], [0, 3]], [0, 1, 2, 3])
    skip = layout.routes[3]
    assert len(skip) == 8  # start, two points, end
    assert [skip[3], skip[5]] == [round(layout.y[1], 1), round(layout.y[2], 1)]
    # Its points keep clear of the boxes on those ranks.
    for point_x, box in ((skip[2], 1), (skip[4], 2)):
        assert abs(point_x - layout.x[box]) >= 25 + 28 + 6 - 0.05  # routes are rounded to 0.1


def test_past_the_point_budget_the_longest_edges_go_straight(monkeypatch):
    monkeypatch.setattr(layout_module, "POINT_BUDGET", 3)
    sizes = np.full((6, 2), 40.0)
    # 0 -> 5 would need 4 points, 1 -> 4 needs 2: only the shorter one fits.
    edges = [[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [0, 5], [1, 4]]
    layout = layered_layout(sizes, edges, [0, 1, 2, 3, 4, 5])
    assert len(layout.routes[5]) == 4 and len(layout.routes[6]) == 8


def test_crossings_are_undone():
    # Two chains given in crossed order: 0 -> 3 and 1 -> 2, with 2 placed left of 3.
    sizes = np.full((4, 2), 50.0)
    layout = layered_layout(sizes, [[0, 3], [1, 2]], [0, 0, 1, 1], order=[0, 1, 0, 1])
    assert (layout.x[0] < layout.x[1]) == (layout.x[3] < layout.x[2])


def test_edges_within_a_rank_and_an_empty_graph():
    layout = layered_layout([[40, 20], [40, 20]], [[0, 1], [1, 0]], [0, 0])
    assert [len(route) for route in layout.routes] == [4, 4]
    empty = layered_layout(np.zeros((0, 2)), np.zeros((0, 2)), [])
    assert (empty.width, empty.height, empty.routes) == (40.0, 40.0, [])
    alone = layered_layout([[50, 30]], np.zeros((0, 2)), [0])
    assert (alone.x.tolist(), alone.y.tolist(), alone.routes) == ([45.0], [35.0], [])


def test_3000_layers_lay_out_in_well_under_a_second():
    count = 3000
    ranks = np.arange(count) // 2
    edges = [(i - 2, i) for i in range(2, count)] + [(i - 14, i) for i in range(14, count, 7)]
    sizes = np.column_stack([np.full(count, 120.0), np.full(count, 54.0)])
    start = time.perf_counter()
    layout = layered_layout(sizes, edges, ranks)
    assert time.perf_counter() - start < 1.0
    _no_overlap(layout, sizes, ranks, 28)


# -- what the page shows -----------------------------------------------------------------------
def _concat_model():
    layers = [
        parameter(0, "left", [1, 8]),
        parameter(1, "right", [1, 16]),
        '<layer id="2" name="join" type="Concat" version="opset1"><data axis="1"/>'
        f'<input><port id="0">{dims([1, 8])}</port><port id="1">{dims([1, 16])}</port></input>'
        f'<output><port id="2" precision="FP32" names="joined">{dims([1, 20])}</port></output>'
        "</layer>",
        '<layer id="3" name="output" type="Result" version="opset1">'
        f'<input><port id="0">{dims([1, 20])}</port></input></layer>',
    ]
    return irrun.load(net(layers, [(0, 0, 2, 0), (1, 0, 2, 1), (2, 2, 3, 0)], name="cat"))


def test_each_layer_carries_its_attributes_ports_and_diagnostics():
    model = _concat_model()
    data = page_data(model, model.validate())
    join = next(node for node in data["nodes"] if node["key"] == "L2")
    assert join["title"] == "join"
    assert join["lines"] == ["Concat-1", "f32 [1,24]", "error: shape-mismatch"]
    assert join["severity"] == "error" and join["role"] == "Concat"
    details = join["layer"]
    assert {key: details[key] for key in ("id", "name", "type", "version", "op", "line")} == {
        "id": 2, "name": "join", "type": "Concat", "version": "opset1", "op": "Concat-1",
        "line": 6,
    }  # fmt: skip
    assert details["attributes"] == [["axis", "1"]]
    index = {node["key"]: position for position, node in enumerate(data["nodes"])}
    assert details["inputs"] == [
        {"port": 0, "declared_type": None, "inferred_type": "f32", "declared_shape": "[1,8]",
         "inferred_shape": "[1,8]", "from": {"node": index["L0"], "text": "left : 0"}},
        {"port": 1, "declared_type": None, "inferred_type": "f32", "declared_shape": "[1,16]",
         "inferred_shape": "[1,16]", "from": {"node": index["L1"], "text": "right : 0"}},
    ]  # fmt: skip
    assert details["outputs"] == [
        {"port": 2, "declared_type": "f32", "inferred_type": "f32", "declared_shape": "[1,20]",
         "inferred_shape": "[1,24]", "names": ["joined"],
         "to": [{"node": index["L3"], "text": "output : 0"}]},
    ]  # fmt: skip
    assert details["diagnostics"] == [
        {
            "severity": "error",
            "code": "shape-mismatch",
            "line": 6,
            "port": "output port 2",
            "message": "layer 2 'join' (Concat-1) output port 2 declares [1,20], but its inputs "
            "give [1,24] (axis 1: 8 + 16 = 24)",
            "hint": "declare <dim>1</dim><dim>24</dim> on output port 2",
            "notes": [],
        }
    ]
    assert data["summary"] == "1 error, 0 warnings; 4 layers checked, 0 trusted"
    assert [(edge["tail"], edge["head"], edge["label"]) for edge in data["edges"]] == [
        (index["L0"], index["L2"], "[1,8]"),
        (index["L1"], index["L2"], "[1,16]"),
        (index["L2"], index["L3"], "[1,24]"),
    ]


def test_without_validation_the_page_shows_declared_shapes():
    data = page_data(_concat_model())
    join = next(node for node in data["nodes"] if node["key"] == "L2")
    assert join["lines"] == ["Concat-1", "f32 [1,20]"] and join["severity"] == ""
    assert join["layer"]["outputs"][0]["inferred_shape"] is None
    assert (data["validated"], data["summary"]) == (False, None)


def test_an_around_view_keeps_the_neighbourhood_and_names_the_rest():
    model = _concat_model()
    data = page_data(model, model.validate(), around="output", radius=1)
    assert [node["key"] for node in data["nodes"]] == ["L2", "L3"]
    join = data["nodes"][0]
    assert join["cut"] and not join["center"] and data["nodes"][1]["center"]
    # A producer outside the view is named, not linked.
    assert join["layer"]["inputs"][0]["from"] == {"node": None, "text": "left : 0"}
    assert data["title"].startswith("cat (IR v11), around output (radius 1)")


def test_a_fragment_s_open_ports_are_boxes_of_their_own():
    model = irrun.load_all(EXAMPLES / "concat_declared_48.xml")[0]
    data = page_data(model, model.validate())
    ends = {node["key"]: (node["title"], node["end"]) for node in data["nodes"] if "end" in node}
    assert ends == {
        "in0": ("1:in0", "input 1:in0"),
        "in1": ("1:in1", "input 1:in1"),
        "in2": ("1:in2", "input 1:in2"),
        "out0": ("1:out0", "output 1:out0"),
    }


def test_the_page_embeds_its_data_script_and_style():
    model = _concat_model()
    page = graph_page(model, model.validate())
    found = re.search(r'<script type="application/json" id="graph-data">(.*?)</script>', page)
    assert json.loads(found.group(1)) == json.loads(json.dumps(page_data(model, model.validate())))
    assert "window.irrunGraph" in page and ".node.error rect" in page


def test_the_page_s_files_are_package_data():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["package-data"]["irrun.render"]
    for name in ("graph_page.js", "graph_page.css"):
        assert (ROOT / "irrun" / "render" / name).is_file()
        assert any(fnmatch(name, pattern) for pattern in patterns)


def test_progress_reports_each_stage(tmp_path):
    calls = []
    model = _concat_model()
    draw(model, tmp_path / "c.html", progress=lambda *call: calls.append(call))
    assert calls == [
        ("laying out", 0, None), ("laying out", FINISHED, None), ("drawing", 0, None),
        ("drawing", FINISHED, None), ("writing", 0, None), ("writing", FINISHED, None),
    ]  # fmt: skip
    calls.clear()
    draw(model, tmp_path / "c.dot", progress=lambda *call: calls.append(call))
    assert [stage for stage, done, _ in calls if done == 0] == ["laying out", "drawing", "writing"]


def test_a_sub_graph_op_links_to_a_view_of_its_body():
    body = """<layer id="0" name="loop" type="TensorIterator" version="opset1">
  <port_map><input external_port_id="0" internal_layer_id="0" axis="0"/>
  <output external_port_id="1" internal_layer_id="1"/></port_map>
  <input><port id="0" precision="FP32"><dim>2</dim></port></input>
  <output><port id="1" precision="FP32"><dim>1</dim></port></output>
  <body><layers>
    <layer id="0" name="p" type="Parameter" version="opset1"><data shape="1" element_type="f32"/>
      <output><port id="0" precision="FP32"><dim>1</dim></port></output></layer>
    <layer id="1" name="r" type="Result" version="opset1">
      <input><port id="0" precision="FP32"><dim>1</dim></port></input></layer>
  </layers><edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/></edges></body>
</layer>"""
    data = page_data(irrun.load(net(body)))
    assert [node["layer"]["bodies"] for node in data["nodes"] if "layer" in node] == [
        [["body", 2, 1]]
    ]
    (view,) = data["views"]
    assert sorted(node["title"] for node in view["nodes"]) == ["p", "r"]
    # Not validated here: the body's boxes show their declared shapes, as the model's do.
    assert (view["parent"], view["validated"], "views" in view) == (0, False, False)


def test_a_shared_constant_gets_a_copy_above_each_later_consumer():
    # x -> add1(x, k) -> relu -> add2(relu, k): k is drawn above add1 and again above add2.
    built = Net()
    x = built.param("x", "2")
    k = built.const("k", np.ones(2, np.float32))
    first = built.op("add1", "Add", "opset1", None, [x, k], [2])
    x = built.op("relu", "Relu", "opset1", None, [first], [2])
    x = built.op("add2", "Add", "opset1", None, [x, k], [2])
    built.result(x, "y")
    model = irrun.load(built.text(), bytes(built.blob))
    data = page_data(model, model.validate())
    rows = {node["key"]: node["y"] for node in data["nodes"]}
    assert sorted(rows) == ["L0", "L1", "L1#1", "L2", "L3", "L4", "L5"]
    assert rows["L1"] < rows["L2"] and rows["L3"] == rows["L1#1"] < rows["L4"]  # the row above
    copy = next(node for node in data["nodes"] if node["key"] == "L1#1")
    original = next(node for node in data["nodes"] if node["key"] == "L1")
    assert copy["copy"] and "copy" not in original and copy["layer"] == original["layer"]
    index = {node["key"]: position for position, node in enumerate(data["nodes"])}
    assert sorted((edge["tail"], edge["head"]) for edge in data["edges"]) == sorted(
        [(index["L0"], index["L2"]), (index["L1"], index["L2"]), (index["L2"], index["L3"]),
         (index["L3"], index["L4"]), (index["L1#1"], index["L4"]), (index["L4"], index["L5"])]
    )  # fmt: skip


def test_each_body_is_a_view_of_its_own_nested_ones_included(tmp_path):
    from tests.render.sub_graphs import nested_if_model

    model = irrun.load(nested_if_model(tmp_path))
    data = page_data(model, model.validate())
    (outer,) = [node["layer"] for node in data["nodes"] if node.get("layer", {}).get("bodies")]
    assert outer["bodies"] == [["then_body", 4, 1], ["else_body", 3, 4]]
    views = data["views"]
    # Depth first: the outer then-branch, the inner If's two branches in it, the else-branch.
    assert [(v["label"], v["parent"], v["layer_count"], v["validated"]) for v in views] == [
        ("If 'outer' · then_body", 0, 4, True),
        ("If 'inner' · then_body", 1, 3, True),
        ("If 'inner' · else_body", 1, 3, True),
        ("If 'outer' · else_body", 0, 3, True),
    ]
    (inner,) = [node["layer"] for node in views[0]["nodes"] if node["layer"]["bodies"]]
    assert inner["name"] == "inner" and [b[2] for b in inner["bodies"]] == [2, 3]
    # Body boxes show the shapes validation inferred inside the body.
    concat = [n for n in views[2]["nodes"] if n["layer"]["type"] == "Concat"]
    assert [n["lines"] for n in concat] == [["Concat-1", "f32 [4,3]"]]
    assert views[0]["kind"] == "then_body of layer 2 'outer' (If)"
