"""Text helpers for messages: names and values shortened so a hostile file cannot flood them."""

from __future__ import annotations

__all__ = ["short_text", "short_repr"]


def short_text(text: str, limit: int = 80) -> str:
    """``text`` cut to ``limit`` characters (names in messages can be megabytes long).

    Examples
    --------
    >>> short_text("x" * 100, 30)
    'xxxxxxxxxx...(100 chars)'
    """
    return text if len(text) <= limit else f"{text[: limit - 20]}...({len(text):,} chars)"


def short_repr(name: str) -> str:
    """`` 'name'`` for messages (empty for no name), shortened like :func:`short_text`."""
    return f" {short_text(name)!r}" if name else ""
