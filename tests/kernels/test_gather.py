"""Gather-1/-7/-8 kernel: ops.md section 2 (semantics, test vectors G1-G13, errors)."""

import doctest
import importlib

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from irrun.errors import IndexOutOfRangeError
from irrun.kernels import OUT_OF_RANGE_POLICIES, gather

F32 = np.float32
I64 = np.int64
TWO_BY_THREE = np.array([[1, 2, 3], [4, 5, 6]], F32)
TWO_BY_FIVE = np.array([[1, 2, 3, 4, 5], [6, 7, 8, 9, 10]], F32)
FIVE = np.array([1, 2, 3, 4, 5], F32)


def gather8(data, idx, axis, b=0, policy="zero"):
    """Slow loop model of Gather-8 (ops.md 2.1), extended with the three policies."""
    r, q = data.ndim, idx.ndim
    axis = axis + r if axis < 0 else axis
    b = b + q if b < 0 else b
    n = data.shape[axis]
    out = np.zeros(data.shape[:axis] + idx.shape[b:] + data.shape[axis + 1 :], data.dtype)
    for o in np.ndindex(out.shape):
        pre = o[:axis]
        ind = o[axis : axis + q - b]
        post = o[axis + q - b :]
        i = int(idx[pre[:b] + ind])
        i = i + n if i < 0 else i
        if policy == "clip":
            i = min(max(i, 0), n - 1)
        if 0 <= i < n:
            out[o] = data[pre + (i,) + post]
    return out


def check(result, expected, dtype=F32):
    expected = np.asarray(expected, dtype)
    assert isinstance(result, np.ndarray)
    assert result.dtype == expected.dtype
    assert result.shape == expected.shape
    np.testing.assert_array_equal(result, expected)


# --- ops.md 2.5 test vectors ------------------------------------------------------------------


def test_g1_negative_index_wraps_along_axis_1():
    check(gather(TWO_BY_THREE, np.array([2, 0, -1], I64), 1), [[3, 1, 3], [6, 4, 6]])


def test_g2_scalar_index_removes_the_axis():
    check(gather(TWO_BY_THREE, np.array(1, I64), 0), [4, 5, 6])


def test_g3_scalar_negative_index_with_negative_axis():
    check(gather(TWO_BY_THREE, np.array(-1, I64), -1), [3, 6])


def test_g4_two_dimensional_indices_on_axis_0():
    result = gather(TWO_BY_THREE, np.array([[1, 0], [1, 1]], I64), 0)
    check(result, [[[4, 5, 6], [1, 2, 3]], [[4, 5, 6], [4, 5, 6]]])


@pytest.mark.parametrize("batch_dims", [1, -1])
def test_g5_batch_dims_with_negative_indices(batch_dims):
    indices = np.array([[0, -1, 4], [4, 0, -5]], I64)
    check(gather(TWO_BY_FIVE, indices, 1, batch_dims), [[1, 5, 5], [10, 6, 6]])


def test_g6_batch_dims_1_axis_2_on_rank_4_data():
    data = np.arange(1, 41, dtype=F32).reshape(2, 1, 5, 4)
    indices = np.array([[1, 2, 4], [4, 3, 2]], I64)
    expected = [
        [[[5, 6, 7, 8], [9, 10, 11, 12], [17, 18, 19, 20]]],
        [[[37, 38, 39, 40], [33, 34, 35, 36], [29, 30, 31, 32]]],
    ]
    check(gather(data, indices, 2, 1), expected)


def test_g7_batch_dims_equal_to_indices_rank():
    check(gather(TWO_BY_THREE, np.array([2, 0], I64), 1, 1), [3, 4])


def test_g8_out_of_range_writes_zero():
    check(gather(FIVE, np.array([3, 10, -20], I64), 0), [4, 0, 0])


def test_g9_negative_wrap_and_out_of_range_zero_for_all_versions():
    # Gather-8 CPU and ref, and the reference evaluator for Gather-1/-7, agree on this.
    indices = np.array([3, 10, -20, -1, -5, 5, -6], I64)
    check(gather(FIVE, indices, 0), [4, 0, 0, 5, 1, 0, 0])


def test_g10_gather7_batch_dims_in_range():
    indices = np.array([[0, 1, 4], [4, 0, 0]], I64)
    check(gather(TWO_BY_FIVE, indices, 1, 1), [[1, 2, 5], [10, 6, 6]])


def test_g11_gather7_negative_indices_follow_the_reference_evaluator():
    indices = np.array([[0, -1, 4], [4, 0, -5]], I64)
    check(gather(TWO_BY_FIVE, indices, 1, 1), [[1, 5, 5], [10, 6, 6]])


