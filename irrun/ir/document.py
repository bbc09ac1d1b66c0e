"""The checks of a whole document before its layers are read: the ``<net>`` root and its IR
version, and what a fragment of bare ``<layer>`` snippets may hold."""

from __future__ import annotations

from irrun.errors import IRFormatError, XMLSyntaxError
from irrun.ir.lines import line_of
from irrun.numbers import parse_int
from irrun.text import short_text

__all__ = ["net_version", "check_fragment"]


def net_version(root, file: str) -> int:
    """The IR version of a ``<net>`` root (10 or 11), or :class:`IRFormatError` saying why the
    document is not IR that OpenVINO reads."""
    if root.tag != "net":
        raise IRFormatError(
            f"the root element is <{root.tag}>, but OpenVINO IR starts with <net>",
            file=file,
            line=line_of(root),
        )
    text = root.get("version")
    if text is None:
        raise IRFormatError(
            "<net> has no version attribute; OpenVINO reads IR version 10 and 11",
            file=file,
            line=line_of(root),
        )
    version = parse_int(text, unsigned=True)
    if version is None:
        raise IRFormatError(
            f"<net version={short_text(text)!r}> is not an IR version number",
            file=file,
            line=line_of(root),
        )
    if version < 10:
        raise IRFormatError(
            f"this is legacy IR version {version} (Inference Engine CNNLayer format), which "
            "current OpenVINO no longer reads; convert the original model again with a current "
            "OpenVINO (ovc) to get IR v11",
            file=file,
            line=line_of(root),
        )
    if version > 11:
        raise IRFormatError(
            f"IR version {version} is not supported; OpenVINO 2026 writes and reads versions 10 "
            "and 11",
            file=file,
            line=line_of(root),
        )
    return version


def check_fragment(root, file: str) -> None:
    """Refuse text between the snippets of a fragment, and elements other than ``<layer>``,
    ``<edge>`` and ``<edges>``."""
    for node in [root, *root]:
        stray = node.text if node is root else node.tail
        if stray and stray.strip():
            raise XMLSyntaxError(
                f"unexpected text {stray.strip()[:40]!r} between <layer> elements",
                file=file,
                line=line_of(node),
            )
        if node is not root and isinstance(node.tag, str):  # comments: only their tail counts
            if node.tag not in ("layer", "edge", "edges"):
                raise IRFormatError(
                    f"unexpected <{str(node.tag)[:40]}> in a fragment; it may hold only <layer> "
                    "(and <edge>/<edges>) elements",
                    file=file,
                    line=line_of(node),
                )
