"""Pictures of the graph: DOT text, SVG and PNG from both engines, highlighting, neighbourhoods,
escaping, the `irrun graph` command, and the message when no engine is installed."""

import html
import re
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
from lxml import etree

import irrun
from irrun.render.draw import ERROR_FILL, WARNING_FILL, EngineMissingError, choose_engine, draw
from tests.helpers.cli import invoke
from tests.helpers.ir_text import Net, net, parameter

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "ir"
TINY = EXAMPLES / "tiny.xml"
TINY_NAMES = ["data", "idx", "ax", "g", "cat", "out/sink"]
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
SVG_TEXT = "{http://www.w3.org/2000/svg}text"


def _has_graphviz():
    try:
        import graphviz  # noqa: F401
    except ImportError:
        return False
    return shutil.which("dot") is not None


needs_dot = pytest.mark.skipif(
    not _has_graphviz(),
    reason="Graphviz's dot program (apt-get install graphviz) or the graphviz package is missing",
)
ENGINES = ["matplotlib", pytest.param("graphviz", marks=needs_dot)]


# -- models ------------------------------------------------------------------------------------
def _chain(length):
    """x -> relu1 -> ... -> reluN -> out (MyRelu, a custom op irrun trusts: a warning each)."""
    layers = [parameter(0, "x", [4])]
    edges = []
    for index in range(1, length + 1):
        layers.append(
            f'<layer id="{index}" name="relu{index}" type="MyRelu" version="extension">'
            '<input><port id="0"><dim>4</dim></port></input>'
            '<output><port id="1" precision="FP32"><dim>4</dim></port></output></layer>'
        )
        edges.append((index - 1, 0 if index == 1 else 1, index, 0))
    layers.append(
        f'<layer id="{length + 1}" name="out" type="Result" version="opset1">'
        '<input><port id="0"><dim>4</dim></port></input></layer>'
    )
    edges.append((length, 1, length + 1, 0))
    return irrun.load(net(layers, edges, name="chain"))


LONG_NAME = "very/long/" * 20
AWKWARD_NAMES = ['a "quoted" <in> & more', "line\nbreak\\N", LONG_NAME, "$x^2$ {weird} \\"]
SHOWN_NAMES = [
    'a "quoted" <in> & more',
    "line\\nbreak\\N",
    "very/long/very/long/very/lon...(200 chars)",
    "$x^2$ {weird} \\",
]


def _awkward():
    """Names with quotes, markup, a newline, backslashes, TeX and 200 characters; the Concat
    takes one input twice (two edges between the same layers); Relu is unknown (a warning)."""
    attr = [html.escape(n, quote=True).replace("\n", "&#10;") for n in AWKWARD_NAMES]
    dims = "<dim>2</dim><dim>3</dim>"
    layers = [
        parameter(0, attr[0], [2, 3]),
        parameter(1, attr[1], [2, 3]),
        f'<layer id="2" name="{attr[2]}" type="Concat" version="opset1"><data axis="0"/>'
        f'<input><port id="0">{dims}</port><port id="1">{dims}</port><port id="2">{dims}</port>'
        '</input><output><port id="3" precision="FP32"><dim>6</dim><dim>3</dim></port></output>'
        "</layer>",
        f'<layer id="3" name="{attr[3]}" type="Relu" version="opset1"><input><port id="0">'
        '<dim>6</dim><dim>3</dim></port></input><output><port id="1" precision="FP32"><dim>6</dim>'
        "<dim>3</dim></port></output></layer>",
        '<layer id="4" name="out" type="Result" version="opset1"><input><port id="0"><dim>6</dim>'
        "<dim>3</dim></port></input></layer>",
    ]
    edges = [(0, 0, 2, 0), (1, 0, 2, 1), (0, 0, 2, 2), (2, 3, 3, 0), (3, 1, 4, 0)]
    return irrun.load(net(layers, edges, name='we"ird<'))


