"""BLAS threads for a run: how many threads NumPy's matrix products may use.

With ``threadpoolctl`` installed (``pip install threadpoolctl``), :func:`blas_threads` uses it
(it knows OpenBLAS, MKL and BLIS). Without it, irrun calls OpenBLAS's own
``openblas_set_num_threads`` (the BLAS NumPy's wheels ship) found in the process. Where
neither works, the count is left as it is and a warning says so: set ``OPENBLAS_NUM_THREADS``
(or ``OMP_NUM_THREADS``, ``MKL_NUM_THREADS``) in the environment before Python starts.
The default (``None``) leaves NumPy's setting: all cores.
"""

from __future__ import annotations

import ctypes
import warnings
from contextlib import contextmanager
from functools import lru_cache

from irrun.errors import InputValueError

__all__ = ["blas_threads", "current_blas_threads"]

_OPENBLAS = (
    ("scipy_openblas_set_num_threads64_", "scipy_openblas_get_num_threads64_"),
    ("scipy_openblas_set_num_threads", "scipy_openblas_get_num_threads"),
    ("openblas_set_num_threads64_", "openblas_get_num_threads64_"),
    ("openblas_set_num_threads", "openblas_get_num_threads"),
)


@contextmanager
def blas_threads(count: int | None):
    """Limit the BLAS to ``count`` threads inside the ``with`` block (``None``: unchanged).

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
            stacklevel=3,
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
