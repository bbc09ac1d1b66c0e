"""GatherND-5/-8 kernel: ops.md section 3 (semantics, shapes, errors, test vectors N1-N7)."""

import doctest
import importlib

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from irrun.errors import IndexOutOfRangeError
from irrun.kernels import gather_nd

I64 = np.int64
TWO_BY_TWO = np.array([[1, 2], [3, 4]], np.float32)
ARANGE_2_3_4 = np.arange(1, 25, dtype=np.float32).reshape(2, 3, 4)


def trt_gather_nd(data, idx, b=0):
    """The loop model of ops.md 6.2 (negative wrap, out-of-range tuples give zeros)."""
    k, r, q = idx.shape[-1], data.ndim, idx.ndim
    assert 1 <= k <= r - b and b < q and data.shape[:b] == idx.shape[:b]
    out = np.zeros(idx.shape[:-1] + data.shape[b + k :], data.dtype)
    for P in np.ndindex(idx.shape[:-1]):
        t = [int(v) + (data.shape[b + j] if v < 0 else 0) for j, v in enumerate(idx[P])]
        if all(0 <= t[j] < data.shape[b + j] for j in range(k)):
            out[P] = data[P[:b] + tuple(t)]
    return out


def check(result, expected, shape):
    assert isinstance(result, np.ndarray)
    assert result.dtype == np.float32
    assert result.shape == shape
    np.testing.assert_array_equal(result, np.asarray(expected, np.float32).reshape(shape))


# --- ops.md 3.4 test vectors, GatherND-8 and GatherND-5 shapes ---------------------------------


@pytest.mark.parametrize("flatten_batch", [False, True])
def test_n1_full_tuples_select_elements(flatten_batch):
    indices = np.array([[0, 0], [1, 0]], I64)
    check(gather_nd(TWO_BY_TWO, indices, flatten_batch=flatten_batch), [1, 3], (2,))


@pytest.mark.parametrize("flatten_batch", [False, True])
def test_n2_short_tuples_select_rows(flatten_batch):
    indices = np.array([[1], [0]], I64)
    result = gather_nd(TWO_BY_TWO, indices, flatten_batch=flatten_batch)
    check(result, [[3, 4], [1, 2]], (2, 2))


@pytest.mark.parametrize("flatten_batch", [False, True])
def test_n3_negative_indices_wrap(flatten_batch):
    indices = np.array([[-1, 0], [0, -1]], I64)
    check(gather_nd(TWO_BY_TWO, indices, flatten_batch=flatten_batch), [3, 2], (2,))


@pytest.mark.parametrize("flatten_batch", [False, True])
def test_n4_batch_dims_1_selects_rows_per_batch(flatten_batch):
    result = gather_nd(ARANGE_2_3_4, np.array([[1], [0]], I64), 1, flatten_batch=flatten_batch)
    check(result, [[5, 6, 7, 8], [13, 14, 15, 16]], (2, 4))


@pytest.mark.parametrize("flatten_batch", [False, True])
def test_n5_batch_dims_1_full_tuples(flatten_batch):
    result = gather_nd(
        ARANGE_2_3_4, np.array([[1, 3], [2, 0]], I64), 1, flatten_batch=flatten_batch
    )
    check(result, [8, 21], (2,))


N6_INDICES = np.array([[[1], [0], [2]], [[0], [2], [3]]], I64)
N7_INDICES = np.array([[[[1]], [[0]], [[2]]], [[[0]], [[2]], [[2]]]], I64)


def test_n6_batch_dims_2_v8_keeps_batch_dims():
    check(gather_nd(ARANGE_2_3_4, N6_INDICES, 2), [[2, 5, 11], [13, 19, 24]], (2, 3))


def test_n6_batch_dims_2_v5_flattens_batch_dims():
    result = gather_nd(ARANGE_2_3_4, N6_INDICES, 2, flatten_batch=True)
    check(result, [2, 5, 11, 13, 19, 24], (6,))


def test_n7_batch_dims_2_v8_with_grid_dim():
    check(gather_nd(ARANGE_2_3_4, N7_INDICES, 2), [2, 5, 11, 13, 19, 23], (2, 3, 1))