def _cycle():
    """p -> a <-> b, and a layer feeding itself: two cycles."""
    port = '<port id="{}" precision="FP32"><dim>2</dim></port>'
    concat = (
        '<layer id="{}" name="{}" type="Concat" version="opset1"><data axis="0"/><input>'
        '<port id="0"><dim>2</dim></port><port id="1"><dim>2</dim></port></input>'
        f"<output>{port.format(2)}</output></layer>"
    )
    layers = [
        parameter(0, "p", [2]),
        concat.format(1, "a"),
        concat.format(2, "b"),
        '<layer id="3" name="self" type="Relu" version="opset1"><input><port id="0"><dim>2</dim>'
        f"</port></input><output>{port.format(1)}</output></layer>",
        '<layer id="4" name="r" type="Result" version="opset1"><input><port id="0"><dim>2</dim>'
        "</port></input></layer>",
    ]
    edges = [(0, 0, 1, 0), (2, 2, 1, 1), (1, 2, 2, 0), (3, 1, 2, 1), (3, 1, 3, 0), (1, 2, 4, 0)]
    return irrun.load(net(layers, edges, name="cycle"))


@pytest.fixture
def tiny():
    model = irrun.load(TINY)
    return model, model.validate()


@pytest.fixture
def declared_48():
    (model,) = irrun.load_all(EXAMPLES / "concat_declared_48.xml")
    return model, model.validate()


# -- reading the output back -------------------------------------------------------------------
NODE = re.compile(r'^\s*"(?P<key>[^"]+)" \[label=<(?P<label>.*?)>, (?P<rest>shape=.*)\];$', re.M)
EDGE = re.compile(
    r'^\s*"(?P<tail>[^"]+)" -> "(?P<head>[^"]+)" \[x?label=<(?P<label>[^>]*)>\];$', re.M
)


def _text(markup):
    """The lines of a Graphviz HTML-like label as Graphviz shows them."""
    lines = re.sub(r"<br/>", "\n", markup)
    lines = re.sub(r"<[^>]+>", "", lines)
    return [html.unescape(line).replace("\\\\", "\\") for line in lines.split("\n")]


def _dot_nodes(dot):
    return {m["key"]: (_text(m["label"]), m["rest"]) for m in NODE.finditer(dot)}


def _dot_edges(dot):
    return [(m["tail"], m["head"], _text(m["label"])[0]) for m in EDGE.finditer(dot)]


def _svg_texts(svg):
    root = etree.fromstring(svg.encode("utf-8"))
    return ["".join(element.itertext()) for element in root.iter(SVG_TEXT)]


# -- DOT ---------------------------------------------------------------------------------------
def test_dot_has_a_box_for_every_layer_and_every_edge(tiny):
    model, report = tiny
    dot = draw(model, format="dot", report=report)
    nodes = _dot_nodes(dot)
    assert [lines[0] for lines, _ in nodes.values()] == TINY_NAMES
    assert sorted(_dot_edges(dot)) == [
        ("L0", "L3", "[2,?]"),
        ("L0", "L4", "[2,?]"),
        ("L1", "L3", "[2]"),
        ("L2", "L3", "[]"),
        ("L3", "L4", "[2,2]"),
        ("L4", "L5", "[2,2..]"),
    ]
    assert dot.startswith("digraph irrun {") and dot.endswith("}\n")


def test_boxes_show_op_version_and_inferred_output_shape(tiny):
    model, report = tiny
    nodes = _dot_nodes(draw(model, format="dot", report=report))
    assert nodes["L3"][0] == ["g", "Gather-8", "f32 [2,2]"]
    assert nodes["L4"][0] == ["cat", "Concat-1", "f32 [2,2..]"]  # inferred: 2 + at least 0
    assert nodes["L1"][0] == ["idx", "Const-1", "i64 [2]"]
    assert nodes["L5"][0] == ["out/sink", "Result-1"]


def test_before_validation_boxes_show_declared_shapes():
    nodes = _dot_nodes(draw(irrun.load(TINY), format="dot"))
    assert nodes["L4"][0] == ["cat", "Concat-1", "f32 [2,?]"]


def test_unknown_op_shows_its_type_and_opset():
    nodes = _dot_nodes(draw(_chain(1), format="dot"))
    assert nodes["L1"][0] == ["relu1", "MyRelu extension", "f32 [4]"]


def test_layers_are_ranked_by_topological_generation(tiny):
    model, _ = tiny
    dot = draw(model, format="dot")
    ranks = [re.findall(r'^\s*"(L\d+)" \[', block, re.M)
             for block in re.findall(r"\{ rank=same;\n(.*?)\n  \}", dot, re.S)]  # fmt: skip
    # Sources sit just above their first consumer; here that is the top row.
    assert ranks == [["L0", "L1", "L2"], ["L3"], ["L4"], ["L5"]]


