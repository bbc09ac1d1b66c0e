"""The graph page in a real browser (Debian's headless Chromium, driven through its DevTools
protocol by :mod:`tests.render.chromium`): it loads with nothing fetched, search finds a layer,
a click shows its attributes, ports and diagnostics in the side panel, pan and zoom move the
view, and a generated 3,000-layer model is written in seconds and opens usable. Screenshots go
to the test's temporary folder."""

from __future__ import annotations

import struct
import time

import numpy as np
import pytest

from tests.helpers.cli import invoke
from tests.helpers.ir_text import Net, dims, net, parameter
from tests.render.chromium import Browser, chromium_path

pytestmark = pytest.mark.skipif(
    chromium_path() is None,
    reason="headless Chromium is missing (apt-get install chromium-headless-shell)",
)
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
WIDTH, HEIGHT = 1400, 900


@pytest.fixture(scope="module")
def browser():
    with Browser(WIDTH, HEIGHT) as opened:
        yield opened


def _small_model(folder):
    """left, right -> join (Concat declared 20 wide, 24 arrive: an error) -> scale (an op
    irrun does not know: a warning) -> output."""
    layers = [
        parameter(0, "left", [1, 8]),
        parameter(1, "right", [1, 16]),
        '<layer id="2" name="join" type="Concat" version="opset1"><data axis="1"/>'
        f'<input><port id="0">{dims([1, 8])}</port><port id="1">{dims([1, 16])}</port></input>'
        f'<output><port id="2" precision="FP32" names="joined">{dims([1, 20])}</port></output>'
        "</layer>",
        '<layer id="3" name="scale" type="MyScale" version="extension"><data factor="2.5"/>'
        f'<input><port id="0">{dims([1, 20])}</port></input>'
        f'<output><port id="1" precision="FP32">{dims([1, 20])}</port></output></layer>',
        '<layer id="4" name="output" type="Result" version="opset1">'
        f'<input><port id="0">{dims([1, 20])}</port></input></layer>',
    ]
    edges = [(0, 0, 2, 0), (1, 0, 2, 1), (2, 2, 3, 0), (3, 1, 4, 0)]
    path = folder / "small.xml"
    path.write_text(net(layers, edges, name="small"))
    return path


def big_model(folder, layers=3000):
    """Residual blocks of MatMul, Add, Relu, a custom op (a warning each) and a skip Add,
    with their weights, until about ``layers`` layers."""
    built = Net()
    x = built.param("x", "1,16")
    block = 0
    while len(built.layers) < layers - 8:
        start = x
        weights = built.const(f"b{block}/w", np.zeros((16, 16), np.float32))
        x = built.op(f"b{block}/matmul", "MatMul", "opset1", None, [x, weights], [1, 16])
        bias = built.const(f"b{block}/bias", np.zeros((1, 16), np.float32))
        x = built.op(f"b{block}/add", "Add", "opset1", None, [x, bias], [1, 16])
        x = built.op(f"b{block}/act", "Relu", "opset1", None, [x], [1, 16])
        x = built.op(f"b{block}/custom", f"Custom{block % 3}", "extension", None, [x], [1, 16])
        x = built.op(f"b{block}/residual", "Add", "opset1", None, [x, start], [1, 16])
        block += 1
    built.result(x, "y")
    path = folder / "big.xml"
    path.write_text(built.text())
    (folder / "big.bin").write_bytes(bytes(built.blob))
    return path, len(built.layers)


def _panel(browser) -> str:
    return browser.evaluate("document.getElementById('panel').innerText")


def _png_size(data: bytes) -> tuple[int, int]:
    assert data.startswith(PNG_MAGIC)
    return struct.unpack(">II", data[16:24])


def test_the_page_loads_with_nothing_fetched_and_draws_every_layer(browser, tmp_path):
    page = tmp_path / "small.html"
    result = invoke("graph", _small_model(tmp_path), "-o", page)
    assert result.output == (
        f"wrote {page} (5 layers; 1 error, 1 warning; 4 layers checked, 1 trusted)\n"
    )
    browser.open(page)
    assert browser.evaluate("performance.getEntriesByType('resource').length") == 0
    keys = browser.evaluate("[...document.querySelectorAll('.node')].map(n => n.dataset.key)")
    assert sorted(keys) == ["L0", "L1", "L2", "L3", "L4"]
    classes = browser.evaluate(
        "Object.fromEntries([...document.querySelectorAll('.node')]"
        ".map(n => [n.dataset.key, n.getAttribute('class')]))"
    )
    assert classes == {
        "L0": "node Parameter",
        "L1": "node Parameter",
        "L2": "node Concat error",
        "L3": "node MyScale warning",
        "L4": "node Result",
    }
    assert browser.evaluate("document.getElementById('summary').textContent") == (
        "1 error, 1 warning; 4 layers checked, 1 trusted"
    )


