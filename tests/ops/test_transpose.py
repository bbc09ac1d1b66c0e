"""Transpose-1: shapes against OpenVINO (constant, empty and unknown orders), the kernel against
the CPU plugin, reported errors."""

from __future__ import annotations

import numpy as np
import openvino.opset1 as ops
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

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
from tests.helpers.strategies import op_settings, validated

DIMS = ["1", "2", "3", "?", "2..5", "..4", "3.."]


@op_settings(30)
@given(st.lists(st.sampled_from(DIMS), max_size=4), st.data())
def test_transpose_shapes_match_openvino(dims, data):
    x = parameter("[" + ",".join(dims) + "]", "f32", name="x")
    order = data.draw(st.permutations(range(len(dims))))
    assume(order)
    check_shapes(ops.transpose(x, constant(np.array(order, np.int64), "i64")))


def test_transpose_empty_order_reverses():
    """An empty order (written as a [0] Const) reverses the dims."""
    net = Net()
    x = net.param("x", "2,?,4")
    net.result(net.op("t", "Transpose", "opset1", None,
                      [x, net.const("o", np.zeros(0, np.int64))], [4, -1, 2]))  # fmt: skip
    report = validated(net)
    assert not list(report), report.to_text()


@pytest.mark.parametrize("shape", ["[2,?,4]", "[...]"])
@pytest.mark.parametrize("order_shape", ["[3]", "[?]", "[...]"])
def test_transpose_unknown_order(shape, order_shape):
    x = parameter(shape, "f32", name="x")
    order = parameter(order_shape, "i64", name="order")
    check_shapes(ops.transpose(x, order))


def test_transpose_of_dynamic_rank_with_constant_order():
    x = parameter("[...]", "f32", name="x")
    check_shapes(ops.transpose(x, constant(np.array([1, 0, 2], np.int64))))


@pytest.mark.parametrize("etype", ["f32", "f16", "i32", "i64", "u8", "boolean"])
def test_transpose_kernel_matches_openvino(etype):
    rng = np.random.default_rng(9)
    x = parameter("[2,3,4,5]", etype, name="x")
    model = model_of(
        ops.transpose(x, constant(np.array([0, 2, 3, 1], np.int64))),
        ops.transpose(x, constant(np.array([3, 1, 0, 2], np.int32))),
    )
    value = rng.normal(size=(2, 3, 4, 5)) * 50
    value = value > 0 if etype == "boolean" else value.astype(x.get_element_type().to_dtype())
    expected = run_openvino(model, {"x": value})
    actual = run_irrun(model, {"x": value})
    for a, e in zip(actual, expected):
        assert a.dtype == e.dtype and a.flags.c_contiguous
        np.testing.assert_array_equal(a, e)


def _net(order, out_dims):
    net = Net()
    x = net.param("x", "2,3,4")
    net.result(net.op("t", "Transpose", "opset1", None, [x, net.const("o", np.array(order))],
                      out_dims))  # fmt: skip
    return net


def test_transpose_bad_orders_are_reported():
    check_rejected(lambda: ops.transpose(parameter([2, 3, 4]), constant(np.array([0, 0, 1]))))
    net = _net([0, 0, 1], [2, 2, 3])
    (error,) = validated(net).errors
    assert error.code == "input-value" and "[0, 0, 1] is not a permutation of 0..2" in error.message
    assert error.line == line_of(net.text(), '<port id="1"', within="t")
    check_rejected(lambda: ops.transpose(parameter([2, 3, 4]), constant(np.array([-1, 0, 1]))))
    (error,) = validated(_net([-1, 0, 1], [4, 2, 3])).errors
    assert error.code == "input-value"
    check_rejected(lambda: ops.transpose(parameter([2, 3, 4]), constant(np.array([1, 0]))))
    (error,) = validated(_net([1, 0], [3, 2])).errors
    assert error.code == "input-dims" and "order has 2 elements, but the input" in error.message


def test_transpose_unknown_attribute_is_warned():
    net = _net([2, 1, 0], [4, 3, 2])
    text = net.text().replace(
        'type="Transpose" version="opset1">', 'type="Transpose" version="opset1">\n<data ordr="1"/>'
    )
    (warning,) = list(validated(net, text))
    assert warning.code == "unknown-attribute" and "Transpose-1 has no attributes" in warning.hint
