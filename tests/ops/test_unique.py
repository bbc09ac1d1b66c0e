"""Unique-10: shapes against OpenVINO, the kernel against the CPU plugin (exact), reported
errors."""

from __future__ import annotations

import numpy as np
import openvino.opset10 as opset10
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irrun.ops.unique import Unique
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


@op_settings(40)
@given(shape_text(max_rank=4), st.one_of(st.none(), st.integers(-4, 3)), st.booleans(),
       st.booleans(), st.sampled_from(["i32", "i64"]), st.sampled_from(["i32", "i64"]))  # fmt: skip
def test_shapes_match_openvino(shape, axis, as_list, is_sorted, index_type, count_type):
    data = parameter(shape, "f32", name="x")
    kwargs = {"sorted": is_sorted, "index_element_type": index_type,
              "count_element_type": count_type}  # fmt: skip
    if axis is None:
        check_shapes(opset10.unique(data, **kwargs))
    else:
        axis_node = constant([axis] if as_list else axis, "i64")
        check_shapes(built(lambda: opset10.unique(data, axis_node, **kwargs)))


def test_constant_data_is_folded_to_exact_shapes():
    node = opset10.unique(constant([1.0, 2.0, 2.0, 3.0, 1.0], "f32"))
    check_shapes(node)
    assert [str(o.get_partial_shape()) for o in node.outputs()] == ["[3]", "[3]", "[5]", "[3]"]


DATA = [
    np.array([3, 1, 2, 3, 1, 1, 5], np.float32),
    np.array([[1, 2, 1], [3, 4, 3], [1, 2, 1], [0, 0, 0]], np.float32),
    np.array([[[2, 1], [2, 1]], [[0, 5], [0, 5]], [[2, 1], [2, 1]]], np.float32),
    np.array([[7.0]], np.float32),
]


CASES = [(i, axis) for i, d in enumerate(DATA) for axis in (None, 0, 1, -1)
         if axis is None or -d.ndim <= axis < d.ndim]  # fmt: skip


@pytest.mark.parametrize("is_sorted", [True, False])
@pytest.mark.parametrize("index, axis", CASES)
def test_kernel_matches_cpu_plugin(index, axis, is_sorted):
    data = DATA[index]
    x = parameter(data.shape, name="x")
    node = (opset10.unique(x, sorted=is_sorted) if axis is None
            else opset10.unique(x, constant(axis, "i64"), sorted=is_sorted))  # fmt: skip
    model = model_of(node)
    got, expected = run_irrun(model, {"x": data}), run_openvino(model, {"x": data})
    for mine, theirs in zip(got, expected):
        assert mine.dtype == theirs.dtype
        np.testing.assert_array_equal(mine, theirs)


@pytest.mark.parametrize("etype", ["i32", "u8", "boolean"])
def test_other_types_match_cpu_plugin(etype):
    data = np.array([[1, 0, 1], [0, 0, 1], [1, 0, 1]]).astype(np.dtype(
        {"i32": np.int32, "u8": np.uint8, "boolean": bool}[etype]))  # fmt: skip
    model = model_of(opset10.unique(parameter([3, 3], etype, name="x"), constant(0, "i64"),
                                    index_element_type="i32"))  # fmt: skip
    for mine, theirs in zip(run_irrun(model, {"x": data}), run_openvino(model, {"x": data})):
        np.testing.assert_array_equal(mine, theirs)


def test_unsorted_keeps_first_occurrence_order():
    op = bare_op(Unique, {"sorted": "false"})
    values, first, inverse, counts = op.evaluate([np.array([5, 3, 5, 1, 3], np.int32)])
    assert values.tolist() == [5, 3, 1] and first.tolist() == [0, 1, 3]
    assert inverse.tolist() == [0, 1, 0, 2, 1] and counts.tolist() == [2, 2, 1]


def _net(axis_values, axis_type=np.int64, data=None):
    net = Net()
    x = net.param("x", "2,3")
    a = net.const("a", np.array(axis_values, axis_type))
    outs = [[-1, 3], [-1], [-1], [-1]]
    net.result(net.op("u", "Unique", "opset10", data or {"sorted": "true"}, [x, a], outs[0]))
    return net


def test_axis_out_of_range_is_reported():
    check_rejected(lambda: opset10.unique(parameter([2, 3]), constant(2, "i64")))
    net = _net(2)
    errors = validated(net).errors
    assert (
        errors[0].code == "axis-range" and "axis 2 is out of the range [-2, 1]" in errors[0].message
    )
    assert errors[0].line == line_of(net.text(), '<port id="1"', within="u")


def test_axis_of_two_elements_and_float_axis_are_reported():
    check_rejected(lambda: opset10.unique(parameter([2, 3]), constant([0, 1], "i64")))
    errors = validated(_net([0, 1])).errors
    assert errors[0].code == "input-rank" and "hold one element" in errors[0].message
    errors = validated(_net(0, np.float32)).errors
    assert errors[0].code == "index-type" and "must be i32 or i64" in errors[0].message


def test_bad_index_element_type_is_reported():
    check_rejected(lambda: opset10.unique(parameter([2, 3]), index_element_type="f32"))
    net = _net(0, data={"index_element_type": "f32"})
    errors = validated(net).errors
    assert errors[0].code == "attribute-value" and "index_element_type f32" in errors[0].message
