"""Property-based fuzzing of the loader, the validator and the CLI with mutated valid IR.

Starting from IR that loads cleanly (examples/ir/tiny.xml and a richer model written by
OpenVINO), hypothesis applies a few structural mutations (delete, duplicate or retarget edges;
perturb dims, attributes, ids, element types and precisions; delete or duplicate elements) and
optionally one byte-level mutation (truncate the XML or the .bin, insert random bytes, overwrite
bytes of the .bin). The invariant, whatever the mutation:

* ``irrun.load_all`` + ``.validate()`` either succeed or raise an ``irrun.IRError`` subclass,
  and validation never reports ``internal`` (an exception caught inside a layer check);
* ``irrun validate`` / ``irrun inspect`` exit 0, 1 or 2 -- never 3 -- and print no traceback
  and no "internal error".

Examples are derandomized and bounded so the suite is reproducible and fast; raise
``IRRUN_FUZZ_EXAMPLES`` to search longer locally.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from lxml import etree

import irrun

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "ir"
MAX_EXAMPLES = int(os.environ.get("IRRUN_FUZZ_EXAMPLES", "400"))
FUZZ = settings(
    derandomize=True,
    max_examples=MAX_EXAMPLES,
    deadline=None,
    database=None,
    # no shrinking: it would spend most of the time budget; failures print the plan as found
    phases=(Phase.explicit, Phase.reuse, Phase.generate),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

#: Replacement texts for ids, dims and attributes: ordinary, edge-of-range and hostile.
# fmt: off
VALUES = [
    "0", "1", "2", "3", "4", "-1", "-2", "7", "", " ", "?", "x", "1e30", "5abc", "1.5", "-0",
    "+1", "0x10", "99999999999999999999999", str(2**31), str(2**63 - 1), str(2**63),
    str(2**64 + 5), "1..3", "..", "...", "1,2", "2,?", "1,,2", "0,0", "2, 3", "[2,3]",
    f"{2**40},{2**40}", "\u0661", "9" * 4400, "N" * 2000,
    "f32", "i64", "i32", "u4", "u1", "string", "boolean", "dynamic", "FP32", "I64", "BIN",
    "true", "false", "opset1", "opset7", "opset8", "opset99", "Gather", "Concat",
]
ELEMENT_TYPES = [
    "f64", "f32", "f16", "bf16", "f8e4m3", "f8e5m2", "f8e8m0", "f4e2m1", "nf4", "i4", "u4", "u1",
    "u2", "u3", "u6", "i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "boolean", "string",
    "dynamic", "undefined", "FP32", "FP16", "I64", "I32", "BIN", "U4", "BOOL", "STRING",
    "UNSPECIFIED", "bool", "f128", "",
]
LAYER_TYPES = [
    "Gather", "Concat", "Const", "Constant", "Parameter", "Result", "GatherND", "GatherElements",
    "gather", "CONCAT", "Konkat", "Loop",
]
EDGE_ATTRIBUTES = ("from-layer", "from-port", "to-layer", "to-port")
KINDS = (
    "delete-edge", "duplicate-edge", "retarget-edge", "edge-to-random", "dim", "delete-dim",
    "add-dim", "attribute", "delete-attribute", "layer-id", "port-id", "element-type",
    "precision", "delete-element", "duplicate-layer", "layer-type", "layer-version", "add-port",
    "swap-layers", "names", "output-names", "net-version", "move-into-body",
)
# fmt: on

mutation = st.tuples(
    st.sampled_from(KINDS),
    st.integers(0, 1 << 16),
    st.integers(0, 1 << 16),
    st.sampled_from(VALUES),
)
byte_edit = st.one_of(
    st.none(),
    st.tuples(st.just("cut-xml"), st.integers(0, 1 << 16), st.binary(max_size=0)),
    st.tuples(st.just("insert-xml"), st.integers(0, 1 << 16), st.binary(min_size=1, max_size=8)),
    st.tuples(st.just("cut-bin"), st.integers(0, 1 << 16), st.binary(max_size=0)),
    st.tuples(st.just("poke-bin"), st.integers(0, 1 << 16), st.binary(min_size=1, max_size=8)),
    st.tuples(st.just("fragment"), st.integers(0, 3), st.binary(max_size=0)),
)
bases = st.sampled_from(["tiny", "rich"])
plans = st.lists(mutation, min_size=1, max_size=4)


#: name -> (xml, bin) of the valid models mutated (filled once per module; kept out of the
#: test arguments so hypothesis does not print them with every falsifying example).
BASES: dict[str, tuple[bytes, bytes]] = {}


@pytest.fixture(scope="module", autouse=True)
def _load_bases(ov_models):
    rich = ov_models["rich"]
    BASES["tiny"] = ((EXAMPLES / "tiny.xml").read_bytes(), (EXAMPLES / "tiny.bin").read_bytes())
    BASES["rich"] = (rich.read_bytes(), rich.with_suffix(".bin").read_bytes())


def _pick(items, index):
    return items[index % len(items)] if items else None


def _apply(root, kind, a, b, value):
    """Apply one mutation to the tree in place (a no-op when there is nothing to mutate)."""
    edges = root.findall(".//edge")
    layers = root.findall(".//layer")
    ports = root.findall(".//port")
    if kind == "delete-edge" and edges:
        edge = _pick(edges, a)
        edge.getparent().remove(edge)
    elif kind == "duplicate-edge" and edges:
        edge = _pick(edges, a)
        edge.addnext(etree.fromstring(etree.tostring(edge)))
    elif kind == "retarget-edge" and edges:
        _pick(edges, a).set(_pick(EDGE_ATTRIBUTES, b), value)
    elif kind == "edge-to-random" and edges and layers:
        edge = _pick(edges, a)
        target = _pick(layers, b)
        end = "to" if b % 2 else "from"
        edge.set(f"{end}-layer", target.get("id", "0"))
        target_ports = target.findall(f"{'input' if end == 'to' else 'output'}/port")
        edge.set(f"{end}-port", (_pick(target_ports, a) if target_ports else target).get("id", "0"))
    elif kind == "dim":
        dims = root.findall(".//dim")
        if dims:
            _pick(dims, a).text = value
    elif kind == "delete-dim":
        dims = root.findall(".//dim")
        if dims:
            dim = _pick(dims, a)
            dim.getparent().remove(dim)
    elif kind == "add-dim" and ports:
        etree.SubElement(_pick(ports, a), "dim").text = value
    elif kind == "attribute":
        datas = root.findall(".//data")
        if datas:
            data = _pick(datas, a)
            keys = sorted(data.attrib) or ["axis"]
            data.set(_pick(keys, b), value)
    elif kind == "delete-attribute":
        element = _pick(root.findall(".//data") + ports + layers + edges, a)
        if element is not None and element.attrib:
            del element.attrib[_pick(sorted(element.attrib), b)]
    elif kind == "layer-id" and layers:
        _pick(layers, a).set("id", value)
    elif kind == "port-id" and ports:
        _pick(ports, a).set("id", value)
    elif kind == "element-type":
        datas = [d for d in root.findall(".//data") if "element_type" in d.attrib]
        if datas:
            _pick(datas, a).set("element_type", _pick(ELEMENT_TYPES, b))
    elif kind == "precision" and ports:
        _pick(ports, a).set("precision", _pick(ELEMENT_TYPES, b))
    elif kind == "delete-element":
        candidates = [e for e in root.iter() if e is not root and e.getparent() is not None]
        if candidates:
            element = _pick(candidates, a)
            element.getparent().remove(element)
    elif kind == "duplicate-layer" and layers:
        layer = _pick(layers, a)
        layer.addnext(etree.fromstring(etree.tostring(layer)))
    elif kind == "layer-type" and layers:
        _pick(layers, a).set("type", _pick(LAYER_TYPES, b))
    elif kind == "layer-version" and layers:
        _pick(layers, a).set("version", value)
    elif kind == "add-port" and layers:
        layer = _pick(layers, a)
        side = layer.find("input" if b % 2 else "output")
        if side is not None:
            port = etree.SubElement(side, "port", id=value, precision=_pick(ELEMENT_TYPES, b))
            etree.SubElement(port, "dim").text = "2"
    elif kind == "names":
        outputs = root.findall(".//output/port")
        if outputs:
            _pick(outputs, a).set("names", _pick(["a\\,b", "x,,y", ",", "\\", " ", value], b))
    elif kind == "output-names" and layers:
        _pick(layers, a).set("output_names", value)
    elif kind == "net-version":
        root.set("version", _pick(["10", "11", value], b))
    elif kind == "move-into-body" and len(layers) > 1:
        moved, host = _pick(layers, a), _pick(layers, b)
        if moved is not host and host not in moved.iter():
            moved.getparent().remove(moved)
            body = etree.SubElement(host, _pick(["body", "then_body", "else_body"], a))
            etree.SubElement(body, "layers").append(moved)
            etree.SubElement(body, "edges")
    elif kind == "swap-layers" and len(layers) > 1:
        first, second = _pick(layers, a), _pick(layers, b)
        first_id, second_id = first.get("id", ""), second.get("id", "")
        first.set("id", second_id)
        second.set("id", first_id)


def mutate(xml: bytes, weights: bytes, plan, edit) -> tuple[bytes, bytes]:
    root = etree.fromstring(xml)
    for kind, a, b, value in plan:
        _apply(root, kind, a, b, value)
    xml = etree.tostring(root, xml_declaration=True, encoding="utf-8")
    if edit is not None and edit[0] == "fragment":
        # bare <layer> snippets as in the op specification: with or without the edges, or
        # every layer given the same id (several independent snippets)
        layers = root.findall("layers/layer")
        if edit[1] == 3:
            for layer in layers:
                layer.set("id", "1")
        parts = [etree.tostring(layer) for layer in layers]
        if edit[1] in (1, 2):
            parts += [etree.tostring(edge) for edge in root.findall("edges/edge")]
        xml = b"\n".join(parts)
    elif edit is not None:
        kind, position, extra = edit
        if kind == "cut-xml":
            xml = xml[: position % (len(xml) + 1)]
        elif kind == "insert-xml":
            at = position % (len(xml) + 1)
            xml = xml[:at] + extra + xml[at:]
        elif kind == "cut-bin":
            weights = weights[: position % (len(weights) + 1)]
        elif kind == "poke-bin" and weights:
            at = position % len(weights)
            weights = weights[:at] + extra + weights[at + len(extra) :]
    return xml, weights


def test_mutation_helper_changes_the_model():
    xml, weights = BASES["tiny"]
    changed, _ = mutate(xml, weights, [("delete-edge", 0, 0, "0")], None)
    assert changed.count(b"<edge ") == xml.count(b"<edge ") - 1
    same, cut = mutate(xml, weights, [("dim", 0, 0, "2")], ("cut-bin", 5, b""))
    assert cut == weights[:5] and irrun.load(same, weights=weights).validate().ok


@FUZZ
@given(base=bases, plan=plans, edit=byte_edit)
def test_load_and_validate_raise_only_ir_errors(base, plan, edit):
    xml, weights = mutate(*BASES[base], plan, edit)
    try:
        models = irrun.load_all(xml, weights=weights)
    except irrun.IRError as exc:
        assert exc.message and len(str(exc)) < 10_000
        return
    for model in models:
        report = model.validate()
        internal = [d for d in report.diagnostics if d.code == "internal"]
        assert not internal, internal[0].message
        text = report.to_text()
        assert "Traceback" not in text


@FUZZ
@given(base=bases, plan=plans, edit=byte_edit)
def test_cli_never_exits_3_nor_prints_a_traceback(invoke, base, plan, edit):
    xml, weights = mutate(*BASES[base], plan, edit)
    with tempfile.TemporaryDirectory() as folder:
        model = Path(folder, "model.xml")
        model.write_bytes(xml)
        model.with_suffix(".bin").write_bytes(weights)
        for command in ("validate", "inspect"):
            outcome = invoke(command, model)
            text = outcome.output
            assert outcome.exception is None, repr(outcome.exception)
            assert outcome.exit_code in (0, 1, 2), (command, outcome.exit_code, text[:2000])
            assert "Traceback" not in text and "internal error" not in text, text[:2000]
            assert "error[internal]" not in text, text[:2000]
            if outcome.exit_code == 2:
                assert text.startswith(f"irrun: error: {model}"), text[:2000]


@FUZZ
@given(base=bases, plan=plans, edit=byte_edit)
def test_the_accelerated_and_pure_python_readers_agree(base, plan, edit, snapshot, python_reader):
    xml, weights = mutate(*BASES[base], plan, edit)

    def outcome():
        try:
            return [snapshot(model) for model in irrun.load_all(xml, weights=weights)]
        except irrun.IRError as exc:
            return str(exc)

    accelerated = outcome()
    with python_reader():
        assert outcome() == accelerated
