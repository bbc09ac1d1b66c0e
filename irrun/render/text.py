"""Compiler-style text for diagnostics and reports.

:func:`report_text` prints every diagnostic, then the summary. What ``irrun validate`` prints
on a big model is the same text made readable: warnings of one code grouped into one entry
(:func:`warning_groups`), filters by code, a cap on the number of entries, and the summary
repeated first when the text is long.
"""

from __future__ import annotations

import os

__all__ = [
    "diagnostic_text",
    "report_text",
    "summary_line",
    "coverage_line",
    "total_line",
    "warning_groups",
    "GROUP_AT",
    "GROUPS",
    "LONG_OUTPUT",
]

_COLORS = {"error": "\x1b[1;31m", "warning": "\x1b[1;33m", "note": "\x1b[1;36m"}
_RESET = "\x1b[0m"

#: Warnings of one code are grouped into one entry when there are more than this many.
GROUP_AT = 3
#: A report whose text has more lines than this also prints its summary line first.
LONG_OUTPUT = 20
#: Op types listed in a grouped warning before "and N more types".
_LISTED_TYPES = 8
#: How a group of many warnings of one code is worded: what the layers have in common, and
#: what the group is broken down by (``op``: the op label, ``Foo-1``; ``name``: the layer
#: name, for codes whose layers all have one type). Codes not listed: ``("", "op")``.
GROUPS = {
    "unknown-op": ("not checked", "op"),
    "unknown-attribute": ("with an attribute their op version does not have (ignored)", "op"),
    "subgraph-not-checked": ("with a sub-graph body that is kept but not checked", "op"),
    "unused-parameter": ("that feed nothing (Parameters)", "name"),
}


def _location(diagnostic) -> str:
    file = diagnostic.file or "<model>"
    if file not in ("<string>", "<bytes>", "<model>"):
        file = os.path.relpath(file) if not os.path.isabs(file) else file
    return f"{file}:{diagnostic.line}" if diagnostic.line else file


def _label(severity: str, code: str, color: bool) -> str:
    label = f"{severity}[{code}]"
    return f"{_COLORS.get(severity, '')}{label}{_RESET}" if color else label


def diagnostic_text(diagnostic, color: bool = False) -> str:
    """``model.xml:57: error[shape-mismatch]: message`` plus indented hint and notes."""
    label = _label(diagnostic.severity, diagnostic.code, color)
    lines = [f"{_location(diagnostic)}: {label}: {diagnostic.message}"]
    for note in diagnostic.notes:
        lines.append(f"    note: {note}")
    if diagnostic.hint:
        lines.append(f"    hint: {diagnostic.hint}")
    return "\n".join(lines)


def _plural(count: int, word: str) -> str:
    return f"{count:,} {word}{'' if count == 1 else 's'}"


def summary_line(report) -> str:
    """``1 error, 0 warnings; 5 layers checked, 2 trusted``."""
    return (
        f"{_plural(len(report.errors), 'error')}, {_plural(len(report.warnings), 'warning')}; "
        f"{_plural(report.layers_checked, 'layer')} checked, {report.layers_trusted:,} trusted"
    )


def coverage_line(report) -> str:
    """``179 of 182 layers checked (98.4 %); trusted: Broadcast-3 ×3``, or ``""`` when every
    layer was checked and inferred as precisely as it is declared."""
    gaps = report.inference_gaps
    if not report.layers_trusted and not gaps:
        return ""
    total = report.layers_checked + report.layers_trusted
    share = 100 * report.layers_checked / total if total else 100.0
    text = f"{report.layers_checked:,} of {_plural(total, 'layer')} checked ({share:.1f} %)"
    if report.trusted_types:
        shown = list(report.trusted_types.items())
        listing = ", ".join(f"{label} ×{count:,}" for label, count in shown[:8])
        if len(shown) > 8:
            listing += f", {len(shown) - 8} more op types"
        text += f"; trusted: {listing}"
    if gaps:
        text += (f"; {_plural(gaps, 'output')} inferred less precisely than declared "
                 "(OpenVINO's symbols carry more than irrun's intervals)")  # fmt: skip
    return text


def warning_groups(diagnostics, *, group_at: int = GROUP_AT, expand=()) -> list:
    """The diagnostics as entries to print: a :class:`Diagnostic`, or a tuple
    ``(code, [diagnostics])`` standing for every warning of that code when there are more
    than ``group_at`` of them (codes in ``expand`` are never grouped). An entry sits where
    its first diagnostic is, so the order stays the source order."""
    counts: dict[str, int] = {}
    for diagnostic in diagnostics:
        if diagnostic.severity == "warning":
            counts[diagnostic.code] = counts.get(diagnostic.code, 0) + 1
    grouped = {code for code, count in counts.items() if count > group_at and code not in expand}
    entries: list = []
    members: dict[str, list] = {}
    for diagnostic in diagnostics:
        code = diagnostic.code
        if diagnostic.severity != "warning" or code not in grouped:
            entries.append(diagnostic)
        elif code in members:
            members[code].append(diagnostic)
        else:
            members[code] = [diagnostic]
            entries.append((code, members[code]))
    return entries


