"""GatherElements-6 kernel: ops.md section 4 (semantics, errors, test vectors E1-E5)."""

import doctest
import importlib

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from irrun.errors import IndexOutOfRangeError
from irrun.kernels import gather_elements

I64 = np.int64
TWO_BY_THREE = np.array([[1, 2, 3], [4, 5, 6]], np.float32)


def check(result, expected, dtype=np.float32):
    expected = np.asarray(expected, dtype)
    assert isinstance(result, np.ndarray)
    assert result.dtype == expected.dtype
    assert result.shape == expected.shape
    np.testing.assert_array_equal(result, expected)


# --- ops.md 4 test vectors ----------------------------------------------------------------------


def test_e1_axis_0():
    data = np.array([[1, 2], [3, 4]], np.float32)
    check(gather_elements(data, np.array([[0, 1], [0, 0]], I64), 0), [[1, 4], [1, 2]])


def test_e2_indices_longer_than_data_along_axis():
    data = np.array([[1, 7], [4, 3]], np.float32)
    result = gather_elements(data, np.array([[1, 1, 0], [1, 0, 1]], I64), 1)
    check(result, [[7, 7, 1], [3, 4, 3]])


def test_e3_indices_shorter_than_data_along_axis():
    data = np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]], np.float32)
    result = gather_elements(data, np.array([[1, 0, 1], [1, 2, 0]], I64), 0)
    check(result, [[4, 2, 6], [4, 8, 3]])


def test_e4_rank_3_negative_axis_int32_indices():
    data = np.arange(12, dtype=np.float32).reshape(2, 2, 3)
    indices = np.array([[[2, 0], [1, 1]], [[0, 0], [2, 1]]], np.int32)
    check(gather_elements(data, indices, -1), [[[2, 0], [4, 4]], [[6, 6], [11, 10]]])


def test_e5_negative_indices_wrap():
    result = gather_elements(TWO_BY_THREE, np.array([[-1, 0], [-3, -2]], I64), 1)
    check(result, [[3, 1], [4, 5]])


def test_middle_axis_of_rank_3():
    data = np.arange(24).reshape(2, 3, 4)
    indices = np.array([[[2, 0, 1, 1]], [[0, -1, 2, 0]]], I64)
    result = gather_elements(data, indices, 1)
    check(result, np.take_along_axis(data, indices % 3, 1), data.dtype)


def test_one_dimensional_data():
    check(
        gather_elements(np.array([5, 6, 7], np.float32), np.array([2, 2, -3, 0]), 0), [7, 7, 5, 5]
    )


# --- policies -----------------------------------------------------------------------------------


def test_error_is_the_default_policy_and_names_position_and_range():
    with pytest.raises(IndexOutOfRangeError) as caught:
        gather_elements(TWO_BY_THREE, np.array([[0, 1], [3, 0]], I64), 1)
    assert "index 3 at indices position (1, 0)" in str(caught.value)
    assert "[-3, 2] for data axis 1 of size 3" in str(caught.value)


def test_zero_policy_writes_zero():
    result = gather_elements(TWO_BY_THREE, np.array([[0, 3], [-4, 2]], I64), 1, out_of_range="zero")
    check(result, [[1, 0], [0, 6]])


def test_clip_policy_clamps_after_wrapping():
    indices = np.array([[0, 3], [-4, -1]], I64)
    check(gather_elements(TWO_BY_THREE, indices, 1, out_of_range="clip"), [[1, 3], [4, 6]])


def test_indices_are_not_modified():
    indices = np.array([[-1, 7], [0, -2]], I64)
    gather_elements(TWO_BY_THREE, indices, 1, out_of_range="zero")
    np.testing.assert_array_equal(indices, [[-1, 7], [0, -2]])


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.int16, np.int32, np.uint64])
def test_any_integer_index_dtype_is_accepted(dtype):
    check(gather_elements(TWO_BY_THREE, np.array([[2], [0]], dtype), 1), [[3], [4]])


# --- errors -------------------------------------------------------------------------------------


def test_ranks_must_be_equal():
    with pytest.raises(ValueError, match="rank must be equal. But instead got: 3 and 2"):
        gather_elements(np.zeros((3, 7, 5)), np.zeros((3, 7), I64), 1)


@pytest.mark.parametrize("indices_shape", [(3, 10, 6), (3, 10, 4)])
def test_non_axis_dims_must_be_equal_larger_or_smaller(indices_shape):
    with pytest.raises(ValueError, match=r"Shapes \[3,7,5\] and \[3,10,\d\] are not consistent"):
        gather_elements(np.zeros((3, 7, 5)), np.zeros(indices_shape, I64), 1)


def test_axis_out_of_range():
    with pytest.raises(ValueError, match=r"Axis 3 out of the tensor rank range \[-3, 2\]\."):
        gather_elements(np.zeros((3, 7, 5)), np.zeros((3, 7, 5), I64), 3)


