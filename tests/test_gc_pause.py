"""The collector pause around loading and validation (irrun.gc_pause)."""

from __future__ import annotations

import gc
import weakref

from irrun import gc_pause
from irrun.gc_pause import gc_paused


class Node:
    def __init__(self):
        self.other = self


def test_objects_made_during_a_big_pause_skip_the_young_generations_but_stay_collectable():
    gc.collect()
    with gc_paused():
        assert not gc.isenabled()
        kept = [[] for _ in range(gc_pause.PROMOTE_AFTER + 1000)]
        cycle = Node()
    assert gc.isenabled()
    # moved to the oldest generation, not left for the young collections to scan twice
    assert any(o is cycle for o in gc.get_objects(generation=2))
    assert gc.get_freeze_count() == 0
    probe = weakref.ref(cycle)
    del cycle, kept
    gc.collect()
    assert probe() is None  # the oldest generation is still collected


def test_a_small_pause_leaves_the_generations_alone():
    gc.collect()
    with gc_paused():
        made = [Node() for _ in range(500)]
    assert not any(o is made[0] for o in gc.get_objects(generation=2))
    del made


def test_objects_frozen_by_the_program_stay_frozen():
    gc.collect()
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with gc_paused():
            kept = [[] for _ in range(gc_pause.PROMOTE_AFTER + 1000)]
        assert gc.get_freeze_count() == frozen
        del kept
    finally:
        gc.unfreeze()


def test_a_collector_disabled_by_the_program_stays_disabled():
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
