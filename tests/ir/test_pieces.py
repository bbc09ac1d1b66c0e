"""Large IR is parsed in pieces on a helper thread (``irrun.ir.pieces``).

The model must be exactly what parsing the whole document gives (every attribute, port,
edge and line), and whatever a piece cannot hold on its own (a cut inside a comment or a
sub-graph body, a syntax error) must fall back to the whole-document parse and its errors.
"""

from __future__ import annotations

import numpy as np
import openvino as ov
import pytest
from openvino import opset13 as ops

import irrun
from irrun.errors import IRFormatError, XMLSyntaxError
from irrun.ir import pieces, reader
from tests.helpers.threads import settled_thread_count, thread_count


# -- helpers ---------------------------------------------------------------------------------------
@pytest.fixture
def tiny_pieces(monkeypatch):
    """Pieces of a few hundred bytes, so that small documents are cut many times."""
    monkeypatch.setattr(pieces, "FIRST_PIECE_BYTES", 200)
    monkeypatch.setattr(pieces, "MAX_PIECE_BYTES", 1500)


def load_whole(source, monkeypatch):
    """Load with splitting switched off."""
    with monkeypatch.context() as patch:
        patch.setattr(pieces, "FIRST_PIECE_BYTES", 1 << 40)
        return irrun.load(source)