def test_constants_sit_just_above_their_consumer():
    # x -> relu1 -> relu2 -> concat(relu2, const) : the Const goes beside relu2, not at the top.
    layers = [
        parameter(0, "x", [2]),
        '<layer id="1" name="relu1" type="Relu" version="opset1"><input><port id="0"><dim>2</dim>'
        '</port></input><output><port id="1" precision="FP32"><dim>2</dim></port></output></layer>',
        '<layer id="2" name="relu2" type="Relu" version="opset1"><input><port id="0"><dim>2</dim>'
        '</port></input><output><port id="1" precision="FP32"><dim>2</dim></port></output></layer>',
        '<layer id="3" name="w" type="Parameter" version="opset1"><data shape="2" '
        'element_type="f32"/><output><port id="0" precision="FP32"><dim>2</dim></port></output>'
        "</layer>",
        '<layer id="4" name="cat" type="Concat" version="opset1"><data axis="0"/><input>'
        '<port id="0"><dim>2</dim></port><port id="1"><dim>2</dim></port></input><output>'
        '<port id="2" precision="FP32"><dim>4</dim></port></output></layer>',
        '<layer id="5" name="r" type="Result" version="opset1"><input><port id="0"><dim>4</dim>'
        "</port></input></layer>",
    ]
    edges = [(0, 0, 1, 0), (1, 1, 2, 0), (2, 1, 4, 0), (3, 0, 4, 1), (4, 2, 5, 0)]
    dot = draw(irrun.load(net(layers, edges, name="late")), format="dot")
    ranks = [re.findall(r'"(L\d+)" \[', block) for block in dot.split("{ rank=same;")[1:]]
    assert ranks[2] == ["L2", "L3"]


def test_layers_fed_only_by_constants_sit_just_above_their_consumer(tmp_path):
    # x -> relu1 -> relu2 -> add(relu2, convert(w)): w and its Convert go just above add.
    built = Net()
    x = built.param("x", "2")
    x = built.op("relu1", "Relu", "opset1", None, [x], [2])
    x = built.op("relu2", "Relu", "opset1", None, [x], [2])
    weight = built.const("w", np.ones(2, np.float16))
    weight = built.op("w/convert", "Convert", "opset1", {"destination_type": "f32"}, [weight],
                      [2], precision="FP32")  # fmt: skip
    x = built.op("add", "Add", "opset1", None, [x, weight], [2])
    built.result(x, "y")
    model = irrun.load(built.text(), bytes(built.blob))
    dot = draw(model, format="dot")
    blocks = re.findall(r"\{ rank=same;(.*?)\n  \}", dot, re.DOTALL)
    ranks = [re.findall(r'"(L\d+)" \[', block) for block in blocks]
    assert ranks == [["L0"], ["L1", "L3"], ["L2", "L4"], ["L5"], ["L6"]]


def test_error_layers_are_filled_red(declared_48):
    model, report = declared_48
    nodes = _dot_nodes(draw(model, format="dot", report=report))
    lines, attributes = nodes["L1"]
    assert f'fillcolor="{ERROR_FILL}"' in attributes
    assert lines[-1] == "error: shape-mismatch"
    assert "declares [1,48,50,50]" in attributes  # the message is the tooltip


def test_warning_layers_are_filled_orange():
    model = _chain(2)
    nodes = _dot_nodes(draw(model, format="dot", report=model.validate()))
    assert f'fillcolor="{WARNING_FILL}"' in nodes["L1"][1]
    assert nodes["L1"][0][-1] == "warning: unknown-op"
    assert ERROR_FILL not in nodes["L0"][1] and WARNING_FILL not in nodes["L0"][1]


def test_without_a_report_nothing_is_highlighted(declared_48):
    model, _ = declared_48
    dot = draw(model, format="dot")
    assert ERROR_FILL not in dot and "error:" not in dot


def test_title_names_the_model_and_the_report_summary(declared_48):
    model, report = declared_48
    dot = draw(model, format="dot", report=report)
    assert ("label=<concat_declared_48.xml (fragment): 1 error, 0 warnings; 1 layer checked, "
            "0 trusted>") in dot  # fmt: skip


