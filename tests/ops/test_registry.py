"""The op registry: OpenVINO's opset tables, resolution of a layer's type and version, and the
diagnostics for versions and types OpenVINO refuses, each checked against OpenVINO itself."""

from __future__ import annotations

import warnings
from pathlib import Path
from types import SimpleNamespace

import pytest

import irrun
from irrun.ops.opsets import OPSETS
from irrun.ops.registry import LATEST_OPSET, first_opset, lookup_layer, resolve

warnings.filterwarnings("ignore", message=".*openvino.runtime.*")
import openvino as ov  # noqa: E402
from openvino.utils.node_factory import NodeFactory  # noqa: E402

TINY = (Path(__file__).parents[2] / "examples" / "ir" / "tiny.xml").read_text()
TINY_BIN = (Path(__file__).parents[2] / "examples" / "ir" / "tiny.bin").read_bytes()
ALL_TYPES = sorted({name for table in OPSETS.values() for name in table} - {"Constant"})


@pytest.mark.parametrize("opset", sorted(OPSETS))
def test_opset_table_is_openvinos(opset):
    """Every type of every opset has the op version OpenVINO's node factory creates there, and
    every type missing from the table is refused there."""
    factory = NodeFactory(f"opset{opset}")
    for name in ALL_TYPES:
        try:
            node = factory.create(name)
        except Exception:
            assert name not in OPSETS[opset], f"opset{opset} has no {name}"
            continue
        version = int(node.get_type_info().version_id.removeprefix("opset"))
        assert OPSETS[opset].get(name) == version, (opset, name)


def test_latest_opset_is_the_newest_openvino_has():
    assert LATEST_OPSET == max(OPSETS) == 17
    NodeFactory(f"opset{LATEST_OPSET}")
    with pytest.raises(Exception):  # noqa: B017  (OpenVINO raises a plain RuntimeError)
        NodeFactory(f"opset{LATEST_OPSET + 1}")


def test_op_version_follows_the_opset_table():
    assert resolve("Gather", 13).version == 8
    assert resolve("Gather", 7).version == 7
    assert resolve("Gather", 1).version == 1
    assert resolve("GatherElements", 5) is None
    assert resolve("GatherElements", 6).version == 6
    assert resolve("Const", 3).type == "Constant"
    assert first_opset("GatherElements") == 6
    assert first_opset("FooBarOp") is None


def _edited(old: str, new: str) -> str:
    assert old in TINY
    return TINY.replace(old, new, 1)


def _validate(text: str, tmp_path):
    xml = tmp_path / "m.xml"
    xml.write_text(text)
    (tmp_path / "m.bin").write_bytes(
        (Path(__file__).parents[2] / "examples/ir/tiny.bin").read_bytes()
    )
    return xml, irrun.load(xml).validate()


def _openvino_refuses(xml: Path) -> str:
    with pytest.raises(Exception) as caught:  # noqa: B017
        ov.Core().read_model(str(xml))
    return str(caught.value)


def test_an_opset_openvino_does_not_have_is_an_error(tmp_path):
    xml, report = _validate(_edited('type="Gather" version="opset8"',
                                    'type="Gather" version="opset99"'), tmp_path)  # fmt: skip
    assert report.codes() == ["unknown-opset"]
    (diagnostic,) = report.errors
    assert diagnostic.line == 16
    assert (
        "version 'opset99' is not an opset OpenVINO has (opset1 to opset17)" in diagnostic.message
    )
    assert diagnostic.hint == 'use an existing opset, e.g. version="opset16"'
    _openvino_refuses(xml)


def test_a_type_before_its_first_opset_is_an_error(tmp_path):
    text = _edited('type="Gather" version="opset8">\n      <data batch_dims="0"/>',
                   'type="GatherElements" version="opset1">\n      <data axis="0"/>')  # fmt: skip
    xml, report = _validate(text, tmp_path)
    assert report.codes() == ["not-in-opset"]
    (diagnostic,) = report.errors
    assert "GatherElements does not exist in opset1; it first appears in opset6" in (
        diagnostic.message
    )
    assert diagnostic.hint == 'declare version="opset6" (or a later opset)'
    _openvino_refuses(xml)


