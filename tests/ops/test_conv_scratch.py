"""The tap loop's work arrays live in buffers each thread reuses: a result never shares memory
with them (a later call does not change it), calls of other sizes in turn give the values of
a fresh computation, and arrays beyond SCRATCH_MAX_BYTES are allocated per call."""

import threading

import numpy as np
import pytest

from irrun.ops import _conv_kernel
from irrun.ops._conv_kernel import convolve

RNG = np.random.default_rng(5)


def _depthwise(channels, size, kernel, stride, batch=1):
    data = RNG.standard_normal((batch, channels, size, size + 1)).astype(np.float32)
    filters = RNG.standard_normal((channels, 1, 1, kernel, kernel)).astype(np.float32)
    pad = kernel // 2
    return data, filters, channels, [pad, pad], [pad, pad], [stride, stride], [1, 1]


def _reference(data, filters, groups, begin, end, strides, dilations):
    """The same convolution by the im2col GEMM, in float64 (exact enough to compare)."""
    return convolve(data.astype(np.float64), filters.astype(np.float64), groups, begin, end,
                    strides, dilations, method="gemm")  # fmt: skip


CASES = [(6, 9, 3, 1, 1), (5, 12, 5, 2, 2), (40, 6, 3, 2, 1), (3, 20, 3, 1, 3)]


def test_results_never_share_the_reused_buffers():
    first_case = _depthwise(6, 9, 3, 1)
    first = convolve(*first_case)
    kept = first.copy()
    for case in CASES:
        arguments = _depthwise(*case)
        got = convolve(*arguments, method="taps")
        np.testing.assert_allclose(got, _reference(*arguments), rtol=1e-5, atol=1e-5)
    assert first.tobytes() == kept.tobytes()
    buffers = _conv_kernel._scratch_buffers.buffers
    assert not any(np.shares_memory(first, b) for b in buffers.values())


@pytest.mark.parametrize("limit", [0, 1 << 30])
def test_the_values_do_not_depend_on_the_buffers(monkeypatch, limit):
    arguments = _depthwise(7, 11, 5, 2, batch=2)
    expected = convolve(*arguments)
    monkeypatch.setattr(_conv_kernel, "SCRATCH_MAX_BYTES", limit)  # 0: all allocated per call
    assert convolve(*arguments).tobytes() == expected.tobytes()
    out = np.empty_like(expected)
    assert convolve(*arguments, out=out) is out and out.tobytes() == expected.tobytes()


def test_each_thread_has_its_own_buffers():
    arguments = [_depthwise(*case) for case in CASES]
    expected = [convolve(*a) for a in arguments]
    failures = []

    def work(order):
        for _ in range(20):
            for index in order:
                if convolve(*arguments[index]).tobytes() != expected[index].tobytes():
                    failures.append(index)

    workers = [threading.Thread(target=work, args=(order,))
               for order in ([0, 1, 2, 3], [3, 2, 1, 0])]  # fmt: skip
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert not failures


def test_the_reused_phase_grid_is_zero_wherever_no_data_goes():
    """The buffer is zeroed only outside the data (pads, the ends past them, phases no data
    reaches): the same grid as a zeroed array, whatever the buffer held before."""
    rng = np.random.default_rng(0)
    compared = 0
    for _ in range(200):
        rank = int(rng.integers(1, 4))
        sizes = [int(v) for v in rng.integers(1, 9, rank)]
        strides = [int(v) for v in rng.integers(1, 4, rank)]
        begin = [int(v) for v in rng.integers(0, 4, rank)]
        end = [int(v) for v in rng.integers(-1, 4, rank)]
        end = [max(e, 1 - s) for e, s in zip(end, sizes)]  # a crop leaves some data
        data = rng.standard_normal((2, 3, *sizes)).astype(np.float32)
        expected, steps = _conv_kernel._phase_grid(data, begin, end, strides)
        _conv_kernel._scratch(0, (expected.size,), np.float32)[...] = np.nan
        got, got_steps = _conv_kernel._phase_grid(data, begin, end, strides, scratch=True)
        assert got_steps == steps and np.array_equal(got, expected)
        compared += 1
    assert compared == 200


@pytest.mark.parametrize("strides, pads", [((1, 1), (0, 0)), ((2, 1), (0, 0)), ((1, 1), (1, 1))])
def test_read_only_inputs_and_the_data_itself_as_the_grid(strides, pads):
    """Without pads or strides the tap views are built on the data's own (read-only) memory,
    which is never written."""
    data = RNG.standard_normal((2, 6, 5, 7)).astype(np.float32)
    filters = RNG.standard_normal((6, 1, 1, 3, 3)).astype(np.float32)
    kept = data.copy()
    data.flags.writeable = False
    filters.flags.writeable = False
    arguments = (data, filters, 6, list(pads), list(pads), list(strides), [1, 1])
    got = convolve(*arguments, method="taps")
    np.testing.assert_allclose(got, _reference(*arguments), rtol=1e-5, atol=1e-5)
    assert data.tobytes() == kept.tobytes()