def test_search_click_and_panel(browser, tmp_path):
    page = tmp_path / "small.html"
    invoke("graph", _small_model(tmp_path), "-o", page)
    browser.open(page)
    browser.click(*browser.center_of("#search"))
    browser.type_text("join")
    results = browser.evaluate(
        "[...document.querySelectorAll('#results > div')].map(d => d.textContent)"
    )
    assert results == ["1 layer matches", "join Concat-1"]
    browser.press("Enter", "Enter", 13)
    assert _panel(browser) == (
        "join\n"
        "Concat-1 (opset1) · layer 2 · line 6\n"
        "DIAGNOSTICS\n"
        "error[shape-mismatch] line 6, output port 2: layer 2 'join' (Concat-1) output port 2 "
        "declares [1,20], but its inputs give [1,24] (axis 1: 8 + 16 = 24)\n"
        "hint: declare <dim>1</dim><dim>24</dim> on output port 2\n"
        "ATTRIBUTES\n"
        "axis\t1\n"
        "INPUTS\n"
        "port\tdeclared\tinferred\tfrom\n"
        "0\t[1,8]\tf32 [1,8]\tleft : 0\n"
        "1\t[1,16]\tf32 [1,16]\tright : 0\n"
        "OUTPUTS\n"
        "port\tdeclared\tinferred\tto\n"
        "2\tf32 [1,20]\tf32 [1,24]\tscale : 0\n"
        "names: joined"
    )
    differing = browser.evaluate(
        "[...document.querySelectorAll('td.differs')].map(t => t.textContent)"
    )
    assert differing == ["f32 [1,24]"]  # the inferred output that is not what is declared
    selected = browser.evaluate(
        "[...document.querySelectorAll('.node.selected')].map(n => n.dataset.key)"
    )
    assert selected == ["L2"]
    hot = browser.evaluate("document.querySelectorAll('.edge.hot').length")
    assert hot == 3  # join's two inputs and its output
    browser.screenshot(tmp_path / "join.png")

    # A click on a box selects that layer.
    browser.click(*browser.center_of('[data-key="L3"]'))
    assert _panel(browser) == (
        "scale\n"
        "MyScale extension · layer 3 · line 7\n"
        "DIAGNOSTICS\n"
        "warning[unknown-op] line 7: layer 3 'scale' (MyScale): irrun does not know op type "
        "'MyScale' of opset 'extension'; not checked, declared dims trusted\n"
        "hint: its declared output dims and precisions are used as they are\n"
        "ATTRIBUTES\n"
        "factor\t2.5\n"
        "INPUTS\n"
        "port\tdeclared\tinferred\tfrom\n"
        "0\t[1,20]\tf32 [1,24]\tjoin : 2\n"
        "OUTPUTS\n"
        "port\tdeclared\tinferred\tto\n"
        "1\tf32 [1,20]\t—\toutput : 0"
    )
    # A producer in the panel is a link to it.
    browser.click(*browser.center_of("#panel .link"))
    assert _panel(browser).splitlines()[:2] == ["join", "Concat-1 (opset1) · layer 2 · line 6"]
    # A click on the background clears the selection: the panel shows the model again.
    browser.click(60, 120)
    assert _panel(browser).splitlines()[:5] == [
        "small",
        f"IR v11 · 5 layers · {tmp_path / 'small.xml'}",
        "small (IR v11): 1 error, 1 warning; 4 layers checked, 1 trusted",
        "coverage: 4 of 5 layers checked (80.0 %); trusted: MyScale extension ×1",
        "LAYERS WITH PROBLEMS (2)",
    ]
    problems = browser.evaluate("[...document.querySelectorAll('.problem')].map(p => p.innerText)")
    assert problems == ["join shape-mismatch", "scale unknown-op"]
    browser.click(*browser.center_of("#next-problem"))
    assert _panel(browser).splitlines()[0] == "join"
    browser.click(*browser.center_of("#next-problem"))
    assert _panel(browser).splitlines()[0] == "scale"
    data = browser.screenshot(tmp_path / "scale.png")
    assert _png_size(data) == (WIDTH, HEIGHT)


