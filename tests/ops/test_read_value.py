"""ReadValue-3 and ReadValue-6: shapes and types against OpenVINO (the declared variable against
its initial value, accepted and refused), the kernel on a stand-in variable state, reported
errors."""

from __future__ import annotations

import numpy as np
import openvino as ov
import openvino.opset3 as opset3
import openvino.opset6 as opset6
import pytest
from hypothesis import given
from hypothesis import strategies as st
from openvino.op.util import Variable, VariableInfo

from irrun.element_types import element_type
from irrun.errors import IRError
from irrun.ops.base import TensorInfo
from irrun.ops.read_value import ReadValue3, ReadValue6
from irrun.shape import Shape
from tests.helpers.ir_text import Net, line_of
from tests.helpers.openvino_oracle import check_shapes, ov_type, parameter
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
    """What the executor hands a stateful op: ``read`` (``None`` until written or after a
    reset) and ``write``."""

    def __init__(self, values=None):
        self.values = dict(values or {})
        self.written = {}

    def read(self, variable_id):
        return self.values.get(variable_id)

    def write(self, variable_id, array):
        self.written[variable_id] = array


def _variable(variable_id, shape, etype):
    info = VariableInfo()
    info.variable_id = variable_id
    info.data_shape = ov.PartialShape(shape)
    info.data_type = ov_type(etype)
    return Variable(info)


def _attributes(shape: str, etype: str) -> dict:
    return {"variable_id": "v", "variable_type": etype, "variable_shape": shape.strip("[]")}


@st.composite
def _variable_for(draw, init: str):
    """A variable shape for an initial shape: dynamic rank, the same, with dims widened to
    ``?``, or another shape."""
    kind = draw(st.sampled_from(["dynamic", "same", "widened", "other"]))
    if kind == "dynamic" or init == "[...]":
        return "[...]" if kind != "other" else draw(shape_text(DIM))
    if kind == "same":
        return init
    if kind == "widened":
        dims = init.strip("[]").split(",") if init != "[]" else []
        return "[" + ",".join(d if draw(st.booleans()) else "?" for d in dims) + "]"
    return draw(shape_text(DIM))


@op_settings(40)
@given(st.data(), shape_text(DIM), st.sampled_from(["f32", "f32", "f16", "dynamic"]),
       st.sampled_from(["f32", "f16", "dynamic"]))  # fmt: skip
def test_read_value_6_shapes_match_openvino(data, init_shape, init_type, variable_type):
    variable_shape = data.draw(_variable_for(init_shape))
    init = parameter(init_shape, init_type, name="x")
    op = bare_op(ReadValue6, _attributes(variable_shape, variable_type))
    info = TensorInfo(Shape.parse(init_shape.strip("[]")), element_type(init_type))
    try:
        node = opset6.read_value(init, _variable("v", variable_shape, variable_type))
    except RuntimeError:
        with pytest.raises(IRError):
            op.infer([info])
        return
    (output,) = op.infer([info])
    assert str(output.shape) == str(node.output(0).get_partial_shape())
    assert output.element_type.name == node.output(0).get_element_type().get_type_name()
    check_shapes(node)


@pytest.mark.parametrize("shape, etype", [("[2,?]", "f32"), ("[...]", "i64"), ("[]", "f16")])
def test_read_value_6_without_an_initial_value_is_the_variable(shape, etype):
    node = opset6.read_value(_variable("v", shape, etype))
    (output,) = bare_op(ReadValue6, _attributes(shape, etype)).infer([])
    assert str(output.shape) == str(node.output(0).get_partial_shape()) == shape
    check_shapes(node)


def test_dynamic_variable_takes_the_initial_value_as_openvino_does():
    init = parameter("[2,1..3]", "i32", name="x")
    node = opset6.read_value(init, _variable("v", "[...]", "dynamic"))
    assert str(node.output(0).get_partial_shape()) == "[2,1..3]"
    check_shapes(node)


@op_settings(20)
@given(shape_text(DIM), st.sampled_from(["f32", "i64", "boolean", "dynamic"]))
def test_read_value_3_is_its_initial_value(shape, etype):
    check_shapes(opset3.read_value(parameter(shape, etype, name="x"), "v"))


def test_read_value_gives_the_stored_value_else_the_initial_one():
    op = bare_op(ReadValue3, {"variable_id": "v"})
    init = np.arange(6, dtype=np.float32).reshape(2, 3)
    (fresh,) = op.evaluate([init], state=FakeState())
    np.testing.assert_array_equal(fresh, init)
    assert fresh is not init  # a later write into the state cannot change the input
    stored = np.full((2, 3), 7, np.float32)
    (value,) = op.evaluate([init], state=FakeState({"v": stored, "w": init}))
    np.testing.assert_array_equal(value, stored)
    value[0, 0] = -1  # what reads the output cannot change the variable
    assert stored[0, 0] == 7


def test_read_value_6_without_an_initial_value_starts_at_zeros():
    op = bare_op(ReadValue6, _attributes("2,3", "i32"))
    (value,) = op.evaluate([], state=FakeState())
    assert value.dtype == np.int32 and value.shape == (2, 3) and not value.any()


