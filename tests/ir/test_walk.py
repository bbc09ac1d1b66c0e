"""The reader's C accelerator (``irrun.ir._walk``) reads plainly written layers and edges and
hands everything else back to the Python reader: the models must be the same either way."""

from __future__ import annotations

import importlib.util

import pytest
from lxml import etree

import irrun
from irrun.ir import pieces, reader
from irrun.ir.xml import safe_parser

_walk = pytest.importorskip("irrun.ir._walk", reason="the C accelerator is not built here")
COMPARES_READERS = True  # each test here runs once (see conftest.py)


def test_a_built_accelerator_passes_its_self_check():
    # Built (this module imported) but rejected by reader._checked_walker would silently
    # make every load slow.
    assert importlib.util.find_spec("irrun.ir._walk") is not None
    assert reader._walk is _walk


def layers_of(xml: str, fragment=False, caches=({}, {})):
    return _walk.layers(etree.fromstring(xml), 0, fragment, *caches, {})


PLAIN = '<layer id="1" name="n" type="T" version="v"><input><port id="0"/></input></layer>'


@pytest.mark.parametrize(
    "layer",
    [
        '<layer id="1" name="n" type="T" version="v"><rt_info/></layer>',
        '<layer id="1" name="n" type="T" version="v"><body/></layer>',
        '<layer id="1" name="n" type="T" version="v"><foo/></layer>',
        '<layer id="1" name="n" type="T" version="v"><input><port id="0"><!-- c --><dim>1</dim>'
        "</port></input></layer>",
        '<layer id="1" name="n" type="T" version="v"><input><port id="0"><dim>1<!-- c --></dim>'
        "</port></input></layer>",
        '<layer id="1" name="n" type="T" version="v"><input><port id="0"><dim/></port></input>'
        "</layer>",
        '<layer id="1" name="n" type="T" version="v"><input><port id="0"><dim a="1">2</dim>'
        "</port></input></layer>",
        '<layer id="1" name="n" type="T" version="v"><input><port id="0"><rt_info/></port>'
        "</input></layer>",
        '<layer xmlns:x="urn:x" x:id="1" id="1" name="n" type="T" version="v"/>',
        '<layer id="1" name="n" type="T" version="v"><data xmlns:x="urn:x" x:a="1"/></layer>',
        '<layer id="1" name="n" type="T" version="v"><x:data xmlns:x="urn:x"/></layer>',
        '<layer id="01x" name="n" type="T" version="v"/>',
        '<layer id="1234567890123456789" name="n" type="T" version="v"/>',
        '<layer name="n" type="T" version="v"/>',
        '<layer id="1" name="n" type="" version="v"/>',
        '<layer id="1" name="n" version="v"/>',
        '<layer id="1" type="T" version="v"/>',
        '<layer id="1" name="n" type="T"/>',
    ],
    ids=[
        "rt_info",
        "body",
        "unknown child",
        "comment in port",
        "comment in dim",
        "empty dim",
        "dim attribute",
        "port rt_info",
        "namespaced attribute",
        "namespaced data attribute",
        "namespaced child",
        "id not a number",
        "id too long",
        "no id",
        "empty type",
        "no type",
        "no name",
        "no version",
    ],  # fmt: skip
)
def test_anything_but_the_plain_form_is_handed_back_by_child_index(layer):
    assert layers_of(f"<layers><!-- first -->{PLAIN}{layer}</layers>")[1:] == [2]


def test_fragment_layers_may_lack_name_and_version():
    [item] = layers_of('<layers><layer id="1" type="T"/></layers>', fragment=True)
    assert item[:4] == (1, None, "T", None)


def test_port_signatures_come_from_the_cache_and_names_are_split_only_when_needed():
    xml = ('<layers><layer id="1" name="n" type="T" version="v"><output>'
           '<port id="0" precision="I8"><dim>2</dim></port>'
           '<port id="1" precision="I8" names="a"><dim>2</dim></port>'
           '<port id="2" precision="I8" names="a,b"/><port id="3" names=""/></output>'
           "</layer></layers>")  # fmt: skip
    caches = {("0", "I8", False, "2"): "input side"}, {("0", "I8", True, "2"): "known"}
    [item] = layers_of(xml, caches=caches)
    assert item[9] == [
        ("known", ("0", "I8", True, "2"), (), 1),
        (None, ("1", "I8", False, "2"), ("a",), 1),
        (None, ("2", "I8", False), "a,b", 1),
        (None, ("3", None, False), (), 1),
    ]


def test_other_elements_in_layers_hand_the_whole_list_back():
    assert layers_of(f"<layers>{PLAIN}<edge/></layers>") is None
    assert layers_of(f'<layers xmlns:x="urn:x">{PLAIN}<x:layer/></layers>') is None


