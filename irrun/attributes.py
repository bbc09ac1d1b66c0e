"""The one attribute parser: IR ``<data>`` text to typed values, for every attribute kind.

Each function takes the attribute's text and returns its value, or raises ``ValueError`` whose
message says what was expected (``"an integer inside the 64-bit range"``). The op base class
(:mod:`irrun.ops.base`) uses them to parse declared attributes and report problems as
diagnostics; :class:`irrun.model.Layer`'s ``attribute_*`` methods use them to raise.

Examples
--------
>>> parse_ints("1, 2,3"), parse_bool("True"), parse_float("1e-5"), parse_shape("2,?")
([1, 2, 3], True, 1e-05, Shape('[2,?]'))
>>> parse_value("ints", "1,x")
Traceback (most recent call last):
...
ValueError: a comma-separated list of 64-bit integers
"""

from __future__ import annotations

import math
import re

from irrun.element_types import ElementType, element_type
from irrun.numbers import parse_int
from irrun.shape import Shape

__all__ = [
    "KINDS",
    "parse_value",
    "parse_integer",
    "parse_ints",
    "parse_bool",
    "parse_float",
    "parse_floats",
    "parse_shape",
    "parse_element_type",
    "parse_string",
]

_FLOAT = re.compile(r"[ \t]*[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[ \t]*\Z")
_SPECIAL_FLOATS = {"inf": math.inf, "+inf": math.inf, "-inf": -math.inf, "nan": math.nan}


def parse_integer(text: str) -> int:
    """A decimal integer inside the 64-bit range (ASCII digits only)."""
    value = parse_int(text)
    if value is None:
        digits = text.strip().lstrip("+-")
        too_big = digits.isdigit() and digits.isascii()
        raise ValueError("an integer inside the 64-bit range" if too_big else "an integer")
    return value


def parse_ints(text: str) -> list[int]:
    """A comma-separated list of integers (items trimmed, empty items dropped; ``""`` is [])."""
    values = []
    for item in text.split(","):
        if not item.strip():
            continue
        value = parse_int(item)
        if value is None:
            raise ValueError("a comma-separated list of 64-bit integers")
        values.append(value)
    return values


def parse_bool(text: str) -> bool:
    """``true``/``false``/``1``/``0``, case-insensitive (as OpenVINO reads them)."""
    lowered = text.strip().lower()
    if lowered in ("true", "1"):
        return True
    if lowered in ("false", "0"):
        return False
    raise ValueError("a boolean (true or false)")


def parse_float(text: str) -> float:
    """A decimal floating-point number (``1``, ``-0.5``, ``1e-5``, ``inf``, ``nan``)."""
    if len(text) <= 400 and _FLOAT.match(text):
        return float(text)
    special = _SPECIAL_FLOATS.get(text.strip().lower())
    if special is None:
        raise ValueError("a decimal number such as 0.5 or 1e-5")
    return special


def parse_floats(text: str) -> list[float]:
    """A comma-separated list of numbers (``""`` is [])."""
    try:
        return [parse_float(item) for item in text.split(",") if item.strip()]
    except ValueError:
        raise ValueError("a comma-separated list of decimal numbers") from None


def parse_shape(text: str) -> Shape:
    """A partial shape (``2,?,1..10``; ``""`` a scalar; ``...`` a dynamic rank)."""
    try:
        return Shape.parse(text)
    except ValueError as exc:
        raise ValueError(f"a shape ({exc})") from None


def parse_element_type(text: str) -> ElementType:
    """An element type name (``f32``, ``i64``, ``boolean`` ...; case-insensitive)."""
    try:
        return element_type(text)
    except KeyError:
        raise ValueError("an element type such as f32, i64 or boolean") from None


def parse_string(text: str) -> str:
    """The text as it is."""
    return text


#: Attribute kind -> parser. ``enum`` values are strings checked against the declared choices.
KINDS = {
    "int": parse_integer,
    "ints": parse_ints,
    "bool": parse_bool,
    "float": parse_float,
    "floats": parse_floats,
    "shape": parse_shape,
    "element_type": parse_element_type,
    "string": parse_string,
    "enum": parse_string,
}


def parse_value(kind: str, text: str):
    """Parse ``text`` as an attribute of ``kind`` (a key of :data:`KINDS`)."""
    return KINDS[kind](text)