def test_fragment_inputs_and_outputs_are_drawn(declared_48):
    model, report = declared_48
    dot = draw(model, format="dot", report=report)
    nodes = _dot_nodes(dot)
    assert nodes["in0"][0] == ["1:in0", "[1,8,50,50]"]
    assert nodes["out0"][0] == ["1:out0", "[1,56,50,50]"]  # inferred, not the declared 48
    assert "shape=oval" in nodes["in0"][1]
    assert sorted(_dot_edges(dot)) == [
        ("L1", "out0", "[1,56,50,50]"),
        ("in0", "L1", "[1,8,50,50]"),
        ("in1", "L1", "[1,16,50,50]"),
        ("in2", "L1", "[1,32,50,50]"),
    ]


def test_names_are_escaped_and_long_names_shortened():
    model = _awkward()
    dot = draw(model, format="dot")
    titles = [lines[0] for lines, _ in _dot_nodes(dot).values()]
    assert titles == [*SHOWN_NAMES, "out"]
    assert "\n" not in "".join(re.findall(r"label=<(.*?)>, shape", dot))
    assert 'label=<we"ird&lt; (IR v11)>' in dot


def test_two_edges_between_the_same_layers_are_both_drawn():
    edges = _dot_edges(draw(_awkward(), format="dot"))
    assert edges.count(("L0", "L2", "[2,3]")) == 2


def test_a_model_with_cycles_is_still_drawn():
    model = _cycle()
    report = model.validate()
    assert "cycle" in report.codes()
    dot = draw(model, format="dot", report=report)
    assert ("L3", "L3", "[2]") in _dot_edges(dot)
    assert len(_dot_nodes(dot)) == 5
    page = draw(model, format="html", report=report)  # the page too, its cycles drawn straight
    assert page.count('"key":"L') == 5


# -- around= -----------------------------------------------------------------------------------
def test_around_keeps_only_the_neighbourhood():
    model = _chain(8)
    nodes = _dot_nodes(draw(model, format="dot", around="relu4", radius=2))
    assert sorted(lines[0] for lines, _ in nodes.values()) == [
        "relu2", "relu3", "relu4", "relu5", "relu6"
    ]  # fmt: skip
    edges = _dot_edges(draw(model, format="dot", around="relu4", radius=2))
    assert [(t, h) for t, h, _ in edges] == [("L2", "L3"), ("L3", "L4"), ("L4", "L5"), ("L5", "L6")]


def test_around_marks_the_centre_and_the_cut_edges():
    nodes = _dot_nodes(draw(_chain(8), format="dot", around="relu4", radius=1))
    assert "penwidth=3" in nodes["L4"][1]
    assert 'style="filled,rounded,dashed"' in nodes["L3"][1]  # relu2 is left out
    assert 'style="filled,rounded,dashed"' in nodes["L5"][1]
    assert "dashed" not in nodes["L4"][1]


def test_around_reaches_both_ways_and_accepts_an_id():
    model = _chain(8)
    assert len(_dot_nodes(draw(model, format="dot", around=4, radius=0))) == 1
    nodes = _dot_nodes(draw(model, format="dot", around="x", radius=3))
    assert [lines[0] for lines, _ in nodes.values()] == ["x", "relu1", "relu2", "relu3"]


def test_around_an_unknown_layer_lists_close_matches():
    with pytest.raises(KeyError, match="did you mean 'relu4'"):
        draw(_chain(8), format="dot", around="relu44")


# -- pictures from both engines ----------------------------------------------------------------
@pytest.mark.parametrize("engine", ENGINES)
def test_svg_parses_and_names_every_layer(tiny, engine):
    model, report = tiny
    svg = draw(model, format="svg", report=report, engine=engine)
    texts = _svg_texts(svg)
    for name in TINY_NAMES:
        assert name in texts
    for label in ("Gather-8", "f32 [2,2..]", "[2,2]"):
        assert label in texts


@pytest.mark.parametrize("engine", ENGINES)
def test_svg_shows_awkward_names_exactly(engine):
    model = _awkward()
    texts = _svg_texts(draw(model, format="svg", report=model.validate(), engine=engine))
    for name in SHOWN_NAMES:
        assert name in texts


@pytest.mark.parametrize("engine", ENGINES)
def test_svg_fills_error_layers_red(declared_48, engine):
    model, report = declared_48
    svg = draw(model, format="svg", report=report, engine=engine)
    assert ERROR_FILL in svg.lower()
    assert "error: shape-mismatch" in _svg_texts(svg)


