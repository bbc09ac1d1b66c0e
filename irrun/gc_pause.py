"""Pausing Python's cyclic garbage collector while building large object graphs.

Loading or validating a model creates hundreds of thousands of small objects and no garbage;
the collector would scan them again and again (a quarter of the load time for a 50k-layer
model). Reference counting still frees everything as usual while it is paused.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager

__all__ = ["gc_paused"]


@contextmanager
def gc_paused():
    """Disable the cyclic collector for the block (re-enabled only if it was enabled)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
