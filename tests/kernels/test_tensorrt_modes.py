"""TensorRT IGatherLayer modes: ops.md section 6 (rules, the 6.2 worked example, the 6.3 table)."""

import numpy as np
import pytest

from irrun.kernels import gather, trt_gather

I64 = np.int64
TWO_BY_THREE = np.array([[1, 2, 3], [4, 5, 6]], np.float32)


def nvidia_sample_data():
    """D of ops.md 6.3: shape (1, 3, 4, 5) with D[0, c, h, w] = 100c + 10h + w."""
    c, h, w = np.meshgrid(np.arange(3), np.arange(4), np.arange(5), indexing="ij")
    return (100 * c + 10 * h + w).astype(np.float32)[None]


def check(result, expected, shape):
    assert result.dtype == np.float32
    assert result.shape == shape
    np.testing.assert_array_equal(result, np.asarray(expected, np.float32).reshape(shape))


# --- ops.md 6.3, kND rows (NVIDIA's published outputs) -----------------------------------------


def test_nd_b0_full_tuples_with_negative_index():
    indices = np.array([[0, 1, 2], [0, 2, -1]], I64)
    result = trt_gather(nvidia_sample_data(), indices, mode="nd")
    check(result, [np.arange(120, 125), np.arange(230, 235)], (2, 5))


def test_nd_b1_full_tuples_select_elements():
    indices = np.array([[[0, 1, 2], [0, 2, -1]]], I64)
    check(
        trt_gather(nvidia_sample_data(), indices, mode="nd", elementwise_dims=1), [[12, 24]], (1, 2)
    )


def test_nd_b2_pairs_select_elements():
    indices = np.array([[[2, 1], [3, 0], [1, 2]]], I64)
    result = trt_gather(nvidia_sample_data(), indices, mode="nd", elementwise_dims=2)
    check(result, [[21, 130, 212]], (1, 3))


def test_nd_b2_single_indices_select_rows():
    indices = np.array([[[2], [3], [1]]], I64)
    result = trt_gather(nvidia_sample_data(), indices, mode="nd", elementwise_dims=2)
    expected = [np.arange(20, 25), np.arange(130, 135), np.arange(210, 215)]
    check(result, expected, (1, 3, 5))


def test_nd_b3_on_rank_4_data():
    indices = np.array([0, 2, 1], I64)[None, :, None, None] * np.ones((1, 3, 4, 1), I64)
    result = trt_gather(nvidia_sample_data(), indices, mode="nd", elementwise_dims=3)
    expected = [[[0, 10, 20, 30], [102, 112, 122, 132], [201, 211, 221, 231]]]
    check(result, expected, (1, 3, 4))


def test_nd_ignores_axis():
    indices = np.array([[0, 1, 2]], I64)
    data = nvidia_sample_data()
    np.testing.assert_array_equal(
        trt_gather(data, indices, mode="nd", axis=3), trt_gather(data, indices, mode="nd")
    )


# --- ops.md 6.2 worked example -------------------------------------------------------------------


def test_nd_worked_example_b1_output_shape_and_values():
    data = np.arange(120, dtype=np.float32).reshape(2, 3, 4, 5)
    indices = np.array([[[0], [2], [1], [-1], [0], [1]], [[1], [1], [0], [2], [2], [0]]], I64)
    result = trt_gather(data, indices, mode="nd", elementwise_dims=1)
    assert result.shape == (2, 6, 4, 5)
    assert result.dtype == np.float32
    np.testing.assert_array_equal(result[0, 1, 0], [40, 41, 42, 43, 44])
    np.testing.assert_array_equal(result[0, 1], data[0, 2])
    np.testing.assert_array_equal(result[1, 3, :, 0], [100, 105, 110, 115])
    np.testing.assert_array_equal(result[0, 3], data[0, 2])


# --- ops.md 6.3, kDEFAULT rows -------------------------------------------------------------------


def test_default_b0_axis0_out_of_range_blocks_are_zero():
    data = nvidia_sample_data()
    result = trt_gather(data, np.array([1, 0, 2], I64), mode="default", axis=0)
    assert result.shape == (3, 3, 4, 5)
    assert result.dtype == np.float32
    np.testing.assert_array_equal(result[0], np.zeros((3, 4, 5)))
    np.testing.assert_array_equal(result[1], data[0])
    np.testing.assert_array_equal(result[2], np.zeros((3, 4, 5)))


def test_default_b0_axis1_negative_wraps_and_out_of_range_is_zero():
    result = trt_gather(TWO_BY_THREE, np.array([[2, -1], [0, 5]], I64), axis=1)
    check(result, [[[3, 3], [1, 0]], [[6, 6], [4, 0]]], (2, 2, 2))