def test_a_type_no_opset_has_is_an_error_with_a_suggestion(tmp_path):
    xml, report = _validate(_edited('type="Gather" version="opset8"',
                                    'type="Gathr" version="opset8"'), tmp_path)  # fmt: skip
    assert report.codes() == ["not-in-opset"]
    (diagnostic,) = report.errors
    assert "opset8 has no op type 'Gathr'; OpenVINO refuses the model" in diagnostic.message
    assert diagnostic.hint == "did you mean Gather?"
    _openvino_refuses(xml)


def test_a_custom_opset_is_a_trusted_warning(tmp_path):
    xml, report = _validate(_edited('type="Gather" version="opset8"',
                                    'type="FooBarOp" version="extension"'), tmp_path)  # fmt: skip
    assert report.ok
    assert report.codes() == ["unknown-op"]
    assert "irrun does not know op type 'FooBarOp' of opset 'extension'" in report[0].message
    assert report.trusted_types == {"FooBarOp extension": 1}
    layer = irrun.load(xml).layer("g")
    assert lookup_layer(layer).problem == "custom"


def test_a_misspelt_attribute_is_warned_with_a_suggestion(tmp_path):
    _, report = _validate(_edited('<data batch_dims="0"/>', '<data batchdims="0"/>'), tmp_path)
    assert report.ok
    assert report.codes() == ["unknown-attribute"]
    (diagnostic,) = report.warnings
    assert diagnostic.line == 17
    assert diagnostic.message == (
        "layer 3 'g' (Gather-8): attribute batchdims='0' is not an attribute of Gather-8; "
        "OpenVINO ignores it"
    )
    assert diagnostic.hint == "did you mean batch_dims?"


def test_an_attribute_of_another_version_is_warned(tmp_path):
    text = _edited('type="Gather" version="opset8"', 'type="Gather" version="opset1"')
    _, report = _validate(text, tmp_path)
    assert report.codes() == ["unknown-attribute"]
    assert "batch_dims exists only in Gather-7 and later" in report[0].message
    assert report[0].hint == "use Gather-7 and later or remove the attribute"


def test_a_malformed_declared_attribute_is_an_error(tmp_path):
    _, report = _validate(_edited('<data batch_dims="0"/>', '<data batch_dims="zero"/>'), tmp_path)
    assert report.codes() == ["attribute-value"]
    assert (
        report[0].message == "layer 3 'g' (Gather-8): attribute batch_dims='zero' is not an integer"
    )
    assert report[0].hint == 'write it as an integer, e.g. batch_dims="0"'


def test_a_too_big_declared_attribute_is_an_error(tmp_path):
    text = _edited('<data batch_dims="0"/>', f'<data batch_dims="{2**64}"/>')
    _, report = _validate(text, tmp_path)
    assert report.codes() == ["attribute-value"]
    assert report[0].message.endswith(
        f"attribute batch_dims='{2**64}' is not an integer inside the 64-bit range"
    )


def test_trusted_layers_are_counted_by_op(tmp_path, monkeypatch):
    """An op of OpenVINO's that irrun had no rule for (made so here: irrun has DFT now)."""
    from irrun.ops import registry

    real = registry.resolve
    monkeypatch.setattr(registry, "_LOOKED_UP", {})
    monkeypatch.setattr(registry, "resolve", lambda t, o: None if t == "DFT" else real(t, o))
    xml, report = _validate(_edited('type="Gather" version="opset8"',
                                    'type="DFT" version="opset8"'),
                          tmp_path)  # fmt: skip
    assert report.layers_trusted == 1
    assert report.trusted_types == {"DFT-7": 1}
    assert report.to_dict()["summary"]["trusted_types"] == {"DFT-7": 1}
    assert "irrun does not check DFT-7 yet" in report[0].message