def test_n7_batch_dims_2_v5_with_grid_dim():
    result = gather_nd(ARANGE_2_3_4, N7_INDICES, 2, flatten_batch=True)
    check(result, [2, 5, 11, 13, 19, 23], (6, 1))


# --- ops.md 3.2 shape rules ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data_shape", "indices_shape", "batch_dims", "v5_shape", "v8_shape"),
    [
        ((1000, 256, 10, 15), (25, 125, 3), 0, (25, 125, 15), (25, 125, 15)),
        ((2, 3, 4), (2, 2), 1, (2,), (2,)),
        ((2, 3, 4), (2, 3, 1), 2, (6,), (2, 3)),
        ((30, 2, 100, 35), (30, 2, 3, 1), 2, (60, 3, 35), (30, 2, 3, 35)),
        ((1, 64, 64, 320), (1, 64, 64, 1, 1), 3, (4096, 1), (1, 64, 64, 1)),
    ],
)
def test_output_shape_v8_keeps_batch_dims_and_v5_flattens_them(
    data_shape, indices_shape, batch_dims, v5_shape, v8_shape
):
    data = np.zeros(data_shape, np.uint8)
    indices = np.zeros(indices_shape, I64)
    assert gather_nd(data, indices, batch_dims).shape == v8_shape
    assert gather_nd(data, indices, batch_dims, flatten_batch=True).shape == v5_shape


def test_empty_tuples_select_the_whole_batch_slice():
    data = np.arange(24).reshape(2, 3, 4)
    result = gather_nd(data, np.zeros((2, 0), I64))
    assert result.shape == (2, 2, 3, 4)
    np.testing.assert_array_equal(result, np.stack([data, data]))


def test_empty_tuples_with_batch_dims():
    data = np.arange(24).reshape(2, 3, 4)
    result = gather_nd(data, np.zeros((2, 5, 0), I64), 1)
    assert result.shape == (2, 5, 3, 4)
    np.testing.assert_array_equal(result, np.repeat(data[:, None], 5, axis=1))


def test_three_element_tuples_with_two_batch_dims():
    data = np.arange(2 * 3 * 4 * 5 * 6).reshape(2, 3, 4, 5, 6)
    indices = np.array([[[[3, 4, 5], [0, -1, 2]]] * 3] * 2, I64)  # (2, 3, 2, 3)
    result = gather_nd(data, indices, 2)
    assert result.shape == (2, 3, 2)
    np.testing.assert_array_equal(result[1, 2], [data[1, 2, 3, 4, 5], data[1, 2, 0, 4, 2]])


# --- policies -----------------------------------------------------------------------------------


def test_error_is_the_default_policy_and_names_position_and_range():
    with pytest.raises(IndexOutOfRangeError) as caught:
        gather_nd(ARANGE_2_3_4, np.array([[0, 1], [1, 4]], I64))
    message = str(caught.value)
    assert "index 4 at indices position (1, 1)" in message
    assert "[-3, 2] for data axis 1 of size 3" in message


def test_error_message_uses_the_size_of_the_addressed_axis():
    with pytest.raises(IndexOutOfRangeError, match=r"index 2 .* \(0, 0\).*\[-2, 1\] .* axis 0"):
        gather_nd(ARANGE_2_3_4, np.array([[2, 3]], I64))


def test_error_message_data_axis_counts_batch_dims():
    with pytest.raises(IndexOutOfRangeError, match=r"position \(1, 0\).*data axis 1 of size 3"):
        gather_nd(ARANGE_2_3_4, np.array([[1], [-4]], I64), 1)


def test_zero_policy_zeroes_the_whole_slice_of_a_bad_tuple():
    result = gather_nd(ARANGE_2_3_4, np.array([[1, 0], [0, 3], [-3, 1]], I64), out_of_range="zero")
    check(result, [[13, 14, 15, 16], [0, 0, 0, 0], [0, 0, 0, 0]], (3, 4))


