"""Ids and port numbers in IR attributes: non-negative integers of at most 64 bits."""

from __future__ import annotations

from irrun.errors import IRFormatError
from irrun.numbers import parse_int
from irrun.text import short_text

__all__ = ["required_uint"]


def required_uint(text: str | None, name: str, what: str, file: str, line: int | None) -> int:
    """The value of attribute ``name`` (``text``, ``None`` when absent) of ``what`` (``<edge>``,
    ``<port> of layer 3 ...``) at ``line``; :class:`IRFormatError` when it is absent or not a
    non-negative 64-bit integer."""
    if text is None:
        raise IRFormatError(f"{what} has no '{name}' attribute", file=file, line=line)
    value = parse_int(text, unsigned=True)
    if value is None:
        raise IRFormatError(
            f"{what} has {name}={short_text(text, 40)!r}, which is not a non-negative integer "
            "(of at most 64 bits)",
            file=file,
            line=line,
        )
    return value
