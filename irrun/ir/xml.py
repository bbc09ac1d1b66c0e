"""Safe XML parsing of IR files and of bare ``<layer>`` fragments.

The parser never resolves entities, never loads a DTD and never touches the
network; a document with a DOCTYPE is refused outright, since IR never has
one and a DOCTYPE is how entity-expansion and external-entity attacks start.
"""

from __future__ import annotations

import re

from lxml import etree

from irrun.errors import XMLSyntaxError

__all__ = ["parse_document", "parse_in_pieces", "safe_parser", "FRAGMENT_ROOT"]

#: Tag of the element irrun wraps around bare ``<layer>`` snippets.
FRAGMENT_ROOT = "irrun-fragment"

_DECLARATION = re.compile(rb"^\s*<\?xml[^>]*\?>")
_ELEMENT_START = re.compile(rb"<([A-Za-z_:][\w.\-:]*)")
_COMMENT_OR_PI = re.compile(rb"<!--.*?-->|<\?.*?\?>", re.S)
_LXML_POSITION = re.compile(r",? line \d+, column \d+\s*$")


def safe_parser():
    """A fresh lxml parser with entity resolution, DTD loading and network access off."""
    return etree.XMLParser(
        resolve_entities=False,
        load_dtd=False,
        no_network=True,
        dtd_validation=False,
        # Comments and processing instructions stay in the tree (removing them costs more
        # than skipping them); the reader ignores every node whose tag is not a string.
        remove_comments=False,
        remove_pis=False,
        huge_tree=False,
        collect_ids=False,
    )


def parse_document(data: bytes, file: str) -> tuple[etree._Element, bool]:
    """Parse IR bytes; return ``(root, is_fragment)``.

    A document whose first element is ``<layer>`` (or that holds several
    top-level ``<layer>`` elements) is a fragment: it is wrapped in an
    ``<irrun-fragment>`` root on the same line, so line numbers stay exact.
    """
    data = _to_utf8(data, file)
    # Everything before the root element (however long) is searched for a DOCTYPE.
    first = _ELEMENT_START.search(data)
    head = _COMMENT_OR_PI.sub(b"", data[: first.start() if first else len(data)])
    if b"<!DOCTYPE" in head or b"<!ENTITY" in head:
        raise XMLSyntaxError(
            "the file has a DOCTYPE/ENTITY declaration; OpenVINO IR never uses one, and irrun "
            "refuses them because entities can expand without bound or read other files; "
            "remove the declaration",
            file=file,
        )
    is_fragment = bool(first) and first.group(1) == b"layer"
    if is_fragment:
        declaration = _DECLARATION.match(data)
        body = data[declaration.end() :] if declaration else data
        data = b"<" + FRAGMENT_ROOT.encode() + b">" + body + b"</" + FRAGMENT_ROOT.encode() + b">"
    try:
        root = etree.fromstring(data, safe_parser())
    except etree.XMLSyntaxError as exc:
        line, column = exc.position if exc.position else (None, None)
        message = _LXML_POSITION.sub("", " ".join((exc.msg or str(exc)).split()))
        if is_fragment:
            message = message.replace(FRAGMENT_ROOT, "(fragment)")
        if "XML_PARSE_HUGE" in message or "Resource limit exceeded" in message:
            what = (
                "elements nested deeper than the parser's limit of 256 levels (excessive depth)"
                if "depth" in message.lower()
                else "a text, name or attribute value longer than the parser's 10 MB limit"
            )
            raise XMLSyntaxError(
                f"the file holds {what}; OpenVINO IR never does, so the file is corrupt or hostile",
                file=file,
                line=line,
                column=column,
            ) from None
        raise XMLSyntaxError(
            f"the XML is not well-formed: {message}", file=file, line=line, column=column
        ) from None
    if root is None:
        raise XMLSyntaxError("the file holds no XML element", file=file)
    if root.getroottree().docinfo.doctype:
        raise XMLSyntaxError("the file has a DOCTYPE declaration; remove it", file=file)
    return root, is_fragment


def parse_in_pieces(data: bytes, file: str):
    """For a large, plainly written ``<net>`` document: ``(skeleton root, layers)``, where
    ``layers`` yields the ``<layers>`` children while a helper thread parses ahead (see
    :mod:`irrun.ir.pieces`). ``None`` when the document is not split; then (and when
    anything goes wrong later) :func:`parse_document` parses it whole."""
    from irrun.ir.pieces import split_layers

    try:
        return split_layers(_to_utf8(data, file), safe_parser)
    except (etree.XMLSyntaxError, XMLSyntaxError):
        return None  # parse_document reports it with its exact position


def _sniff_codec(data: bytes) -> str | None:
    """UTF-16/32 without a byte-order mark, told apart by where the zero bytes of an ASCII
    start (``<`` or blanks) fall, as the XML specification's appendix F describes."""
    start = data[:4]
    if len(start) < 4:
        return None
    if start[1:] == b"\0\0\0" and start[0]:
        return "utf-32-le"
    if start[:3] == b"\0\0\0" and start[3]:
        return "utf-32-be"
    if start[1] == 0 and start[3] == 0 and start[0] and start[2]:
        return "utf-16-le"
    if start[0] == 0 and start[2] == 0 and start[1] and start[3]:
        return "utf-16-be"
    return None


_BOMS = {
    "utf-32-le": b"\xff\xfe\0\0",
    "utf-32-be": b"\0\0\xfe\xff",
    "utf-16-le": b"\xff\xfe",
    "utf-16-be": b"\xfe\xff",
}


def _to_utf8(data: bytes, file: str) -> bytes:
    """Normalise UTF-16/32 (with or without BOM) to UTF-8; the declared encoding is dropped."""
    sniffed = _sniff_codec(data)
    if sniffed:
        data = _BOMS[sniffed] + data
    for bom, codec in (
        (b"\xff\xfe\x00\x00", "utf-32-le"),
        (b"\x00\x00\xfe\xff", "utf-32-be"),
        (b"\xff\xfe", "utf-16-le"),
        (b"\xfe\xff", "utf-16-be"),
    ):
        if data.startswith(bom):
            try:
                text = data[len(bom) :].decode(codec)
            except UnicodeDecodeError as exc:
                raise XMLSyntaxError(f"the file is not valid {codec}: {exc.reason}", file=file)
            data = text.encode("utf-8")
            return re.sub(rb"^(\s*<\?xml[^>]*?)\s+encoding=(['\"])[^'\"]*\2", rb"\1", data)
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:]
    return data