def test_the_address_names_the_selected_layer_and_opens_at_it(browser, tmp_path):
    page = tmp_path / "small.html"
    invoke("graph", _small_model(tmp_path), "-o", page)
    browser.open(page)
    browser.click(*browser.center_of('[data-key="L3"]'))
    assert browser.evaluate("location.hash") == "#L3"
    browser.open(f"{page}#L2")
    assert _panel(browser).splitlines()[0] == "join"
    titles = browser.evaluate(
        "[...document.querySelectorAll('.node > title')].map(t => t.textContent)"
    )
    assert sorted(titles) == [
        "join (Concat-1)", "left (Parameter-1)", "output (Result-1)", "right (Parameter-1)",
        "scale (MyScale extension)",
    ]  # fmt: skip


def test_search_by_type_marks_every_match(browser, tmp_path):
    page = tmp_path / "small.html"
    invoke("graph", _small_model(tmp_path), "-o", page)
    browser.open(page)
    browser.click(*browser.center_of("#search"))
    browser.type_text("parameter")
    marked = browser.evaluate(
        "[...document.querySelectorAll('.node.match')].map(n => n.dataset.key)"
    )
    assert sorted(marked) == ["L0", "L1"]
    assert browser.evaluate("document.querySelector('#results .count').textContent") == (
        "2 layers match"
    )
    browser.press("ArrowDown", "ArrowDown", 40)
    browser.press("Enter", "Enter", 13)
    assert _panel(browser).splitlines()[0] == "right"
    # A tensor's name finds the layer that makes it.
    browser.click(*browser.center_of("#search"))
    browser.evaluate("document.getElementById('search').select()")
    browser.type_text("joined")
    results = browser.evaluate(
        "[...document.querySelectorAll('#results > div')].map(d => d.textContent)"
    )
    assert results == ["1 layer matches", "join Concat-1"]


def test_search_lists_exact_names_first_then_types_then_prefixes(browser, tmp_path):
    # Layers in graph order: x (0), r10 (1), xr1 (2), r1 (3), Relu2 (4, type Relu), out (5).
    layers = [parameter(0, "x", [1, 4])]
    for index, name in enumerate(["r10", "xr1", "r1", "Relu2"], start=1):
        layers.append(
            f'<layer id="{index}" name="{name}" type="Relu" version="opset1">'
            f'<input><port id="0">{dims([1, 4])}</port></input>'
            f'<output><port id="1" precision="FP32">{dims([1, 4])}</port></output></layer>'
        )
    layers.append('<layer id="5" name="out" type="Result" version="opset1">'
                  f'<input><port id="0">{dims([1, 4])}</port></input></layer>')  # fmt: skip
    edges = [(0, 0, 1, 0), (1, 1, 2, 0), (2, 1, 3, 0), (3, 1, 4, 0), (4, 1, 5, 0)]
    path = tmp_path / "names.xml"
    path.write_text(net(layers, edges, name="names"))
    page = tmp_path / "names.html"
    invoke("graph", path, "-o", page)
    browser.open(page)
    titles = "irrunGraph.search(%r).map(i => irrunGraph.data.nodes[i].title)"
    assert browser.evaluate(titles % "r1") == ["r1", "r10", "xr1"]  # exact, prefix, inside
    # the type Relu: every Relu layer (graph order), before a name that only starts with it
    assert browser.evaluate(titles % "relu") == ["r10", "xr1", "r1", "Relu2"]
    assert browser.evaluate(titles % "relu2") == ["Relu2"]
    assert browser.evaluate(titles % "3") == ["r1"]  # a layer id


def test_drag_pans_and_the_wheel_zooms_about_the_pointer(browser, tmp_path):
    page = tmp_path / "small.html"
    invoke("graph", _small_model(tmp_path), "-o", page)
    browser.open(page)
    before = browser.evaluate("({...irrunGraph.view})")
    browser.drag((300, 300), (420, 250))
    after = browser.evaluate("({...irrunGraph.view})")
    assert (after["x"] - before["x"], after["y"] - before["y"]) == (120, -50)
    assert after["scale"] == before["scale"]
    assert _panel(browser).splitlines()[0] == "small"  # a drag selects nothing
    browser.wheel(500, 400, -200)
    zoomed = browser.evaluate("({...irrunGraph.view})")
    assert zoomed["scale"] == pytest.approx(after["scale"] * np.exp(200 * 0.0015))
    # The point under the pointer stays where it was.
    top = browser.evaluate("document.getElementById('graph').getBoundingClientRect().top")
    graph_x = (500 - after["x"]) / after["scale"]
    assert (500 - zoomed["x"]) / zoomed["scale"] == pytest.approx(graph_x)
    graph_y = (400 - top - after["y"]) / after["scale"]
    assert (400 - top - zoomed["y"]) / zoomed["scale"] == pytest.approx(graph_y)


