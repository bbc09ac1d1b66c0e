"""Hostile XML through the command line: broken, truncated, foreign-encoded, entity tricks,
XInclude, gigantic or deeply nested documents, control characters, megabyte-long names.

Expected answers (README "Exit codes", ir-format.md §13): exit 2 for a file that is not usable IR
XML, exit 1 for a model that loads but has problems; always one message naming the file (and the
line where the parser knows it), never a traceback, never file contents pulled in by an entity
or an XInclude, and bounded time and memory.
"""

from __future__ import annotations

import numpy as np
import pytest

import irrun

COMMANDS = ("validate", "inspect")
XI = 'xmlns:xi="http://www.w3.org/2001/XInclude"'


def write(path, content):
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


# -- not well-formed, truncated, empty, garbage ------------------------------------------------
@pytest.mark.parametrize("base", ["tiny", "rich"])
def test_truncated_at_every_37th_byte_is_refused_with_its_line(
    base, tiny, ov_copy, invoke, line_in
):
    source = tiny if base == "tiny" else ov_copy("rich")
    data = source.read_bytes()
    model = source.with_name("cut.xml")
    problems = []
    for end in range(0, len(data), 37):
        if data[:end].rstrip() == data.rstrip():
            continue  # only trailing blanks cut: still the whole document
        model.write_bytes(data[:end])
        for command in COMMANDS:
            outcome = invoke(command, model, "--weights", source.with_suffix(".bin"))
            text = outcome.output
            line = line_in(model, text)
            if (
                outcome.exit_code != 2
                or outcome.exception is not None
                or "Traceback" in text
                or not text.startswith(f"irrun: error: {model}")
                or line is None
                or not 1 <= line <= data[:end].count(b"\n") + 1
            ):
                problems.append((end, command, outcome.exit_code, text[:200]))
    assert not problems, problems[:5]


@pytest.mark.parametrize(
    "content",
    [b"", b"   \n\t\n  ", b"\xef\xbb\xbf", bytes(range(256)) * 8, b"\x00" * 4096],
    ids=["empty", "whitespace", "bom-only", "binary", "nuls"],
)
@pytest.mark.parametrize("command", ["validate", "inspect", "execute"])
def test_empty_blank_and_binary_files_exit_2(tmp_path, tiny, content, command, invoke, expect):
    model = write(tmp_path / "junk.xml", content)
    extra = ["--inputs", tiny.with_name("tiny_inputs.npz")] if command == "execute" else []
    outcome = invoke(command, model, *extra)
    expect(outcome, 2, f"irrun: error: {model}")


def test_wrong_root_element_exits_2_naming_the_root_and_line(tmp_path, invoke, expect):
    model = write(
        tmp_path / "m.xml", '<?xml version="1.0"?>\n<model version="11"><layers/></model>'
    )
    for command in COMMANDS:
        expect(invoke(command, model), 2, f"{model}:2", "<model>", "<net>")


def test_trailing_garbage_after_the_root_names_its_line(
    tmp_path, tiny_text, invoke, expect, line_of
):
    text = tiny_text + "\n<net/>trailing garbage\n"
    model = write(tmp_path / "m.xml", text)
    line = line_of(text, "<net/>trailing")
    for command in COMMANDS:
        expect(invoke(command, model), 2, f"{model}:{line}:", "not well-formed")


# -- encodings: valid content must load --------------------------------------------------------
def _declared(text: str, encoding: str) -> str:
    return text.replace('<?xml version="1.0"?>', f'<?xml version="1.0" encoding="{encoding}"?>')