def test_g12_gather1_matrix_indices_on_axis_1():
    result = gather(TWO_BY_THREE, np.array([[2, 0], [1, 1]], I64), 1)
    check(result, [[[3, 1], [2, 2]], [[6, 4], [5, 5]]])


def test_g13_gather1_negative_axis():
    check(gather(TWO_BY_THREE, np.array([0, 2], I64), -1), [[1, 3], [4, 6]])


# --- ops.md 2.3 shape rules ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data_shape", "indices_shape", "axis", "batch_dims", "out_shape"),
    [
        ((2, 3, 4), (5,), 1, 0, (2, 5, 4)),
        ((2, 3, 4), (), 1, 0, (2, 4)),
        ((2, 3, 4), (2, 5), 1, -1, (2, 5, 4)),
        ((2, 1, 5, 4), (2, 3), 2, 1, (2, 1, 3, 4)),
        ((2, 3), (2,), 1, 1, (2,)),
        ((2, 3, 4), (5, 6), 1, 0, (2, 5, 6, 4)),
    ],
)
def test_output_shape_is_data_before_axis_then_indices_after_batch_then_data_after_axis(
    data_shape, indices_shape, axis, batch_dims, out_shape
):
    result = gather(np.zeros(data_shape, F32), np.zeros(indices_shape, I64), axis, batch_dims)
    assert result.shape == out_shape


def test_batch_dims_2_shares_two_leading_dims():
    data = np.arange(2 * 3 * 4 * 5).reshape(2, 3, 4, 5)
    indices = np.array([[[3, 0], [1, 1], [0, 2]], [[2, 2], [3, 1], [0, 0]]])
    result = gather(data, indices, 2, 2)
    assert result.shape == (2, 3, 2, 5)
    for i in range(2):
        for j in range(3):
            np.testing.assert_array_equal(result[i, j], data[i, j, indices[i, j]])


def test_batch_dims_below_axis_keeps_middle_data_dims():
    data = np.arange(2 * 3 * 4).reshape(2, 3, 4)
    indices = np.array([[3, -1], [0, 2]])
    result = gather(data, indices, 2, 1)
    np.testing.assert_array_equal(
        result, [[[3, 3], [7, 7], [11, 11]], [[12, 14], [16, 18], [20, 22]]]
    )


# --- out-of-range policies ----------------------------------------------------------------------


def test_policies_are_zero_error_clip():
    assert OUT_OF_RANGE_POLICIES == ("zero", "error", "clip")


def test_zero_policy_is_the_default_and_fills_whole_slices():
    result = gather(TWO_BY_THREE, np.array([1, 2, -3], I64), 0)
    check(result, [[4, 5, 6], [0, 0, 0], [0, 0, 0]])


def test_zero_policy_with_batch_dims_fills_only_the_bad_batch_positions():
    indices = np.array([[0, 9], [-9, 2]], I64)
    check(gather(TWO_BY_THREE, indices, 1, 1), [[1, 0], [0, 6]])


def test_tiled_batched_gather_matches_untiled(tile_cells):
    data = np.arange(3 * 4 * 5 * 2).reshape(3, 4, 5, 2)
    indices = np.array([[0, 4, -1, 7, -5], [1, 1, 2, -6, 3], [4, 3, 2, 1, 0]])
    expected = gather(data, indices, 2, 1)
    for cells in (1, 2, 3, 4, 6):
        with tile_cells(cells):
            np.testing.assert_array_equal(gather(data, indices, 2, 1), expected)


def test_zero_policy_with_batch_dims_and_middle_dims():
    data = np.arange(2 * 3 * 4).reshape(2, 3, 4)
    result = gather(data, np.array([[3, 4], [-5, 0]]), 2, 1)
    np.testing.assert_array_equal(result, [[[3, 0], [7, 0], [11, 0]], [[0, 12], [0, 16], [0, 20]]])


def test_error_policy_names_value_position_and_valid_range():
    with pytest.raises(IndexOutOfRangeError) as caught:
        gather(TWO_BY_THREE, np.array([[0, 1], [2, 3]], I64), 1, out_of_range="error")
    message = str(caught.value)
    assert "index 3" in message
    assert "position (1, 1)" in message
    assert "[-3, 2]" in message
    assert "axis 1" in message


def test_error_policy_reports_the_first_bad_index_in_row_major_order():
    with pytest.raises(IndexOutOfRangeError, match=r"index -7 at indices position \(1,\)"):
        gather(FIVE, np.array([0, -7, 9], I64), 0, out_of_range="error")


