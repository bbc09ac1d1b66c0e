"""Grouped convolutions split into chunks of groups over the kernel threads give the very
values of one thread (each chunk is computed as it would be alone), into a new array or into
a given one, and ``threads=1`` computes in the calling thread alone."""

import threading

import numpy as np
import pytest

from irrun.execution import threads
from irrun.ops import _conv_kernel
from irrun.ops._conv_kernel import convolve

RNG = np.random.default_rng(11)


@pytest.fixture
def small_chunks(monkeypatch):
    """Split even the tests' small convolutions."""
    monkeypatch.setattr(_conv_kernel, "PARALLEL_MIN_PRODUCTS", 0)


CASES = [
    # groups, C_out/G, C_in/G, kernel, strides, pads: tap columns (depthwise, strided),
    # pointwise, im2col GEMM
    (6, 1, 1, (3, 3), (1, 1), (1, 1)),
    (5, 1, 1, (5, 5), (2, 2), (2, 2)),
    (4, 3, 2, (1, 1), (1, 1), (0, 0)),
    (3, 16, 8, (3, 3), (1, 1), (1, 1)),
]


@pytest.mark.parametrize("groups, out_per_group, per_group, kernel, strides, pads", CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("count", [2, 3, 7])
def test_chunks_of_groups_give_the_values_of_one_thread(
    small_chunks, groups, out_per_group, per_group, kernel, strides, pads, dtype, count
):
    data = RNG.standard_normal((2, groups * per_group, 9, 8)).astype(dtype)
    filters = RNG.standard_normal((groups, out_per_group, per_group, *kernel)).astype(dtype)
    arguments = (data, filters, groups, list(pads), list(pads), list(strides), [1, 1])
    with threads.blas_threads(1):
        alone = convolve(*arguments)
    with threads.blas_threads(count):
        split = convolve(*arguments)
        into = np.full_like(alone, 7)
        assert convolve(*arguments, out=into) is into
    assert split.dtype == alone.dtype and split.tobytes() == alone.tobytes()
    assert into.tobytes() == alone.tobytes()


def test_one_thread_computes_in_the_calling_thread(small_chunks, monkeypatch):
    seen = []
    real = _conv_kernel._convolve

    def spy(*arguments):
        seen.append(threading.current_thread())
        return real(*arguments)

    monkeypatch.setattr(_conv_kernel, "_convolve", spy)
    data = RNG.standard_normal((1, 8, 6, 6)).astype(np.float32)
    filters = RNG.standard_normal((8, 1, 1, 3, 3)).astype(np.float32)
    with threads.blas_threads(1):
        convolve(data, filters, 8, [1, 1], [1, 1], [1, 1], [1, 1])
    assert seen == [threading.current_thread()]
    seen.clear()
    with threads.blas_threads(2):
        convolve(data, filters, 8, [1, 1], [1, 1], [1, 1], [1, 1])
    assert len(seen) == 2 and seen[0] is threading.current_thread()
    assert seen[1] is not threading.current_thread()


def test_kernel_threads_follow_the_run_setting():
    outside = threads.kernel_threads()
    assert outside >= 1
    with threads.blas_threads(3):
        assert threads.kernel_threads() == 3
        with threads.blas_threads(1):
            assert threads.kernel_threads() == 1
        assert threads.kernel_threads() == 3
    assert threads.kernel_threads() == outside


def test_parallel_returns_in_order_and_raises_the_first_error():
    assert threads.parallel(lambda x: x * 2, [1, 2, 3]) == [2, 4, 6]
    assert threads.parallel(lambda x: x, []) == []

    def fails(x):
        if x:
            raise ValueError(f"chunk {x}")
        return x

    with pytest.raises(ValueError, match="chunk 1"):
        threads.parallel(fails, [0, 1, 2])
