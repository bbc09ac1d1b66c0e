"""Concat-1 kernel: ops.md section 1 (semantics, errors, test vectors C1-C5)."""

import doctest
import importlib

import ml_dtypes
import numpy as np
import pytest

from irrun.kernels import concat

# --- ops.md 1.1 test vectors ----------------------------------------------------------------------


def test_c1_three_inputs_along_axis_1():
    inputs = [
        np.array([[1, 2], [3, 4]], np.float32),
        np.array([[5], [6]], np.float32),
        np.array([[7, 8, 9], [10, 11, 12]], np.float32),
    ]
    result = concat(inputs, 1)
    assert result.dtype == np.float32
    assert result.shape == (2, 6)
    np.testing.assert_array_equal(result, [[1, 2, 5, 7, 8, 9], [3, 4, 6, 10, 11, 12]])


def test_c2_negative_axis():
    result = concat(
        [np.array([[1, 2, 3]], np.int64), np.array([[4, 5, 6], [7, 8, 9]], np.int64)], -2
    )
    assert result.dtype == np.int64
    assert result.shape == (3, 3)
    np.testing.assert_array_equal(result, [[1, 2, 3], [4, 5, 6], [7, 8, 9]])


def test_c3_boolean_with_an_empty_input():
    result = concat([np.array([True, False]), np.zeros(0, bool), np.array([True])], 0)
    assert result.dtype == np.bool_
    assert result.shape == (3,)
    np.testing.assert_array_equal(result, [True, False, True])


def test_c4_shape_vector_build():
    inputs = [np.array([2], np.int64), np.array([-1], np.int64), np.array([3, 4], np.int64)]
    result = concat(inputs, 0)
    assert result.dtype == np.int64
    np.testing.assert_array_equal(result, [2, -1, 3, 4])


def test_c5_strings():
    result = concat([np.array(["a", "bc"]), np.array(["def"])], 0)
    assert result.dtype.kind == "U"
    assert result.tolist() == ["a", "bc", "def"]


# --- ops.md 1.1 shape rules ---------------------------------------------------------------------


@pytest.mark.parametrize("axis", [1, -1])
def test_output_axis_dim_is_the_sum_of_the_inputs(axis):
    assert concat([np.zeros((2, 3)), np.zeros((2, 1))], axis).shape == (2, 4)


def test_single_input_is_copied():
    data = np.arange(6).reshape(2, 3)
    result = concat([data], 0)
    np.testing.assert_array_equal(result, data)
    assert not np.shares_memory(result, data)


def test_zero_size_input_along_the_axis():
    result = concat([np.zeros((2, 0), np.float32), np.ones((2, 3), np.float32)], 1)
    assert result.shape == (2, 3)
    np.testing.assert_array_equal(result, np.ones((2, 3)))


def test_zero_size_non_axis_dim():
    result = concat([np.zeros((0, 2)), np.zeros((0, 3))], 1)
    assert result.shape == (0, 5)


def test_inner_axis_of_rank_4():
    a = np.arange(24).reshape(2, 3, 2, 2)
    b = np.arange(100, 108).reshape(2, 1, 2, 2)
    result = concat([a, b], 1)
    np.testing.assert_array_equal(result, np.concatenate([a, b], 1))


def test_non_contiguous_inputs():
    a = np.arange(12).reshape(3, 4).T
    b = np.arange(100, 108).reshape(4, 2)[::-1]
    np.testing.assert_array_equal(concat([a, b], 1), np.concatenate([a, b], 1))


# --- errors -------------------------------------------------------------------------------------


def test_no_inputs_is_an_error():
    with pytest.raises(ValueError, match="at least one input"):
        concat([], 0)


def test_scalar_inputs_are_rejected():
    with pytest.raises(ValueError, match=r"rank >= 1; got shapes \[\], \[\]"):
        concat([np.float32(1), np.float32(2)], 0)


def test_axis_out_of_range_message_matches_openvino():
    with pytest.raises(ValueError, match=r"Axis 2 out of the tensor rank range \[-2, 1\]\."):
        concat([np.zeros((2, 3)), np.zeros((2, 1))], 2)