def test_zero_policy_with_batch_dims():
    indices = np.array([[[1], [3]], [[-1], [-4]]], I64)
    result = gather_nd(ARANGE_2_3_4, indices, 1, out_of_range="zero")
    check(result, [[5, 6, 7, 8], [0, 0, 0, 0], [21, 22, 23, 24], [0, 0, 0, 0]], (2, 2, 4))


def test_clip_policy_clamps_each_tuple_element_into_its_axis():
    result = gather_nd(ARANGE_2_3_4, np.array([[5, -9, 2], [-1, 7, -1]], I64), out_of_range="clip")
    check(result, [15, 24], (2,))  # [1, 0, 2] and [1, 2, 3]


def test_columns_of_different_sizes_are_checked_separately():
    # 2 is valid for axis 1 (size 3) but not for axis 0 (size 2).
    with pytest.raises(IndexOutOfRangeError, match=r"position \(0, 0\)"):
        gather_nd(ARANGE_2_3_4, np.array([[2, 2]], I64))
    check(gather_nd(ARANGE_2_3_4, np.array([[1, 2]], I64)), [[21, 22, 23, 24]], (1, 4))


def test_indices_are_not_modified():
    indices = np.array([[-1, 9]], I64)
    gather_nd(TWO_BY_TWO, indices, out_of_range="zero")
    np.testing.assert_array_equal(indices, [[-1, 9]])


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.int32, np.uint64])
def test_any_integer_index_dtype(dtype):
    check(gather_nd(TWO_BY_TWO, np.array([[1, 1], [0, 1]], dtype)), [4, 2], (2,))


# --- errors (ops.md 3.3) ------------------------------------------------------------------------


def test_tuple_longer_than_data_rank_minus_batch_dims():
    with pytest.raises(ValueError, match="Length of a tuple with indices must not exceed"):
        gather_nd(ARANGE_2_3_4, np.zeros((2, 3), I64), 1)


def test_batch_dims_must_be_below_indices_rank():
    with pytest.raises(ValueError, match="must not exceed a rank of indices"):
        gather_nd(ARANGE_2_3_4, np.zeros((2,), I64), 1)


@pytest.mark.parametrize("batch_dims", [3, -1])
def test_batch_dims_must_be_in_zero_to_data_rank(batch_dims):
    with pytest.raises(ValueError, match="must not exceed a rank of data"):
        gather_nd(ARANGE_2_3_4, np.zeros((2, 3, 4, 1), I64), batch_dims)


@pytest.mark.parametrize("indices_lead", [3, 1])
def test_batch_dims_must_be_equal_not_broadcast(indices_lead):
    with pytest.raises(ValueError, match="Batch dimensions of data and indices must be the same"):
        gather_nd(ARANGE_2_3_4, np.zeros((indices_lead, 1), I64), 1)


def test_scalar_indices_are_rejected():
    with pytest.raises(ValueError, match="Indices rank must be at least 1"):
        gather_nd(ARANGE_2_3_4, np.array(0, I64))


def test_scalar_data_is_rejected():
    with pytest.raises(ValueError, match="Data rank must be at least 1"):
        gather_nd(np.float32(1), np.zeros((1, 0), I64))


def test_float_indices_raise_type_error():
    with pytest.raises(TypeError, match="integral"):
        gather_nd(TWO_BY_TWO, np.zeros((1, 2), np.float32))


# --- dtypes, bit-exactness, zero sizes ----------------------------------------------------------


def test_nan_payloads_and_negative_zero_are_copied_bit_for_bit():
    bits = np.array([[0x7FC00001, 0x80000000], [0xFFA00002, 0x7F800001]], np.uint32)
    result = gather_nd(bits.view(np.float32), np.array([[1, 0], [0, 1], [-1, -1]], I64))
    np.testing.assert_array_equal(result.view(np.uint32), [0xFFA00002, 0x80000000, 0x7F800001])


@pytest.mark.parametrize(
    "dtype", [ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn, ml_dtypes.int4, np.complex64, np.bool_]
)
def test_special_dtypes_keep_their_type_and_zero_fill(dtype):
    data = np.array([[1, 0], [1, 1]]).astype(dtype)
    result = gather_nd(data, np.array([[1], [5]], I64), out_of_range="zero")
    assert result.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(result, np.array([[1, 1], [0, 0]]).astype(dtype))


