"""Parsing a large IR while reading it: its ``<layers>`` in pieces, on a helper thread.

lxml releases the GIL while libxml2 parses, so a helper thread can parse the next piece of
the ``<layers>`` section while the reader turns the previous one into :class:`Layer`
objects; most of the parse time then hides behind the reading instead of coming first.

The content of ``<layers>`` is cut right after ``</layer>`` end tags and each piece is
parsed as ``<net><layers>...</layers></net>``; its line numbers are local (libxml2 keeps
them exactly below 65536, so pieces stay well under that) and the reader adds the piece's
offset. An ``<edges>`` that directly follows ``</layers>`` is cut likewise, before ``<edge``
start tags. The rest (``<rt_info>``; ``<edges>`` when it was not cut) is parsed as one more
piece inside a ``<net>``, preceded by as many newlines as the file has before it. A cut can
only be wrong inside a comment, CDATA section, processing instruction or sub-graph body
(``<`` is not allowed in attribute values or text); each of those leaves an unclosed
construct in its piece, which libxml2 rejects. So a document either parses in pieces with
exactly the meaning it has as a whole, or a piece fails and the caller parses the whole
document, which also gives the exact syntax-error positions.

Only large UTF-8 ``<net>`` documents are split whose ``<layers>`` comes first in ``<net>``,
with no namespace, DOCTYPE, comment or processing instruction before its content, and no
sub-graph body (a second ``<layers>``) in it.
"""

from __future__ import annotations

import _thread
import re
import threading
import time

from lxml import etree

__all__ = ["split_layers", "Pieces", "PieceFailed"]

#: Size of the first piece; later pieces double up to MAX_PIECE_BYTES (few pieces means few
#: hand-overs of the GIL between the threads; a small first one starts the reader early).
FIRST_PIECE_BYTES = 1 << 18
MAX_PIECE_BYTES = 1 << 20
#: A piece must hold fewer lines than this for its local line numbers to be exact.
MAX_PIECE_LINES = 60000

_FIRST_ELEMENT = re.compile(rb"<([A-Za-z_:][\w.\-:]*)")
_BLANKS = re.compile(rb"[ \t\r\n]*")
_ENCODING = re.compile(rb"""^\s*<\?xml[^>]*?\sencoding\s*=\s*(["'])([^"']*)\1""")


class PieceFailed(Exception):
    """A piece of ``<layers>`` is not well-formed XML (the whole document must be parsed)."""


def split_layers(data: bytes, parser_factory):
    """Start parsing ``data`` (UTF-8 IR) in pieces.

    Returns ``(head_root, pieces)``: ``head_root`` is the ``<net>`` element with an empty
    ``<layers>`` (everything before ``<layers>``'s content), ``pieces`` a :class:`Pieces`
    giving the ``<layers>`` children and then the rest of the document. ``None`` when the
    document is small or not safe to split. ``parser_factory()`` gives a fresh lxml parser
    (one per thread). Raises ``etree.XMLSyntaxError`` if the head is not well-formed.
    """
    cut = _layers_body(data)
    if cut is None:
        return None
    start, end = cut
    newlines = data.count(b"\n", 0, start)
    layer_spans = _spans(data, start, end, newlines, _after_layer)
    if layer_spans is None:
        return None
    position = end + len(b"</layers>")
    newlines = layer_spans[-1][2] + data.count(b"\n", layer_spans[-1][0], position)
    edge_spans = None
    edges = _edges_body(data, position)
    if edges is not None:  # <edges> right after </layers>: cut too, the rest after it
        edges_start, edges_end = edges
        newlines += data.count(b"\n", position, edges_start)
        edge_spans = _spans(data, edges_start, edges_end, newlines, _before_edge)
        if edge_spans is not None:
            position = edges_end + len(b"</edges>")
            newlines = edge_spans[-1][2] + data.count(b"\n", edge_spans[-1][0], position)
    pieces = Pieces(data, layer_spans, edge_spans, (position, newlines), parser_factory)
    try:
        head = etree.fromstring(data[:start] + b"</layers></net>", parser_factory())
    except BaseException:
        pieces.close()
        raise
    return head, pieces


