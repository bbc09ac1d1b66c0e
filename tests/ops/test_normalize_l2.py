"""NormalizeL2-1: shapes against OpenVINO, the kernel against the CPU plugin (rtol=1e-5,
atol=1e-6), reported errors."""

from __future__ import annotations

import numpy as np
import openvino.opset1 as opset1
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irrun.ops.normalize_l2 import NormalizeL2
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
from tests.helpers.strategies import bare_op, built, op_settings, shape_text, validated


@op_settings(30)
@given(shape_text(max_rank=4), st.lists(st.integers(-4, 3), min_size=1, max_size=3),
       st.booleans(), st.sampled_from(["add", "max"]),
       st.sampled_from(["f32", "f16", "i32"]))  # fmt: skip
def test_shapes_match_openvino(shape, axes, scalar, mode, etype):
    axes_node = constant(axes[0] if scalar else axes, "i64")
    data = parameter(shape, etype, name="x")
    check_shapes(built(lambda: opset1.normalize_l2(data, axes_node, 1e-6, mode)))


def test_axes_that_are_not_constant_are_accepted():
    node = opset1.normalize_l2(parameter([2, 3], name="x"), parameter([1], "i64", name="a"),
                               1e-6, "add")  # fmt: skip
    check_shapes(node)


@pytest.mark.parametrize("mode, eps", [("add", 1e-6), ("max", 1e-6), ("add", 0.5), ("max", 30.0)])
@pytest.mark.parametrize("shape, axes", [([2, 3, 4, 5], [1]), ([2, 3, 4, 5], [2, 3]),
                                         ([2, 3, 4, 5], [-1, 1, 1]), ([6, 7], [0, 1]),
                                         ([3, 4, 5], [0])])  # fmt: skip
def test_kernel_matches_cpu_plugin(shape, axes, mode, eps):
    rng = np.random.default_rng(len(shape) + len(axes))
    data = rng.normal(size=shape).astype(np.float32)
    data.reshape(-1)[:3] = 0.0
    model = model_of(opset1.normalize_l2(parameter(shape, name="x"), constant(axes, "i64"), eps,
                                         mode))  # fmt: skip
    got, expected = run_irrun(model, {"x": data})[0], run_openvino(model, {"x": data})[0]
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def test_empty_axes_divide_each_element_by_itself():
    op = bare_op(NormalizeL2, {"eps": "1e-6", "eps_mode": "add"})
    (got,) = op.evaluate([np.array([[0.0, -2.5], [3.0, 0.0]], np.float32),
                          np.zeros(0, np.int64)])  # fmt: skip
    np.testing.assert_array_equal(got, [[0, 1], [1, 0]])


def test_known_values():
    op = bare_op(NormalizeL2, {"eps": "1", "eps_mode": "max"})
    (got,) = op.evaluate([np.array([[3.0, 4.0], [0.3, 0.4]], np.float32), np.array(1)])
    # the first row's norm is 5; the second row's sum of squares 0.25 is below eps 1
    np.testing.assert_allclose(got, [[0.6, 0.8], [0.3, 0.4]], rtol=1e-7)


def _net(data_shape, axes, data=None):
    net = Net()
    x = net.param("x", data_shape)
    a = net.const("a", np.array(axes, np.int64))
    out = [int(d) for d in data_shape.split(",")]
    net.result(net.op("n", "NormalizeL2", "opset1", data or {"eps": "1e-6", "eps_mode": "add"},
                      [x, a], out))  # fmt: skip
    return net


def test_axis_out_of_range_is_reported():
    check_rejected(lambda: opset1.normalize_l2(parameter([2, 3]), constant([2], "i64"), 1e-6,
                                               "add"))  # fmt: skip
    net = _net("2,3", [2])
    (error,) = validated(net).errors
    assert error.code == "axis-range" and "axis 2 is out of the range [-2, 1]" in error.message
    assert error.line == line_of(net.text(), '<port id="1"', within="n")


def test_axes_of_rank_2_are_reported():
    check_rejected(lambda: opset1.normalize_l2(parameter([2, 3]), constant([[1]], "i64"), 1e-6,
                                               "add"))  # fmt: skip
    (error,) = validated(_net("2,3", [[1]])).errors
    assert error.code == "input-rank" and "axes must be a scalar or 1-D" in error.message


def test_bad_eps_mode_is_reported():
    net = _net("2,3", [1], {"eps": "1e-6", "eps_mode": "sum"})
    (error,) = validated(net).errors
    assert error.code == "attribute-value" and "one of add, max" in error.message
