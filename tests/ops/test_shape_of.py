"""ShapeOf-1 and ShapeOf-3: shapes against OpenVINO, constant and partial values, the kernel
against the CPU plugin, reported errors."""

from __future__ import annotations

import numpy as np
import openvino.opset1 as ops1
import openvino.opset3 as ops3
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irrun.element_types import element_type
from irrun.ops.base import TensorInfo
from irrun.ops.shape_of import ShapeOf3
from irrun.shape import Dim, Shape
from tests.helpers.ir_text import Net
from tests.helpers.openvino_oracle import (
    check_shapes,
    constant,
    model_of,
    parameter,
    run_irrun,
    run_openvino,
)
from tests.helpers.strategies import bare_op, diagnostic, op_settings, shape_text, validated

DIMS = ["0", "1", "3", "?", "2..5", "..4", "3.."]


@op_settings(30)
@given(shape_text(st.sampled_from(DIMS), dynamic_rank=2), st.sampled_from(["v1", "i64", "i32"]))
def test_shape_of_shapes_match_openvino(shape, version):
    x = parameter(shape, "f32", name="x")
    node = ops1.shape_of(x) if version == "v1" else ops3.shape_of(x, version)
    check_shapes(node)


def test_shape_of_values():
    op = bare_op(ShapeOf3)
    (static,) = op.infer([TensorInfo(Shape.parse("2,0,3"), element_type("f32"))])
    assert static.value.tolist() == [2, 0, 3] and static.value.dtype == np.int64
    (partial,) = op.infer([TensorInfo(Shape.parse("2,?,1..4"), element_type("f32"))])
    assert partial.value is None and partial.partial == (2, Dim.dynamic(), Dim.interval(1, 4))
    (scalar,) = op.infer([TensorInfo(Shape(()), element_type("f32"))])
    assert scalar.shape == Shape([0]) and scalar.value.shape == (0,)


def test_shape_of_feeds_a_reshape_of_a_dynamic_model():
    """The usual exported sub-graph (shape-ops.md §1): x [1..8,3,4,5] reshaped to
    [d0 * d1, d2 * d3] via ShapeOf, Gather, Multiply, ReduceProd and Concat gives [3..24,20]."""
    x = parameter("[1..8,3,4,5]", "f32", name="x")
    shape = ops3.shape_of(x, "i64")
    first = ops1.gather(shape, constant(np.array([0, 1], np.int64)), constant(np.int64(0)))
    last = ops1.gather(shape, constant(np.array([2, 3], np.int64)), constant(np.int64(0)))
    target = ops1.concat(
        [
            ops1.reduce_prod(first, constant(np.array([0], np.int64)), True),
            ops1.reduce_prod(last, constant(np.array([0], np.int64)), True),
        ],
        0,
    )
    node = ops1.reshape(x, target, True)  # fmt: skip
    assert str(node.get_output_partial_shape(0)) == "[3..24,20]"
    check_shapes(node)
    # [d0, -1]: OpenVINO multiplies intervals (60 * 1..8 / 1..8 = 8..480); irrun knows that d0
    # is x's own first dimension and cancels it, as OpenVINO's symbols do later in its pipeline.
    flat = ops1.reshape(x, ops1.concat([ops1.gather(shape, constant(np.array([0])),
                        constant(np.int64(0))), constant(np.array([-1]))], 0), False)  # fmt: skip
    assert str(flat.get_output_partial_shape(0)) == "[1..8,8..480]"
    loaded = check_shapes(flat, narrower=("Reshape",))
    assert str(loaded.layer(flat.get_friendly_name()).outputs[0].inferred_shape) == "[1..8,60]"


@pytest.mark.parametrize("output_type", ["i64", "i32"])
def test_shape_of_kernel_matches_openvino(output_type):
    x = parameter("[?,3,?]", "f32", name="x")
    model = model_of(ops3.shape_of(x, output_type), ops1.shape_of(x))
    value = np.zeros((2, 3, 5), np.float32)
    expected = run_openvino(model, {"x": value})
    actual = run_irrun(model, {"x": value})
    for a, e in zip(actual, expected):
        assert a.dtype == e.dtype
        np.testing.assert_array_equal(a, e)


def test_shape_of_bad_output_type_is_reported():
    net = Net()
    x = net.param("x", "2,3")
    net.result(net.op("s", "ShapeOf", "opset3", {"output_type": "f32"}, [x], [2], "I64"))
    error = diagnostic(validated(net, net.text()).errors, "attribute-value")
    assert "output_type f32 is not allowed" in error.message


def test_shape_of1_attribute_is_warned():
    net = Net()
    x = net.param("x", "2,3")
    net.result(net.op("s", "ShapeOf", "opset1", {"output_type": "i32"}, [x], [2], "I64"))
    (warning,) = list(validated(net, net.text()))
    assert warning.code == "unknown-attribute" and "ShapeOf-3 and later" in warning.hint


def test_only_the_measured_tensor_cancels_out_of_a_reshape():
    """Two inputs of the same declared shape are different tensors: a dimension ShapeOf read
    from y says nothing about x's (irrun gives ?, like OpenVINO)."""
    x = parameter("[?,4,5]", "f32", name="x")
    y = parameter("[?,4,5]", "f32", name="y")
    first = ops1.gather(ops3.shape_of(y, "i64"), constant(np.array([0])), constant(np.int64(0)))
    node = ops1.reshape(x, ops1.concat([first, constant(np.array([-1]))], 0), False)
    loaded = check_shapes(node)
    assert str(loaded.layer(node.get_friendly_name()).outputs[0].inferred_shape) == "[?,?]"
