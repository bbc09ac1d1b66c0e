"""Auto-broadcast of partial shapes (irrun.ops._broadcast) against OpenVINO's Add."""

from __future__ import annotations

import tempfile
from pathlib import Path

import openvino.opset13 as ops
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import irrun
from irrun.ops._broadcast import broadcast_dims, broadcast_failure, broadcast_pair
from irrun.shape import Dim, Shape
from tests.helpers.openvino_oracle import check_shapes, model_of, parameter, save
from tests.helpers.strategies import diagnostic, op_settings, shape_text

dims = st.one_of(
    st.integers(0, 4).map(str),
    st.just("?"),
    st.tuples(st.integers(0, 4), st.integers(0, 5)).map(
        lambda t: f"{min(t)}..{max(t)}" if t[0] != t[1] else str(t[0])
    ),
    st.integers(0, 4).map(lambda lo: f"{lo}.."),
)
shapes = shape_text(dims, max_rank=4, dynamic_rank=2)  # [...] one time in 2


def _shape(text: str) -> Shape:
    return Shape.parse("..." if text == "[...]" else text)


def _openvino_broadcast(a: str, b: str, mode: str):
    """OpenVINO's output shape text of Add(a, b) under ``mode``, or None when refused."""
    try:
        node = ops.add(parameter(a), parameter(b), auto_broadcast=mode)
    except Exception:
        return None
    return str(node.get_output_partial_shape(0))


@op_settings(40)
@given(shapes, shapes, st.sampled_from(["numpy", "none", "pdpd"]))
def test_broadcast_pair_matches_openvino(a, b, mode):
    expected = _openvino_broadcast(a, b, mode)
    axis = 0  # the pdpd axis of OpenVINO's AutoBroadcastSpec("pdpd")
    got = broadcast_pair(_shape(a), _shape(b), mode, axis)
    assert (None if got is None else str(got)) == expected, (a, b, mode)
    assert (broadcast_failure(_shape(a), _shape(b), mode, axis) is None) == (got is not None)


@op_settings(25)
@given(shapes, shapes, st.sampled_from(["numpy", "none", "pdpd"]))
def test_add_infers_openvino_shape(a, b, mode):
    try:
        node = ops.add(parameter(a, name="a"), parameter(b, name="b"), auto_broadcast=mode)
    except Exception:
        assume(False)
    check_shapes(node)


_IR = """<?xml version="1.0"?>
<net name="pdpd" version="11">
  <layers>
    <layer id="0" name="a" type="Parameter" version="opset1">
      <data shape="{a}" element_type="f32"/>
      <output><port id="0" precision="FP32">{a_dims}</port></output>
    </layer>
    <layer id="1" name="b" type="Parameter" version="opset1">
      <data shape="{b}" element_type="f32"/>
      <output><port id="0" precision="FP32">{b_dims}</port></output>
    </layer>
    <layer id="2" name="add" type="Add" version="opset1">
      <data {data}/>
      <input><port id="0" precision="FP32">{a_dims}</port>
             <port id="1" precision="FP32">{b_dims}</port></input>
      <output><port id="2" precision="FP32">{a_dims}</port></output>
    </layer>
    <layer id="3" name="out" type="Result" version="opset1">
      <input><port id="0" precision="FP32">{a_dims}</port></input>
    </layer>
  </layers>
  <edges>
    <edge from-layer="0" from-port="0" to-layer="2" to-port="0"/>
    <edge from-layer="1" from-port="0" to-layer="2" to-port="1"/>
    <edge from-layer="2" from-port="2" to-layer="3" to-port="0"/>
  </edges>
</net>
"""


def _ir(a: str, b: str, data: str) -> str:
    def dims(text):
        items = [d for d in text.strip("[]").split(",") if d]
        return "".join(f"<dim>{d if d.isdigit() else -1}</dim>" for d in items)

    return _IR.format(a=a.strip("[]"), b=b.strip("[]"), a_dims=dims(a), b_dims=dims(b), data=data)


def _pdpd_with_axis(a: str, b: str, axis: int):
    """OpenVINO's shape for Add pdpd at ``axis`` (read by OpenVINO from a hand-written IR), or
    None when it refuses."""
    import openvino as ov

    data = f'auto_broadcast="pdpd" auto_broadcast.auto_broadcast_axis="{axis}"'
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.xml"
        path.write_text(_ir(a, b, data))
        try:
            model = ov.Core().read_model(str(path))
        except Exception:
            return None
        add = next(n for n in model.get_ordered_ops() if n.get_type_name() == "Add")
        return str(add.get_output_partial_shape(0))


