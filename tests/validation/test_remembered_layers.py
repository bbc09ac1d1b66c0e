"""Remembered layers: a layer identical to one inferred before (same op, version, attributes,
output count, and inputs of the same shapes, types and known values) gets that layer's
outputs without its op being built. The report must be exactly the one of a walk that
infers every layer: every diagnostic, every inferred shape and type, every count."""

from __future__ import annotations

from pathlib import Path

import pytest

import irrun
import irrun.validation.inference as inference
from tests.helpers.ir_text import Net, line_of

REAL_MODELS = Path(__file__).resolve().parents[1] / "real_models"
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "ir"


def _ports(graph):
    """(layer id, port direction and id, inferred dims, inferred type) of every port, bodies
    included."""
    rows = []
    for layer in graph.layers:
        for port in (*layer.inputs, *layer.outputs):
            shape = port.inferred_shape
            rows.append((layer.id, port.direction, port.id, shape.dims if shape else None,
                         port.inferred_type))  # fmt: skip
        for tag, body in (layer.bodies or {}).items():
            rows += [(layer.id, tag, *row) for row in _ports(body)]
    return rows


def _validated(source, remember: bool, monkeypatch, counts=None):
    """The report and the ports of ``source`` validated with remembering on or off;
    ``counts`` (a list) receives the number of rules run."""
    with monkeypatch.context() as patch:
        patch.setattr(inference, "REMEMBER_LAYERS", remember)
        if counts is not None:
            infer = inference._infer

            def counted(*args):
                counts.append(1)
                return infer(*args)

            patch.setattr(inference, "_infer", counted)
        try:
            models = irrun.load_all(source)
        except irrun.IRError as exc:  # (a broken example: the same error either way)
            return exc.message
        reports = [model.validate() for model in models]
    diagnostics = [(d.code, d.severity, d.line, d.message, d.hint, tuple(d.notes))
                   for report in reports for d in report]  # fmt: skip
    summary = [(r.layers_checked, r.layers_trusted, r.inference_gaps, r.trusted_types)
               for r in reports]  # fmt: skip
    return diagnostics, summary, [_ports(model) for model in models]


MODELS = sorted(p.parent.name for p in REAL_MODELS.glob("*/model.xml"))
#: The models whose repeated blocks give layers to remember (the CNNs' repeated layers are
#: elementwise, whose rules cost less than a key).
REPEATING = ("bert", "gpt2", "llama", "t5", "vit")


@pytest.mark.parametrize("name", MODELS)
def test_a_real_model_validates_exactly_as_when_every_layer_is_inferred(name, monkeypatch):
    path = REAL_MODELS / name / "model.xml"
    remembered, every = [], []
    assert _validated(path, True, monkeypatch, remembered) == _validated(
        path, False, monkeypatch, every
    )
    assert len(remembered) <= len(every)
    if name.startswith(REPEATING):  # (their blocks repeat: layers were reused)
        assert len(remembered) < len(every)


@pytest.mark.parametrize("path", sorted(EXAMPLES.rglob("*.xml")), ids=lambda p: p.name)
def test_the_examples_and_broken_models_report_exactly_the_same(path, monkeypatch):
    assert _validated(path, True, monkeypatch) == _validated(path, False, monkeypatch)


def _chain(declared_last=(2, 8), attributes=None, count=4):
    """x [2,8] -> ``count`` identical Softmax layers, the last declaring ``declared_last``."""
    net = Net()
    ref = net.param("x", "2,8")
    for index in range(count):
        out = declared_last if index == count - 1 else (2, 8)
        data = {"axis": "1", **(attributes or {})}
        ref = net.op(f"softmax{index}", "SoftMax", "opset8", data, [ref], list(out))
    net.result(ref)
    return net.text()


