"""The file line of an lxml element, also past line 65,535.

libxml2 keeps 16 bits of line number per node. Past line 65,535, lxml reports the line where
the text that follows the node's start ends: its first child text, else the first child's,
else the text after it (or the next sibling's line). :func:`line_of` steps back over the
newlines of that text, so every element reports the line its start tag is on.
"""

from __future__ import annotations

__all__ = ["line_of", "BIG_LINE"]

#: The line lxml reports for every node at or past line 65,535 (libxml2's 16-bit counter).
BIG_LINE = 65535


def line_of(element) -> int | None:
    """The file line of ``element``'s start tag (``None`` for an element not parsed)."""
    line = element.sourceline
    if line is None or line < BIG_LINE:
        return line
    return _big_line(element, line)


def _big_line(element, line: int) -> int:
    """The true line of a node lxml places at ``line`` >= 65535 (see the module docstring)."""
    text = element.text
    if not isinstance(element.tag, str):  # a comment or PI: its text is its content
        tail = element.tail
        if tail:
            return line - tail.count("\n") - (text or "").count("\n")
        following = element.getnext()
        return line_of(following) - (text or "").count("\n") if following is not None else line
    if text:
        return line - text.count("\n")
    if len(element):
        return line_of(element[0])  # the first child starts where this start tag ends
    tail = element.tail
    if tail:
        return line - tail.count("\n")
    following = element.getnext()
    if following is not None:  # starts where this empty element ends
        return line_of(following)
    return _last_child_line(element, line)


def _last_child_line(element, line: int) -> int:
    """The line of a last child with nothing after it: its parent's end tag follows on the
    same line. Up to the first ancestor with a next sibling, whose line less the newlines of
    the text in between is this one (the walk only moves forward through the document)."""
    newlines, node = 0, element
    while (parent := node.getparent()) is not None:
        newlines += (parent.tail or "").count("\n")
        following = parent.getnext()
        if following is not None:
            return line_of(following) - newlines
        node = parent
    return line