def test_error_policy_accepts_negative_indices_in_range():
    check(gather(FIVE, np.array([-5, -1, 4], I64), 0, out_of_range="error"), [1, 5, 5])


def test_clip_policy_clamps_after_wrapping_negatives():
    result = gather(FIVE, np.array([3, 10, -20, -1, 5, -6], I64), 0, out_of_range="clip")
    check(result, [4, 5, 1, 5, 5, 1])


def test_clip_policy_with_batch_dims():
    indices = np.array([[7, -1], [-9, 1]], I64)
    check(gather(TWO_BY_THREE, indices, 1, 1, out_of_range="clip"), [[3, 3], [4, 5]])


def test_unknown_policy_is_rejected():
    with pytest.raises(ValueError, match="out_of_range must be one of"):
        gather(FIVE, np.array([0]), 0, out_of_range="wrap")


def test_indices_are_not_modified_by_normalisation():
    indices = np.array([-1, 9, 2], I64)
    gather(FIVE, indices, 0)
    np.testing.assert_array_equal(indices, [-1, 9, 2])


# --- index dtypes -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
)
def test_any_integer_index_dtype_is_accepted(dtype):
    check(gather(FIVE, np.array([4, 0, 2], dtype), 0), [5, 1, 3])


@pytest.mark.parametrize("dtype", [ml_dtypes.int4, ml_dtypes.uint4])
def test_sub_byte_integer_indices_are_accepted(dtype):
    check(gather(FIVE, np.array([4, 0, 2], dtype), 0), [5, 1, 3])


def test_int8_negative_indices_wrap_without_overflow():
    data = np.arange(200, dtype=np.int32)
    result = gather(data, np.array([-128, 127, -1], np.int8), 0, 0)
    np.testing.assert_array_equal(result, [72, 127, 199])
    result = gather(data.reshape(1, 200), np.array([[-128, 127, -1]], np.int8), 1, 1)
    np.testing.assert_array_equal(result, [[72, 127, 199]])


def test_huge_uint64_index_is_out_of_range_not_wrapped():
    indices = np.array([2**64 - 1, 1], np.uint64)
    check(gather(FIVE, indices, 0), [0, 2])
    with pytest.raises(IndexOutOfRangeError, match=str(2**64 - 1)):
        gather(FIVE, indices, 0, out_of_range="error")


@pytest.mark.parametrize("dtype", [np.float32, np.bool_])
def test_non_integer_indices_raise_type_error(dtype):
    with pytest.raises(TypeError, match="integral number type"):
        gather(FIVE, np.array([1, 0], dtype), 0)


def test_python_int_and_list_indices_are_accepted():
    check(gather(FIVE, 2, 0), 3)
    check(gather(FIVE, [0, -1], 0), [1, 5])


# --- errors -------------------------------------------------------------------------------------


def test_axis_out_of_range_message_matches_openvino():
    with pytest.raises(ValueError, match=r"Axis 3 out of the tensor rank range \[-3, 2\]\."):
        gather(np.zeros((2, 3, 4)), np.array([0]), 3)


def test_batch_dims_after_normalisation_must_not_exceed_axis():
    with pytest.raises(ValueError, match="batch_dims = 1, axis = 0"):
        gather(np.zeros((2, 3)), np.zeros((2, 1), I64), 0, 1)


def test_batch_dims_must_not_exceed_indices_rank():
    with pytest.raises(ValueError, match="batch_dims = 2, indices_rank = 1"):
        gather(np.zeros((2, 3, 4)), np.zeros(2, I64), 2, 2)


def test_batch_dims_below_minus_indices_rank_is_rejected():
    with pytest.raises(ValueError, match="batch_dims = -3, indices_rank = 2"):
        gather(np.zeros((2, 3, 4)), np.zeros((2, 5), I64), 1, -3)


def test_batch_dims_mismatch_message_shows_both_shapes():
    with pytest.raises(ValueError, match=r"Shapes \[2,3,4\] and \[3,5\] are not consistent"):
        gather(np.zeros((2, 3, 4)), np.zeros((3, 5), I64), 1, 1)


def test_batch_dims_size_one_is_not_broadcast():
    with pytest.raises(ValueError, match=r"Shapes \[1,3,4\] and \[3,5\] are not consistent"):
        gather(np.zeros((1, 3, 4)), np.zeros((3, 5), I64), 1, 1)


def test_scalar_data_is_rejected():
    with pytest.raises(ValueError, match="rank >= 1"):
        gather(np.float32(1), np.array(0), 0)


