"""The kernels' ``out=``: writing into a given array gives exactly what allocating gives."""

import numpy as np
import pytest

from irrun.kernels import concat, gather, gather_elements, gather_nd

F32 = np.float32
STRINGS = np.dtypes.StringDType()


def into(kernel, *args, like, **kwargs):
    """``kernel`` run with ``out=`` a garbage-filled array of the result's shape and dtype."""
    out = np.empty_like(like)
    if out.dtype.kind not in "OT":
        out.reshape(-1).view(np.uint8)[...] = 0xAB  # no zero left to hide an unwritten element
    returned = kernel(*args, out=out, **kwargs)
    assert returned is out
    return out


def same(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)


DATA = np.arange(24, dtype=F32).reshape(2, 3, 4)

GATHER_CASES = {
    "rows": (DATA, np.array([2, 0, 1, 1]), 1, 0, "zero"),
    "negative indices": (DATA, np.array([-1, -3, 2]), 2, 0, "error"),
    "out of range zero-filled (Gather-8)": (DATA, np.array([5, -7, 1, 3]), 1, 0, "zero"),
    "batch_dims 1": (DATA, np.array([[2, 0], [1, -1]]), 1, 1, "zero"),
    "batch_dims 1, out of range": (DATA, np.array([[9, 0], [1, -9]]), 2, 1, "zero"),
    "batch_dims 2": (DATA, np.array([[[3], [0], [1]], [[2], [2], [-4]]]), 2, 2, "error"),
    "clip": (DATA, np.array([7, -8, 1]), 2, 0, "clip"),
    "scalar index": (np.arange(5, dtype=F32), np.array(3), 0, 0, "zero"),
    "empty data axis": (np.zeros((2, 0), F32), np.array([1, 0]), 1, 0, "zero"),
    "no indices": (DATA, np.zeros((0,), np.int64), 1, 0, "zero"),
    "strings": (np.array(["a", "bc", "def"], STRINGS), np.array([2, 0, 5]), 0, 0, "zero"),
    "objects": (np.array([1, "x", None], object), np.array([1, 2, -1]), 0, 0, "error"),
    "fixed-width strings": (np.array(["ab", "c"]), np.array([[1, 0], [0, 1]]), 0, 0, "error"),
}


@pytest.mark.parametrize("case", GATHER_CASES)
def test_gather_into_out_equals_gather(case):
    data, indices, axis, batch_dims, policy = GATHER_CASES[case]
    expected = gather(data, indices, axis, batch_dims, out_of_range=policy)
    got = into(gather, data, indices, axis, batch_dims, out_of_range=policy, like=expected)
    assert same(got, expected)


def test_gather_into_a_strided_view_fills_the_view_only():
    base = np.zeros((4, 6), F32)
    view = base[::2, 1::2]  # [2, 3], not contiguous
    gather(np.array([[1, 2, 3], [4, 5, 6]], F32), np.array([1, 0]), 0, out=view)
    assert base.tolist() == [[0, 4, 0, 5, 0, 6], [0] * 6, [0, 1, 0, 2, 0, 3], [0] * 6]


@pytest.mark.parametrize("wrong", [np.empty((3, 2), F32), np.empty((2, 4), np.float64), [0] * 8])
def test_gather_refuses_an_out_of_another_shape_or_dtype(wrong):
    with pytest.raises(ValueError, match=r"out must be an array of float32\[2,4\]; got"):
        gather(DATA[0], np.array([0, 2]), 0, out=wrong)


GATHER_ND_CASES = {
    "tuples of 2": (DATA, np.array([[0, 2], [1, -1], [1, 0]]), 0, False, "error"),
    "slices": (DATA, np.array([[1], [0]]), 0, False, "error"),
    "batch_dims 1": (DATA, np.array([[[2], [0]], [[1], [1]]]), 1, False, "error"),
    "batch_dims 2 flattened (GatherND-5)": (
        DATA,
        np.array([[[1], [0], [3]], [[0], [2], [3]]]),
        2,
        True,
        "error",
    ),  # fmt: skip
    "out of range zero-filled": (DATA, np.array([[0, 5], [1, 1]]), 0, False, "zero"),
    "empty tuples": (DATA, np.zeros((2, 0), np.int64), 0, False, "error"),
    "strings": (
        np.array([["a", "b"], ["c", "d"]], STRINGS),
        np.array([[1, 0]]),
        0,
        False,
        "error",
    ),  # fmt: skip
}


@pytest.mark.parametrize("case", GATHER_ND_CASES)
def test_gather_nd_into_out_equals_gather_nd(case):
    data, indices, batch_dims, flatten, policy = GATHER_ND_CASES[case]
    expected = gather_nd(data, indices, batch_dims, flatten_batch=flatten, out_of_range=policy)
    got = into(gather_nd, data, indices, batch_dims, flatten_batch=flatten,
               out_of_range=policy, like=expected)  # fmt: skip
    assert same(got, expected)


GATHER_ELEMENTS_CASES = {
    "axis 1": (DATA, np.array([[[0, 1, 2, 3]] * 2] * 2) % 3, 1, "error"),
    "negative indices, last axis": (DATA, -np.ones((2, 3, 2), np.int64), 2, "error"),
    "out of range zero-filled": (DATA, np.full((2, 3, 4), 7), 0, "zero"),
    "longer than the data": (DATA[:, :, :1], np.array([[[0, 0]] * 3] * 2), 2, "error"),
    "objects": (
        np.array([[1, None], ["a", 2.5]], object),
        np.array([[1, 0], [0, 0]]),
        1,
        "error",
    ),  # fmt: skip
}


@pytest.mark.parametrize("case", GATHER_ELEMENTS_CASES)
def test_gather_elements_into_out_equals_gather_elements(case, tile_cells):
    data, indices, axis, policy = GATHER_ELEMENTS_CASES[case]
    expected = gather_elements(data, indices, axis, out_of_range=policy)
    got = into(gather_elements, data, indices, axis, out_of_range=policy, like=expected)
    assert same(got, expected)
    with tile_cells(2):  # the tiled paths write each tile into out
        got = into(gather_elements, data, indices, axis, out_of_range=policy, like=expected)
    assert same(got, expected)


def test_gather_and_gather_nd_tiles_write_into_out(tile_cells):
    indices = np.array([[2, 0, 1], [1, 1, -1]])
    with tile_cells(2):
        expected = gather(DATA, indices, 2, 1)
        assert same(into(gather, DATA, indices, 2, 1, like=expected), expected)
        tuples = np.array([[0, 2], [1, -1], [1, 0], [0, 0]])
        expected = gather_nd(DATA, tuples)
        assert same(into(gather_nd, DATA, tuples, like=expected), expected)


CONCAT_CASES = {
    "axis 0": ([DATA, DATA[:1]], 0),
    "axis -1": ([DATA, DATA[:, :, :2], DATA[:, :, :0]], -1),
    "one input": ([DATA], 1),
    "strings of two widths": ([np.array(["a"]), np.array(["bcd", "ef"])], 0),
    "bool": ([np.array([True]), np.array([False, True])], 0),
}


@pytest.mark.parametrize("case", CONCAT_CASES)
def test_concat_into_out_equals_concat(case):
    arrays, axis = CONCAT_CASES[case]
    expected = concat(arrays, axis)
    assert same(into(concat, arrays, axis, like=expected), expected)


def test_concat_refuses_an_out_of_another_shape():
    with pytest.raises(ValueError, match=r"out must be an array of float32\[3,3,4\]; got "
                                         r"float32\[2,3,4\]"):  # fmt: skip
        concat([DATA, DATA[:1]], 0, out=np.empty_like(DATA))