def test_default_b1_equal_leading_dims_is_gather_batch_dims_1():
    result = trt_gather(TWO_BY_THREE, np.array([[2, 0], [1, 1]], I64), axis=1, elementwise_dims=1)
    check(result, [[3, 1], [5, 5]], (2, 2))


def test_default_b1_broadcasts_a_size_one_data_leading_dim():
    data = np.array([[10, 20, 30]], np.float32)
    result = trt_gather(data, np.array([[0, 2], [1, 1]], I64), axis=1, elementwise_dims=1)
    check(result, [[10, 30], [20, 20]], (2, 2))


def test_default_b1_broadcasts_a_size_one_indices_leading_dim():
    result = trt_gather(TWO_BY_THREE, np.array([[2, 0]], I64), axis=1, elementwise_dims=1)
    check(result, [[3, 1], [6, 4]], (2, 2))


def test_default_b1_broadcast_data_with_middle_dims_and_out_of_range():
    data = np.arange(1, 13, dtype=np.float32).reshape(1, 2, 3, 2)  # (1, 2, 3, 2), axis 2
    indices = np.array([[0, -1], [7, 1]], I64)
    result = trt_gather(data, indices, axis=2, elementwise_dims=1)
    assert result.shape == (2, 2, 2, 2)
    expected = np.stack([data[0][:, [0, 2]], data[0][:, [0, 1]]])
    expected[1, :, 0] = 0
    np.testing.assert_array_equal(result, expected)


def test_default_b1_broadcast_matches_explicit_broadcast_then_gather():
    data = np.arange(24, dtype=np.float32).reshape(1, 4, 6)
    indices = np.array([[5, 0, -2], [1, 1, 9], [3, 2, 0]], I64)
    broadcast = np.broadcast_to(data, (3, 4, 6))
    np.testing.assert_array_equal(
        trt_gather(data, indices, axis=2, elementwise_dims=1), gather(broadcast, indices, 2, 1)
    )


# --- ops.md 6.3, kELEMENT row --------------------------------------------------------------------


def test_element_mode_is_gather_elements():
    indices = np.array([[2, 0, 1], [1, 1, 0]], I64)
    check(trt_gather(TWO_BY_THREE, indices, mode="element", axis=1), [[3, 1, 2], [5, 5, 4]], (2, 3))


# --- out of range stores 0 in every mode ---------------------------------------------------------


def test_nd_mode_out_of_range_stores_zero():
    result = trt_gather(TWO_BY_THREE, np.array([[1, 2], [2, 0], [0, -4]], I64), mode="nd")
    check(result, [6, 0, 0], (3,))


def test_element_mode_out_of_range_stores_zero():
    result = trt_gather(TWO_BY_THREE, np.array([[3], [-4]], I64), mode="element", axis=1)
    check(result, [[0], [0]], (2, 1))


def test_default_b1_out_of_range_stores_zero():
    result = trt_gather(TWO_BY_THREE, np.array([[3, 0], [1, -4]], I64), axis=1, elementwise_dims=1)
    check(result, [[0, 1], [5, 0]], (2, 2))


# --- rules that are errors ---------------------------------------------------------------------


def test_unknown_mode_is_rejected():
    with pytest.raises(ValueError, match="mode must be one of"):
        trt_gather(TWO_BY_THREE, np.array([0]), mode="scatter")


def test_default_mode_allows_only_0_or_1_elementwise_dims():
    with pytest.raises(ValueError, match="0 or 1"):
        trt_gather(np.zeros((2, 2, 3)), np.zeros((2, 2, 1), I64), axis=2, elementwise_dims=2)


def test_element_mode_requires_0_elementwise_dims():
    with pytest.raises(ValueError, match="must be 0 for mode 'element'"):
        trt_gather(TWO_BY_THREE, np.zeros((2, 1), I64), mode="element", axis=1, elementwise_dims=1)


def test_default_b1_needs_axis_at_least_1():
    with pytest.raises(ValueError, match="axis >= 1"):
        trt_gather(TWO_BY_THREE, np.zeros((2, 1), I64), axis=0, elementwise_dims=1)


def test_default_b1_leading_dims_must_be_equal_or_broadcastable():
    with pytest.raises(ValueError, match=r"\[2,3\] and indices \[3,1\]"):
        trt_gather(TWO_BY_THREE, np.zeros((3, 1), I64), axis=1, elementwise_dims=1)


def test_nd_mode_batch_dims_must_be_equal():
    with pytest.raises(ValueError, match="Batch dimensions of data and indices must be the same"):
        trt_gather(TWO_BY_THREE, np.zeros((1, 1), I64), mode="nd", elementwise_dims=1)


def test_integer_indices_are_required():
    with pytest.raises(TypeError, match="integral"):
        trt_gather(TWO_BY_THREE, np.zeros((2, 1), np.float32), axis=1, elementwise_dims=1)