# --- dtypes and bit-exactness -------------------------------------------------------------------


def test_nan_payloads_and_negative_zero_are_copied_bit_for_bit():
    bits = np.array([0x7FC00001, 0xFFA00002, 0x80000000, 0x7F800001], np.uint32)
    data = bits.view(np.float32)
    for batch_dims, indices, expected in [
        (0, np.array([3, 2, 1, 0, -4]), bits[[3, 2, 1, 0, 0]]),
        (1, np.array([[3, 2, 1, 0, -4]]), bits[[3, 2, 1, 0, 0]][None]),
    ]:
        source = data if batch_dims == 0 else data[None]
        result = gather(source, indices, -1, batch_dims)
        np.testing.assert_array_equal(result.view(np.uint32), expected)


def test_nan_payloads_survive_the_zero_fill_path():
    bits = np.array([0x7FC00001, 0x80000000], np.uint32)
    result = gather(bits.view(np.float32), np.array([1, 5, 0]), 0)
    np.testing.assert_array_equal(result.view(np.uint32), [0x80000000, 0, 0x7FC00001])


@pytest.mark.parametrize(
    "dtype",
    [
        ml_dtypes.bfloat16,
        ml_dtypes.float8_e4m3fn,
        ml_dtypes.float8_e5m2,
        ml_dtypes.float8_e8m0fnu,
        np.float16,
        np.float64,
    ],
)
def test_float_dtypes_copy_raw_bytes_including_nan_payloads(dtype):
    width = np.dtype(dtype).itemsize
    raw_type = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[width]
    raw = np.arange(1, 9, dtype=raw_type) | raw_type(np.iinfo(raw_type).max - 0x0F)
    data = raw.view(dtype)
    result = gather(data, np.array([7, 0, 3, 9]), 0)
    assert result.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(result.view(raw_type), [raw[7], raw[0], raw[3], 0])


@pytest.mark.parametrize("dtype", [ml_dtypes.int4, ml_dtypes.uint4, np.int8, np.uint64])
def test_integer_dtypes_keep_their_type(dtype):
    data = np.array([[1, 2, 3], [4, 5, 6]], dtype)
    result = gather(data, np.array([2, 0, 7]), 1)
    assert result.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(result.astype(np.int64), [[3, 1, 0], [6, 4, 0]])


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_data(dtype):
    data = np.array([1 + 2j, -3j, 4], dtype)
    result = gather(data, np.array([1, -1, 3]), 0)
    check(result, [-3j, 4, 0], dtype)


def test_bool_data_zero_fills_false():
    check(gather(np.array([True, False, True]), np.array([2, 5, 1]), 0), [True, False, False], bool)


def test_fixed_width_string_data_zero_fills_empty_string():
    data = np.array(["a", "bc", "def"])
    check(gather(data, np.array([2, 9, -3]), 0), ["def", "", "a"], data.dtype)


def test_variable_width_string_data_zero_fills_empty_string():
    data = np.array(["a", "bc", "def"], np.dtypes.StringDType())
    result = gather(data, np.array([[2, 9], [-3, 1]]), 0)
    assert result.dtype == np.dtypes.StringDType()
    assert result.tolist() == [["def", ""], ["a", "bc"]]


def test_object_string_data_zero_fills_empty_string():
    data = np.array(["a", "bc", "def"], object)
    result = gather(data, np.array([2, 9]), 0)
    assert result.dtype == object
    assert result.tolist() == ["def", ""]


# --- zero-size and layout -----------------------------------------------------------------------


def test_empty_indices_give_empty_output():
    check(gather(TWO_BY_THREE, np.zeros((0,), I64), 1), np.zeros((2, 0)))
    check(gather(TWO_BY_THREE, np.zeros((2, 0), I64), 1, 1), np.zeros((2, 0)))


def test_empty_data_axis_zero_fills_every_index():
    check(gather(np.zeros((2, 0), F32), np.array([0, -1]), 1), np.zeros((2, 2)))


def test_empty_data_axis_with_error_policy_raises():
    with pytest.raises(IndexOutOfRangeError, match="size 0"):
        gather(np.zeros((2, 0), F32), np.array([0]), 1, out_of_range="error")


def test_empty_data_axis_cannot_be_clipped_into():
    with pytest.raises(IndexOutOfRangeError, match="cannot clip"):
        gather(np.zeros((2, 0), F32), np.array([0]), 1, out_of_range="clip")


