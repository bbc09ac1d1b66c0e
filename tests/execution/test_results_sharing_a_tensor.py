"""Several Results fed by one tensor: each is an output under its own names, as in OpenVINO."""

from __future__ import annotations

import numpy as np
import pytest

import irrun
from tests.helpers.cli import expect, outcome

IR = """<?xml version="1.0"?>
<net name="two" version="11">
  <layers>
    <layer id="0" name="x" type="Parameter" version="opset1">
      <data shape="2" element_type="f32"/>
      <output><port id="0" precision="FP32" names="x"><dim>2</dim></port></output>
    </layer>
    <layer id="1" name="cat" type="Concat" version="opset1">
      <data axis="0"/>
      <input>
        <port id="0" precision="FP32"><dim>2</dim></port>
        <port id="1" precision="FP32"><dim>2</dim></port>
      </input>
      <output><port id="2" precision="FP32" names="joined"><dim>4</dim></port></output>
    </layer>
    <layer id="2" name="r1" type="Result" version="opset1" output_names="first">
      <input><port id="0" precision="FP32"><dim>4</dim></port></input>
    </layer>
    <layer id="3" name="r2" type="Result" version="opset1" output_names="second">
      <input><port id="0" precision="FP32"><dim>4</dim></port></input>
    </layer>
  </layers>
  <edges>
    <edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>
    <edge from-layer="0" from-port="0" to-layer="1" to-port="1"/>
    <edge from-layer="1" from-port="2" to-layer="2" to-port="0"/>
    <edge from-layer="1" from-port="2" to-layer="3" to-port="0"/>
  </edges>
</net>
"""
X = np.array([1, 2], np.float32)
JOINED = np.array([1, 2, 1, 2], np.float32)


@pytest.fixture
def two_results(tmp_path):
    path = tmp_path / "two.xml"
    path.write_text(IR)
    np.savez(tmp_path / "in.npz", x=X)
    return path


def test_run_gives_every_result_by_its_own_name(two_results):
    model = irrun.load(two_results)
    assert [o.name for o in model.outputs] == ["first", "second"]
    results = model.run({"x": X})
    assert list(results) == ["first", "second"]
    assert all(np.array_equal(results[name], JOINED) for name in ("first", "second"))


def test_execute_prints_and_writes_both(two_results, tmp_path):
    text = expect(outcome("execute", two_results, "--inputs", tmp_path / "in.npz"), 0)
    assert "first: float32 [4]" in text and "second: float32 [4]" in text
    out = tmp_path / "out.npz"
    expect(outcome("execute", two_results, "--inputs", tmp_path / "in.npz", "--output", out), 0,
           "wrote 2 output(s)")  # fmt: skip
    with np.load(out) as written:
        assert sorted(written.files) == ["first", "second"]


def test_outputs_are_those_of_openvinos_read_model(two_results):
    ov = pytest.importorskip("openvino")
    read = ov.Core().read_model(str(two_results))
    expected = [sorted(output.get_names()) for output in read.outputs]
    model = irrun.load(two_results)
    assert [sorted(output.names) for output in model.outputs] == expected == [["first"], ["second"]]
    compiled = ov.Core().compile_model(read, "CPU")
    values = compiled({"x": X})
    results = model.run({"x": X})
    for output, name in zip(compiled.outputs, ("first", "second")):
        assert np.array_equal(values[output], results[name])