def test_ports_outside_the_plain_form_are_skipped_as_python_skips_them():
    xml = ('<layers><layer id="1" name="n" type="T" version="v"><output><!-- c --><other/>'
           '<port id="3" precision="I8" names="a\\,b"><dim> 4 </dim></port></output>'
           "</layer></layers>")  # fmt: skip
    [item] = layers_of(xml)
    assert item[9] == [(None, ("3", "I8", False, " 4 "), "a\\,b", 1)]


def test_edges_hand_back_anything_but_plain_ids():
    def edges(inner):
        return _walk.edges(etree.fromstring(f"<edges>\n{inner}</edges>"), 100)

    plain = '<edge from-layer="1" from-port="2" to-layer="3" to-port="4"/>'
    assert edges(f"{plain}<!-- c -->{plain}") == [(1, 2, 3, 4, 102)] * 2
    for bad in ('from-layer="01x"', 'from-layer=""', 'from-layer="1234567890123456789"',
                'from-layer="\u0661"'):  # fmt: skip
        assert edges(plain.replace('from-layer="1"', bad)) is None
    assert edges(plain.replace('from-port="2" ', "")) is None
    assert edges(f"{plain}<other/>") is None


def test_the_accelerator_takes_only_elements():
    class Disguised:  # claims to be an element: isinstance() would believe it
        __class__ = etree._Element

    from unittest import mock

    for fake in ("<layers/>", Disguised(), mock.Mock(spec=etree._Element), etree.Comment("c")):
        with pytest.raises(TypeError):
            _walk.layers(fake, 0, False, {}, {}, {})
        with pytest.raises(TypeError):
            _walk.edges(fake, 0)


def test_no_python_code_runs_while_the_tree_is_walked():
    # Signatures are looked up after the walk: a cache key whose __eq__ empties the tree
    # cannot pull nodes from under the walker.
    ports = '<port id="0" precision="FP32"><dim>1</dim></port>'
    layer = f'<layer id="1" name="n" type="T" version="v"><input>{ports}</input></layer>'
    xml = "<layers>" + layer * 200 + "</layers>"
    root = etree.fromstring(xml, safe_parser())
    key = ("0", "FP32", True, "1")

    class Meddling:
        def __hash__(self):
            return hash(key)

        def __eq__(self, other):
            root.clear()
            for i in range(500):
                etree.SubElement(root, "x" * (i % 50 + 1)).set("a", "b" * 100)
            return False

    walked = _walk.layers(root, 0, False, {Meddling(): 1}, {}, {})
    assert len(walked) == 200
    assert walked[-1][8] == [(None, key, (), 1)]


def test_attribute_values_are_not_kept_after_the_model_is_gone():
    import gc
    import tracemalloc

    layers = "".join(
        f'<layer id="{i}" name="c{i}" type="Const" version="opset1"><data offset="0" size="4" '
        f'note="{str(i) * 2000}"/><output><port id="0" precision="FP32"/></output></layer>'
        for i in range(1000)
    )
    xml = f'<net name="n" version="11"><layers>{layers}</layers><edges/></net>'
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        model = irrun.load(xml)
        assert len(model.layers[999].attributes["note"]) == 6000
        del model
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert kept < 1_000_000  # the notes alone are over 5 MB


# -- the same models either way --------------------------------------------------------------------
ZOO = """<?xml version="1.0"?>
<!-- unusual but legal: each layer below is handed back to the Python reader -->
<net name="zoo" version="11">
<layers>
<layer id="0" name="p&amp;q&#10;r" type="Parameter" version="opset1">
  <data shape="2" element_type="f32" note="a&#44;b&#9;c"/>
  <output><port id="0" precision="FP32" names="x\\,y,z"><dim>2</dim></port></output>
</layer>
<layer id="1" name="with rt_info" type="Result" version="opset1">
  <rt_info><attribute name="fused_names" version="0" value="a,b"/></rt_info>
  <input><port id="0" precision="FP32"><dim>2</dim></port></input>
</layer>
<!-- a comment between layers -->
<layer id="2" name="comment in port" type="Result" version="opset1">
  <input><port id="0" precision="FP32"><!-- note --><dim>2</dim></port></input>
</layer>
<layer id="3" name="port rt_info" type="Result" version="opset1">
  <input><port id="0" precision="FP32"><dim>2</dim>
    <rt_info><attribute name="layout" version="0" layout="[N]"/></rt_info></port></input>
</layer>
<layer id="4" name="cdata dim" type="Result" version="opset1" output_names="o\\,1,o2">
  <input><port id="0" precision="FP32"><dim><![CDATA[2]]></dim></port></input>
</layer>
<layer id="5" name="unknown child" type="Result" version="opset1"><extra/>
  <input><port id="0" precision="FP32"><dim>2</dim></port></input>
</layer>
</layers>
<edges>
<edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>
<!-- a comment between edges -->
<edge from-layer="0" from-port="0" to-layer="2" to-port="0"/>
<edge from-layer="0" from-port="0" to-layer="3" to-port="0"/>
<edge from-layer="0" from-port="0" to-layer="4" to-port="0"/><edge from-layer="0" from-port="0"
   to-layer="5" to-port="0"/>
</edges>
<rt_info><framework><name value="zoo"/></framework></rt_info>
</net>
"""


