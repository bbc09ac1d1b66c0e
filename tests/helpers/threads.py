"""Counting the threads a load leaves behind.

irrun's parse helper is a bare ``_thread`` thread (see ``irrun.ir.pieces``), which
``threading.enumerate()`` does not list, so the tests count every Python thread instead.
"""

from __future__ import annotations

import _thread
import time


def thread_count() -> int:
    """The number of Python threads running, the main thread left out."""
    return _thread._count()


def settled_thread_count(expected: int, timeout: float = 1.0) -> int:
    """The thread count once it is down to ``expected``, or after ``timeout`` seconds: a
    helper that has just finished its work takes a moment more to be gone."""
    deadline = time.perf_counter() + timeout
    while _thread._count() > expected and time.perf_counter() < deadline:
        time.sleep(0.001)
    return _thread._count()
