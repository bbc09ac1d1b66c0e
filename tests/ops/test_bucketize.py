"""Bucketize-3: shapes against OpenVINO, the kernel against the CPU plugin (exact), reported
errors."""

from __future__ import annotations

import numpy as np
import openvino.opset3 as opset3
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.helpers.ir_text import Net, line_of
from tests.helpers.openvino_oracle import (
    check_rejected,
    check_shapes,
    model_of,
    parameter,
    run_irrun,
    run_openvino,
)
from tests.helpers.strategies import built, op_settings, shape_text, validated


@op_settings(30)
@given(shape_text(max_rank=4), shape_text(max_rank=1, min_rank=1, dynamic_rank=6),
       st.sampled_from(["i32", "i64"]), st.booleans(), st.sampled_from(["f32", "i32"]))  # fmt: skip
def test_shapes_match_openvino(data_shape, buckets_shape, output_type, right, buckets_type):
    data = parameter(data_shape, "f32", name="x")
    buckets = parameter(buckets_shape, buckets_type, name="b")
    check_shapes(built(lambda: opset3.bucketize(data, buckets, output_type, right)))


@pytest.mark.parametrize("right", [True, False])
@pytest.mark.parametrize("data_type, buckets_type", [("f32", "f32"), ("f32", "i32"),
                                                     ("i32", "i64"), ("i64", "f32")])  # fmt: skip
def test_kernel_matches_cpu_plugin(data_type, buckets_type, right):
    dtypes = {"f32": np.float32, "i32": np.int32, "i64": np.int64}
    data = np.array([[-5, 0, 1, 2, 3], [4, 5, 9, 10, 11]]).astype(dtypes[data_type])
    buckets = np.array([0, 2, 2, 5, 10]).astype(dtypes[buckets_type])
    model = model_of(opset3.bucketize(parameter(data.shape, data_type, name="x"),
                                      parameter(buckets.shape, buckets_type, name="b"),
                                      "i32", right))  # fmt: skip
    feed = {"x": data, "b": buckets}
    got, expected = run_irrun(model, feed)[0], run_openvino(model, feed)[0]
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, expected)


def test_bounds():
    from irrun.ops.bucketize import Bucketize
    from tests.helpers.strategies import bare_op

    data, buckets = np.array([1.0, 2.0, 2.5]), np.array([1.0, 2.0])
    (got,) = bare_op(Bucketize, {}).evaluate([data, buckets])
    assert got.tolist() == [0, 1, 2]  # (-inf, 1], (1, 2], (2, inf)
    (got,) = bare_op(Bucketize, {"with_right_bound": "false"}).evaluate([data, buckets])
    assert got.tolist() == [1, 2, 2]  # (-inf, 1), [1, 2), [2, inf)
    (got,) = bare_op(Bucketize, {}).evaluate([data, np.zeros(0)])
    assert got.tolist() == [0, 0, 0]


def test_buckets_of_rank_2_are_reported():
    check_rejected(lambda: opset3.bucketize(parameter([2]), parameter([2, 1])))
    net = Net()
    out = net.op("k", "Bucketize", "opset3", {"output_type": "i64"},
                 [net.param("x", "2"), net.param("b", "2,1")], [2], "I64")  # fmt: skip
    net.result(out)
    (error,) = validated(net).errors
    assert error.code == "input-rank" and "the buckets must be 1-D" in error.message
    assert error.line == line_of(net.text(), '<port id="1"', within="k")
