"""Progress of long work as a plain callback: the library reports, the caller draws.

A *progress callback* is any callable ``progress(stage, done, total)``:

``stage``
    What is being done, a short lower-case phrase (``"validating"``); one piece of work may
    go through several stages, one after the other.
``done``
    Units finished so far in this stage (layers, models ...).
``total``
    The stage's units, or ``None`` when they are not known in advance.

Each stage starts with a call where ``done`` is 0 and ends with one where ``done`` equals
``total`` (or, for an unknown total, with :data:`FINISHED` as ``done``); in between it is
called at most about a hundred times, however big the stage. The callback must be quick and
must not raise; irrun never draws anything itself (``irrun validate`` turns the calls into a
progress bar on a terminal; a notebook can feed ``tqdm``; tests can record them).

>>> calls = []
>>> items = list(steps(range(1000), "counting", lambda *call: calls.append(call)))
>>> calls[0], calls[1], calls[-1], len(calls)
(('counting', 0, 1000), ('counting', 10, 1000), ('counting', 1000, 1000), 101)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

__all__ = ["Progress", "steps", "stage", "FINISHED"]

#: ``progress(stage, done, total)``; see the module docstring.
Progress = Callable[[str, int, "int | None"], None]

#: ``done`` of the last call of a stage whose total was not known.
FINISHED = -1


def steps(items: Iterable, stage_name: str, progress: Progress | None,
          total: int | None = None) -> Iterator:  # fmt: skip
    """Yield ``items``, reporting ``progress(stage_name, done, total)`` as they are consumed.

    ``total`` defaults to ``len(items)``. With ``progress`` ``None`` the items are yielded
    unchanged at no cost. The last call comes when the items are exhausted.
    """
    if progress is None:
        yield from items
        return
    if total is None:
        total = len(items)  # type: ignore[arg-type]
    every = max(1, total // 100)
    progress(stage_name, 0, total)
    for done, item in enumerate(items, 1):
        yield item
        if done % every == 0 and done < total:
            progress(stage_name, done, total)
    progress(stage_name, total, total)


class stage:
    """A stage of unknown length as a context manager: reports ``(name, 0, None)`` on entry
    and ``(name, FINISHED, None)`` on exit (also when the work raised).

    >>> calls = []
    >>> with stage("loading m.xml", lambda *call: calls.append(call)):
    ...     pass
    >>> calls
    [('loading m.xml', 0, None), ('loading m.xml', -1, None)]
    """

    __slots__ = ("name", "progress")

    def __init__(self, name: str, progress: Progress | None):
        self.name = name
        self.progress = progress

    def __enter__(self):
        if self.progress is not None:
            self.progress(self.name, 0, None)
        return self

    def __exit__(self, *exc_info):
        if self.progress is not None:
            self.progress(self.name, FINISHED, None)
        return False
