"""SparseFillEmptyRows-16: shapes against OpenVINO (constant and unknown dense_shape and
indices), values against the CPU plugin, reported errors."""

from __future__ import annotations

import numpy as np
import openvino.opset16 as opset16
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irrun.errors import IRError
from irrun.ops.sparse_fill_empty_rows import SparseFillEmptyRows
from tests.helpers.openvino_oracle import (
    check_shapes,
    constant,
    model_of,
    parameter,
    run_irrun,
    run_openvino,
)
from tests.helpers.strategies import (
    bare_op,
    built,
    const_info,
    dim_text,
    op_settings,
    shape_text,
)

DIM = dim_text(st.integers(0, 5))


# Most drawn combinations are refused by OpenVINO (and skipped): allow the filtering.
@op_settings(40, rejects_many=True)
@given(
    st.one_of(shape_text(DIM, min_rank=1, max_rank=1), shape_text(DIM, max_rank=2)),
    st.one_of(st.none(), st.sampled_from(["[2]", "[?]", "[...]", "[1..3]"]), shape_text(DIM)),
    st.one_of(DIM.map(lambda d: f"[{d},2]"), st.just("[...]"), shape_text(DIM, max_rank=3)),
    st.sampled_from([[], [1]]),
    st.sampled_from(["i32", "i64"]),
)
def test_sparse_fill_empty_rows_shapes_match_openvino(values_shape, dense_shape, indices_shape,
                                                      default_shape, index_type):  # fmt: skip
    values = parameter(values_shape, "f32", name="v")
    dense = (constant(np.array([4, 5]), index_type) if dense_shape is None
             else parameter(dense_shape, index_type, name="d"))  # fmt: skip
    indices = parameter(indices_shape, index_type, name="i")
    default = constant(np.zeros(default_shape, np.float32))
    check_shapes(built(lambda: opset16.sparse_fill_empty_rows(values, dense, indices, default)))


@pytest.mark.parametrize("index_type", ["i32", "i64"])
@pytest.mark.parametrize(
    "pairs, dense_shape",
    [([[0, 1], [0, 3], [2, 0], [2, 2]], [4, 5]), ([[3, 0]], [6, 2]), ([[1, 1], [0, 0]], [2, 2])],
)
def test_shapes_with_constant_indices_count_the_empty_rows(pairs, dense_shape, index_type):
    values = parameter([len(pairs)], "f32", name="v")
    node = opset16.sparse_fill_empty_rows(values, constant(np.array(dense_shape), index_type),
                                          constant(np.array(pairs), index_type),
                                          constant(np.float32(-1)))  # fmt: skip
    check_shapes(node)


@pytest.mark.parametrize("etype, dtype", [("f32", np.float32), ("i32", np.int32), ("u8", np.uint8)])
@pytest.mark.parametrize(
    "pairs, dense_shape",
    [([[0, 1], [2, 3], [2, 0], [5, 2]], [7, 4]), ([[1, 1]], [3, 3]), ([[1, 1], [0, 0]], [2, 2]),
     ([[4, 2], [0, 1], [4, 0], [3, 3], [0, 0]], [9, 5])],
)  # fmt: skip
def test_sparse_fill_empty_rows_matches_cpu_plugin(pairs, dense_shape, etype, dtype):
    pairs = np.array(pairs, np.int64)
    values = (np.arange(len(pairs)) * 3 + 1).astype(dtype)
    params = [parameter([len(pairs)], etype, name="v"), parameter([2], "i64", name="d"),
              parameter(list(pairs.shape), "i64", name="i")]  # fmt: skip
    node = opset16.sparse_fill_empty_rows(*params, constant(np.array(9, dtype)))
    model = model_of(node)
    feed = {"v": values, "d": np.array(dense_shape, np.int64), "i": pairs}
    expected = run_openvino(model, feed)
    got = run_irrun(model, feed)
    for g, e in zip(got, expected):
        assert g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_array_equal(g, e)


def _infer(values, dense, pairs):
    op = bare_op(SparseFillEmptyRows)
    return op.infer([const_info(values, "f32"), const_info(dense), const_info(pairs),
                     const_info(0.0, "f32")])  # fmt: skip


def test_reports_an_index_out_of_bounds():
    with pytest.raises(IRError, match=r"row 5 is outside the valid range \[0, 3\] of dense_shape"):
        _infer([1.0, 2.0], [4, 4], [[0, 0], [5, 1]])


def test_reports_indices_of_another_type():
    from irrun.element_types import element_type
    from irrun.ops.base import TensorInfo
    from irrun.shape import Shape

    op = bare_op(SparseFillEmptyRows)
    f32 = element_type("f32")
    with pytest.raises(IRError, match="indices and dense_shape must be of one type, i32 or i64"):
        pairs = TensorInfo(Shape.parse("2,2"), element_type("i32"))
        op.infer([TensorInfo(Shape.parse("2"), f32), const_info([4, 4]), pairs,
                  const_info(0.0, "f32")])  # fmt: skip


def test_reports_indices_not_matching_the_values():
    with pytest.raises(
        IRError, match=r"indices must be \[N, 2\] with N the number of values \[3\]"
    ):
        _infer([1.0, 2.0, 3.0], [4, 4], [[0, 0], [1, 1]])


def test_kernel_reports_an_index_out_of_bounds():
    op = bare_op(SparseFillEmptyRows)
    with pytest.raises(ValueError, match=r"column 7 is outside the valid range \[0, 2\]"):
        op.evaluate([np.ones(1, np.float32), np.array([2, 3]), np.array([[0, 7]]), np.float32(0)])
