"""Strict integer parsing for attribute and id text.

Only ASCII decimal digits count (``"١"`` is not a number in IR), the value
must fit in 64 bits, and the digit count is checked before ``int()`` so that
a 5000-digit "number" costs nothing and raises nothing unexpected.
"""

from __future__ import annotations

import re

__all__ = ["parse_int", "INT64_MIN", "INT64_MAX"]

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
_INTEGER = re.compile(r"[ \t\r\n]*([+-]?)([0-9]+)[ \t\r\n]*\Z")


def parse_int(text: str, *, unsigned: bool = False) -> int | None:
    """The integer ``text`` spells (surrounding blanks allowed), or ``None`` when it is not a
    decimal integer inside the 64-bit range (or is negative when ``unsigned``).

    >>> parse_int(" -3 "), parse_int("5abc"), parse_int("1" * 30), parse_int("-1", unsigned=True)
    (-3, None, None, None)
    """
    if text.isdigit() and text.isascii() and len(text) < 19:  # the common case, fast
        return int(text)
    match = _INTEGER.match(text)
    if match is None:
        return None
    sign, digits = match.groups()
    if unsigned and sign == "-":
        return None
    if len(digits.lstrip("0")) > 19:
        return None
    value = int(sign + digits)
    return value if INT64_MIN <= value <= INT64_MAX else None
