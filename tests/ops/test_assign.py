"""Assign-3 and Assign-6: shapes and types against OpenVINO (the value against the variable a
ReadValue declares, accepted and refused), the kernel on a stand-in variable state, reported
errors, and stateful models run several times against OpenVINO's InferRequest."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import openvino as ov
import openvino.opset1 as opset1
import openvino.opset3 as opset3
import openvino.opset6 as opset6
import pytest
from hypothesis import given
from hypothesis import strategies as st
from openvino.op.util import Variable, VariableInfo

import irrun
from irrun.element_types import element_type
from irrun.errors import IRError
from irrun.ops.assign import Assign3, Assign6
from irrun.ops.base import TensorInfo
from irrun.shape import Shape
from tests.helpers.ir_text import Net, line_of
from tests.helpers.openvino_oracle import check_shapes, ov_type, parameter, save
from tests.helpers.strategies import (
    bare_op,
    diagnostic,
    dim_text,
    op_settings,
    shape_text,
    validated,
)

DIM = dim_text(st.integers(0, 5))


class FakeState:
    """What the executor hands a stateful op: ``read`` and ``write``."""

    def __init__(self):
        self.written = {}

    def read(self, variable_id):
        return self.written.get(variable_id)

    def write(self, variable_id, array):
        self.written[variable_id] = array


def _variable(shape, etype):
    info = VariableInfo()
    info.variable_id = "v"
    info.data_shape = ov.PartialShape(shape)
    info.data_type = ov_type(etype)
    return Variable(info)


def _assign_6_beside(variable_shape: str, variable_type: str):
    """An Assign-6 whose graph holds a ReadValue-6 layer declaring variable ``v``."""
    op = bare_op(Assign6, {"variable_id": "v"}, outputs=[SimpleNamespace()])
    attributes = {"variable_id": "v", "variable_shape": variable_shape.strip("[]"),
                  "variable_type": variable_type}  # fmt: skip
    reader = SimpleNamespace(type="ReadValue", opset=6, attributes=attributes,
                             describe=lambda: "layer 0 'rv' (ReadValue)")  # fmt: skip
    op.layer.graph = SimpleNamespace(layers=[reader])
    return op


@op_settings(40)
@given(shape_text(DIM), shape_text(DIM), st.sampled_from(["f32", "f32", "i32", "dynamic"]),
       st.sampled_from(["f32", "i32", "dynamic"]))  # fmt: skip
def test_assign_6_shapes_match_openvino(variable_shape, value_shape, variable_type, value_type):
    variable = _variable(variable_shape, variable_type)
    reader = opset6.read_value(variable)
    value = parameter(value_shape, value_type, name="x")
    op = _assign_6_beside(variable_shape, variable_type)
    info = TensorInfo(Shape.parse(value_shape.strip("[]")), element_type(value_type))
    try:
        node = opset6.assign(value, variable)
    except RuntimeError:
        with pytest.raises(IRError):
            op.infer([info])
        return
    (output,) = op.infer([info])
    assert str(output.shape) == str(node.output(0).get_partial_shape())
    assert output.element_type.name == node.output(0).get_element_type().get_type_name()
    check_shapes(ov.Model([opset1.result(reader)], [node], [value], "m"))


@op_settings(20)
@given(shape_text(DIM), st.sampled_from(["f32", "i64"]))
def test_assign_3_shapes_match_openvino(shape, etype):
    x = parameter(shape, etype, name="x")
    reader = opset3.read_value(x, "v")
    node = opset3.assign(opset1.add(reader, x), "v")
    check_shapes(ov.Model([opset1.result(reader)], [node], [x], "m"))


def test_assign_writes_the_value_and_passes_it_on():
    state = FakeState()
    value = np.arange(4, dtype=np.int64)
    op = bare_op(Assign3, {"variable_id": "w"}, outputs=[SimpleNamespace()])
    (out,) = op.evaluate([value], state=state)
    np.testing.assert_array_equal(state.written["w"], value)
    np.testing.assert_array_equal(out, value)
    value[0] = 9  # the state holds a copy, not the executor's buffer
    assert state.written["w"][0] == 0


def test_assign_without_a_state_does_not_run():
    with pytest.raises(NotImplementedError, match="needs the executor's variable state"):
        bare_op(Assign6, {"variable_id": "v"}).evaluate([np.zeros(2)])


def _net(read_value_version, read_id, assign_id, value=("2,3", "f32"), data=None):
    """Parameter -> ReadValue -> Add (of the Parameter) -> Assign, and a Result."""
    net = Net()
    x = net.param("x", *value)
    attributes = {"variable_id": read_id}
    if read_value_version == "opset6":
        attributes.update(data or {"variable_type": "f32", "variable_shape": "2,3"})
    reader = net.op("rv", "ReadValue", read_value_version, attributes, [x], [2, 3])
    add = net.op("add", "Add", "opset1", {"auto_broadcast": "numpy"}, [reader, x], [2, 3])
    net.op("assign", "Assign", read_value_version, {"variable_id": assign_id}, [add], [2, 3])
    net.result(reader)
    return net


@pytest.mark.parametrize("version", ["opset3", "opset6"])
def test_a_stateful_net_is_checked(version):
    report = validated(_net(version, "v", "v"))
    assert report.ok and not report.warnings, report.to_text()


@pytest.mark.parametrize("version, where", [("opset3", "that this layer depends on"),
                                            ("opset6", "of the model")])  # fmt: skip
def test_an_assign_without_its_read_value_is_reported(version, where):
    net = _net(version, "v", "other")
    found = diagnostic(validated(net).errors, "input-value")
    assert "declares variable 'other'" in found.message and where in found.message
    assert found.line == line_of(net.text(), '<port id="0"', within="assign")


def test_assign_6_of_another_type_is_reported():
    """Both the ReadValue's initial value and the Assign's value contradict the variable."""
    net = _net("opset6", "v", "v", data={"variable_type": "i32", "variable_shape": "..."})
    read, written = (d for d in validated(net).errors if d.code == "input-type")
    assert "the initial value is f32, but variable 'v' is declared i32" in read.message
    assert "the value is f32, but variable 'v' is declared i32 (layer 1 'rv'" in written.message
    assert written.line == line_of(net.text(), '<port id="0"', within="assign")


def test_assign_3_of_another_shape_or_type_is_reported():
    """Against a stand-in ReadValue-3 of [2,3] f32 that the Assign depends on."""
    op = bare_op(Assign3, {"variable_id": "v"}, outputs=[SimpleNamespace()])
    reader = SimpleNamespace(type="ReadValue", opset=3, attributes={"variable_id": "v"},
                             outputs=[SimpleNamespace(inferred_shape=Shape.parse("2,3"),
                                                      inferred_type=element_type("f32"))],
                             describe=lambda: "layer 0 'rv' (ReadValue)")  # fmt: skip
    port = SimpleNamespace(layer=reader, inputs=[])
    reader.inputs = []
    op.layer.inputs = [SimpleNamespace()]
    op.layer.graph = SimpleNamespace(producer=lambda _: port)
    with pytest.raises(IRError, match=r"the value's shape \[2,4\] differs from the shape \[2,3\] "
                                      r"of variable 'v'"):  # fmt: skip
        op.infer([TensorInfo(Shape.parse("2,4"), element_type("f32"))])
    with pytest.raises(IRError, match=r"the value is dynamic, but variable 'v' is f32"):
        op.infer([TensorInfo(Shape.parse("2,3"), element_type("dynamic"))])


def test_assign_6_of_a_shape_outside_the_variable_is_reported():
    op = _assign_6_beside("[2,?]", "f32")
    with pytest.raises(IRError, match=r"the value's shape \[3,3\] does not fit the shape "
                                      r"\[2,\?\] declared for variable 'v'"):  # fmt: skip
        op.infer([TensorInfo(Shape.parse("3,3"), element_type("f32"))])


def _stateful(version: str, result_of_reader: bool, init: bool = True):
    """x -> ReadValue (initial value 0.5 or none) -> Add x -> Assign, its Result on the Add or
    on the ReadValue (the Assign's branch then reaches no Result)."""
    x = parameter([2, 3], name="x")
    start = opset1.constant(np.full((2, 3), 0.5, np.float32))
    if version == "opset3":
        reader = opset3.read_value(start, "v")
        writer_of = lambda value: opset3.assign(value, "v")  # noqa: E731
    else:
        variable = _variable("[2,3]", "f32")
        reader = opset6.read_value(start, variable) if init else opset6.read_value(variable)
        writer_of = lambda value: opset6.assign(value, variable)  # noqa: E731
    total = opset1.add(reader, x)
    writer = writer_of(total)
    result = opset1.result(reader if result_of_reader else total)
    return ov.Model([result], [writer], [x], "stateful")


@pytest.mark.parametrize("version, init", [("opset3", True), ("opset6", True), ("opset6", False)])
@pytest.mark.parametrize("result_of_reader", [False, True])
def test_state_between_runs_matches_openvino(version, init, result_of_reader, tmp_path):
    """Each run sees the value the run before it assigned; reset_state starts afresh, as
    OpenVINO's InferRequest with its variable state (query_state / reset_state)."""
    model = _stateful(version, result_of_reader, init)
    loaded = irrun.load(save(model, tmp_path))
    request = ov.Core().compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    request = request.create_infer_request()
    assert [s.name for s in request.query_state()] == ["v"]
    feeds = [np.arange(6, dtype=np.float32).reshape(2, 3) * k for k in (1, 2, -1)]
    for step, feed in enumerate([*feeds, "reset", feeds[0], feeds[1]]):
        if isinstance(feed, str):
            loaded.reset_state()
            request.reset_state()
            continue
        (got,) = loaded.run({"x": feed}).values()
        expected = request.infer({"x": feed})[0]
        np.testing.assert_array_equal(got, expected, err_msg=f"run {step}")
    np.testing.assert_array_equal(request.query_state()[0].state.data, (feeds[0] + feeds[1]
                                  + (0.5 if init else 0)))  # fmt: skip


@pytest.mark.parametrize("version", ["opset3", "opset6"])
def test_an_assign_without_an_output_port_is_a_sink_as_in_openvino(version, tmp_path):
    """OpenVINO reads an Assign without an output port (a sink only) and runs it."""
    net = _net(version, "v", "v")
    text = net.text()
    start = text.index('name="assign"')
    end = text.index("</layer>", start)
    layer = text[start:end]
    cut = layer[: layer.index("      <output>")] + layer[layer.index("      </output>\n") + 16 :]
    (tmp_path / "m.xml").write_text(text[:start] + cut + text[end:])
    (tmp_path / "m.bin").write_bytes(bytes(net.blob))
    loaded = irrun.load(tmp_path / "m.xml")
    assert loaded.validate().ok
    request = ov.Core().compile_model(ov.Core().read_model(str(tmp_path / "m.xml")), "CPU")
    request = request.create_infer_request()
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    for _ in range(3):
        (got,) = loaded.run({"x": x}).values()
        np.testing.assert_array_equal(got, request.infer({"x": x})[0])
    assert bare_op(Assign6, {"variable_id": "v"}).evaluate([x], state=FakeState()) == []