def test_scalar_indices_are_rejected():
    with pytest.raises(ValueError, match="indices rank must be >= 1"):
        gather_elements(np.float32(1), np.array(0), 0)


def test_float_indices_raise_type_error():
    with pytest.raises(TypeError, match="integral"):
        gather_elements(TWO_BY_THREE, np.zeros((2, 1), np.float32), 1)


# --- dtypes, bit-exactness, zero sizes ----------------------------------------------------------


def test_nan_payloads_and_negative_zero_are_copied_bit_for_bit():
    bits = np.array([[0x7FC00001, 0x80000000, 0xFFA00002]], np.uint32)
    result = gather_elements(bits.view(np.float32), np.array([[2, 1, 0, -3]]), 1)
    np.testing.assert_array_equal(result.view(np.uint32), bits[:, [2, 1, 0, 0]])


@pytest.mark.parametrize(
    "dtype", [ml_dtypes.bfloat16, ml_dtypes.float8_e5m2, ml_dtypes.uint4, np.complex128, np.bool_]
)
def test_special_dtypes_keep_their_type_and_zero_fill(dtype):
    data = np.array([[1, 0, 1]]).astype(dtype)
    result = gather_elements(data, np.array([[2, 1, 7]]), 1, out_of_range="zero")
    assert result.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(result, np.array([[1, 0, 0]]).astype(dtype))


def test_string_data():
    data = np.array([["a", "bc", "def"]], np.dtypes.StringDType())
    result = gather_elements(data, np.array([[2, -3, 3]]), 1, out_of_range="zero")
    assert result.tolist() == [["def", "a", ""]]


def test_zero_size_indices_axis():
    check(gather_elements(TWO_BY_THREE, np.zeros((2, 0), I64), 1), np.zeros((2, 0)))


def test_zero_size_data_axis_zero_fills():
    result = gather_elements(np.zeros((2, 0)), np.zeros((2, 2), I64), 1, out_of_range="zero")
    check(result, np.zeros((2, 2)), np.float64)


def test_zero_size_non_axis_dim():
    check(gather_elements(np.zeros((0, 3), np.float32), np.zeros((0, 5), I64), 1), np.zeros((0, 5)))


def test_non_contiguous_inputs():
    data = np.arange(12, dtype=np.float32).reshape(3, 4).T
    indices = np.array([[0, 2, 1, 2, 0, 1]] * 4, I64)[:, ::2]
    check(gather_elements(data, indices, 1), np.take_along_axis(data, indices, 1))


# --- property test against numpy.take_along_axis -------------------------------------------------


@st.composite
def gather_elements_cases(draw):
    rank = draw(st.integers(1, 4))
    data_shape = draw(hnp.array_shapes(min_dims=rank, max_dims=rank, min_side=1, max_side=4))
    axis = draw(st.integers(0, rank - 1))
    indices_shape = list(data_shape)
    indices_shape[axis] = draw(st.integers(0, 5))
    size = data_shape[axis]
    indices = draw(
        hnp.arrays(np.int32, tuple(indices_shape), elements=st.integers(-size - 1, size))
    )
    data = np.arange(int(np.prod(data_shape)), dtype=np.float32).reshape(data_shape) + 1
    return data, indices, axis


@settings(derandomize=True, max_examples=120, deadline=None)
@given(gather_elements_cases(), st.sampled_from([None, 1, 2, 3, 8]))
def test_zero_policy_matches_take_along_axis_with_a_mask(tile_cells, case, cells):
    data, indices, axis = case
    size = data.shape[axis]
    valid = (indices >= -size) & (indices < size)
    expected = np.take_along_axis(data, np.where(valid, indices % size, 0), axis)
    expected[~valid] = 0
    with tile_cells(cells):
        result = gather_elements(data, indices, axis, out_of_range="zero")
    assert result.shape == indices.shape
    np.testing.assert_array_equal(result, expected)


@settings(derandomize=True, max_examples=60, deadline=None)
@given(gather_elements_cases(), st.sampled_from([None, 1, 3]))
def test_error_policy_names_the_first_bad_index_even_when_tiled(tile_cells, case, cells):
    data, indices, axis = case
    size = data.shape[axis]
    bad = (indices < -size) | (indices >= size)
    if not bad.any():
        return
    first = tuple(int(p) for p in np.argwhere(bad)[0])
    with tile_cells(cells), pytest.raises(IndexOutOfRangeError) as caught:
        gather_elements(data, indices, axis)
    assert f"index {indices[first]} at indices position {first} " in str(caught.value)


def test_docstring_examples_run():
    module = importlib.import_module("irrun.kernels.gather_elements")
    assert doctest.testmod(module).failed == 0
