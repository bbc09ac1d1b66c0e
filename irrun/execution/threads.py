"""Threads for a run: how many threads NumPy's matrix products and irrun's own kernels may use.

With ``threadpoolctl`` installed (``pip install threadpoolctl``), :func:`blas_threads` uses it
(it knows OpenBLAS, MKL and BLIS). Without it, irrun calls OpenBLAS's own
``openblas_set_num_threads`` (the BLAS NumPy's wheels ship) found in the process. Where
neither works, the count is left as it is and a warning says so: set ``OPENBLAS_NUM_THREADS``
(or ``OMP_NUM_THREADS``, ``MKL_NUM_THREADS``) in the environment before Python starts.
The default (``None``) leaves NumPy's setting: all cores.

The same count bounds irrun's kernels that split their work themselves (:func:`parallel`: the
grouped convolutions' groups in chunks, on a pool of worker threads; NumPy releases the GIL
in its copies, ufunc loops and matrix products). Each chunk is computed as it would be alone,
so the results do not depend on the count; with 1 the calling thread does everything.
"""

from __future__ import annotations

import ctypes
import os
import threading
import warnings
from concurrent.futures import ThreadPoolExecutor, wait
from contextlib import contextmanager
from functools import lru_cache

from irrun.errors import InputValueError

__all__ = ["blas_threads", "current_blas_threads", "kernel_threads", "parallel"]

_OPENBLAS = (
    ("scipy_openblas_set_num_threads64_", "scipy_openblas_get_num_threads64_"),
    ("scipy_openblas_set_num_threads", "scipy_openblas_get_num_threads"),
    ("openblas_set_num_threads64_", "openblas_get_num_threads64_"),
    ("openblas_set_num_threads", "openblas_get_num_threads"),
)


@contextmanager
def blas_threads(count: int | None):
    """Limit the BLAS, and irrun's kernels (:func:`kernel_threads`), to ``count`` threads
    inside the ``with`` block (``None``: unchanged).

    Raises
    ------
    InputValueError
        ``count`` is not a positive integer.
    """
    if count is None:
        yield
        return
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise InputValueError(f"threads must be a positive integer, not {count!r}")
    global _kernel_count
    before_kernels = _kernel_count
    _kernel_count = count
    try:
        with _blas_limited(count):
            yield
    finally:
        _kernel_count = before_kernels


@contextmanager
def _blas_limited(count: int):
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        threadpool_limits = None
    if threadpool_limits is not None:
        with threadpool_limits(limits=count, user_api="blas"):
            yield
        return
    functions = _openblas_functions()
    if functions is None:
        warnings.warn(
            "irrun cannot set the BLAS threads in this process (no threadpoolctl, no "
            "OpenBLAS found): set OPENBLAS_NUM_THREADS before starting Python",
            RuntimeWarning,
            stacklevel=5,  # (this generator, blas_threads' and their two __enter__ frames)
        )
        yield
        return
    set_threads, get_threads = functions
    before = int(get_threads())
    set_threads(count)
    try:
        yield
    finally:
        set_threads(before)


#: The thread count of the innermost ``blas_threads`` block (``None``: outside any).
_kernel_count: int | None = None


def kernel_threads() -> int:
    """How many threads irrun's kernels may use now: the count of the run's ``threads=``
    (:func:`blas_threads`), else the cores this process may run on."""
    if _kernel_count is not None:
        return _kernel_count
    return _cores()


@lru_cache(maxsize=1)
def _cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # (not on every platform)
        return max(1, os.cpu_count() or 1)


_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def parallel(function, chunks) -> list:
    """``[function(chunk) for chunk in chunks]``, the chunks after the first on worker
    threads (at most :func:`kernel_threads` run at once, the calling thread taking the
    first); the results in order, the first exception raised."""
    chunks = list(chunks)
    if len(chunks) < 2:
        return [function(chunk) for chunk in chunks]
    pool = _worker_pool()
    futures = [pool.submit(function, chunk) for chunk in chunks[1:]]
    try:
        first = function(chunks[0])
    finally:
        wait(futures)  # no chunk may still be writing when the caller goes on (or sees an error)
    return [first, *(future.result() for future in futures)]


def _worker_pool() -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            # Daemon-like workers named for what they do; they idle between runs.
            _pool = ThreadPoolExecutor(max_workers=max(1, _cores() - 1),
                                       thread_name_prefix="irrun-kernel")  # fmt: skip
        return _pool


def current_blas_threads() -> int | None:
    """The BLAS thread count NumPy uses now (``None`` when irrun cannot tell)."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        functions = _openblas_functions()
        return int(functions[1]()) if functions is not None else None
    counts = [info["num_threads"] for info in threadpool_info() if info["user_api"] == "blas"]
    return counts[0] if counts else None


@lru_cache(maxsize=1)
def _openblas_functions():
    """``(set_num_threads, get_num_threads)`` of the OpenBLAS loaded by NumPy, or ``None``."""
    import numpy as np

    np.ones((2, 2)) @ np.ones((2, 2))  # the BLAS is loaded on first use
    try:
        with open("/proc/self/maps") as maps:
            paths = sorted({line.split()[-1] for line in maps if "openblas" in line.lower()})
    except OSError:
        return None
    for path in paths:
        try:
            library = ctypes.CDLL(path)
        except OSError:
            continue
        for set_name, get_name in _OPENBLAS:
            setter, getter = getattr(library, set_name, None), getattr(library, get_name, None)
            if setter is not None and getter is not None:
                setter.argtypes = [ctypes.c_int]
                return setter, getter
    return None
