"""IR v10: a layer named like another layer's tensor is refused by OpenVINO's read_model
("Model operation names have collisions with tensor names"); irrun reports it for v10 and says
nothing for v11, where it is allowed. Checked case by case against OpenVINO.

The check reports under the code ``name-collision``.
"""

from __future__ import annotations

import pytest

import irrun
from irrun.validation import diagnostics
from irrun.validation.structure import NAME_COLLISION


def net(parameter, parameter_tensors, relu, relu_tensors, result, version):
    return f"""<?xml version="1.0"?>
<net name="t" version="{version}">
<layers>
<layer id="0" name="{parameter}" type="Parameter" version="opset1">
<data shape="2" element_type="f32"/>
<output><port id="0" precision="FP32" names="{parameter_tensors}"><dim>2</dim></port></output>
</layer>
<layer id="1" name="{relu}" type="Relu" version="opset1">
<input><port id="0" precision="FP32"><dim>2</dim></port></input>
<output><port id="1" precision="FP32" names="{relu_tensors}"><dim>2</dim></port></output></layer>
<layer id="2" name="{result}" type="Result" version="opset1">
<input><port id="0" precision="FP32"><dim>2</dim></port></input></layer>
</layers>
<edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>
<edge from-layer="1" from-port="1" to-layer="2" to-port="0"/></edges>
</net>"""


# (parameter name, its tensors, relu name, its tensors, result name) -> the colliding layer
CASES = {
    "relu named like the parameter's tensor": (("p", "t", "t", "y", "r"), "t"),
    "parameter named like the relu's tensor": (("y", "x", "relu", "y", "r"), "y"),
    "one of several tensor names": (("p", "a,t", "t", "y", "r"), "t"),
    "relu's own tensor too": (("p", "t", "t", "t", "r"), "t"),
    "a layer named like its own tensor": (("x", "x", "y", "y", "r"), None),
    "a Result named like a tensor": (("p", "x", "y", "relu", "x"), None),
    "no collision": (("p", "x", "relu", "y", "r"), None),
}


def test_the_code_is_a_documented_error():
    assert diagnostics.CODES[NAME_COLLISION][0] == "error"


@pytest.mark.parametrize("case", CASES)
def test_v10_layer_named_like_another_layers_tensor_is_an_error(case):
    names, colliding = CASES[case]
    report = irrun.load(net(*names, version=10)).validate()
    found = [d for d in report.diagnostics if d.code == NAME_COLLISION]
    if colliding is None:
        assert found == []
        return
    assert len(found) == 1 and found[0].severity == "error" and not report.ok
    assert found[0].layer_name == colliding
    assert f"is named like the tensor '{colliding}'" in found[0].message
    assert found[0].line == (4 if names[0] == colliding else 8)


@pytest.mark.parametrize("case", CASES)
def test_v11_allows_it(case):
    names, _ = CASES[case]
    report = irrun.load(net(*names, version=11)).validate()
    assert NAME_COLLISION not in report.codes()


@pytest.mark.parametrize("version", [10, 11])
@pytest.mark.parametrize("case", CASES)
def test_agrees_with_openvinos_read_model(case, version):
    ov = pytest.importorskip("openvino")
    names, _ = CASES[case]
    text = net(*names, version=version)
    try:
        ov.Core().read_model(text.encode(), ov.Tensor(ov.Type.u8, [0]))
        refused = False
    except RuntimeError as exc:
        assert "collisions with tensor names" in str(exc)
        refused = True
    assert (NAME_COLLISION in irrun.load(text).validate().codes()) == refused