def test_a_3000_layer_model_is_written_in_seconds_and_opens_usable(browser, tmp_path):
    model, count = big_model(tmp_path)
    page = tmp_path / "big.html"
    start = time.perf_counter()
    result = invoke("graph", model, "-o", page)
    seconds = time.perf_counter() - start
    assert result.output == (
        f"wrote {page} ({count:,} layers; 0 errors, 428 warnings; 2,570 layers checked, "
        "428 trusted)\n"
    )
    assert seconds <= 10, f"irrun graph -o big.html took {seconds:.1f} s"
    opened = browser.open(page)
    assert opened <= 10, f"the page took {opened:.1f} s to open"
    assert browser.evaluate("irrunGraph.data.nodes.length") == count
    # Only what is in view is in the document, which keeps panning and zooming quick.
    assert 0 < browser.evaluate("document.querySelectorAll('.node').length") < 200
    browser.click(*browser.center_of("#search"))
    browser.type_text("b300/custom")
    browser.press("Enter", "Enter", 13)
    assert _panel(browser).splitlines()[:4] == [
        "b300/custom",
        "Custom0 extension · layer 2106 · line 16548",
        "DIAGNOSTICS",
        "warning[unknown-op] line 16548: layer 2106 'b300/custom' (Custom0): irrun does not "
        "know op type 'Custom0' of opset 'extension'; not checked, declared dims trusted",
    ]
    # The view moves to the layer on the next animation frame (boxes out of view are not in
    # the document until then): wait for it, as a busy machine may not have drawn it yet.
    browser.evaluate(
        "new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))"
    )
    shown = browser.evaluate(
        "[...document.querySelectorAll('.node.selected')].map(n => n.dataset.key)"
    )
    assert shown == ["L2106"]
    start = time.perf_counter()
    browser.click(*browser.center_of("#fit"))
    browser.evaluate(
        "new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))"
    )
    assert time.perf_counter() - start < 5
    browser.click(*browser.center_of("#zoom-in"))
    browser.screenshot(tmp_path / "big-fit.png")
    browser.click(*browser.center_of("#search"))
    browser.evaluate("document.getElementById('search').select()")
    browser.type_text("b300/custom")
    browser.press("Enter", "Enter", 13)
    data = browser.screenshot(tmp_path / "big.png")
    assert _png_size(data) == (WIDTH, HEIGHT)


def _wait_for(browser, expression: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not browser.evaluate(expression):
        if time.monotonic() > deadline:
            raise TimeoutError(f"never true: {expression}")
        time.sleep(0.05)


def test_a_body_opens_from_its_layer_and_the_trail_leads_back(browser, tmp_path):
    from tests.render.sub_graphs import nested_if_model

    page = tmp_path / "nested.html"
    invoke("graph", nested_if_model(tmp_path), "-o", page)
    browser.open(page)
    outer = browser.evaluate("irrunGraph.data.nodes.findIndex(n => n.title === 'outer')")
    browser.evaluate(f"irrunGraph.select({outer})")
    links = browser.evaluate(
        "[...document.querySelectorAll('.body-link')].map(d => [d.innerText, "
        "d.querySelector('a').getAttribute('href')])"
    )
    assert links == [["then_body · 4 layers", "#b1"], ["else_body · 3 layers", "#b4"]]
    # A click on the link opens the body: its own boxes, and the trail above them.
    browser.click(*browser.center_of('.body-link a[href="#b1"]'))
    ready = "window.irrunGraph && irrunGraph.viewNumber === %d && document.body.dataset.ready"
    _wait_for(browser, ready % 1)
    titles = browser.evaluate("[...document.querySelectorAll('.node')].map(n => n.dataset.key)")
    assert len(titles) == 4
    assert browser.evaluate("document.getElementById('model').innerText").startswith(
        "nested › If 'outer' · then_body"
    )
    # The nested If opens one level deeper; the trail names both levels.
    browser.open(f"{page}#b3")
    assert browser.evaluate("document.getElementById('trail').innerText") == (
        "nested › If 'outer' · then_body › "
    )
    concat = browser.evaluate("irrunGraph.data.nodes.findIndex(n => n.layer.type === 'Concat')")
    browser.evaluate(f"irrunGraph.select({concat})")
    key = browser.evaluate(f"irrunGraph.data.nodes[{concat}].key")
    assert browser.evaluate("location.hash") == f"#b3:{key}"
    # That address opens the body with the layer selected; the trail's first link goes home.
    browser.open(f"{page}#b3:{key}")
    assert browser.evaluate("document.querySelector('.node.selected').dataset.key") == key
    browser.click(*browser.center_of("#trail a"))
    _wait_for(browser, ready % 0)
    assert browser.evaluate("irrunGraph.data.views.length") == 4