def _spans(data: bytes, start: int, end: int, newlines: int, next_cut):
    """Cut ``data[start:end]`` into ``(start, stop, newlines before start)`` spans of about
    FIRST_PIECE_BYTES, doubling up to MAX_PIECE_BYTES; ``next_cut(data, position, end)`` gives
    the first cut at or after ``position`` (``end`` when none). ``None`` when a span would
    hold too many lines for exact local line numbers."""
    spans = []
    position, size = start, FIRST_PIECE_BYTES
    while position < end:
        stop = next_cut(data, position + size, end)
        lines = data.count(b"\n", position, stop)
        if lines >= MAX_PIECE_LINES:  # very short lines: not worth a finer cut
            return None
        spans.append((position, stop, newlines))
        newlines += lines
        position, size = stop, min(2 * size, MAX_PIECE_BYTES)
    return spans or [(start, end, newlines)]


def _after_layer(data: bytes, position: int, end: int) -> int:
    stop = data.find(b"</layer>", position, end)
    return end if stop < 0 else stop + len(b"</layer>")


def _before_edge(data: bytes, position: int, end: int) -> int:
    stop = data.find(b"<edge", position, end)
    return end if stop < 0 else stop


def _edges_body(data: bytes, position: int):
    """``(start, end)`` of the content of an ``<edges>`` that follows ``</layers>`` (at
    ``position``) with only blanks in between; ``None`` otherwise."""
    blanks = _BLANKS.match(data, position)
    tag = blanks.end()
    if not data.startswith(b"<edges>", tag):
        return None
    start = tag + len(b"<edges>")
    end = data.find(b"</edges>", start)
    return None if end < 0 else (start, end)


def _layers_body(data: bytes):
    """``(start, end)`` byte offsets of the content of ``<layers>``, or ``None`` when the
    document is not worth splitting or not plainly written."""
    if len(data) < 4 * FIRST_PIECE_BYTES:
        return None
    first = _FIRST_ELEMENT.search(data)
    if first is None or first.group(1) != b"net":
        return None
    encoding = _ENCODING.match(data)
    if encoding and encoding.group(2).lower().replace(b"-", b"") != b"utf8":
        return None
    root_end = data.find(b">", first.end())
    tag = data.find(b"<layers", root_end)
    close = data.find(b">", tag)
    if root_end < 0 or tag < 0 or close < 0:
        return None
    # <net> holds nothing but blanks before <layers> (no <rt_info> or <edges> first), and
    # nothing before <layers>'s content declares a namespace, a DTD, a comment or a PI.
    if data[root_end + 1 : tag].strip() or data[root_end - 1 : root_end] == b"/":
        return None
    if data[tag + 7 : tag + 8] not in (b">", b" ", b"\t", b"\r", b"\n"):
        return None
    head = data[:close]
    if head.endswith(b"/") or b"<!" in head or b"xmlns" in head:  # <layers/>, DOCTYPE...
        return None
    if data.find(b"<?", first.start(), close) >= 0:
        return None
    end = data.rfind(b"</layers>")  # the last one closes the top-level <layers>
    if end <= close or data.find(b"<layers", close, end) >= 0:  # sub-graph bodies: no cut
        return None
    return close + 1, end