def test_unusual_layers_read_the_same_either_way(snapshot, python_reader):
    model = irrun.load(ZOO)
    with python_reader():
        expected = snapshot(irrun.load(ZOO))
    assert snapshot(model) == expected
    assert model.layers[0].name == "p&q\nr"
    assert model.layers[0].attributes["note"] == "a,b\tc"
    assert model.layers[1].rt_info == {"fused_names": "a,b"}
    assert model.layers[4].output_names == ("o,1", "o2")


def big_net(count: int, layer_extra: str = "", between: str = "") -> str:
    """A net of ``count`` Results fed by one Parameter, over a megabyte so it is cut."""
    results = "".join(
        f'<layer id="{i}" name="r{i}" type="Result" version="opset1">\n{layer_extra}'
        f'<input><port id="0" precision="I64" names="t{i}"><dim>{i % 7}</dim></port></input>'
        "\n</layer>\n"
        for i in range(1, count)
    )
    edges = "".join(f'<edge from-layer="0" from-port="0" to-layer="{i}" to-port="0"/>\n'
                    for i in range(1, count))  # fmt: skip
    return ('<net name="big" version="11">\n<layers>\n'
            '<layer id="0" name="p" type="Parameter" version="opset1">\n'
            '<data shape="?" element_type="i64"/>\n'
            '<output><port id="0" precision="I64"><dim>-1</dim></port></output>\n</layer>\n'
            f"{results}</layers>{between}\n<edges>\n{edges}</edges>\n"
            '<rt_info><conversion value="x"/></rt_info>\n</net>\n')  # fmt: skip


@pytest.mark.parametrize(
    ("layer_extra", "between"),
    [("", ""), ('<rt_info><attribute name="a" value="1"/></rt_info>\n', ""), ("", "<!-- c -->")],
    ids=["plain", "rt_info in every layer", "comment before edges"],
)
def test_large_nets_read_the_same_in_pieces_and_in_python(layer_extra, between, snapshot,
                                                          python_reader):  # fmt: skip
    xml = big_net(12000, layer_extra, between)
    assert len(xml) > 4 * pieces.FIRST_PIECE_BYTES
    model = irrun.load(xml)
    with python_reader():
        expected = snapshot(irrun.load(xml))
    assert snapshot(model) == expected
    lines = xml.split("\n")
    assert lines[model.edges[-1].line - 1].startswith('<edge from-layer="0" from-port="0" '
                                                      'to-layer="11999"')  # fmt: skip
    assert model.rt_info == {"conversion": "x"}


def test_edges_are_cut_in_pieces_when_they_follow_the_layers(monkeypatch):
    parts = []
    original = pieces.Pieces._parse_part

    def recording(self, start, stop, tag):
        parts.append(tag)
        return original(self, start, stop, tag)

    monkeypatch.setattr(pieces.Pieces, "_parse_part", recording)
    irrun.load(big_net(12000))
    assert parts.count(b"edges") > 1 and parts.count(b"layers") > 1
    parts.clear()
    irrun.load(big_net(12000, between="<!-- c -->"))
    assert parts.count(b"edges") == 0


def test_a_cut_inside_a_comment_in_edges_reads_the_whole_document(monkeypatch, snapshot):
    comment = "<!-- " + '<edge from-layer="0"/> ' * 40000 + "-->\n"
    fifth = '<edge from-layer="0" from-port="0" to-layer="5" '
    xml = big_net(12000).replace(fifth, comment + fifth)
    whole = []
    original = reader.parse_document
    monkeypatch.setattr(reader, "parse_document", lambda *a: whole.append(1) or original(*a))
    model = irrun.load(xml)
    assert whole == [1]
    assert len(model.edges) == 11999


def test_interned_texts_are_dropped_after_each_load_even_a_failing_one():
    irrun.load(big_net(200))
    assert reader._INTERNED == {}
    with pytest.raises(irrun.IRError):
        irrun.load(big_net(200).replace('<layer id="7" ', '<layer id="x7" '))
    assert reader._INTERNED == {}