@pytest.mark.parametrize(
    "encode",
    [
        lambda t: _declared(t, "UTF-16").encode("utf-16"),  # BOM, native (little) endian
        lambda t: b"\xfe\xff" + _declared(t, "UTF-16").encode("utf-16-be"),
        lambda t: b"\xff\xfe" + _declared(t, "UTF-16").encode("utf-16-le"),
        lambda t: t.split("\n", 1)[1].encode("utf-16"),  # BOM, no declaration
        lambda t: _declared(t, "UTF-16").encode("utf-16-le"),  # no BOM: detected from '<?'
        lambda t: _declared(t, "UTF-32").encode("utf-32"),
        lambda t: b"\xef\xbb\xbf" + t.encode("utf-8"),
    ],
    ids=[
        "utf16-bom",
        "utf16be-bom",
        "utf16le-bom",
        "utf16-no-decl",
        "utf16le-no-bom",
        "utf32",
        "utf8",
    ],
)
def test_valid_ir_in_other_unicode_encodings_loads_validates_and_runs(
    tmp_path, tiny, tiny_text, encode, invoke, expect
):
    model = write(tmp_path / "tiny.xml", encode(tiny_text))
    weights = tiny.with_suffix(".bin")
    expect(invoke("validate", model, "--weights", weights), 0, "0 errors")
    expect(invoke("inspect", model, "--weights", weights), 0, "IR v11 'tiny'", "data  f32")
    out = tmp_path / "out.npz"
    inputs = tiny.with_name("tiny_inputs.npz")
    expect(invoke("execute", model, "--weights", weights, "--inputs", inputs, "--output", out), 0)
    np.testing.assert_array_equal(
        np.load(out)["out"], [[3, 1, 1, 2, 3], [6, 4, 4, 5, 6]], strict=False
    )
    loaded = irrun.load(model, weights=weights)
    assert [layer.name for layer in loaded.layers] == ["data", "idx", "ax", "g", "cat", "out/sink"]


# -- DOCTYPE, entities, XInclude ---------------------------------------------------------------
def _net(name_value: str = "tiny", body: str = "&x;") -> str:
    return (
        f'<net name="{name_value}" version="11">\n'
        f'  <layers><layer id="0" name="p" type="Parameter" version="opset1">{body}</layer>'
        "</layers>\n</net>\n"
    )


def _billion_laughs() -> str:
    entities = ['<!ENTITY l0 "lol">'] + [
        f'<!ENTITY l{i} "{f"&l{i - 1};" * 10}">' for i in range(1, 10)
    ]
    return f"<!DOCTYPE net [{''.join(entities)}]>\n" + _net("&l9;", "&l9;")


def _quadratic() -> str:
    entity = "Q" * 100_000
    return f'<!DOCTYPE net [<!ENTITY a "{entity}">]>\n' + _net("&a;" * 10_000, "&a;")


DOCTYPES = {
    "internal-entity": '<!DOCTYPE net [<!ENTITY x "INTERNAL-ENTITY-TEXT">]>\n' + _net("&x;"),
    "external-entity": '<!DOCTYPE net [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n' + _net("&x;"),
    "external-entity-in-body": (
        '<!DOCTYPE net [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n' + _net("t", "&x;")
    ),
    "parameter-entity": (
        '<!DOCTYPE net [<!ENTITY % p SYSTEM "file:///etc/passwd"> %p;]>\n' + _net("t", "")
    ),
    "parameter-entity-nested": (
        "<!DOCTYPE net [<!ENTITY % a \"<!ENTITY x SYSTEM 'file:///etc/passwd'>\"> %a;]>\n"
        + _net("&x;")
    ),
    "external-dtd": '<!DOCTYPE net SYSTEM "file:///etc/passwd">\n' + _net("t", ""),
    "network-dtd": '<!DOCTYPE net SYSTEM "http://127.0.0.1:9/x.dtd">\n' + _net("t", ""),
    "billion-laughs": _billion_laughs(),
    "quadratic-blowup": _quadratic(),
}


@pytest.mark.parametrize("prolog", ["", '<?xml version="1.0"?>\n', "<!-- c -->\n"])
@pytest.mark.parametrize("case", DOCTYPES)
def test_doctype_and_entities_are_refused_fast_without_expansion(
    tmp_path, case, prolog, invoke, expect, passwd_markers
):
    model = write(tmp_path / "m.xml", prolog + DOCTYPES[case])
    for command in COMMANDS:
        outcome = invoke(command, model)
        text = expect(outcome, 2, f"irrun: error: {model}", "DOCTYPE")
        assert outcome.seconds < 2, outcome.seconds
        for leaked in passwd_markers + ["INTERNAL-ENTITY-TEXT", "lol" * 4, "Q" * 50]:
            assert leaked not in text


