"""Compiler-style text for diagnostics and reports."""

from __future__ import annotations

import os

__all__ = ["diagnostic_text", "report_text", "summary_line", "coverage_line"]

_COLORS = {"error": "\x1b[1;31m", "warning": "\x1b[1;33m", "note": "\x1b[1;36m"}
_RESET = "\x1b[0m"


def _location(diagnostic) -> str:
    file = diagnostic.file or "<model>"
    if file not in ("<string>", "<bytes>", "<model>"):
        file = os.path.relpath(file) if not os.path.isabs(file) else file
    return f"{file}:{diagnostic.line}" if diagnostic.line else file


def diagnostic_text(diagnostic, color: bool = False) -> str:
    """``model.xml:57: error[shape-mismatch]: message`` plus indented hint and notes."""
    severity = diagnostic.severity
    label = f"{severity}[{diagnostic.code}]"
    if color:
        label = f"{_COLORS.get(severity, '')}{label}{_RESET}"
    lines = [f"{_location(diagnostic)}: {label}: {diagnostic.message}"]
    for note in diagnostic.notes:
        lines.append(f"    note: {note}")
    if diagnostic.hint:
        lines.append(f"    hint: {diagnostic.hint}")
    return "\n".join(lines)


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def summary_line(report) -> str:
    """``1 error, 0 warnings; 5 layers checked, 2 trusted``."""
    return (
        f"{_plural(len(report.errors), 'error')}, {_plural(len(report.warnings), 'warning')}; "
        f"{_plural(report.layers_checked, 'layer')} checked, {report.layers_trusted} trusted"
    )


def coverage_line(report) -> str:
    """``179 of 182 layers checked (98.4 %); trusted: Broadcast-3 ×3``, or ``""`` when every
    layer was checked and inferred as precisely as it is declared."""
    gaps = report.inference_gaps
    if not report.layers_trusted and not gaps:
        return ""
    total = report.layers_checked + report.layers_trusted
    share = 100 * report.layers_checked / total if total else 100.0
    text = f"{report.layers_checked} of {_plural(total, 'layer')} checked ({share:.1f} %)"
    if report.trusted_types:
        shown = list(report.trusted_types.items())
        listing = ", ".join(f"{label} ×{count}" for label, count in shown[:8])
        if len(shown) > 8:
            listing += f", {len(shown) - 8} more op types"
        text += f"; trusted: {listing}"
    if gaps:
        text += (f"; {_plural(gaps, 'output')} inferred less precisely than declared "
                 "(OpenVINO's symbols carry more than irrun's intervals)")  # fmt: skip
    return text


def report_text(report, color: bool = False) -> str:
    """Every diagnostic, then the summary line (and the coverage line when some layers were
    not checked)."""
    parts = [diagnostic_text(d, color) for d in report.diagnostics]
    where = report.file
    if report.snippet_line is not None:
        where += f" (snippet at line {report.snippet_line})"
    parts.append(f"{where}: {summary_line(report)}")
    coverage = coverage_line(report)
    if coverage:
        parts.append(f"{where}: coverage: {coverage}")
    return "\n".join(parts)