def forbid_whole_parse(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the document should have been read in pieces")

    monkeypatch.setattr(reader, "parse_document", refuse)


def count_whole_parses(monkeypatch) -> list:
    calls = []
    original = reader.parse_document

    def counting(*args, **kwargs):
        calls.append(args)
        return original(*args, **kwargs)

    monkeypatch.setattr(reader, "parse_document", counting)
    return calls


def openvino_model_xml(tmp_path, blocks=40):
    """An IR as OpenVINO writes it: Gather/Concat blocks with tensor names and rt_info."""
    data = ops.parameter([-1, 8], ov.Type.f32, name="input")
    x = data
    axis = ops.constant(np.int64(1))
    rng = np.random.default_rng(0)
    for i in range(blocks):
        first = ops.gather(x, ops.constant(rng.integers(0, 8, 4)), axis)
        second = ops.gather(x, ops.constant(rng.integers(0, 8, 4)), axis)
        x = ops.concat([first, second], 1)
        x.output(0).get_tensor().set_names({f"b{i}/out", f"b{i},alias"})
        x.get_rt_info()["note"] = f"block {i}"
    model = ov.Model([ops.result(x)], [data], "pieces")
    model.set_rt_info("value", ["framework", "name"])
    path = tmp_path / "model.xml"
    ov.save_model(model, path, compress_to_fp16=False)
    return path


# -- the same model --------------------------------------------------------------------------------
def test_openvino_ir_read_in_pieces_is_the_whole_document_model(
    tmp_path, monkeypatch, tiny_pieces, snapshot
):
    path = openvino_model_xml(tmp_path)
    expected = snapshot(load_whole(path, monkeypatch))
    forbid_whole_parse(monkeypatch)
    model = irrun.load(path)
    assert snapshot(model) == expected
    assert len(model.layers) == 1 + 1 + 40 * 5 + 1  # input, axis, 5 per block, result
    assert model.validate().ok


def test_lines_beyond_65535_are_the_files(tmp_path, monkeypatch, snapshot):
    # Default piece sizes; about 80 000 lines, so later lines need libxml2's big-line support.
    body = ['<?xml version="1.0"?>', '<net name="lines" version="11">', "\t<layers>",
            '\t\t<layer id="0" name="in" type="Parameter" version="opset1">',
            '\t\t\t<data shape="2" element_type="f32"/>',
            '\t\t\t<output>\n\t\t\t\t<port id="0" precision="FP32">\n'
            "\t\t\t\t\t<dim>2</dim>\n\t\t\t\t</port>\n\t\t\t</output>",
            "\t\t</layer>"]  # fmt: skip
    edges = []
    for i in range(1, 10000):
        body += [f'\t\t<layer id="{i}" name="out{i}" type="Result" version="opset1">',
                 '\t\t\t<input>\n\t\t\t\t<port id="0" precision="FP32">\n'
                 "\t\t\t\t\t<dim>2</dim>\n\t\t\t\t</port>\n\t\t\t</input>",
                 "\t\t</layer>"]  # fmt: skip
        edges.append(f'\t\t<edge from-layer="0" from-port="0" to-layer="{i}" to-port="0"/>')
    text = "\n".join([*body, "\t</layers>", "\t<edges>", *edges, "\t</edges>", "</net>", ""])
    path = tmp_path / "lines.xml"
    path.write_text(text)
    assert text.count("\n") > 80_000 and len(text) > 4 * pieces.FIRST_PIECE_BYTES

    expected = snapshot(load_whole(path, monkeypatch))
    forbid_whole_parse(monkeypatch)
    model = irrun.load(path)
    assert snapshot(model) == expected
    lines = text.split("\n")
    last = model.layers[-1]
    assert lines[last.line - 1].startswith('\t\t<layer id="9999" name="out9999"')
    assert lines[last.inputs[0].line - 1] == '\t\t\t\t<port id="0" precision="FP32">'
    assert last.line > 65535
    assert lines[model.edges[-1].line - 1].startswith('\t\t<edge from-layer="0" from-port="0" '
                                                      'to-layer="9999"')  # fmt: skip


# -- what a piece cannot hold ----------------------------------------------------------------------
def insert_after_layer(path, layer_id, text):
    xml = path.read_text()
    marker = f'<layer id="{layer_id}" '
    end = xml.index("</layer>", xml.index(marker)) + len("</layer>")
    return xml[:end] + text + xml[end:]


def test_a_cut_inside_a_comment_falls_back_to_the_whole_document(
    tmp_path, monkeypatch, tiny_pieces, snapshot
):
    path = openvino_model_xml(tmp_path, blocks=12)
    comment = "\n<!-- a note " + "</layer> " * 200 + "-->"
    path.write_text(insert_after_layer(path, 5, comment))
    expected = snapshot(load_whole(path, monkeypatch))
    calls = count_whole_parses(monkeypatch)
    assert snapshot(irrun.load(path)) == expected
    assert len(calls) == 1


def test_subgraph_bodies_are_parsed_whole(tmp_path, monkeypatch, tiny_pieces, snapshot):
    inner = "".join(
        f'<layer id="{i}" name="inner{i}" type="Result" version="opset1"><input>'
        f'<port id="0" precision="FP32"><dim>2</dim></port></input></layer>\n'
        for i in range(1, 40)
    )
    loop = ('\n<layer id="900" name="loop" type="TensorIterator" version="opset1">'
            '<output><port id="0" precision="FP32"><dim>2</dim></port></output>'
            '<port_map><output external_port_id="0" internal_layer_id="1"/></port_map>'
            f"<body><layers>\n{inner}</layers><edges/></body></layer>")  # fmt: skip
    path = openvino_model_xml(tmp_path, blocks=12)
    path.write_text(insert_after_layer(path, 5, loop))
    assert pieces._layers_body(path.read_bytes()) is None  # a cut could fall inside the body
    expected = snapshot(load_whole(path, monkeypatch))
    calls = count_whole_parses(monkeypatch)
    model = irrun.load(path)
    assert snapshot(model) == expected
    assert len(model.layer("loop").bodies["body"].layers) == 39
    assert len(calls) == 1


def test_a_syntax_error_after_a_format_error_is_what_is_reported(tmp_path, monkeypatch,
                                                                  tiny_pieces):  # fmt: skip
    path = openvino_model_xml(tmp_path, blocks=12)
    xml = path.read_text()
    xml = xml.replace("<dim>4</dim>", "<dim>four</dim>", 1)  # early: a format error
    cut = xml.rindex("<layer ")
    xml = xml[:cut] + "<layer <" + xml[cut + 7 :]  # near the end: not well-formed
    path.write_text(xml)
    with pytest.raises(XMLSyntaxError) as whole:
        load_whole(path, monkeypatch)
    with pytest.raises(XMLSyntaxError) as split:
        irrun.load(path)
    assert str(split.value) == str(whole.value)
    assert split.value.line == xml[:cut].count("\n") + 1


def test_a_format_error_is_reported_as_the_whole_document_reports_it(tmp_path, monkeypatch,
                                                                       tiny_pieces):  # fmt: skip
    path = openvino_model_xml(tmp_path, blocks=12)
    xml = path.read_text()
    at = xml.rindex("<dim>4</dim>")
    path.write_text(xml[:at] + "<dim>four</dim>" + xml[at + len("<dim>4</dim>") :])
    with pytest.raises(IRFormatError) as whole:
        load_whole(path, monkeypatch)
    calls = count_whole_parses(monkeypatch)
    with pytest.raises(IRFormatError) as split:
        irrun.load(path)
    assert len(calls) == 1  # errors are always reported from the whole document
    assert str(split.value) == str(whole.value)
    assert split.value.line == whole.value.line
    assert "<dim>four</dim> is not a dimension" in str(split.value)


# -- documents that are not split ------------------------------------------------------------------
def test_a_declared_non_utf8_encoding_is_not_split(tmp_path, monkeypatch, tiny_pieces):
    path = openvino_model_xml(tmp_path, blocks=12)
    xml = path.read_text().replace('<?xml version="1.0"?>',
                                   '<?xml version="1.0" encoding="ISO-8859-1"?>')  # fmt: skip
    xml = xml.replace('name="input"', 'name="entrée"')
    path.write_bytes(xml.encode("latin-1"))
    assert pieces._layers_body(path.read_bytes()) is None
    model = irrun.load(path)
    assert next(x for x in model.layers if x.type == "Parameter").name == "entrée"


def test_a_doctype_is_refused_whatever_the_size(tmp_path, tiny_pieces):
    path = openvino_model_xml(tmp_path, blocks=12)
    xml = path.read_text().replace("<net ", '<!DOCTYPE net [<!ENTITY a "b">]>\n<net ', 1)
    path.write_text(xml)
    with pytest.raises(XMLSyntaxError, match="DOCTYPE"):
        irrun.load(path)


def test_small_documents_are_parsed_whole(tmp_path, monkeypatch):
    path = openvino_model_xml(tmp_path, blocks=3)
    calls = count_whole_parses(monkeypatch)
    irrun.load(path)
    assert len(calls) == 1


# -- lines past 65535, in either path --------------------------------------------------------------
_LAYOUTS = {
    "compact scalar port": '<layer id="{i}" name="r{i}" type="Result" version="opset1">\n'
    '<input><port id="0" precision="I64"/></input>\n</layer>\n',
    "comment first": '<layer id="{i}" name="r{i}" type="Result" version="opset1"><!-- c -->\n'
    '<input>\n<port id="0" precision="I64"/>\n</input>\n</layer>\n',
    "data then input": '<layer id="{i}" name="r{i}" type="Result" version="opset1"><data a="1"/>'
    '<input>\n<port id="0" precision="I64"/></input>\n</layer>\n',
}


def layout_document(layer, count, edges_per_line=1) -> str:
    edges = [f'<edge from-layer="0" from-port="0" to-layer="{i}" to-port="0"/>'
             for i in range(1, count)]  # fmt: skip
    edge_lines = ["".join(edges[k : k + edges_per_line])
                  for k in range(0, len(edges), edges_per_line)]  # fmt: skip
    return "\n".join([
        '<net name="n" version="11">', "<layers>",
        '<layer id="0" name="p" type="Parameter" version="opset1">',
        '<data shape="" element_type="i64"/>', '<output><port id="0" precision="I64"/></output>',
        "</layer>", "".join(layer.format(i=i) for i in range(1, count)) + "</layers>",
        "<edges>", *edge_lines, "</edges>", "</net>", "",
    ])  # fmt: skip


@pytest.mark.parametrize("split", [False, True], ids=["whole", "pieces"])
@pytest.mark.parametrize(
    ("layout", "edges_per_line"),
    [("compact scalar port", 1), ("comment first", 2), ("data then input", 3)],
)
def test_every_line_past_65535_is_the_files(layout, edges_per_line, split, monkeypatch):
    xml = layout_document(_LAYOUTS[layout], 24000, edges_per_line)
    lines = xml.split("\n")
    assert len(lines) > 70_000
    if not split:
        monkeypatch.setattr(pieces, "FIRST_PIECE_BYTES", 1 << 40)
    model = irrun.load(xml)

    def first_line_from(start, needle):
        return next(n for n in range(start, len(lines) + 1) if needle in lines[n - 1])

    for layer in model.layers[-300:]:
        assert lines[layer.line - 1].startswith(f'<layer id="{layer.id}" ')
        for port in layer.inputs:
            assert port.line == first_line_from(layer.line, "<port ")
        if layer.data_line is not None:
            assert layer.data_line == first_line_from(layer.line, "<data ")
    for edge in model.edges[-300:]:
        assert f'to-layer="{edge.to_layer}"' in lines[edge.line - 1]


# -- what the review found -------------------------------------------------------------------------
def small_net(head="", tail="", layers_tag="<layers>", extra=""):
    """A 30-layer net; ``head`` comes between <net> and <layers>, ``tail`` after </layers>."""
    results = "".join(
        f'<layer id="{i}" name="r{i}" type="Result" version="opset1">{extra if i == 1 else ""}'
        f'<input><port id="0" precision="I64"/></input></layer>\n'
        for i in range(1, 30)
    )
    edges = "".join(f'<edge from-layer="0" from-port="0" to-layer="{i}" to-port="0"/>'
                    for i in range(1, 30))  # fmt: skip
    return (f'<net name="n" version="11">{head}{layers_tag}\n'
            '<layer id="0" name="p" type="Parameter" version="opset1">'
            '<data shape="" element_type="i64"/><output><port id="0" precision="I64"/></output>'
            f"</layer>\n{results}</layers><edges>{edges}</edges>{tail}</net>\n")  # fmt: skip


@pytest.mark.parametrize(
    "xml",
    [
        small_net(head='<rt_info><a value="1"/></rt_info>'),
        small_net(
            head='<rt_info><a value="1"/></rt_info>', tail='<rt_info><b value="2"/></rt_info>'
        ),  # fmt: skip
        small_net(layers_tag='<layers xmlns="urn:x">'),
        small_net(head="<edges/>"),
    ],
    ids=["rt_info first", "two rt_info", "namespace", "edges first"],
)
def test_unusual_nets_read_as_a_whole(xml, monkeypatch, tiny_pieces, snapshot):
    expected = snapshot(load_whole(xml, monkeypatch))
    assert snapshot(irrun.load(xml)) == expected


def test_nesting_depth_is_limited_as_in_the_whole_document(monkeypatch, tiny_pieces):
    deep = "<rt_info>" + "<x>" * 253 + "</x>" * 253 + "</rt_info>"
    xml = small_net(extra=deep)
    with pytest.raises(XMLSyntaxError, match="nested deeper") as whole:
        load_whole(xml, monkeypatch)
    with pytest.raises(XMLSyntaxError, match="nested deeper") as split:
        irrun.load(xml)
    assert str(split.value) == str(whole.value)


def test_a_syntax_error_comes_before_a_weights_problem(tiny_pieces):
    xml = small_net().replace('<layer id="25" ', '<layer id="25" <')
    with pytest.raises(XMLSyntaxError):
        irrun.load(xml, weights=123)  # not a path: refused, but only after parsing


def test_no_helper_thread_outlives_a_load(tmp_path, monkeypatch, tiny_pieces):
    path = openvino_model_xml(tmp_path, blocks=12)
    forbid_whole_parse(monkeypatch)
    before = thread_count()
    for _ in range(20):
        irrun.load(path)
        assert settled_thread_count(before) == before


def test_an_interrupt_at_any_step_of_the_reader_leaves_no_thread_waiting(tmp_path, tiny_pieces):
    # A KeyboardInterrupt raised at each call, line and return of the reader's code in
    # pieces.py and threading.py in turn, one per load: the load ends (with the interrupt) and
    # the helper thread ends too. (An interrupt on the return of a lock's acquire inside
    # threading.Event.wait() used to leave the event's lock held, and both threads then
    # waited for each other forever.)
    import sys
    import threading

    path = openvino_model_xml(tmp_path, blocks=12)
    watched = {pieces.__file__, threading.__file__}
    reference = [(layer.name, layer.line) for layer in irrun.load(path).layers]

    def traced_load(interrupt_at, seen):
        def local(frame, event, arg):
            seen[0] += 1
            if seen[0] == interrupt_at:
                raise KeyboardInterrupt
            return local

        def tracer(frame, event, arg):
            return local(frame, event, arg) if frame.f_code.co_filename in watched else None

        sys.settrace(tracer)
        try:
            irrun.load(path)
        except KeyboardInterrupt:
            seen.append("interrupted")
        finally:
            sys.settrace(None)

    def sweep(report):
        # Every trial in this one thread, which the test's thread waits for with a time limit:
        # a hang fails the test instead of stopping it (and no thread is started after a
        # trial, when a lock in threading may have been left held).
        seen = [0]
        traced_load(None, seen)
        steps = seen[0]
        report["steps"] = steps
        before = thread_count()
        for step in range(1, steps + 1):
            report["step"] = step
            seen = [0]
            traced_load(step, seen)
            # (how many steps a load takes varies a little: a wait for a piece the helper
            # has already parsed takes fewer; a step past the end of a load is never reached)
            if seen[0] < step:
                report.setdefault("not reached", []).append(step)
            elif not seen[1:]:
                report.setdefault("not interrupted", []).append(step)
            if settled_thread_count(before, timeout=5) != before:
                report.setdefault("threads left", []).append(step)
        report["done"] = True

    report = {}
    loader = threading.Thread(target=sweep, args=(report,), daemon=True)
    loader.start()
    loader.join(240)
    assert report.get("done"), f"the load hung after an interrupt: {report}"
    assert report["steps"] > 50
    assert "threads left" not in report
    # Nearly every trial ends with the interrupt; Python drops those raised while a finished
    # generator of pieces is being closed (its frame is in pieces.py).
    assert len(report.get("not reached", [])) < report["steps"] / 10
    assert len(report.get("not interrupted", [])) < report["steps"] / 100
    assert [(layer.name, layer.line) for layer in irrun.load(path).layers] == reference