def test_non_axis_dim_mismatch_message_shows_the_shapes():
    with pytest.raises(ValueError, match=r"concatenation axis \(axis 1\): \[2,3\], \[3,1\]"):
        concat([np.zeros((2, 3)), np.zeros((3, 1))], 1)


def test_zero_versus_nonzero_non_axis_dim_is_a_mismatch():
    with pytest.raises(ValueError, match=r"\[0,3\], \[2,3\]"):
        concat([np.zeros((0, 3)), np.zeros((2, 3))], 1)


def test_rank_mismatch_message_shows_the_shapes():
    with pytest.raises(ValueError, match=r"same rank.*\[2,3\], \[2,3,1\]"):
        concat([np.zeros((2, 3)), np.zeros((2, 3, 1))], 0)


def test_element_type_mismatch_is_rejected():
    with pytest.raises(ValueError, match="element types are inconsistent: float32, int64"):
        concat([np.zeros(2, np.float32), np.zeros(2, np.int64)], 0)


def test_bfloat16_and_float16_are_different_types():
    with pytest.raises(ValueError, match="bfloat16, float16"):
        concat([np.zeros(2, ml_dtypes.bfloat16), np.zeros(2, np.float16)], 0)


# --- dtypes and bit-exactness -------------------------------------------------------------------


@pytest.mark.parametrize(
    "dtype",
    [
        np.bool_,
        np.int8,
        np.int16,
        np.int32,
        np.int64,
        np.uint8,
        np.uint16,
        np.uint32,
        np.uint64,
        np.float16,
        np.float32,
        np.float64,
        np.complex64,
        np.complex128,
        ml_dtypes.bfloat16,
        ml_dtypes.float8_e4m3fn,
        ml_dtypes.float8_e5m2,
        ml_dtypes.float8_e8m0fnu,
        ml_dtypes.int4,
        ml_dtypes.uint4,
    ],
)
def test_every_numeric_dtype_keeps_its_type(dtype):
    a = np.array([[1, 2]]).astype(dtype)  # no 0: float8_e8m0fnu has none
    b = np.array([[4], [2]]).T.astype(dtype)
    result = concat([a, b], 1)
    assert result.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(result, np.array([[1, 2, 4, 2]]).astype(dtype))


@pytest.mark.parametrize(
    ("dtype", "raw_type"),
    [
        (np.float32, np.uint32),
        (np.float16, np.uint16),
        (ml_dtypes.bfloat16, np.uint16),
        (ml_dtypes.float8_e4m3fn, np.uint8),
        (ml_dtypes.float8_e5m2, np.uint8),
    ],
)
def test_nan_payloads_and_negative_zero_are_copied_bit_for_bit(dtype, raw_type):
    top = np.iinfo(raw_type).max
    raw = np.array([top, top - 1, top // 2 + 1, top // 2 + 2], raw_type)  # NaNs and -0.0
    result = concat([raw[:1].view(dtype), raw[1:].view(dtype)], 0)
    assert result.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(result.view(raw_type), raw)


def test_fixed_width_strings_of_different_widths_widen():
    result = concat([np.array(["a"]), np.array(["longer"])], 0)
    assert result.dtype == np.dtype("<U6")
    assert result.tolist() == ["a", "longer"]


def test_variable_width_strings():
    dtype = np.dtypes.StringDType()
    result = concat([np.array(["a", "bc"], dtype), np.array([["def"]][0], dtype)], 0)
    assert result.dtype == dtype
    assert result.tolist() == ["a", "bc", "def"]


def test_object_strings():
    result = concat([np.array(["a"], object), np.array(["bc", "def"], object)], 0)
    assert result.dtype == object
    assert result.tolist() == ["a", "bc", "def"]


def test_fixed_and_variable_width_strings_are_different_types():
    with pytest.raises(ValueError, match="element types are inconsistent"):
        concat([np.array(["a"]), np.array(["b"], np.dtypes.StringDType())], 0)


def test_docstring_examples_run():
    module = importlib.import_module("irrun.kernels.concat")
    assert doctest.testmod(module).failed == 0
