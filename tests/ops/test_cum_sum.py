"""CumSum-3: shapes against OpenVINO, kernel against the CPU plugin, reported errors."""

from __future__ import annotations

import numpy as np
import openvino.opset3 as opset3
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irrun.element_types import element_type
from irrun.ops.cum_sum import CumSum
from tests.helpers.ir_text import Net, line_of
from tests.helpers.openvino_oracle import (
    check_rejected,
    check_shapes,
    constant,
    model_of,
    parameter,
    run_irrun,
    run_openvino,
)
from tests.helpers.strategies import bare_op, op_settings, shape_text, validated


@op_settings(30)
@given(shape_text(), st.sampled_from(["f32", "i32", "u8", "boolean"]),
       st.sampled_from(["i32", "i64", "param"]), st.booleans(), st.booleans())  # fmt: skip
def test_cum_sum_shapes_match_openvino(shape, etype, axis_type, exclusive, reverse):
    x = parameter(shape, etype, name="x")
    if axis_type == "param":
        node = opset3.cumsum(x, parameter([], "i64", name="a"), exclusive, reverse)
    else:
        node = opset3.cumsum(x, constant(np.array(-1), axis_type), exclusive, reverse)
    check_shapes(node)


@pytest.mark.parametrize("etype", ["f32", "f16", "i32", "i64", "i8", "u8", "boolean"])
@pytest.mark.parametrize("exclusive, reverse", [(False, False), (True, False), (False, True),
                                                (True, True)])  # fmt: skip
@pytest.mark.parametrize("shape, axis", [([7], 0), ([3, 5], 1), ([2, 4, 3], -3), ([2, 3, 4], 2)])
def test_cum_sum_matches_cpu_plugin(shape, axis, exclusive, reverse, etype):
    dtype = element_type(etype).numpy_dtype
    rng = np.random.default_rng(7)
    if etype in ("f32", "f16"):
        data = rng.standard_normal(shape).astype(dtype)
    else:
        data = rng.integers(0, 2 if etype == "boolean" else 100, shape).astype(dtype)
    node = opset3.cumsum(parameter(shape, etype, name="x"), constant(np.array(axis, np.int32)),
                         exclusive, reverse)  # fmt: skip
    model = model_of(node)
    expected = run_openvino(model, {"x": data})[0]
    got = run_irrun(model, {"x": data})[0]
    assert got.dtype == dtype and got.shape == expected.shape
    if etype == "f32":
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)
    else:
        np.testing.assert_array_equal(got, expected)


def test_cum_sum_without_axis_sums_along_axis_0():
    net = Net()
    net.result(net.op("c", "CumSum", "opset3", None, [net.param("x", "2,3")], [2, 3]))
    assert not list(validated(net))
    op = bare_op(CumSum, name="c")
    (got,) = op.evaluate([np.arange(6, dtype=np.float32).reshape(2, 3)])
    np.testing.assert_array_equal(got, [[0, 1, 2], [3, 5, 7]])


def _cum_sum_net(axis, data=None):
    net = Net()
    inputs = [net.param("x", "2,3"), net.const("a", axis)]
    net.result(net.op("c", "CumSum", "opset3", data, inputs, [2, 3]))
    return net


def test_cum_sum_axis_type_is_reported():
    check_rejected(lambda: opset3.cumsum(parameter([2, 3]), constant(np.int8(1))))
    net = _cum_sum_net(np.int8(1))
    (error,) = validated(net).errors
    assert error.code == "index-type" and "axis must be i32 or i64, but input 1 is i8" in (
        error.message
    )
    assert error.line == line_of(net.text(), '<port id="1"', within="c")


def test_cum_sum_unknown_attribute_is_warned():
    net = _cum_sum_net(np.int64(1), data={"exclusiv": "true"})
    (warning,) = list(validated(net))
    assert warning.code == "unknown-attribute" and "did you mean exclusive?" in warning.hint