class Pieces:
    """Iterate once for ``(piece, line offset)``: each piece a ``<layers>`` element whose
    children's ``sourceline + line offset`` is their line in the file; then :meth:`edges`
    likewise for ``<edges>`` (when it was cut), then :meth:`rest`: the ``<net>`` of the
    document after them (``<rt_info>``; ``<edges>`` too when it was not cut), with the file's
    line numbers. A helper thread parses ahead; call :meth:`close` when done.

    Creating the object starts nothing: the helper thread starts when the first piece is asked
    for, so a caller that asks for pieces only inside ``try: ... finally: close()`` can never
    leave a thread behind, even when interrupted (KeyboardInterrupt) at any point.

    The reader and the helper thread share only plain locks that the reader holds and the
    helper thread releases, once each, so the helper thread never waits for the reader. That
    is why the helper is a bare ``_thread`` thread: ``threading.Thread.start()`` and
    ``threading.Event`` wait on internal locks that an interrupt landing right after the
    reader took one leaves held, and the helper thread then waits for it forever (and the
    reader's ``close()`` for the helper thread).
    """

    def __init__(self, data, layer_spans, edge_spans, tail, parser_factory):
        self._data = data
        self._parser_factory = parser_factory
        self._jobs: list[_Job] = []
        self._layers = [[self._job(self._parse_part, start, stop, b"layers"), newlines]
                        for start, stop, newlines in layer_spans]  # fmt: skip
        self._edges = None
        if edge_spans is not None:
            self._edges = [[self._job(self._parse_part, start, stop, b"edges"), newlines]
                           for start, stop, newlines in edge_spans]  # fmt: skip
        self._tail = self._job(self._parse_tail, *tail)
        self._stopped = False
        self._launched = False
        self._begun = False  # set by the helper thread as it begins
        self._over = False  # set by the helper thread as it ends, then _ending released
        self._ending = _held_lock()

    def _job(self, function, *arguments):
        job = _Job(function, arguments)
        self._jobs.append(job)
        return job

    def _start(self):
        if not self._launched and not self._stopped:
            self._launched = True
            _thread.start_new_thread(self._work, ())

    def _work(self):
        # Jobs in order, each one checked against close() before it starts; whatever is left
        # when close() stops the thread is marked over (unparsed) so that nobody waits on it.
        # A thread that begins after close() gave up on it (see there) does nothing.
        self._begun = True
        try:
            for job in self._jobs:
                if self._stopped:
                    break
                job.run()
        finally:
            for job in self._jobs:
                job.finish()
            self._over = True
            self._ending.release()

    def _parse_part(self, start, stop, tag):
        # Inside <net> too, so that nesting depth (which libxml2 limits) is the file's.
        text = b"<net><%s>%s</%s></net>" % (tag, self._data[start:stop], tag)
        root = self._parse(text)
        return None if root is None else root[0]

    def _parse_tail(self, start, newlines):
        return self._parse(b"\n" * newlines + b"<net>" + self._data[start:])

    def _parse(self, text):
        try:
            return etree.fromstring(text, self._parser_factory())
        except etree.XMLSyntaxError:
            return None

    def __iter__(self):
        return self._results(self._layers)

    def edges(self):
        """Like iterating, for the ``<edges>`` pieces; ``None`` when ``<edges>`` was not cut
        (it is then in :meth:`rest`)."""
        return None if self._edges is None else self._results(self._edges)

    def _results(self, parts):
        for part in parts:
            root = self._result(part[0])
            part[0] = None  # each piece's tree is freed once read
            if root is None:
                raise PieceFailed()
            yield root, part[1]
            del root

    def _result(self, job):
        self._start()
        if self._stopped:
            raise PieceFailed()
        job.wait()
        return job.value()

    def rest(self):
        """The ``<net>`` holding what follows ``</layers>``."""
        root = self._result(self._tail)
        if root is None:
            raise PieceFailed()
        return root

    def close(self) -> None:
        """Stop the helper thread and wait for it (parts not parsed yet are dropped; one being
        parsed is finished), so no thread outlives the load. A KeyboardInterrupt while waiting
        does not cut the wait short: it is raised once the thread has ended."""
        self._stopped = True
        interrupted = None
        waited = 0
        # The flags say what the locks only help to wait for: after an interrupt the loop
        # looks again, and a lock taken just before it (now held here) is never waited on.
        while self._launched and not self._over:
            try:
                if self._begun:
                    self._ending.acquire(timeout=0.1)
                elif waited < 1000:
                    # An interrupt in _start() came before the thread was started or just
                    # after: a thread that has not begun within a second never will (and would
                    # do nothing if it did, seeing _stopped).
                    waited += 1
                    time.sleep(0.001)
                else:
                    break
            except BaseException as exc:  # KeyboardInterrupt (or another signal's exception)
                interrupted = exc
        self._jobs = []
        if interrupted is not None:
            raise interrupted


class _Job:
    """One parse for the helper thread: its result (or exception) once it is over.

    The helper thread sets ``_over`` and then releases ``_pending``, a lock held since the
    job was made, so the reader waits on the lock and trusts the flag (see :class:`Pieces`
    for why not a ``threading.Event``).
    """

    __slots__ = ("function", "arguments", "result", "error", "_pending", "_over")

    def __init__(self, function, arguments):
        self.function = function
        self.arguments = arguments
        self.result = None
        self.error = None
        self._pending = _held_lock()
        self._over = False  # written by the helper thread only

    def run(self):
        """Run the parse (helper thread), keeping its result or exception."""
        try:
            self.result = self.function(*self.arguments)
        except BaseException as exc:  # handed to the reader, which re-raises it
            self.error = exc
        finally:
            self.finish()

    def finish(self):
        """Mark the job over (helper thread; once only, a second call does nothing)."""
        if not self._over:
            self._over = True
            self._pending.release()

    def wait(self):
        """Wait until the job is over (reader). The lock is never released again once taken:
        the flag then answers."""
        while not self._over:
            self._pending.acquire(timeout=0.1)

    def value(self):
        """The parse's result, or its exception raised."""
        if self.error is not None:
            raise self.error
        return self.result


def _held_lock():
    """A lock held from the start, for another thread to release."""
    lock = threading.Lock()
    lock.acquire()
    return lock
