"""Pausing Python's cyclic garbage collector while building large object graphs.

Loading or validating a model creates hundreds of thousands of small objects and no garbage;
the collector would scan them again and again (a quarter of the load time for a 50k-layer
model). Reference counting still frees everything as usual while it is paused.

When the pause ends, the objects made during it would all be scanned by the next young
collection, then again by the next middle one, before they reach the oldest generation (a
model is long-lived). After a big pause they are moved there directly instead
(``gc.freeze()`` + ``gc.unfreeze()`` moves every tracked object to the oldest generation
without scanning; skipped while anything else keeps objects frozen). Full collections still
see them, so nothing becomes uncollectable.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager

__all__ = ["gc_paused"]

#: Young objects made during a pause above which they are moved to the oldest generation.
PROMOTE_AFTER = 100_000


@contextmanager
def gc_paused():
    """Disable the cyclic collector for the block (re-enabled only if it was enabled)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if gc.get_count()[0] > PROMOTE_AFTER and gc.get_freeze_count() == 0:
                gc.freeze()
                gc.unfreeze()
            gc.enable()