@pytest.mark.parametrize(
    "case", ["external-entity", "billion-laughs", "quadratic-blowup", "internal-entity"]
)
@pytest.mark.parametrize("disguise", ["after-70k-blanks", "utf16le-no-bom"])
def test_doctype_refusal_is_the_same_clear_message_however_it_is_disguised(
    tmp_path, case, disguise, invoke, expect, passwd_markers
):
    """BUG (irrun/ir/xml.py parse_document): the DOCTYPE pre-check looks only at the first
    64 KiB and only at UTF-8 bytes. Past it, or in BOM-less UTF-16 (which libxml2 detects by
    itself), the refusal comes from libxml2 instead, e.g. "the XML is not well-formed: Maximum
    entity amplification factor exceeded, see xmlCtxtSetMaxAmplification." or "Attribute
    references external entity 'x'": the document *is* well-formed and the user is pointed at a
    C function. Expected: the same "DOCTYPE/ENTITY declaration ... remove the declaration"."""
    text = DOCTYPES[case]
    if disguise == "after-70k-blanks":
        data = ('<?xml version="1.0"?>' + " " * 70_000 + "\n" + text).encode()
    else:
        data = ('<?xml version="1.0" encoding="UTF-16"?>\n' + text).encode("utf-16-le")
    model = write(tmp_path / "m.xml", data)
    outcome = invoke("validate", model)
    assert outcome.seconds < 2
    out = expect(outcome, 2, f"irrun: error: {model}")
    for leaked in passwd_markers + ["INTERNAL-ENTITY-TEXT", "lol" * 4]:
        assert leaked not in out
    assert "xmlCtxt" not in out
    assert "DOCTYPE" in out, out


@pytest.mark.parametrize("case", ["external-entity", "parameter-entity", "billion-laughs"])
def test_api_refuses_doctype_in_xml_text_and_bytes(case, passwd_markers):
    for source in (DOCTYPES[case], DOCTYPES[case].encode()):
        with pytest.raises(irrun.XMLSyntaxError) as caught:
            irrun.load(source)
        assert caught.value.file in ("<string>", "<bytes>")
        assert "DOCTYPE" in str(caught.value)
        for leaked in passwd_markers:
            assert leaked not in str(caught.value)


XINCLUDES = {
    "net-child": lambda t: t.replace(
        '<net name="tiny" version="11">',
        f'<net name="tiny" version="11" {XI}><xi:include href="/etc/passwd" parse="text"/>',
    ),
    "in-data": lambda t: t.replace(
        '<data batch_dims="0"/>',
        f'<data batch_dims="0" {XI}><xi:include href="/etc/passwd" parse="text"/></data>',
    ),
    "in-rt-info": lambda t: t.replace(
        "</edges>",
        f'</edges><rt_info {XI}><xi:include href="/etc/passwd" parse="text"/></rt_info>',
    ),
    "xml-parse": lambda t: t.replace(
        '<net name="tiny" version="11">',
        f'<net name="tiny" version="11" {XI}><xi:include href="/etc/passwd"/>',
    ),
}


@pytest.mark.parametrize("case", XINCLUDES)
def test_xinclude_is_never_expanded(tmp_path, tiny, tiny_text, case, invoke, passwd_markers):
    model = write(tmp_path / "tiny.xml", XINCLUDES[case](tiny_text))
    weights = tiny.with_suffix(".bin")
    inputs = tiny.with_name("tiny_inputs.npz")
    runs = [
        invoke("validate", model, "--weights", weights),
        invoke("validate", model, "--weights", weights, "--format", "json"),
        invoke("inspect", model, "--weights", weights, "--format", "json"),
        invoke("execute", model, "--weights", weights, "--inputs", inputs),
    ]
    for outcome in runs:
        assert outcome.exit_code == 0, outcome.output
        for leaked in passwd_markers:
            assert leaked not in outcome.output
    loaded = irrun.load(model, weights=weights)
    everything = repr(loaded.rt_info) + repr([layer.attributes for layer in loaded.layers])
    for leaked in passwd_markers:
        assert leaked not in everything


def test_xinclude_where_a_layer_belongs_is_refused_without_reading(
    tmp_path, tiny_text, invoke, expect, passwd_markers
):
    text = tiny_text.replace(
        "<layers>", f'<layers {XI}><xi:include href="/etc/passwd" parse="text"/>'
    )
    model = write(tmp_path / "m.xml", text)
    for command in COMMANDS:
        out = expect(invoke(command, model), 2, f"{model}:3", "include")
        for leaked in passwd_markers:
            assert leaked not in out