@pytest.mark.parametrize("engine", ENGINES)
def test_png_is_a_png(tiny, engine):
    model, report = tiny
    picture = draw(model, format="png", report=report, engine=engine)
    assert isinstance(picture, bytes) and picture.startswith(PNG_MAGIC)


@pytest.mark.parametrize("engine", ENGINES)
def test_cycles_and_around_views_render(engine):
    model = _cycle()
    assert draw(model, format="png", report=model.validate(), engine=engine).startswith(PNG_MAGIC)
    svg = draw(_chain(8), format="svg", around="relu4", radius=1, engine=engine)
    assert {"relu3", "relu4", "relu5"} <= set(_svg_texts(svg))
    assert "relu2" not in _svg_texts(svg)


@needs_dot
def test_auto_prefers_graphviz_when_dot_is_installed(tiny):
    model, _ = tiny
    assert choose_engine() == "graphviz"
    assert "Generated by graphviz" in draw(model, format="svg")


def test_auto_falls_back_to_matplotlib_without_dot(tiny, monkeypatch):
    model, _ = tiny
    monkeypatch.setattr(shutil, "which", lambda name, *args, **kwargs: None)
    assert choose_engine() == "matplotlib"
    assert "Matplotlib" in draw(model, format="svg")


# -- files and formats -------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "kind", "start"),
    [("g.svg", str, "<?xml"), ("g.png", bytes, PNG_MAGIC), ("g.dot", str, "digraph irrun {"),
     ("G.GV", str, "digraph irrun {")],
)  # fmt: skip
def test_the_extension_gives_the_format(tiny, tmp_path, name, kind, start):
    model, _ = tiny
    picture = draw(model, tmp_path / name)
    assert isinstance(picture, kind) and picture.startswith(start)
    written = (tmp_path / name).read_bytes()
    assert written == (picture if kind is bytes else picture.encode("utf-8"))


def test_format_overrides_the_extension_and_defaults_to_svg(tiny, tmp_path):
    model, _ = tiny
    assert draw(model, tmp_path / "graph.txt", format="dot").startswith("digraph")
    assert draw(model, format=None).lstrip().startswith("<?xml")


def test_bad_arguments_are_refused(tiny, tmp_path):
    model, _ = tiny
    with pytest.raises(ValueError) as refused:
        draw(model, tmp_path / "graph.pdf")
    assert str(refused.value) == (
        f"cannot tell the format from {str(tmp_path / 'graph.pdf')!r}: name the file .svg, "
        ".png, .dot or .html (or give format=)"
    )
    with pytest.raises(ValueError, match="unknown format 'pdf'"):
        draw(model, format="pdf")
    with pytest.raises(ValueError, match="unknown engine 'neato'"):
        draw(model, engine="neato")
    with pytest.raises(ValueError, match="radius must be"):
        draw(model, format="dot", around="g", radius=-1)


# -- no engine installed -----------------------------------------------------------------------
def _hide(monkeypatch, *modules):
    for module in modules:
        monkeypatch.setitem(sys.modules, module, None)  # `import module` now raises ImportError


def test_no_engine_gives_the_install_command(tiny, monkeypatch):
    model, _ = tiny
    _hide(monkeypatch, "graphviz", "matplotlib", "matplotlib.figure")
    with pytest.raises(ImportError, match=r"pip install 'irrun\[draw\]'"):
        draw(model, format="svg")
    with pytest.raises(EngineMissingError, match=r"neither is installed") as missing:
        draw(model, format="png")
    assert (missing.value.engine, missing.value.missing) == ("auto", "any")
    assert "format='dot' and format='html' need neither" in str(missing.value)
    assert draw(model, format="html").startswith("<!DOCTYPE html>")  # nor does the page
    assert draw(model, format="dot").startswith("digraph")  # DOT needs no engine


def test_asking_for_a_missing_engine_says_what_is_missing(tiny, monkeypatch):
    model, _ = tiny
    monkeypatch.setattr(shutil, "which", lambda name, *args, **kwargs: None)
    with pytest.raises(EngineMissingError, match=r"`dot` program, which is not on PATH") as no_dot:
        draw(model, format="svg", engine="graphviz")
    assert (no_dot.value.engine, no_dot.value.missing) == ("graphviz", "dot-program")
    _hide(monkeypatch, "graphviz", "matplotlib", "matplotlib.figure")
    with pytest.raises(ImportError, match=r"graphviz Python package.*pip install 'irrun\[draw\]'"):
        draw(model, format="svg", engine="graphviz")
    with pytest.raises(ImportError, match=r"needs matplotlib.*pip install 'irrun\[draw\]'"):
        draw(model, format="svg", engine="matplotlib")