def test_string_data_zero_fills_empty_string():
    data = np.array([["a", "b"], ["c", "d"]], np.dtypes.StringDType())
    result = gather_nd(data, np.array([[1, 0], [2, 0]], I64), out_of_range="zero")
    assert result.tolist() == ["c", ""]


def test_empty_index_grid_gives_empty_output():
    result = gather_nd(ARANGE_2_3_4, np.zeros((0, 2), I64))
    assert result.shape == (0, 4)
    assert result.dtype == np.float32


def test_zero_size_addressed_axis_zero_fills():
    result = gather_nd(
        np.zeros((2, 0, 3), np.float32), np.array([[1, 0]], I64), out_of_range="zero"
    )
    check(result, [0, 0, 0], (1, 3))


def test_zero_size_slice():
    result = gather_nd(np.zeros((2, 3, 0), np.float32), np.array([[1, 2]], I64))
    assert result.shape == (1, 0)


# --- property test against the ops.md loop model -------------------------------------------------


@st.composite
def gather_nd_cases(draw):
    rank = draw(st.integers(1, 4))
    data_shape = draw(hnp.array_shapes(min_dims=rank, max_dims=rank, min_side=1, max_side=4))
    batch_dims = draw(st.integers(0, rank - 1))
    tuple_length = draw(st.integers(1, rank - batch_dims))
    grid = draw(hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=3))
    indices_shape = data_shape[:batch_dims] + grid + (tuple_length,)
    low = -max(data_shape) - 1
    indices = draw(
        hnp.arrays(np.int64, indices_shape, elements=st.integers(low, max(data_shape) + 1))
    )
    data = np.arange(int(np.prod(data_shape)), dtype=np.float32).reshape(data_shape) + 1
    return data, indices, batch_dims


@settings(derandomize=True, max_examples=150, deadline=None)
@given(gather_nd_cases(), st.sampled_from([None, 1, 2, 5]))
def test_zero_policy_matches_the_tensorrt_loop_model(tile_cells, case, cells):
    data, indices, batch_dims = case
    with tile_cells(cells):
        result = gather_nd(data, indices, batch_dims, out_of_range="zero")
    expected = trt_gather_nd(data, indices, batch_dims)
    assert result.dtype == expected.dtype
    assert result.shape == expected.shape
    np.testing.assert_array_equal(result, expected)


@settings(derandomize=True, max_examples=60, deadline=None)
@given(gather_nd_cases())
def test_v5_shape_is_v8_shape_with_batch_dims_flattened(case):
    data, indices, batch_dims = case
    v8 = gather_nd(data, indices, batch_dims, out_of_range="zero")
    v5 = gather_nd(data, indices, batch_dims, flatten_batch=True, out_of_range="zero")
    if batch_dims:
        assert v5.shape == (int(np.prod(indices.shape[:batch_dims])),) + v8.shape[batch_dims:]
    else:
        assert v5.shape == v8.shape
    np.testing.assert_array_equal(v5.reshape(-1), v8.reshape(-1))


@settings(derandomize=True, max_examples=60, deadline=None)
@given(gather_nd_cases(), st.sampled_from([None, 1, 3]))
def test_error_policy_names_the_first_bad_index_even_when_tiled(tile_cells, case, cells):
    data, indices, batch_dims = case
    sizes = np.array(data.shape[batch_dims : batch_dims + indices.shape[-1]])
    bad = (indices < -sizes) | (indices >= sizes)
    if not bad.any():
        return
    first = tuple(int(p) for p in np.argwhere(bad)[0])
    with tile_cells(cells), pytest.raises(IndexOutOfRangeError) as caught:
        gather_nd(data, indices, batch_dims)
    assert f"index {indices[first]} at indices position {first} " in str(caught.value)


def test_docstring_examples_run():
    module = importlib.import_module("irrun.kernels.gather_nd")
    assert doctest.testmod(module).failed == 0
