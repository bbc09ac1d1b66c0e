"""What irrun does with each op version of OpenVINO's opsets: checks its shapes, runs it.

:func:`op_status` lists every op version that opset1 to the newest opset contain (as
:mod:`irrun.ops.opsets` records OpenVINO's tables), with the first opset that has it and
whether irrun has a shape rule (``checked``) and a kernel (``runs``) for it;
:func:`status_table` writes that as the Markdown table the README shows.
"""

from __future__ import annotations

from dataclasses import dataclass

import irrun.ops  # noqa: F401  (registers every op)
from irrun.ops.opsets import OPSETS
from irrun.ops.registry import has_kernel, resolve

__all__ = ["OpStatus", "op_status", "status_table"]


@dataclass(frozen=True)
class OpStatus:
    """One op version: ``type``-``version``, the opsets that have it, and irrun's support."""

    type: str
    version: int
    opsets: tuple[int, ...]
    checked: bool
    runs: bool

    @property
    def label(self) -> str:
        """``Gather-8``."""
        return f"{self.type}-{self.version}"


def op_status() -> list[OpStatus]:
    """Every op version of OpenVINO's opsets, sorted by type (case-insensitive) and version.

    Examples
    --------
    >>> by_label = {s.label: s for s in op_status()}
    >>> gather = by_label["Gather-8"]
    >>> gather.opsets[0], gather.checked, gather.runs
    (8, True, True)
    """
    opsets: dict[tuple[str, int], list[int]] = {}
    for number in sorted(OPSETS):
        for name, version in OPSETS[number].items():
            opsets.setdefault((name, version), []).append(number)
    rows = []
    for (name, version), numbers in opsets.items():
        op_class = resolve(name, numbers[0])
        found = op_class is not None and op_class.version == version
        # A Parameter has nothing to compute: the executor feeds it.
        runs = found and (has_kernel(op_class) or name == "Parameter")
        rows.append(OpStatus(name, version, tuple(numbers), found, runs))
    rows.sort(key=lambda s: (s.type.lower(), s.version))
    return rows


def _opsets_text(numbers: tuple[int, ...]) -> str:
    """``8-17`` for a run of opsets, ``1-3, 5`` when one left it."""
    runs, start, previous = [], numbers[0], numbers[0]
    for number in numbers[1:] + (None,):
        if number is not None and number == previous + 1:
            previous = number
            continue
        runs.append(str(start) if start == previous else f"{start}-{previous}")
        if number is not None:
            start = previous = number
    return ", ".join(runs)


def status_table() -> str:
    """The Markdown table of :func:`op_status` (one row per op version), with a count line."""
    rows = op_status()
    lines = ["| op version | in opsets | shapes checked | runs |", "| --- | --- | --- | --- |"]
    for s in rows:
        lines.append(f"| {s.label} | {_opsets_text(s.opsets)} | {'yes' if s.checked else 'no'} "
                     f"| {'yes' if s.runs else 'no'} |")  # fmt: skip
    checked = sum(s.checked for s in rows)
    runs = sum(s.runs for s in rows)
    lines.append("")
    lines.append(f"{len(rows)} op versions in opset1 to opset{max(OPSETS)}: {checked} checked, "
                 f"{runs} run.")  # fmt: skip
    return "\n".join(lines)