@pytest.mark.parametrize(
    "a, b, axis",
    [
        ("[2,3,4,5]", "[3,4]", 1),
        ("[2,3,4,5]", "[3]", 1),
        ("[2,3,4,5]", "[2]", 0),
        ("[2,?,4,5]", "[3,1]", 1),
        ("[2,1..3,4,5]", "[3,?]", 1),
        ("[2,1,4,5]", "[3]", 1),
        ("[2,3,4,5]", "[4,5]", 3),
        ("[2,3,4,5]", "[4,5]", -1),
        ("[2,3,4,5]", "[3,4]", -2),
    ],
)
def test_pdpd_axis_matches_openvino(a, b, axis):
    expected = _pdpd_with_axis(a, b, axis)
    got = broadcast_pair(_shape(a), _shape(b), "pdpd", axis)
    assert (None if got is None else str(got)) == expected


@pytest.mark.parametrize(
    "a, b, expected",
    [
        ("?", "3", "3"),
        ("?", "?", "?"),
        ("1..5", "0..2", "..5"),
        ("1..5", "3", "3"),
        ("1", "0", "0"),
        ("2..3", "3..8", "3"),
        ("2..3", "5..", None),
        ("3", "4", None),
    ],
)
def test_broadcast_dims(a, b, expected):
    got = broadcast_dims(Shape.parse(a)[0], Shape.parse(b)[0])
    assert (None if got is None else str(got)) == expected
    assert broadcast_dims(Shape.parse(b)[0], Shape.parse(a)[0]) == got


def test_dynamic_rank_broadcasts_to_dynamic_rank_in_numpy_but_not_in_none():
    assert broadcast_pair(Shape.dynamic_rank(), Shape([2, Dim.dynamic()])) == Shape.dynamic_rank()
    assert str(broadcast_pair(Shape.dynamic_rank(), Shape([2, 3]), "none")) == "[2,3]"


def _validated(xml_edit, b="[2,3]"):
    node = ops.add(parameter("[2,3]", name="a"), parameter(b, name="b"))
    with tempfile.TemporaryDirectory() as tmp:
        path = save(model_of(node), tmp)
        text = xml_edit(path.read_text())
        path.write_text(text)
        report = irrun.load(path).validate()
        return report, text


def _second_input_4(text):
    """b was saved as [2,?]: make it [2,4] everywhere (its shape, its port, Add's port 1)."""
    return text.replace('shape="2,?"', 'shape="2,4"').replace("<dim>-1</dim>", "<dim>4</dim>")


def test_clash_is_reported_with_the_dimension():
    report, text = _validated(_second_input_4, b="[2,?]")
    error = diagnostic(report, "input-dims")
    assert error.severity == "error", report.to_text()
    message = error.message
    assert "input 1 [2,4] does not broadcast with input 0 [2,3]" in message
    assert "(auto_broadcast numpy): dimension 1: 3 vs 4 cannot broadcast" in message
    add_line = next(i for i, line in enumerate(text.splitlines(), 1) if 'type="Add"' in line)
    assert error.line > add_line and error.port == "input port 1"


def test_clash_under_none_is_reported():
    def edit(text):
        return _second_input_4(text).replace('auto_broadcast="numpy"', 'auto_broadcast="none"')

    report, _ = _validated(edit, b="[2,?]")
    error = diagnostic(report, "input-dims", only=False)
    assert "dimension 1: 3 vs 4 differ" in error.message, report.to_text()


def test_misspelt_auto_broadcast_is_warned_with_a_suggestion():
    report, _ = _validated(lambda t: t.replace("auto_broadcast=", "auto_broadcastt="))
    warning = diagnostic(report, "unknown-attribute", only=False)
    assert "did you mean auto_broadcast?" in warning.hint, report.to_text()


def test_explicit_auto_broadcast_is_an_attribute_value_error():
    report, _ = _validated(lambda t: t.replace('auto_broadcast="numpy"', 'auto_broadcast="x"'))
    diagnostic(report, "attribute-value", only=False)


def test_pdpd_file_roundtrip_is_checked(tmp_path: Path):
    node = ops.add(parameter("[2,3,4]", name="a"), parameter("[2,1]", name="b"), "pdpd")
    loaded = check_shapes(node, folder=tmp_path)  # OpenVINO's pdpd axis 0 is written in the IR
    add = next(layer for layer in loaded.layers if layer.type == "Add")
    assert add.attributes["auto_broadcast.auto_broadcast_axis"] == "0"
