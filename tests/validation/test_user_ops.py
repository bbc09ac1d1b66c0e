"""Users register their own op: a shape rule alone (checked, not run), or a kernel too."""

import numpy as np
import pytest

import irrun
from irrun.ops import Op, TensorInfo, register, unregister

IR = """<?xml version="1.0"?>
<net name="user" version="11">
  <layers>
    <layer id="0" name="x" type="Parameter" version="opset1">
      <data shape="2,3" element_type="f32"/>
      <output><port id="0" precision="FP32" names="x"><dim>2</dim><dim>3</dim></port></output>
    </layer>
    <layer id="1" name="twice" type="Doubler" version="opset1">
      <input><port id="0" precision="FP32"><dim>2</dim><dim>3</dim></port></input>
      <output>
        <port id="1" precision="FP32" names="y"><dim>2</dim><dim>DECLARED</dim></port>
      </output>
    </layer>
    <layer id="2" name="out" type="Result" version="opset1">
      <input><port id="0" precision="FP32"><dim>2</dim><dim>DECLARED</dim></port></input>
    </layer>
  </layers>
  <edges>
    <edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>
    <edge from-layer="1" from-port="1" to-layer="2" to-port="0"/>
  </edges>
</net>
"""


@pytest.fixture
def doubler():
    """A user op concatenating its input with itself on the last axis."""

    @register
    class Doubler(Op):
        """Doubler-1: [a, b] -> [a, 2b]."""

        type, version = "Doubler", 1

        def infer(self, inputs):
            shape = inputs[0].shape
            out = irrun.Shape([*shape[:-1], shape[-1] + shape[-1]])
            return [TensorInfo(out, inputs[0].element_type, why="the last dim doubled")]

    yield Doubler
    unregister("Doubler", 1)


def test_a_user_shape_rule_checks_the_declaration(doubler):
    assert irrun.load(IR.replace("DECLARED", "6")).validate().ok
    report = irrun.load(IR.replace("DECLARED", "5")).validate()
    assert report.codes() == ["shape-mismatch"]
    assert report[0].message == (
        "layer 1 'twice' (Doubler-1) output port 1 declares [2,5], but its inputs give [2,6] "
        "(the last dim doubled)"
    )


def test_an_op_without_a_kernel_is_checked_but_not_run(doubler):
    model = irrun.load(IR.replace("DECLARED", "6"))
    with pytest.raises(irrun.UnsupportedOpError, match="Doubler"):
        model.run({"x": np.zeros((2, 3), np.float32)})


def test_adding_a_kernel_makes_it_run(doubler):
    @register(replace=True)
    class DoublerWithKernel(doubler):
        def evaluate(self, inputs):
            return [np.concatenate([inputs[0], inputs[0]], axis=-1)]

    model = irrun.load(IR.replace("DECLARED", "6"))
    out = model.run({"x": np.arange(6, dtype=np.float32).reshape(2, 3)})["y"]
    assert out.tolist() == [[0, 1, 2, 0, 1, 2], [3, 4, 5, 3, 4, 5]]


def test_registering_twice_needs_replace(doubler):
    with pytest.raises(ValueError, match="Doubler-1 is already registered"):
        register(type("Other", (Op,), {"type": "Doubler", "version": 1}))