def test_zero_size_non_axis_dims():
    check(gather(np.zeros((0, 3), F32), np.array([2, 0]), 1), np.zeros((0, 2)))
    check(gather(np.zeros((3, 0), F32), np.array([2, 0]), 0), np.zeros((2, 0)))


def test_non_contiguous_data_and_indices():
    data = np.arange(12, dtype=F32).reshape(3, 4).T  # (4, 3), Fortran order
    indices = np.array([[2, 0, 1, 9]], I64)[:, ::2]
    check(gather(data, indices, 1), data[:, [[2, 1]]])
    batched = np.array([[2, 0], [1, 1], [0, 0], [2, 2]], I64)[:, ::-1]
    check(gather(data, batched, 1, 1), np.take_along_axis(data, batched, 1))


def test_result_does_not_share_memory_with_data():
    data = np.arange(6, dtype=F32)
    result = gather(data, np.array([0, 1, 2, 3, 4, 5]), 0)
    assert not np.shares_memory(result, data)


# --- property test against the loop model -------------------------------------------------------


@st.composite
def gather_cases(draw):
    rank = draw(st.integers(1, 4))
    data_shape = draw(hnp.array_shapes(min_dims=rank, max_dims=rank, min_side=0, max_side=4))
    axis = draw(st.integers(0, rank - 1))
    batch_dims = draw(st.integers(0, axis))
    extra = draw(hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=3))
    indices_shape = data_shape[:batch_dims] + extra
    size = data_shape[axis]
    indices = draw(
        hnp.arrays(
            draw(st.sampled_from([np.int64, np.int32, np.int8])),
            indices_shape,
            elements=st.integers(-size - 2, size + 2),
        )
    )
    data = np.arange(int(np.prod(data_shape)), dtype=np.int32).reshape(data_shape) + 1
    use_negative = draw(st.booleans())
    return (
        data,
        indices,
        axis - rank if use_negative else axis,
        batch_dims - indices.ndim if use_negative and indices.ndim else batch_dims,
    )


@settings(derandomize=True, max_examples=150, deadline=None)
@given(gather_cases(), st.sampled_from(["zero", "clip"]), st.sampled_from([None, 1, 2, 5]))
def test_matches_loop_model_of_gather8(tile_cells, case, policy, cells):
    data, indices, axis, batch_dims = case
    if policy == "clip" and data.shape[axis] == 0 and indices.size:
        return
    with tile_cells(cells):
        result = gather(data, indices, axis, batch_dims, out_of_range=policy)
    expected = gather8(data, indices, axis, batch_dims, policy)
    assert result.dtype == expected.dtype
    assert result.shape == expected.shape
    np.testing.assert_array_equal(result, expected)


@settings(derandomize=True, max_examples=60, deadline=None)
@given(gather_cases(), st.sampled_from([None, 1, 3]))
def test_error_policy_raises_exactly_when_an_index_is_outside_minus_s_to_s(tile_cells, case, cells):
    data, indices, axis, batch_dims = case
    size = data.shape[axis]
    bad = (indices < -size) | (indices >= size)
    if bad.any():
        first = tuple(int(p) for p in np.argwhere(bad)[0])
        with tile_cells(cells), pytest.raises(IndexOutOfRangeError) as caught:
            gather(data, indices, axis, batch_dims, out_of_range="error")
        assert f"index {indices[first]} at indices position {first} " in str(caught.value)
    else:
        result = gather(data, indices, axis, batch_dims, out_of_range="error")
        np.testing.assert_array_equal(result, gather8(data, indices, axis, batch_dims))


def test_docstring_examples_run():
    # The package attribute `gather` is the function, so fetch the module by its name.
    module = importlib.import_module("irrun.kernels.gather")
    assert doctest.testmod(module).failed == 0


STRINGS = np.dtypes.StringDType()


@pytest.mark.parametrize(
    "index, expected",
    [(np.int64(1), "c"), (np.array(1), "c"), (np.array(-2), "ab"), (np.array(5), "")],
)
def test_a_0d_index_over_strings_gives_a_0d_string_array(index, expected):
    # np.take hands a 0-d result back as a Python str; it must stay StringDType, not '<U'.
    out = gather(np.array(["ab", "c"], dtype=STRINGS), index, axis=0)
    assert out.dtype == STRINGS and out.shape == () and out[()] == expected


@pytest.mark.parametrize("dtype", [np.float16, np.int8, np.bool_, ml_dtypes.bfloat16])
def test_a_0d_index_keeps_every_dtype(dtype):
    out = gather(np.arange(3).astype(dtype), np.array(2), axis=0)
    assert out.dtype == np.dtype(dtype) and out.shape == ()