# -- irrun graph -------------------------------------------------------------------------------
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("extension", ["svg", "png", "dot"])
def test_graph_command_writes_each_format(tmp_path, engine, extension):
    target = tmp_path / f"tiny.{extension}"
    result = invoke("graph", TINY, "-o", target, "--engine", engine)
    assert result.exit_code == 0, result.output
    data = target.read_bytes()
    if extension == "png":
        assert data.startswith(PNG_MAGIC)
    elif extension == "svg":
        assert set(TINY_NAMES) <= set(_svg_texts(data.decode("utf-8")))
    else:
        assert [lines[0] for lines, _ in _dot_nodes(data.decode()).values()] == TINY_NAMES
    drawn = "" if extension == "dot" else f", drawn with {engine}"
    assert result.output == f"wrote {target} (6 layers{drawn})\n"


def test_graph_command_highlights_problems_and_still_exits_0(tmp_path):
    target = tmp_path / "broken.dot"
    result = invoke("graph", EXAMPLES / "concat_declared_48.xml", "-o", target)
    assert result.exit_code == 0
    assert "1 error, 0 warnings" in result.output
    assert ERROR_FILL in target.read_text()


def test_graph_command_no_validate_draws_declared_shapes(tmp_path):
    target = tmp_path / "tiny.dot"
    assert invoke("graph", TINY, "-o", target, "--no-validate").exit_code == 0
    assert _dot_nodes(target.read_text())["L4"][0] == ["cat", "Concat-1", "f32 [2,?]"]


def test_graph_command_around(tmp_path):
    target = tmp_path / "part.dot"
    result = invoke("graph", TINY, "-o", target, "--around", "cat", "--radius", "1")
    assert result.exit_code == 0
    assert result.output == f"wrote {target} (around 'cat')\n"
    names = {lines[0] for lines, _ in _dot_nodes(target.read_text()).values()}
    assert names == {"data", "g", "cat", "out/sink"}


def test_graph_command_usage_errors_exit_2(tmp_path):
    result = invoke("graph", TINY, "-o", tmp_path / "g.svg", "--around", "gg")
    assert result.exit_code == 2 and "did you mean 'g'?" in result.output
    result = invoke("graph", TINY, "-o", tmp_path / "g.pdf")
    assert result.exit_code == 2 and "name the file .html, .svg, .png or .dot" in result.output
    result = invoke("graph", TINY, "-o", tmp_path / "missing" / "g.svg")
    assert result.exit_code == 2 and "cannot write" in result.output
    result = invoke("graph", EXAMPLES / "missing.xml", "-o", tmp_path / "g.svg")
    assert result.exit_code == 2 and "does not exist" in result.output
    assert not any(tmp_path.iterdir())


def test_graph_command_chooses_a_snippet(tmp_path):
    spec = EXAMPLES / "concat_spec_examples.xml"
    result = invoke("graph", spec, "-o", tmp_path / "g.dot")
    assert result.exit_code == 2 and "holds 2 separate snippets; choose one with --snippet N" in (
        result.output
    )
    assert invoke("graph", spec, "-o", tmp_path / "g.dot", "--snippet", "2").exit_code == 0
    assert "1:in2" in (tmp_path / "g.dot").read_text()
    assert invoke("graph", spec, "-o", tmp_path / "g.dot", "--snippet", "3").exit_code == 2


def test_graph_command_without_an_engine_says_how_to_install_one(tmp_path, monkeypatch):
    _hide(monkeypatch, "graphviz", "matplotlib", "matplotlib.figure")
    result = invoke("graph", TINY, "-o", tmp_path / "g.svg")
    assert result.exit_code == 2
    assert "pip install 'irrun[draw]'" in result.output
    assert "Traceback" not in result.output
    assert invoke("graph", TINY, "-o", tmp_path / "g.dot").exit_code == 0


def test_graph_command_has_complete_help():
    result = invoke("graph", "--help")
    assert result.exit_code == 0
    for option in ("MODEL.xml", "--weights", "--output", "--around", "--radius", "--no-validate",
                   "--engine", "--snippet", "pip install 'irrun[draw]'"):  # fmt: skip
        assert option in result.output
