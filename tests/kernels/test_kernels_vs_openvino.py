"""Differential tests: each kernel against OpenVINO's CPU plugin (and its reference evaluator).

Tiny models are built with ``openvino.opsetN``, compiled on CPU and run; the kernel's result must
be bit-identical. The CPU-plugin anomalies of ops.md 2.6 are avoided: i64 values stay inside the
int32 range, Gather-8 on 1-D integer data gets no out-of-range indices, Gather-1/-7 get no
negative or out-of-range indices on CPU (their negative indices are compared against the
reference evaluator instead, reached through constant folding of Constant inputs).

One more CPU-plugin anomaly was found while writing these tests (OpenVINO 2026.4.1): Gather-7/-8
with ``batch_dims > 0`` whose batch dims hold a single batch (e.g. data (1, 4, 2), indices
[[3, 0]], axis 2, batch_dims 1) returns wrong values or crashes the process; the reference
evaluator is right. Gather cases here therefore always have at least two batches.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irrun.kernels import concat, gather, gather_elements, gather_nd

ov = pytest.importorskip("openvino")
from openvino import opset1, opset5, opset6, opset7, opset8, opset13  # noqa: E402

CORE = ov.Core()
EXAMPLES = settings(derandomize=True, max_examples=30, deadline=None)
DATA_DTYPES = [np.float32, np.float16, np.int32, np.int64, np.int8, np.uint8, np.bool_]
INDEX_DTYPES = [np.int32, np.int64]


def run_on_cpu(build, *arrays):
    """Compile ``build(*parameters)`` on CPU and run it on ``arrays``; return the one output."""
    parameters = [opset8.parameter(list(a.shape), a.dtype.type) for a in arrays]
    model = ov.Model([build(*parameters)], parameters)
    return CORE.compile_model(model, "CPU")(list(arrays))[0]


def run_constant_folded(build, *arrays):
    """Evaluate ``build(*constants)`` through constant folding, i.e. the reference evaluator."""
    model = ov.Model([build(*[opset8.constant(a) for a in arrays])], [])
    return CORE.compile_model(model, "CPU")([])[0]


def assert_bit_exact(result, expected):
    expected = np.asarray(expected)
    assert result.dtype == expected.dtype
    assert result.shape == expected.shape
    np.testing.assert_array_equal(
        np.ascontiguousarray(result).reshape(-1).view(np.uint8),
        np.ascontiguousarray(expected).reshape(-1).view(np.uint8),
    )


def random_data(rng, shape, dtype):
    """Values every element type holds exactly; i64 stays inside int32 (ops.md 2.6 #3)."""
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    if np.issubdtype(dtype, np.floating):
        return (rng.standard_normal(shape) * 100).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(
        max(info.min, -(2**31)), min(info.max, 2**31 - 1), shape, endpoint=True
    ).astype(dtype)


def random_indices(rng, shape, size, dtype, *, negative=True, out_of_range=False):
    low = -size if negative else 0
    high = size - 1
    if out_of_range:
        low, high = low - 3, high + 3
    return rng.integers(low, high, shape, endpoint=True).astype(dtype)


def shapes(rank, low=1, high=4):
    return st.lists(st.integers(low, high), min_size=rank, max_size=rank).map(tuple)


# --- Concat-1 -------------------------------------------------------------------------------------


@st.composite
def concat_cases(draw):
    rank = draw(st.integers(1, 4))
    base = draw(shapes(rank))
    axis = draw(st.integers(-rank, rank - 1))
    count = draw(st.integers(1, 4))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    dtype = draw(st.sampled_from(DATA_DTYPES))
    arrays = []
    for _ in range(count):
        shape = list(base)
        shape[axis] = draw(st.integers(0, 3))
        arrays.append(random_data(rng, tuple(shape), dtype))
    if all(a.shape[axis] == 0 for a in arrays):
        arrays[0] = random_data(rng, base, dtype)
    return arrays, axis


@EXAMPLES
@given(concat_cases())
def test_concat_matches_openvino_concat(case):
    arrays, axis = case
    expected = run_on_cpu(lambda *p: opset13.concat(list(p), axis), *arrays)
    assert_bit_exact(concat(arrays, axis), expected)


def test_concat_of_strings_matches_openvino():
    a = np.array(["a", "bc"])
    b = np.array(["def"])
    parameters = [opset8.parameter([2], ov.Type.string), opset8.parameter([1], ov.Type.string)]
    model = ov.Model([opset13.concat(parameters, 0)], parameters)
    expected = CORE.compile_model(model, "CPU")([a, b])[0]
    assert concat([a, b], 0).tolist() == expected.tolist()


# --- Gather-8 -------------------------------------------------------------------------------------


@st.composite
def gather_cases(draw, *, negative=True, allow_out_of_range=True):
    rank = draw(st.integers(1, 4))
    data_shape = draw(shapes(rank))
    axis = draw(st.integers(0, rank - 1))
    batch_dims = draw(st.integers(0, axis))
    if batch_dims and np.prod(data_shape[:batch_dims]) == 1:
        data_shape = (2,) + data_shape[1:]  # see the module docstring
    indices_shape = data_shape[:batch_dims] + draw(shapes(draw(st.integers(0, 2)), 1, 3))
    dtype = draw(st.sampled_from(DATA_DTYPES))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    integer_vector = rank == 1 and dtype != np.float32 and dtype != np.float16
    out_of_range = allow_out_of_range and not integer_vector and draw(st.booleans())
    indices = random_indices(
        rng,
        indices_shape,
        data_shape[axis],
        draw(st.sampled_from(INDEX_DTYPES)),
        negative=negative,
        out_of_range=out_of_range,
    )
    return random_data(rng, data_shape, dtype), indices, axis, batch_dims


@EXAMPLES
@given(gather_cases())
def test_gather8_matches_openvino_cpu(case):
    data, indices, axis, batch_dims = case
    expected = run_on_cpu(
        lambda d, i: opset8.gather(d, i, opset8.constant(np.int64(axis)), batch_dims), data, indices
    )
    assert_bit_exact(gather(data, indices, axis, batch_dims), expected)


@EXAMPLES
@given(gather_cases(negative=False, allow_out_of_range=False))
def test_gather7_matches_openvino_cpu_for_indices_in_range(case):
    data, indices, axis, batch_dims = case
    expected = run_on_cpu(
        lambda d, i: opset7.gather(d, i, opset8.constant(np.int64(axis)), batch_dims), data, indices
    )
    assert_bit_exact(gather(data, indices, axis, batch_dims), expected)


@EXAMPLES
@given(gather_cases(negative=False, allow_out_of_range=False))
def test_gather1_matches_openvino_cpu_for_indices_in_range(case):
    data, indices, axis, _ = case
    expected = run_on_cpu(
        lambda d, i: opset1.gather(d, i, opset8.constant(np.int64(axis))), data, indices
    )
    assert_bit_exact(gather(data, indices, axis), expected)


@settings(derandomize=True, max_examples=15, deadline=None)
@given(gather_cases())
def test_gather1_and_gather7_negative_indices_match_the_reference_evaluator(case):
    data, indices, axis, batch_dims = case
    data = data.astype(np.float32)
    axis_node = opset8.constant(np.int64(axis))
    gather7 = run_constant_folded(
        lambda d, i: opset7.gather(d, i, axis_node, batch_dims), data, indices
    )
    assert_bit_exact(gather(data, indices, axis, batch_dims), gather7)
    gather1 = run_constant_folded(lambda d, i: opset1.gather(d, i, axis_node), data, indices)
    assert_bit_exact(gather(data, indices, axis), gather1)


def test_gather8_copies_nan_payloads_like_openvino():
    bits = np.array([0x7FC00001, 0xFFA00002, 0x80000000, 0x7F800001], np.uint32)
    data = bits.view(np.float32).reshape(2, 2)
    indices = np.array([[1, 0, -1], [0, 0, 1]], np.int64)
    expected = run_on_cpu(
        lambda d, i: opset8.gather(d, i, opset8.constant(np.int64(1)), 1), data, indices
    )
    assert_bit_exact(gather(data, indices, 1, 1), expected)


# --- GatherND-5 / -8 ------------------------------------------------------------------------------


@st.composite
def gather_nd_cases(draw):
    rank = draw(st.integers(1, 4))
    data_shape = draw(shapes(rank))
    indices_rank = draw(st.integers(1, 3))
    batch_dims = draw(st.integers(0, min(rank, indices_rank) - 1))
    tuple_length = draw(st.integers(1, rank - batch_dims))
    grid = draw(shapes(indices_rank - 1 - batch_dims, 1, 3))
    indices_shape = data_shape[:batch_dims] + grid + (tuple_length,)
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    addressed = np.array(data_shape[batch_dims : batch_dims + tuple_length])
    # Negative indices wrap on CPU; out-of-range ones read out of bounds there (ops.md 3.1).
    indices = (rng.integers(-(2**20), 2**20, indices_shape) % (2 * addressed)) - addressed
    indices = indices.astype(draw(st.sampled_from(INDEX_DTYPES)))
    data = random_data(rng, data_shape, draw(st.sampled_from(DATA_DTYPES)))
    return data, indices, batch_dims


@EXAMPLES
@given(gather_nd_cases())
def test_gather_nd8_matches_openvino_cpu(case):
    data, indices, batch_dims = case
    expected = run_on_cpu(lambda d, i: opset8.gather_nd(d, i, batch_dims), data, indices)
    assert_bit_exact(gather_nd(data, indices, batch_dims), expected)


@EXAMPLES
@given(gather_nd_cases())
def test_gather_nd5_matches_openvino_cpu(case):
    data, indices, batch_dims = case
    expected = run_on_cpu(lambda d, i: opset5.gather_nd(d, i, batch_dims), data, indices)
    assert_bit_exact(gather_nd(data, indices, batch_dims, flatten_batch=True), expected)


# --- GatherElements-6 -----------------------------------------------------------------------------


@st.composite
def gather_elements_cases(draw):
    rank = draw(st.integers(1, 4))
    data_shape = draw(shapes(rank))
    axis = draw(st.integers(-rank, rank - 1))
    indices_shape = list(data_shape)
    indices_shape[axis] = draw(st.integers(1, 5))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    indices = random_indices(
        rng, tuple(indices_shape), data_shape[axis], draw(st.sampled_from(INDEX_DTYPES))
    )
    data = random_data(rng, data_shape, draw(st.sampled_from(DATA_DTYPES)))
    return data, indices, axis


@EXAMPLES
@given(gather_elements_cases())
def test_gather_elements6_matches_openvino_cpu(case):
    data, indices, axis = case
    expected = run_on_cpu(lambda d, i: opset6.gather_elements(d, i, axis), data, indices)
    assert_bit_exact(gather_elements(data, indices, axis), expected)
