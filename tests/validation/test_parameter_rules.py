"""Parameter rules: its <data> is required, and its port dims must agree with its shape."""

import irrun

BASE = """<?xml version="1.0"?>
<net name="p" version="11">
  <layers>
    <layer id="0" name="x" type="Parameter" version="opset1">
      DATA
      <output><port id="0" precision="FP32" names="x"><dim>2</dim><dim>-1</dim></port></output>
    </layer>
    <layer id="1" name="out" type="Result" version="opset1">
      <input><port id="0" precision="FP32"><dim>2</dim><dim>-1</dim></port></input>
    </layer>
  </layers>
  <edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/></edges>
</net>
"""


def check(data: str):
    return irrun.load(BASE.replace("DATA", data)).validate()


def test_parameter_without_data_is_an_error_as_in_openvino():
    report = check("")
    assert report.codes() == ["missing-attribute"]
    assert "has no <data> element" in report[0].message and report[0].line == 4


def test_interval_shape_agrees_with_dynamic_port_dim():
    assert check('<data shape="2,1..10" element_type="f32"/>').ok


def test_port_dims_disagreeing_with_shape_attribute():
    report = check('<data shape="3,?" element_type="f32"/>')
    assert report.codes() == ["shape-mismatch"]
    assert report[0].message == (
        "layer 0 'x' (Parameter-1) output port 0 declares [2,?], but its shape attribute says [3,?]"
    )
    assert report[0].line == 6


def test_precision_disagreeing_with_element_type():
    report = check('<data shape="2,?" element_type="i64"/>')
    assert report.codes() == ["type-mismatch"]
    assert "but its element_type attribute says i64" in report[0].message
    assert report[0].hint == 'set precision="I64" on the port'