# -- size and depth ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "where",
    [
        lambda t, pad: t.replace("<layers>", "<layers>" + pad, 1),  # text between elements
        lambda t, pad: t.replace('<layer id="0"', "<layer " + pad + 'id="0"', 1),  # inside a tag
    ],
    ids=["between-elements", "inside-a-tag"],
)
def test_200_mb_of_whitespace_padding_finishes_in_seconds_under_4_gib(
    tmp_path, tiny, tiny_text, where, isolated
):
    model = tmp_path / "padded.xml"
    model.write_text(where(tiny_text, " " * (200 << 20)))
    outcome = isolated(
        "validate", model, "--weights", tiny.with_suffix(".bin"), limit_as=4 << 30, timeout=60
    )
    assert outcome.seconds < 30, outcome.seconds
    assert "Traceback" not in outcome.output and "internal error" not in outcome.output
    assert outcome.exit_code in (0, 2), outcome.output
    assert str(model) in outcome.output
    assert len(outcome.output) < 2000


@pytest.mark.parametrize(
    "where",
    [
        lambda t, pad: t.replace("<layers>", "<layers>" + pad, 1),
        lambda t, pad: t.replace('<layer id="0"', "<layer " + pad + 'id="0"', 1),
    ],
    ids=["between-elements", "inside-a-tag"],
)
def test_whitespace_beyond_the_parser_limit_gets_a_message_a_user_can_act_on(
    tmp_path, tiny, tiny_text, where, invoke
):
    """BUG (irrun/ir/xml.py parse_document): libxml2's "Resource limit exceeded: Text node too
    long, try XML_PARSE_HUGE" (or "Buffer size limit exceeded, try XML_PARSE_HUGE\\n, line ...",
    with a raw newline in the middle) is passed through as "the XML is not well-formed". The
    document is well-formed and the user cannot set XML_PARSE_HUGE. Expected: one line saying the
    file has a text run or tag larger than irrun accepts (10 MB) and that it should be removed."""
    model = tmp_path / "padded.xml"
    model.write_text(where(tiny_text, " " * (11 << 20)))
    outcome = invoke("validate", model, "--weights", tiny.with_suffix(".bin"))
    text = outcome.output
    assert outcome.exit_code in (0, 2), text
    assert outcome.seconds < 10
    if outcome.exit_code == 2:
        message = text.removeprefix("irrun: error: ").rstrip("\n")
        assert message.startswith(str(model)), text
        assert "XML_PARSE_HUGE" not in message, text
        assert "\n" not in message, text


def test_100k_deep_nesting_is_refused_quickly(tmp_path, invoke, expect):
    model = write(
        tmp_path / "deep.xml", '<net version="11">' + "<a>" * 100_000 + "</a>" * 100_000 + "</net>"
    )
    for command in COMMANDS:
        outcome = invoke(command, model)
        expect(outcome, 2, f"{model}:1", "depth")
        assert outcome.seconds < 2


@pytest.mark.parametrize("where", ["rt_info", "data"])
def test_deep_but_allowed_nesting_in_rt_info_does_not_recurse_out(
    tmp_path, tiny, tiny_text, where, invoke
):
    deep = "<a>" * 250 + "</a>" * 250
    if where == "rt_info":
        text = tiny_text.replace("</edges>", f"</edges><rt_info>{deep}</rt_info>")
    else:
        text = tiny_text.replace(
            '<data batch_dims="0"/>', f'<data batch_dims="0"/><rt_info>{deep}</rt_info>'
        )
    model = write(tmp_path / "tiny.xml", text)
    for command in COMMANDS:
        outcome = invoke(command, model, "--weights", tiny.with_suffix(".bin"))
        assert outcome.exit_code in (0, 2), outcome.output
        assert "Traceback" not in outcome.output and "internal error" not in outcome.output


# -- control characters ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "value",
    ["g\x00x", "g\x01x", "g\x1bx", "g&#0;x", "g&#1;x", "g&#x1F;x", "g&#xFFFE;x", "g&#xD800;x"],
    ids=["raw-nul", "raw-soh", "raw-esc", "ref-0", "ref-1", "ref-x1f", "ref-fffe", "ref-surrogate"],
)
def test_control_characters_in_attributes_are_refused_with_the_line(
    tmp_path, tiny, tiny_text, value, invoke, expect, line_of
):
    text = tiny_text.replace('name="g"', f'name="{value}"')
    model = write(tmp_path / "tiny.xml", text)
    line = line_of(text, 'name="g')
    for command in COMMANDS:
        out = expect(
            invoke(command, model, "--weights", tiny.with_suffix(".bin")),
            2,
            f"{model}:{line}:",
            "not well-formed",
        )
        assert "\x00" not in out and "\x01" not in out and "\x1b" not in out


