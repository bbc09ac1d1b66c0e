"""Safe XML parsing of IR files and of bare ``<layer>`` fragments.

The parser never resolves entities, never loads a DTD and never touches the
network; a document with a DOCTYPE is refused outright, since IR never has
one and a DOCTYPE is how entity-expansion and external-entity attacks start.
"""

from __future__ import annotations

import re

from lxml import etree

from irrun.errors import XMLSyntaxError

__all__ = ["parse_document", "FRAGMENT_ROOT"]

#: Tag of the element irrun wraps around bare ``<layer>`` snippets.
FRAGMENT_ROOT = "irrun-fragment"

_DECLARATION = re.compile(rb"^\s*<\?xml[^>]*\?>")
_FIRST_TAG = re.compile(rb"<\s*([A-Za-z_][\w.\-]*)")
_COMMENT_OR_PI = re.compile(rb"<!--.*?-->|<\?.*?\?>", re.S)


def _parser():
    return etree.XMLParser(
        resolve_entities=False,
        load_dtd=False,
        no_network=True,
        dtd_validation=False,
        remove_comments=True,
        remove_pis=True,
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
    head = _COMMENT_OR_PI.sub(b"", data[:65536])
    if b"<!DOCTYPE" in head or b"<!ENTITY" in head:
        raise XMLSyntaxError(
            "the file has a DOCTYPE/ENTITY declaration; OpenVINO IR never uses one, and irrun "
            "refuses them because entities can expand without bound or read other files; "
            "remove the declaration",
            file=file,
        )
    first = _FIRST_TAG.search(head)
    is_fragment = bool(first) and first.group(1) == b"layer"
    if is_fragment:
        declaration = _DECLARATION.match(data)
        body = data[declaration.end() :] if declaration else data
        data = b"<" + FRAGMENT_ROOT.encode() + b">" + body + b"</" + FRAGMENT_ROOT.encode() + b">"
    try:
        root = etree.fromstring(data, _parser())
    except etree.XMLSyntaxError as exc:
        line, column = exc.position if exc.position else (None, None)
        message = exc.msg or str(exc)
        if is_fragment:
            message = message.replace(FRAGMENT_ROOT, "(fragment)")
        raise XMLSyntaxError(
            f"the XML is not well-formed: {message}", file=file, line=line, column=column
        ) from None
    if root is None:
        raise XMLSyntaxError("the file holds no XML element", file=file)
    if root.getroottree().docinfo.doctype:
        raise XMLSyntaxError("the file has a DOCTYPE declaration; remove it", file=file)
    return root, is_fragment


def _to_utf8(data: bytes, file: str) -> bytes:
    """Normalise UTF-16/32 (with BOM) to UTF-8; the declaration's encoding is then dropped."""
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
