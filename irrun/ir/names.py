"""Tensor-name lists as OpenVINO writes them in ``names`` and ``output_names``.

Names are separated by commas; a comma inside a name is written ``\\,``.
Nothing else is escaped and no whitespace is trimmed.
"""

from __future__ import annotations

import re

__all__ = ["split_names", "join_names", "smallest_name"]

_UNESCAPED_COMMA = re.compile(r"(?<!\\),")


def split_names(text: str) -> tuple[str, ...]:
    r"""Split a ``names`` attribute the way OpenVINO's reader does.

    >>> split_names(r"alpha,b\,c,in\,put,zeta")
    ('alpha', 'b,c', 'in,put', 'zeta')
    >>> split_names("a, b ,, c")
    ('a', ' b ', ' c')
    """
    if not text:
        return ()
    return tuple(field.replace("\\,", ",") for field in _UNESCAPED_COMMA.split(text) if field)


def join_names(names) -> str:
    r"""Write names as OpenVINO does: sorted by raw bytes, commas escaped.

    >>> join_names(["zeta", "in,put"])
    'in\\,put,zeta'
    """
    return ",".join(name.replace(",", "\\,") for name in sorted(names, key=_byte_key))


def smallest_name(names) -> str:
    """The name OpenVINO's ``get_any_name()`` returns: the smallest by UTF-8 bytes."""
    return min(names, key=_byte_key)


def _byte_key(name: str) -> bytes:
    return name.encode("utf-8", "surrogatepass")