@pytest.mark.parametrize("value", ["&#9;", "&#x7F;", "&#x85;", "&#x200B;", "\u202e"])
def test_unusual_but_legal_characters_in_a_name_load(tmp_path, tiny, tiny_text, value, invoke):
    model = write(tmp_path / "tiny.xml", tiny_text.replace('name="g"', f'name="g{value}"'))
    outcome = invoke("validate", model, "--weights", tiny.with_suffix(".bin"))
    assert outcome.exit_code == 0, outcome.output


# -- megabyte-long names and values ------------------------------------------------------------
BIG = "N" * (5 << 20)


def test_5_mb_layer_name_gives_short_output(tmp_path, tiny, tiny_text, invoke):
    model = write(tmp_path / "tiny.xml", tiny_text.replace('name="g"', f'name="{BIG}"'))
    weights = tiny.with_suffix(".bin")
    inputs = tiny.with_name("tiny_inputs.npz")
    for args in (("validate",), ("inspect",), ("execute", "--inputs", inputs)):
        outcome = invoke(*args, model, "--weights", weights)
        assert outcome.exit_code == 0, outcome.output[:300]
        assert len(outcome.output) < 10_000, (args, len(outcome.output))


def test_5_mb_layer_name_in_an_error_is_shortened(tmp_path, tiny, tiny_text, invoke, expect):
    text = tiny_text.replace('name="g"', f'name="{BIG}"').replace(
        'batch_dims="0"', 'batch_dims="z"'
    )
    model = write(tmp_path / "tiny.xml", text)
    weights = tiny.with_suffix(".bin")
    expect(invoke("validate", model, "--weights", weights), 1, f"{model}:", "batch_dims", "chars")
    inputs = tiny.with_name("tiny_inputs.npz")
    expect(invoke("execute", model, "--weights", weights, "--inputs", inputs), 1, str(model))


def test_5_mb_layer_name_in_an_execution_error_is_shortened(ov_copy, tmp_path, invoke, expect):
    model = ov_copy("g7")
    model.write_text(model.read_text().replace('name="g"', f'name="{BIG}"'))
    inputs = tmp_path / "in.npz"
    np.savez(inputs, data=np.ones((2, 3), np.float32), idx=np.array([0, 5], np.int64))
    expect(invoke("execute", model, "--inputs", inputs), 1, f"{model}:", "index 5")


LONG_TEXT_CASES = {
    "unknown-type": ('type="Gather"', f'type="{BIG}"', ("validate", "inspect")),
    "unknown-version": ('version="opset8"', f'version="{BIG}"', ("validate", "inspect")),
    "precision": (
        'precision="FP32" names="picked"',
        f'precision="{BIG}" names="picked"',
        ("validate", "inspect"),
    ),
    "attribute-value": ('batch_dims="0"', f'batch_dims="{BIG}"', ("validate",)),
    "shape-attribute": ('shape="2,?"', f'shape="2,{BIG}"', ("validate",)),
    "tensor-name": ('names="data"', f'names="{BIG}"', ("inspect", "execute")),
}


@pytest.mark.parametrize("case", LONG_TEXT_CASES)
def test_megabyte_long_values_are_shortened_in_every_message(
    tmp_path, tiny, tiny_text, case, invoke
):
    """BUG (several places; see the report): a long layer *name* is shortened (short_text in
    irrun/model.py), but other echoed values are not: the unknown-op warning repeats the full
    type/version (irrun/validation/inference.py _unknown_message), reader.py _bad_output_precision
    and Layer._bad_value echo the full precision/attribute, inspect's layer-count table pads every
    row to the longest key (cli/inspect_cmd.py _summary_text: 26 MB for a 5 MB type), inspect
    prints tensor names in full, and the missing-input message of execute lists a 5 MB name twice
    (irrun/arrays.py match_inputs). Expected: every message and listing under 10 KB."""
    old, new, commands = LONG_TEXT_CASES[case]
    model = write(tmp_path / "tiny.xml", tiny_text.replace(old, new))
    weights = tiny.with_suffix(".bin")
    inputs = tiny.with_name("tiny_inputs.npz")
    sizes = {}
    for command in commands:
        extra = ["--inputs", inputs] if command == "execute" else []
        outcome = invoke(command, model, "--weights", weights, *extra)
        assert "Traceback" not in outcome.output[:20_000]
        assert outcome.exit_code in (0, 1, 2), outcome.output[:500]
        sizes[command] = len(outcome.output)
    assert all(size < 10_000 for size in sizes.values()), sizes
