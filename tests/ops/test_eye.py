"""Eye-9: shapes against OpenVINO (constants, ShapeOf intervals, unknown values), the kernel
against the CPU plugin (exact), reported errors."""

from __future__ import annotations

import numpy as np
import openvino.opset9 as opset9
import pytest
from hypothesis import given
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
from tests.helpers.strategies import built, op_settings, validated

VALUE_KINDS = st.sampled_from(["const", "param", "shape_of"])


def _value(kind, value, name):
    if kind == "const":
        return constant(value, "i64")
    if kind == "param":
        return parameter([], "i64", name=name)
    dim = f"{value}..{value + 3}"
    return opset9.gather(opset9.shape_of(parameter(f"[{dim}]", name=name)), constant(0, "i64"),
                         constant(0, "i64"))  # fmt: skip


@op_settings(30)
@given(VALUE_KINDS, VALUE_KINDS, st.integers(0, 4), st.integers(0, 4), st.integers(-3, 3),
       st.sampled_from([None, "const", "param", "param?", "shape_of", "negative"]),
       st.sampled_from(["f32", "i32", "boolean"]))  # fmt: skip
def test_shapes_match_openvino(rows_kind, columns_kind, rows, columns, diagonal, batch, etype):
    inputs = [_value(rows_kind, rows, "r"), _value(columns_kind, columns, "c"),
              constant(diagonal, "i64")]  # fmt: skip
    if batch == "const":
        inputs.append(constant([2, 3], "i64"))
    elif batch == "negative":
        inputs.append(constant([2, -1, -4], "i64"))
    elif batch == "param":
        inputs.append(parameter([2], "i64", name="b"))
    elif batch == "param?":
        inputs.append(parameter("[?]", "i64", name="b"))
    elif batch == "shape_of":
        inputs.append(opset9.shape_of(parameter("[2,1..4]", name="b")))
    check_shapes(built(lambda: opset9.eye(*inputs[:3], etype, *inputs[3:])))


@pytest.mark.parametrize("etype", ["f32", "i32", "u8"])
@pytest.mark.parametrize("rows, columns, diagonal, batch", [
    (3, 4, 0, None), (4, 3, 1, None), (3, 5, -2, [2]), (2, 2, 5, [2, 3]), (0, 3, 0, None),
    (3, 3, -4, [1]),
])  # fmt: skip
def test_kernel_matches_cpu_plugin(rows, columns, diagonal, batch, etype):
    names = ["r", "c", "d"] + (["b"] if batch is not None else [])
    values = [np.array(rows), np.array(columns), np.array(diagonal)]
    shapes = [[], [], []]
    if batch is not None:
        values.append(np.array(batch))
        shapes.append([len(batch)])
    params = [parameter(s, "i64", name=n) for s, n in zip(shapes, names)]
    model = model_of(opset9.eye(*params[:3], etype, *params[3:]))
    feed = dict(zip(names, [v.astype(np.int64) for v in values]))
    got, expected = run_irrun(model, feed)[0], run_openvino(model, feed)[0]
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)


def _net(rows, rows_shape=None):
    net = Net()
    r = net.const("r", np.array(rows, np.int64).reshape(rows_shape or np.shape(rows)))
    c, d = net.const("c", np.array(3, np.int64)), net.const("d", np.array(0, np.int64))
    out = net.op("e", "Eye", "opset9", {"output_type": "f32"}, [r, c, d], [3, 3], "FP32")
    net.result(out)
    return net


def test_negative_rows_are_reported():
    check_rejected(lambda: opset9.eye(constant(-1, "i64"), constant(3, "i64"),
                                      constant(0, "i64"), "f32"))  # fmt: skip
    net = _net(-1)
    (error,) = validated(net).errors
    assert error.code == "input-value" and "num_rows must not be negative" in error.message
    assert error.line == line_of(net.text(), '<port id="0"', within="e")


def test_two_rows_values_are_reported():
    check_rejected(lambda: opset9.eye(constant([3, 3], "i64"), constant(3, "i64"),
                                      constant(0, "i64"), "f32"))  # fmt: skip
    (error,) = validated(_net([3, 3])).errors
    assert error.code == "input-rank" and "num_rows must be a scalar or [1]" in error.message