def test_every_declared_attribute_is_stored_in_an_identifier():
    """Dotted IR names (``auto_broadcast.auto_broadcast_axis``, ``mode.mode.axis``) are stored
    in plain Python attributes, not in names only getattr can read."""
    from irrun.ops.registry import _REGISTRY

    fields = {}
    for versions in _REGISTRY.values():
        for op_class in versions.values():
            for attribute in getattr(op_class, "op_class", op_class).attributes or ():
                fields[attribute.name] = attribute.field
    assert all(field.isidentifier() for field in fields.values()), fields
    assert fields["mode.mode.axis"] == "mode_mode_axis"
    assert fields["auto_broadcast.auto_broadcast_axis"] == "auto_broadcast_auto_broadcast_axis"
    assert fields["exclude-pad"] == "exclude_pad"


def test_an_opset_name_that_is_neither_opsetn_nor_custom_is_an_error(tmp_path):
    """OpenVINO refuses version="wrongOpset" ("unsupported opset"); custom ops belong in
    version="extension" (or "experimental"), which irrun trusts with a warning."""
    xml, report = _validate(_edited('type="Gather" version="opset8"',
                                    'type="Gather" version="wrongOpset"'), tmp_path)  # fmt: skip
    assert report.codes() == ["unknown-opset"]
    assert "version 'wrongOpset' is not an opset OpenVINO has" in report[0].message
    assert report[0].hint == 'use an existing opset, e.g. version="opset16"'
    _openvino_refuses(xml)
    _, custom = _validate(_edited('type="Gather" version="opset8"',
                                  'type="MyGather" version="wrongOpset"'), tmp_path)  # fmt: skip
    assert custom.codes() == ["unknown-opset"]
    assert custom[0].hint.startswith('declare a custom op in version="extension"')
    for name in ("extension", "experimental"):
        _, trusted = _validate(_edited('type="Gather" version="opset8"',
                                       f'type="MyGather" version="{name}"'), tmp_path)  # fmt: skip
        assert trusted.codes() == ["unknown-op"] and trusted.ok


def test_opset1_mvn_roipooling_reorgyolo_come_from_opset2(tmp_path):
    """OpenVINO's reader takes MVN, ROIPooling and ReorgYolo declared in opset1 from opset2."""
    text = """<?xml version="1.0"?>
<net name="t" version="11">
<layers>
<layer id="0" name="x" type="Parameter" version="opset1"><data shape="1,4,4,4" element_type="f32"/>
<output><port id="0" precision="FP32"><dim>1</dim><dim>4</dim><dim>4</dim><dim>4</dim></port>
</output></layer>
<layer id="1" name="r" type="ReorgYolo" version="opset1"><data stride="2"/>
<input><port id="0" precision="FP32"><dim>1</dim><dim>4</dim><dim>4</dim><dim>4</dim></port></input>
<output><port id="1" precision="FP32"><dim>1</dim><dim>16</dim><dim>2</dim><dim>2</dim></port>
</output></layer>
<layer id="2" name="out" type="Result" version="opset1">
<input><port id="0" precision="FP32"><dim>1</dim><dim>16</dim><dim>2</dim><dim>2</dim></port>
</input></layer>
</layers>
<edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>
<edge from-layer="1" from-port="1" to-layer="2" to-port="0"/></edges>
</net>
"""
    path = tmp_path / "m.xml"
    path.write_text(text)
    ov.Core().read_model(str(path))  # accepted by OpenVINO
    report = irrun.load(path).validate()
    assert report.ok and not list(report)
    assert (report.layers_checked, report.layers_trusted) == (3, 0)
    for layer_type in ("MVN", "ROIPooling", "ReorgYolo"):
        resolution = lookup_layer(SimpleNamespace(type=layer_type, version="opset1", opset=1))
        assert (resolution.problem, resolution.op_version) == (None, 2)