def test_read_value_6_of_a_dynamic_shape_starts_empty():
    """Its dynamic dims are 0 until a value is written (the CPU plugin's empty start)."""
    op = bare_op(ReadValue6, _attributes("?,3,1..4", "f32"))
    (value,) = op.evaluate([], state=FakeState())
    assert value.shape == (0, 3, 0)
    stored = np.ones((4, 3, 2), np.float32)
    np.testing.assert_array_equal(op.evaluate([], state=FakeState({"v": stored}))[0], stored)
    with pytest.raises(ValueError, match="its zeros need a known rank and type"):
        bare_op(ReadValue6, _attributes("...", "f32")).evaluate([], state=FakeState())


def test_read_value_without_a_state_does_not_run():
    op = bare_op(ReadValue3, {"variable_id": "v"})
    with pytest.raises(NotImplementedError, match="needs the executor's variable state"):
        op.evaluate([np.zeros(2)])


@pytest.mark.parametrize(
    "data, init, code, fragment",
    [
        ({"variable_type": "f32", "variable_shape": "2,3..4"}, ("2,3..5", "f32"), "input-dims",
         "variable 'v' is declared [2,3..4] (variable_shape), which does not hold the initial "
         "value's shape [2,3..5]"),
        ({"variable_type": "f32", "variable_shape": "2"}, ("2,3", "f32"), "input-dims",
         "which does not hold the initial value's shape [2,3]"),
        ({"variable_type": "i64", "variable_shape": "..."}, ("2,3", "i32"), "input-type",
         "the initial value is i32, but variable 'v' is declared i64 (variable_type)"),
    ],
)  # fmt: skip
def test_read_value_6_errors_are_reported(data, init, code, fragment):
    net = Net()
    x = net.param("x", *init)
    out = net.op("rv", "ReadValue", "opset6", {"variable_id": "v", **data}, [x], [2, 3])
    net.result(out)
    found = diagnostic(validated(net).errors, code)
    assert fragment in found.message, found.message
    assert found.line == line_of(net.text(), '<port id="0"', within="rv")


def _kv_cache(initialised: bool):
    """The KV-cache pattern of converted LLMs: a variable ``[?,2,?,4]`` (``[1,2,?,4]`` without
    an initial value), initialised by a Broadcast of zeros to ``[batch, 2, 0, 4]`` (batch read
    by ShapeOf) or starting empty, concatenated with the new entries along axis 2 and assigned
    back; the Result is the whole cache."""
    import openvino.opset1 as opset1
    import openvino.opset8 as opset8

    x = parameter("[?,2,?,4]" if initialised else "[1,2,?,4]", name="x")
    if initialised:
        batch = opset8.gather(opset3.shape_of(x), opset1.constant(np.array([0])),
                              opset1.constant(np.array(0)))  # fmt: skip
        target = opset1.concat([batch, opset1.constant(np.array([2, 0, 4]))], 0)
        zeros = opset3.broadcast(opset1.constant(np.float32(0)), target)
        variable = _variable("cache", "[?,2,?,4]", "f32")
        reader = opset6.read_value(zeros, variable)
    else:
        variable = _variable("cache", "[1,2,?,4]", "f32")
        reader = opset6.read_value(variable)
    cache = opset1.concat([reader, x], 2)
    writer = opset6.assign(cache, variable)
    return ov.Model([opset1.result(cache)], [writer], [x], "kv")


def _grow(run, reset):
    """The cache after runs adding 1, 2, 1 entries, a reset and 3 entries; each run's output
    checked against the entries fed since the last reset."""
    rng = np.random.default_rng(0)
    fed = []
    for steps in (1, 2, 1, "reset", 3):
        if steps == "reset":
            reset()
            fed = []
            continue
        feed = rng.standard_normal((1, 2, steps, 4)).astype(np.float32)
        fed.append(feed)
        got = run(feed)
        np.testing.assert_array_equal(got, np.concatenate(fed, axis=2))
    assert got.shape == (1, 2, 3, 4)


@pytest.mark.parametrize("initialised", [False, True])
def test_a_growing_kv_cache_keeps_every_entry(initialised, tmp_path):
    import irrun
    from tests.helpers.openvino_oracle import save

    model = _kv_cache(initialised)
    check_shapes(model)
    loaded = irrun.load(save(model, tmp_path))
    _grow(lambda x: next(iter(loaded.run({"x": x}).values())), loaded.reset_state)


def test_a_growing_kv_cache_matches_openvino():
    """OpenVINO's CPU plugin, on the cache that starts empty (it refuses to compile the
    Broadcast-initialised one: "Invalid graph status")."""
    request = ov.Core().compile_model(_kv_cache(False), "CPU",
                                      {"INFERENCE_PRECISION_HINT": "f32"})  # fmt: skip
    request = request.create_infer_request()
    _grow(lambda x: request.infer({"x": x})[0], request.reset_state)
