"""The collector pause around loading and validation (irrun.gc_pause)."""

from __future__ import annotations

import gc
import sys
import weakref

import pytest

from irrun import gc_pause
from irrun.gc_pause import call_paused


class Node:
    def __init__(self):
        self.other = self


def test_objects_made_during_a_big_pause_skip_the_young_generations_but_stay_collectable():
    gc.collect()

    def make():
        assert not gc.isenabled()
        return [[] for _ in range(gc_pause.PROMOTE_AFTER + 1000)], Node()

    kept, cycle = call_paused(make)
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
    made = call_paused(lambda: [Node() for _ in range(500)])
    assert not any(o is made[0] for o in gc.get_objects(generation=2))
    del made


def test_objects_frozen_by_the_program_stay_frozen():
    gc.collect()
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        kept = call_paused(lambda: [[] for _ in range(gc_pause.PROMOTE_AFTER + 1000)])
        assert gc.get_freeze_count() == frozen
        del kept
    finally:
        gc.unfreeze()


def test_a_collector_disabled_by_the_program_stays_disabled():
    gc.disable()
    try:
        assert call_paused(lambda: 7) == 7
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_arguments_and_exceptions_pass_through():
    assert call_paused(lambda a, b: a - b, 7, b=2) == 5
    with pytest.raises(ValueError, match="invalid literal"):
        call_paused(int, "x")
    assert gc.isenabled()


def interrupted_at(step, function):
    """Run ``call_paused(function)`` with a KeyboardInterrupt raised at its ``step``-th point
    where Python can take a signal (a Python function beginning, a call returning) in
    gc_pause.py's frame or the called function's. Returns ``(points, interrupted)``: the names
    of the points seen (``call:f``, ``return:f``, ``c_return:f``), and whether the interrupt
    came out of the call."""
    points = []
    watched = {gc_pause.__file__, __file__}

    def profiler(frame, event, arg):
        if frame.f_code.co_filename in watched and event in ("call", "return", "c_return"):
            name = arg.__name__ if event == "c_return" else frame.f_code.co_name
            points.append(f"{event}:{name}")
            if len(points) == step:
                raise KeyboardInterrupt

    sys.setprofile(profiler)
    try:
        call_paused(function)
    except KeyboardInterrupt:
        return points, True
    finally:
        sys.setprofile(None)
    return points, False


@pytest.mark.parametrize("size", [10, gc_pause.PROMOTE_AFTER + 1000], ids=["small", "promoted"])
def test_an_interrupt_at_any_point_leaves_the_collector_as_it_was(size):
    # Python takes a signal only as a function begins or after a call returns: the profiler
    # raises the interrupt at each such point in turn. (With a context manager, one at the
    # start of __exit__ left the collector disabled: once in the interrupt test's 160 trials.)
    def make():
        return [[] for _ in range(size)]

    gc.collect()
    points, _ = interrupted_at(None, make)
    assert ("c_return:freeze" in points) == (size > gc_pause.PROMOTE_AFTER)
    assert "c_return:enable" in points and len(points) >= 8
    for step in range(1, len(points) + 1):
        _, interrupted = interrupted_at(step, make)
        assert interrupted, f"the interrupt at step {step} ({points[step - 1]}) was lost"
        assert gc.isenabled(), f"the collector stayed disabled after an interrupt at {step}"
        assert gc.get_freeze_count() == 0, f"objects stayed frozen after step {step}"
