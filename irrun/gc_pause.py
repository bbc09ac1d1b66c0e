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

__all__ = ["gc_paused"]

#: Young objects made during a pause above which they are moved to the oldest generation.
PROMOTE_AFTER = 100_000


class gc_paused:
    """Disable the cyclic collector for a ``with`` block (re-enabled only if it was enabled).

    A KeyboardInterrupt (or another exception) at any point of the block, or while the pause
    ends, still leaves the collector as it was found: enabled if it was, and nothing frozen
    by irrun (the ending steps are repeated until they have all been done).
    """

    __slots__ = ("_was_enabled",)

    def __enter__(self):
        self._was_enabled = False
        try:
            self._was_enabled = gc.isenabled()
            gc.disable()
        except BaseException:  # interrupted just after disabling: __exit__ will not run
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, exc_type, exc, traceback):
        was_enabled = self._was_enabled
        promote = None
        interrupted = None
        while True:
            try:
                if promote is None:
                    promote = (was_enabled and gc.get_count()[0] > PROMOTE_AFTER
                               and gc.get_freeze_count() == 0)  # fmt: skip
                if promote:
                    # Repeating both after an interrupt is harmless; stopping between them is
                    # not (everything would stay frozen).
                    gc.freeze()
                    gc.unfreeze()
                if was_enabled:
                    gc.enable()
                break
            except BaseException as caught:
                interrupted = caught
        if interrupted is not None and exc is None:
            raise interrupted
        return False
