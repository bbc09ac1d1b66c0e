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

__all__ = ["call_paused"]

#: Young objects made during a pause above which they are moved to the oldest generation.
PROMOTE_AFTER = 100_000


def call_paused(function, /, *args, **kwargs):
    """Call ``function(*args, **kwargs)`` with the cyclic collector disabled, and return what
    it returns. The collector is re-enabled afterwards only if it was enabled.

    A KeyboardInterrupt (or another signal's exception) at any point still leaves the collector
    as it was found: enabled if it was, and nothing frozen by irrun. Python takes a signal only
    as a Python function begins, after a call returns or at a loop's jump back; the pause ends
    in nested ``finally`` blocks whose only calls are the collector's own C functions, so an
    interrupt can cut a step short but never skip the ones after it. (A context manager cannot
    promise that: an interrupt can land as its ``__exit__`` begins, before any of it has run.)
    """
    was_enabled = gc.isenabled()
    try:
        gc.disable()
        return function(*args, **kwargs)
    finally:
        try:
            if was_enabled and gc.get_count()[0] > PROMOTE_AFTER and gc.get_freeze_count() == 0:
                try:
                    gc.freeze()
                finally:
                    gc.unfreeze()  # stopping between the two would leave everything frozen
        finally:
            if was_enabled:
                gc.enable()