def _group_key(code: str, diagnostic) -> str:
    if GROUPS.get(code, ("", "op"))[1] == "name":
        return repr(diagnostic.layer_name)
    return diagnostic.op or diagnostic.layer_type or "?"


def group_text(code: str, diagnostics, color: bool = False) -> str:
    """One grouped warning: ``m.xml:41: warning[unknown-op]: 200 layers of 3 types not
    checked: Foo-1 ×120 (first at line 41), ...``, with the hint and how to see each one."""
    phrase, by = GROUPS.get(code, ("", "op"))
    first = diagnostics[0]
    by_key: dict[str, list] = {}
    for diagnostic in diagnostics:
        by_key.setdefault(_group_key(code, diagnostic), []).append(diagnostic)
    kinds = sorted(by_key.items(), key=lambda item: (-len(item[1]), item[1][0].line or 0))
    items = []
    for key, found in kinds[:_LISTED_TYPES]:
        line = found[0].line
        if by == "name":
            items.append(f"{key} (line {line})" if line else key)
        else:
            items.append(f"{key} ×{len(found):,}" + (f" (first at line {line})" if line else ""))
    listing = ", ".join(items)
    if len(kinds) > _LISTED_TYPES:
        more = len(kinds) - _LISTED_TYPES
        listing += f", and {more:,} more" if by == "name" else f", and {_plural(more, 'more type')}"
    count = len(diagnostics)
    kinds_text = "" if by == "name" else f" of {_plural(len(kinds), 'type')}"
    head = f"{_plural(count, 'layer')}{kinds_text}{' ' + phrase if phrase else ''}: {listing}"
    lines = [f"{_location(first)}: {_label('warning', code, color)}: {head}"]
    hints = {d.hint for d in diagnostics if d.hint}
    shown = f"--show {code} lists each one"
    lines.append(f"    hint: {hints.pop()}; {shown}" if len(hints) == 1 else f"    hint: {shown}")
    return "\n".join(lines)


def report_text(report, color: bool = False, *, group: bool = False, quiet: bool = False,
                show=(), hide=(), max_diagnostics: int | None = None) -> str:  # fmt: skip
    """Every diagnostic, then the summary line (and the coverage line when some layers were
    not checked).

    The keywords make the text readable on a big model (``irrun validate`` uses them; the
    data of the report is unchanged, and ``to_dict`` keeps every diagnostic):

    group
        Warnings of one code, when there are more than :data:`GROUP_AT`, become one entry
        listing their op types with counts and first lines (codes in ``show`` stay apart).
    quiet
        Errors and the summary line only.
    show, hide
        Print only diagnostics of the codes in ``show`` (when given) and none of those in
        ``hide``.
    max_diagnostics
        Print at most this many entries, then a line saying how many more there are.

    When the text has more than :data:`LONG_OUTPUT` lines, the summary line is printed
    first as well as last.
    """
    chosen = [
        d
        for d in report.diagnostics
        if (not show or d.code in show)
        and d.code not in hide
        and not (quiet and d.severity != "error")
    ]
    entries = warning_groups(chosen, expand=show) if group else chosen
    shown_entries = entries if max_diagnostics is None else entries[:max_diagnostics]
    parts = [
        diagnostic_text(entry, color) if not isinstance(entry, tuple) else group_text(*entry, color)
        for entry in shown_entries
    ]
    where = report.file
    if report.snippet_line is not None:
        where += f" (snippet at line {report.snippet_line})"
    left_out = len(entries) - len(shown_entries)
    if left_out:
        entries_text = "1 more entry" if left_out == 1 else f"{left_out:,} more entries"
        parts.append(
            f"{where}: {entries_text} not shown (--max-diagnostics {max_diagnostics}); "
            "--format json lists every diagnostic"
        )
    summary = f"{where}: {summary_line(report)}"
    lines = sum(part.count("\n") + 1 for part in parts)
    if lines > LONG_OUTPUT:
        parts.insert(0, summary)
    parts.append(summary)
    coverage = coverage_line(report) if not quiet else ""
    if coverage:
        parts.append(f"{where}: coverage: {coverage}")
    return "\n".join(parts)


def total_line(reports, *, models: int, failed: int, not_checked: int = 0) -> str:
    """The one summary of several models: ``3 models: 1 error, 4 warnings; 1 with errors,
    1 not checked`` (``models`` files in all, ``failed`` of them with errors, ``not_checked``
    that could not be read or checked; ``reports`` those of the others)."""
    errors = sum(len(r.errors) for r in reports)
    warnings = sum(len(r.warnings) for r in reports)
    text = f"{_plural(models, 'model')}: {_plural(errors, 'error')}, {_plural(warnings, 'warning')}"
    outcomes = [f"{failed:,} with errors"] if failed else []
    if not_checked:
        outcomes.append(f"{not_checked:,} not checked")
    return f"{text}; {', '.join(outcomes) or 'all valid'}"
