"""The reader's optional accelerator (``irrun.ir._walk``) gives, for plainly written layers and
edges, exactly the records the Python reader gives (``layer_record``, ``edge_record``: the
specification), and hands everything else back to it: the models are the same either way."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest
from lxml import etree

import irrun
from irrun.ir import accelerator, pieces, reader
from irrun.ir.edges import edge_record
from irrun.ir.layers import layer_record
from irrun.ir.xml import safe_parser
from irrun.model import Graph

if os.environ.get(accelerator.SWITCH, "").strip() not in ("", "0"):
    pytest.skip(f"the accelerator is turned off by {accelerator.SWITCH}", allow_module_level=True)
_walk = pytest.importorskip("irrun.ir._walk", reason="the C accelerator is not built here")
COMPARES_READERS = True  # each test here runs once (see conftest.py)


def test_a_built_accelerator_passes_its_checks():
    # Built (this module imported) but refused by load_accelerator would silently make every
    # load slow.
    assert importlib.util.find_spec("irrun.ir._walk") is not None
    assert reader._walk is _walk and reader.ACCELERATOR_STATUS is None
    major, minor, patch = etree.LIBXML_VERSION
    assert major * 10000 + minor * 100 + patch == _walk.LIBXML_COMPILED_VERSION


def walked(xml: str, fragment=False, line_offset=0):
    """(what the accelerator gives, what the Python reader gives) for a <layers> element."""
    root = etree.fromstring(xml, safe_parser())
    records = _walk.layers(root, line_offset, fragment, {})
    expected = [layer_record(child, "<test>", fragment, line_offset) for child in root]
    return records, [record for record in expected if record is not None]


PLAIN = ('<layer id="1" name="n" type="T" version="v" output_names="a\\,b,c">\n'
         '<data axis="1" mode="x&#44;y"/>\n'
         '<input><port id="0"/><port id="1" precision="FP32" names=""><dim> 4 </dim></port>'
         '</input>\n<output><!-- c --><other/><port id="3" precision="I8" names="a\\,b">'
         "<dim>-1</dim><dim>2</dim></port></output></layer>")  # fmt: skip


@pytest.mark.parametrize("line_offset", [0, 1000])
@pytest.mark.parametrize("fragment", [False, True])
def test_plain_layers_give_the_python_readers_records(fragment, line_offset):
    records, expected = walked(f"<layers>\n{PLAIN}\n<!-- c -->{PLAIN}</layers>", fragment,
                               line_offset)  # fmt: skip
    assert records == expected and len(records) == 2
    assert records[1][5] == 6 + line_offset and records[1][9][0][2] == 9 + line_offset


def test_fragment_layers_may_lack_name_and_version():
    records, expected = walked('<layers><layer id="1" type="T"/></layers>', fragment=True)
    assert records == expected
    assert records[0][:4] == (1, None, "T", None)


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
        '<layer id="1234567890123456789" name="n" type="T" version="v"/>',
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
        "id of 19 digits",
    ],  # fmt: skip
)
def test_anything_but_the_plain_form_is_handed_back_by_child_index(layer):
    xml = f"<layers><!-- first -->{PLAIN}{layer}</layers>"
    records, expected = walked(xml)
    assert records[1:] == [2]  # the child index, counting the comment
    assert records[0] == expected[0] and len(expected) == 2  # Python reads both


@pytest.mark.parametrize(
    "layer",
    [
        '<layer id="01x" name="n" type="T" version="v"/>',
        '<layer name="n" type="T" version="v"/>',
        '<layer id="1" name="n" type="" version="v"/>',
        '<layer id="1" name="n" version="v"/>',
        '<layer id="1" type="T" version="v"/>',
        '<layer id="1" name="n" type="T"/>',
    ],
    ids=["id not a number", "no id", "empty type", "no type", "no name", "no version"],  # fmt: skip
)
def test_what_the_python_reader_refuses_is_handed_back(layer):
    xml = f"<layers>{PLAIN}{layer}</layers>"
    assert _walk.layers(etree.fromstring(xml), 0, False, {})[1:] == [1]
    with pytest.raises(irrun.IRFormatError):
        layer_record(etree.fromstring(xml)[1], "<test>", False, 0)


def test_other_elements_in_layers_hand_the_whole_list_back():
    for xml in (f"<layers>{PLAIN}<edge/></layers>",
                f'<layers xmlns:x="urn:x">{PLAIN}<x:layer/></layers>'):  # fmt: skip
        assert _walk.layers(etree.fromstring(xml), 0, False, {}) is None


def test_plain_edges_give_the_python_readers_records_and_others_hand_all_back():
    def edges(inner):
        return _walk.edges(etree.fromstring(f"<edges>\n{inner}</edges>"), 100)

    plain = '<edge from-layer="1" from-port="2" to-layer="3" to-port="4"/>'
    root = etree.fromstring(f"<edges>\n{plain}<!-- c -->{plain}</edges>")
    expected = [edge_record(Graph(None, "<test>"), child, 100) for child in root]
    assert edges(f"{plain}<!-- c -->{plain}") == [(1, 2, 3, 4, 102)] * 2
    assert expected == [(1, 2, 3, 4, 102), None, (1, 2, 3, 4, 102)]  # None: the comment
    for other in ('from-layer="01x"', 'from-layer=""', 'from-layer="1234567890123456789"',
                  'from-layer="\u0661"', 'from-layer=" 1"'):  # fmt: skip
        assert edges(plain.replace('from-layer="1"', other)) is None
    assert edges(plain.replace('from-port="2" ', "")) is None
    assert edges(f"{plain}<other/>") is None


def test_the_accelerator_takes_only_elements():
    class Disguised:  # claims to be an element: isinstance() would believe it
        __class__ = etree._Element

    from unittest import mock

    for fake in ("<layers/>", Disguised(), mock.Mock(spec=etree._Element), etree.Comment("c")):
        with pytest.raises(TypeError):
            _walk.layers(fake, 0, False, {})
        with pytest.raises(TypeError):
            _walk.edges(fake, 0)


def test_short_texts_are_shared_through_the_dict_of_the_load():
    texts = {}
    layers = "".join(PLAIN.replace('id="1"', f'id="{i}"') for i in range(3))
    records = _walk.layers(etree.fromstring(f"<layers>{layers}</layers>"), 0, False, texts)
    assert records[0][2] is records[2][2] is texts["T"]
    assert records[0][9][0][0][3] is records[1][9][0][0][3] is texts["-1"]
    assert records[0][1] not in texts  # names are not shared: they are all different


def test_a_refused_import_and_the_switch_leave_pure_python(monkeypatch):
    monkeypatch.setenv(accelerator.SWITCH, "1")
    assert accelerator.load_accelerator() == (None, "turned off by IRRUN_NO_ACCELERATOR")
    monkeypatch.setenv(accelerator.SWITCH, "0")
    assert accelerator.load_accelerator() == (_walk, None)
    # The module refuses to import when lxml runs with another libxml2 (or its element type
    # is another struct): the reader then reads in pure Python.
    import irrun.ir

    monkeypatch.delattr(irrun.ir, "_walk")
    monkeypatch.setitem(sys.modules, "irrun.ir._walk", None)  # an import that fails
    module, why = accelerator.load_accelerator()
    assert module is None and why.startswith("not loaded: ")


def test_the_environment_switch_turns_the_accelerator_off_for_a_process():
    code = (
        "from irrun.ir import reader; import irrun; "
        "print(reader._walk, reader.ACCELERATOR_STATUS, len(irrun.load(%r).layers))"
    )
    done = subprocess.run([sys.executable, "-c", code % PLAIN], capture_output=True, text=True,
                          env={**os.environ, accelerator.SWITCH: "1"}, check=True)  # fmt: skip
    assert done.stdout.split() == ["None", "turned", "off", "by", "IRRUN_NO_ACCELERATOR", "1"]


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


def test_short_texts_are_shared_within_a_load_only():
    first, second = irrun.load(big_net(200)), irrun.load(big_net(200))
    assert first.layers[5].type is first.layers[6].type  # one object per text in a load
    assert first.layers[5].type is not second.layers[5].type  # nothing kept between loads


def test_a_build_against_another_libxml2_refuses_to_import(tmp_path):
    # The same source compiled with libxml2's version header saying 2.9.1: importing it must
    # fail with both versions named, so that the reader falls back to pure Python.
    import shutil
    import sysconfig

    import lxml

    compiler = shutil.which(sysconfig.get_config_var("CC").split()[0]) or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler here")
    (tmp_path / "libxml").mkdir()
    (tmp_path / "libxml" / "xmlversion.h").write_text(
        "#include_next <libxml/xmlversion.h>\n#undef LIBXML_VERSION\n#define LIBXML_VERSION 20901\n"
        '#undef LIBXML_DOTTED_VERSION\n#define LIBXML_DOTTED_VERSION "2.9.1"\n'
    )
    source = Path(__file__).resolve().parents[2] / "irrun" / "ir" / "_walk.c"
    target = tmp_path / ("_walk" + sysconfig.get_config_var("EXT_SUFFIX"))
    includes = [tmp_path, *lxml.get_include(), sysconfig.get_paths()["include"]]
    subprocess.run([compiler, "-shared", "-fPIC", "-O0", *(f"-I{folder}" for folder in includes),
                    str(source), "-o", str(target)], check=True, capture_output=True)  # fmt: skip
    code = (
        "import importlib.util, sys; spec = importlib.util.spec_from_file_location('_walk', "
        f"{str(target)!r})\ntry:\n    importlib.util.module_from_spec(spec)\n"
        "except ImportError as exc:\n    print(exc)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    running = ".".join(map(str, etree.LIBXML_VERSION))
    assert done.stdout == (
        f"compiled against libxml2 2.9.1, but lxml runs with libxml2 {running}; rebuild irrun "
        "(pip install -e .) to use the accelerator\n"
    )
