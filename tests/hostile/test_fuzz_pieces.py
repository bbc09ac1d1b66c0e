"""Mutation fuzzing of IR files over 1 MB, the size irrun parses in pieces on a helper thread
(:mod:`irrun.ir.pieces`): whatever the mutation, loading in pieces gives exactly what parsing
the whole document gives (the same model, or the same error with the same line), with both
readers (the C accelerator and pure Python).

The base document is built once (about 1.9 MB, OpenVINO's layout, an ``<rt_info>`` after
``<edges>``); each example applies one to three edits chosen around the places where pieces are
cut (``</layer>`` ends, ``<edge`` starts, ``</layers>``) and anywhere else: hostile texts
(comments, CDATA, processing instructions, stray end tags, random bytes), and edits that keep
the document well-formed (a construct between two tags, a line dropped or repeated, an
attribute value changed), so that many examples are read in pieces to the end.
``IRRUN_FUZZ_EXAMPLES`` scales the count, as in ``test_fuzz.py``.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import irrun
from irrun.errors import IRError
from irrun.ir import pieces, reader
from tests.helpers.ir_text import Net

EXAMPLES = max(1, int(os.environ.get("IRRUN_FUZZ_EXAMPLES", "400")) // 10)
SETTINGS = settings(
    derandomize=True,
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    phases=(Phase.explicit, Phase.reuse, Phase.generate),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                           HealthCheck.function_scoped_fixture],
)  # fmt: skip


def _base() -> bytes:
    net = Net()
    x = net.param("x", "1,8")
    scale = net.const("scale", np.arange(8, dtype=np.float32).reshape(1, 8))
    for i in range(4200):
        x = net.op(f"block{i}/relu", "Relu", "opset1", None, [x], [1, 8])
        if i % 7 == 0:
            x = net.op(f"block{i}/mul", "Multiply", "opset1", {"auto_broadcast": "numpy"},
                       [x, scale], [1, 8])  # fmt: skip
    net.result(x, "out")
    text = net.text().replace(
        "</edges>\n</net>",
        '</edges>\n  <rt_info>\n    <framework value="fuzz"/>\n  </rt_info>\n</net>',
    )
    return text.encode()


BASE = _base()


def _cut_points(data: bytes) -> list[int]:
    """Where pieces are cut: where a mutation most likely confuses a piece-wise parse."""
    points = []
    for token in (b"</layer>", b"<edge ", b"</layers>", b"<edges>", b"</edges>", b"<rt_info>"):
        start = 0
        while (found := data.find(token, start)) >= 0:
            points.append(found)
            start = found + 1
    return sorted(points)


POINTS = _cut_points(BASE)
INSERTS = [
    b"<!--", b"-->", b"<![CDATA[", b"]]>", b"<?pi x?>", b"<?pi", b"</layer>", b"<layer>",
    b"</layers>", b"<layers>", b"<edge", b"</edges>", b'"', b"'", b"<", b">", b"&", b"&amp;",
    b"\n", b"\n" * 70000, b"\x00", b"\xff", b"<!DOCTYPE x>", b"</net>", b'<layer id="1"/>',
    b'<edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>', b"<body>", b"</body>",
]  # fmt: skip

#: Whole constructs that keep the document well-formed when put between two tags.
WELL_FORMED = [
    b"<!-- a comment -->", b"<!-- </layer> <edge -->", b"<?pi x?>", b"<?pi </layer>?>",
    b"<![CDATA[</layer>]]>", b"\n", b"\n" * 70000, b'<layer id="1"/>', b"<extra/>",
    b'<edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>', b"<body></body>",
    b"<layers></layers>", b"text",
]  # fmt: skip
#: Attribute values: ordinary, edge-of-range and hostile.
VALUES = [b"0", b"1", b"2", b"-1", b"", b"?", b"x", b"1e30", b"99999999999999999999", b"1,8",
          b"8", b"opset1", b"opset99", b"Relu", b"FP16", b"f32", b"&amp;", b"a,b"]  # fmt: skip

position = st.one_of(
    st.sampled_from(POINTS).flatmap(lambda p: st.integers(max(0, p - 12), p + 12)),
    st.integers(0, len(BASE)),
)
edit = st.one_of(
    st.tuples(st.sampled_from(["insert", "replace"]), position, st.sampled_from(INSERTS)),
    st.tuples(st.just("insert"), position, st.binary(min_size=1, max_size=6)),
    st.tuples(st.just("delete"), position, st.integers(1, 40)),
    # Mostly well-formed: a construct between two tags, a line dropped or repeated (a whole
    # element or one tag in this layout), an attribute value changed.
    st.tuples(st.just("between tags"), position, st.sampled_from(WELL_FORMED)),
    st.tuples(st.sampled_from(["drop line", "repeat line"]), position, st.just(b"")),
    st.tuples(st.just("value"), position, st.sampled_from(VALUES)),
)


def mutate(data: bytes, edits) -> bytes:
    out = bytearray(data)
    for kind, at, argument in edits:
        at = min(at, len(out))
        line_start = out.rfind(b"\n", 0, at) + 1
        line_end = out.find(b"\n", at) + 1 or len(out)
        if kind == "insert":
            out[at:at] = argument
        elif kind == "replace":
            out[at : at + len(argument)] = argument
        elif kind == "delete":
            del out[at : at + argument]
        elif kind == "between tags":
            tag = out.find(b"<", at)
            tag = len(out) if tag < 0 else tag
            out[tag:tag] = argument
        elif kind == "drop line":
            del out[line_start:line_end]
        elif kind == "repeat line":
            out[line_end:line_end] = out[line_start:line_end]
        else:  # the next attribute value
            start = out.find(b'="', at)
            end = out.find(b'"', start + 2) if start >= 0 else -1
            if end >= 0:
                out[start + 2 : end] = argument
    return bytes(out)


def outcome(data: bytes, whole: bool, snapshot):
    """What loading gives: ``("model", snapshot)`` or ``("error", class, str)``."""
    saved = pieces.FIRST_PIECE_BYTES
    if whole:
        pieces.FIRST_PIECE_BYTES = 1 << 40
    try:
        return ("model", snapshot(irrun.load(data)))
    except IRError as exc:
        return ("error", type(exc).__name__, str(exc))
    finally:
        pieces.FIRST_PIECE_BYTES = saved


def test_the_base_document_is_read_in_pieces(monkeypatch):
    assert len(BASE) > 1 << 20
    calls = []
    original = reader.parse_document
    monkeypatch.setattr(reader, "parse_document", lambda *a: calls.append(a) or original(*a))
    model = irrun.load(BASE)
    assert calls == [] and len(model.layers) > 4000  # no whole-document parse was needed


@pytest.mark.parametrize("kind", ["accelerated", "pure-python"])
@SETTINGS
@given(edits=st.lists(edit, min_size=1, max_size=3))
def test_a_mutated_large_file_reads_in_pieces_exactly_as_whole(kind, edits, monkeypatch, snapshot):
    if kind == "pure-python":
        monkeypatch.setattr(reader, "_walk", None)
    elif reader._walk is None:
        pytest.skip("the reader's C accelerator is not built here")
    data = mutate(BASE, edits)
    assert outcome(data, whole=False, snapshot=snapshot) == outcome(
        data, whole=True, snapshot=snapshot
    )