def test_a_wrong_declaration_on_a_remembered_layer_is_reported_at_it(monkeypatch):
    text = _chain(declared_last=(2, 9))
    diagnostics, summary, _ = _validated(text, True, monkeypatch)
    assert diagnostics == _validated(text, False, monkeypatch)[0]
    wrong = line_of(text, '<port id="1" precision="FP32" names="softmax3"><dim>2</dim><dim>9</dim>')
    assert [(code, line) for code, _, line, *_ in diagnostics] == [("shape-mismatch", wrong)]
    assert diagnostics[0][3] == (
        "layer 4 'softmax3' (Softmax-8) output port 1 declares [2,9], but its inputs give [2,8] "
        "(the shape of the data)"
    )
    assert summary[0][:2] == (6, 0)


def test_a_layer_whose_rule_warned_is_not_remembered(monkeypatch):
    text = _chain(attributes={"colour": "red"})
    counts = []
    diagnostics, _, _ = _validated(text, True, monkeypatch, counts)
    assert [code for code, *_ in diagnostics] == ["unknown-attribute"] * 4
    assert len(counts) == 4 + 2  # every Softmax inferred, and the Parameter and the Result


def test_identical_layers_are_inferred_once(monkeypatch):
    counts = []
    diagnostics, summary, ports = _validated(_chain(count=6), True, monkeypatch, counts)
    assert diagnostics == [] and summary[0][:2] == (8, 0)
    assert len(counts) == 3  # the Parameter, the first Softmax and the Result
    outputs = [dims for _, direction, _, dims, _ in ports[0] if direction == "output"]
    assert len(outputs) == 7 and all(dims == (2, 8) for dims in outputs)


def test_an_op_whose_layers_keep_differing_stops_being_keyed(monkeypatch, tmp_path):
    """30 Gathers, each of its own indices (no two layers alike): 16 are keyed, then none."""
    import numpy as np

    net = Net()
    ref = net.param("x", "4,8")
    for index in range(30):
        indices = net.const(f"indices{index}", np.roll(np.arange(8, dtype=np.int64), index))
        axis = net.const(f"axis{index}", np.int64(1))
        ref = net.op(f"gather{index}", "Gather", "opset8", {"batch_dims": "0"},
                     [ref, indices, axis], [4, 8])  # fmt: skip
    net.result(ref)
    xml = tmp_path / "gathers.xml"
    xml.write_text(net.text(), encoding="utf-8")
    xml.with_suffix(".bin").write_bytes(bytes(net.blob))
    keyed = []
    key = inference._memo_key

    def counted(op_class, *args):
        if op_class.type == "Gather":
            keyed.append(1)
        return key(op_class, *args)

    monkeypatch.setattr(inference, "_memo_key", counted)
    report = irrun.load(xml).validate()
    assert report.ok and report.layers_checked == 92, report.to_text()
    assert len(keyed) == inference._CHANCES == 16


@pytest.mark.parametrize("size", ["16", "1x", "\u00b2", "-8", ""])
def test_a_const_of_any_size_text_feeding_identical_layers_is_reported_not_fatal(
    size, monkeypatch, tmp_path
):
    """Two Reshapes of one target Const whose size attribute is right or malformed: the key
    reads the text without trusting it, and the report is the one without remembering."""
    import numpy as np

    from tests.helpers.ir_text import edit

    net = Net()
    x = net.param("x", "2,8")
    target = net.const("target", np.array([4, 4], np.int64))
    first = net.op("reshape0", "Reshape", "opset1", {"special_zero": "false"}, [x, target],
                   [4, 4])  # fmt: skip
    second = net.op("reshape1", "Reshape", "opset1", {"special_zero": "false"}, [x, target],
                    [4, 4])  # fmt: skip
    net.result(first)
    net.result(second)
    text = edit(net.text(), 'size="16"', f'size="{size}"')
    xml = tmp_path / "reshapes.xml"
    xml.write_text(text, encoding="utf-8")
    xml.with_suffix(".bin").write_bytes(bytes(net.blob))
    remembered = _validated(xml, True, monkeypatch)
    assert remembered == _validated(xml, False, monkeypatch)
    codes = [code for code, *_ in remembered[0]]
    assert "internal" not in codes
    assert (codes == []) == (size == "16")
