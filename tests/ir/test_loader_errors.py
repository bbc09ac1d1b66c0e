"""What the loader refuses, and how it says so (ir-format.md §13 and hostile input).

Every case checks the exception class, that the message names the file (and the line, where the
problem has one), and that the wording says what is wrong. Inputs that could hang a naive reader
(FIFOs, ``/dev/zero``) run in a subprocess with a timeout.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import irrun
from irrun.errors import AttributeValueError, MissingAttributeError
from tests.helpers.cli import invoke, passwd_markers
from tests.helpers.ir_text import edit, line_of

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "ir"
TINY = (EXAMPLES / "tiny.xml").read_text()
TINY_BIN = (EXAMPLES / "tiny.bin").read_bytes()


# -- helpers ---------------------------------------------------------------------------------------
def write(tmp_path: Path, text: str | bytes, name: str = "model.xml") -> Path:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def assert_location(error: irrun.IRError, path: Path, line: int | None = None) -> None:
    """The message starts with ``file`` (and ``file:line`` when a line is expected)."""
    text = str(error)
    assert error.file == str(path)
    assert text.startswith(str(path)), text
    if line is not None:
        assert error.line == line, text
        assert text.startswith(f"{path}:{line}:"), text


def load_error(path: Path, weights=None) -> irrun.IRError:
    with pytest.raises(irrun.IRError) as info:
        irrun.load(path, weights)
    return info.value


def format_error(tmp_path: Path, old: str, new: str, at: str | int, within=None) -> str:
    """Load TINY with ``old`` (in layer ``within``) replaced by ``new``; assert an
    ``IRFormatError`` located at the line holding ``at`` (or line ``at``); return its message."""
    text = edit(TINY, old, new, within)
    path = write(tmp_path, text)
    error = load_error(path)
    assert type(error) is irrun.IRFormatError
    assert_location(error, path, at if isinstance(at, int) else line_of(text, at))
    return str(error)


def const_net(data: str, dims: str = "<dim>2</dim>", precision: str = "I64") -> str:
    """A net of one Const (layer line 4) feeding a Result."""
    return f"""<?xml version="1.0"?>
<net name="c" version="11">
  <layers>
    <layer id="0" name="c" type="Const" version="opset1">
      <data {data}/>
      <output><port id="0" precision="{precision}">{dims}</port></output>
    </layer>
    <layer id="1" name="r" type="Result" version="opset1">
      <input><port id="0"/></input>
    </layer>
  </layers>
  <edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/></edges>
</net>
"""


CONST_LINE = 4


def const_error(tmp_path: Path, data: str, weights: bytes | None, **kwargs) -> irrun.IRError:
    """Load a one-Const net (with ``weights`` as model.bin beside it, if given) and read the
    Const; return the error ``model.constant`` raises."""
    xml = write(tmp_path, const_net(data, **kwargs))
    if weights is not None:
        (tmp_path / "model.bin").write_bytes(weights)
    model = irrun.load(xml)
    with pytest.raises(irrun.IRError) as info:
        model.constant("c")
    assert_location(info.value, xml, CONST_LINE)
    assert "layer 0 'c' (Const)" in str(info.value)
    return info.value


# -- XML that is not well-formed, or not XML at all ------------------------------------------------
def test_mismatched_tag_names_the_line(tmp_path):
    text = (
        '<?xml version="1.0"?>\n<net version="11">\n<layers>\n<layer id="0">\n</layers>\n</net>\n'
    )
    path = write(tmp_path, text)
    error = load_error(path)
    assert type(error) is irrun.XMLSyntaxError
    assert_location(error, path, 5)
    assert "not well-formed" in str(error)
    assert "mismatch" in str(error)


def test_truncated_file_is_not_well_formed(tmp_path):
    text = TINY[: TINY.index('<layer id="3"') + 40]
    path = write(tmp_path, text)
    error = load_error(path)
    assert type(error) is irrun.XMLSyntaxError
    assert error.line is not None and 1 <= error.line <= text.count("\n") + 1
    assert_location(error, path, error.line)
    assert "not well-formed" in str(error)


@pytest.mark.parametrize(
    "content", [b"", b"   \n\n  ", b"\xef\xbb\xbf"], ids=["empty", "blank", "bom"]
)
def test_empty_file_is_refused(tmp_path, content):
    path = write(tmp_path, content)
    error = load_error(path)
    assert type(error) is irrun.XMLSyntaxError
    assert_location(error, path)
    assert "not well-formed" in str(error) or "no XML element" in str(error)


def test_broken_utf16_is_refused(tmp_path):
    path = write(tmp_path, b"\xff\xfe<\x00n\x00\x00\xd8")
    error = load_error(path)
    assert type(error) is irrun.XMLSyntaxError
    assert_location(error, path)
    assert "utf-16" in str(error)


def test_excessive_nesting_is_refused_quickly(tmp_path):
    path = write(tmp_path, '<net version="11">' + "<a>" * 100_000 + "</a>" * 100_000 + "</net>")
    start = time.perf_counter()
    error = load_error(path)
    assert time.perf_counter() - start < 2
    assert type(error) is irrun.XMLSyntaxError
    assert_location(error, path, 1)
    assert "depth" in str(error)


def test_binary_garbage_is_refused(tmp_path):
    path = write(tmp_path, bytes(range(256)) * 4)
    error = load_error(path)
    assert isinstance(error, irrun.XMLSyntaxError)
    assert_location(error, path)


# -- wrong root, wrong version ---------------------------------------------------------------------
def test_wrong_root_element(tmp_path):
    path = write(tmp_path, '<?xml version="1.0"?>\n<model version="11"><layers/></model>\n')
    error = load_error(path)
    assert type(error) is irrun.IRFormatError
    assert_location(error, path, 2)
    assert "<model>" in str(error) and "<net>" in str(error)


def test_legacy_version_7_is_refused_as_legacy(tmp_path):
    message = format_error(tmp_path, 'version="11"', 'version="7" batch="1"', 2)
    assert "legacy IR version 7" in message
    assert "v11" in message


def test_version_12_is_not_supported(tmp_path):
    message = format_error(tmp_path, 'version="11"', 'version="12"', 2)
    assert "IR version 12 is not supported" in message
    assert "10" in message and "11" in message


def test_missing_version(tmp_path):
    message = format_error(tmp_path, ' version="11"', "", 2)
    assert "no version attribute" in message


@pytest.mark.parametrize("version", ["eleven", "11.0", "", "-11", "v11"])
def test_non_numeric_version(tmp_path, version):
    message = format_error(tmp_path, 'version="11"', f'version="{version}"', 2)
    assert "not an IR version number" in message


# -- DTDs and entities -----------------------------------------------------------------------------
XXE = (
    '<!DOCTYPE net [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n'
    '<net name="&xxe;" version="11">\n'
    '  <layers><layer id="0" name="&xxe;" type="Parameter" version="opset1">&xxe;</layer>\n'
    "  </layers>\n"
    "</net>\n"
)


@pytest.mark.parametrize(
    "text",
    [
        '<?xml version="1.0"?>\n' + XXE,
        XXE,
        " " * 70_000 + XXE,  # the declaration beyond the first 64 KiB
        "<!--" + "x" * 70_000 + "-->\n" + XXE,
    ],
    ids=["declared", "bare", "after-70k-blanks", "after-70k-comment"],
)
def test_external_entity_is_refused_and_never_read(tmp_path, text):
    path = write(tmp_path, text)
    error = load_error(path)
    assert isinstance(error, irrun.XMLSyntaxError)
    assert_location(error, path)
    message = str(error)
    for marker in passwd_markers():
        assert marker not in message
    assert "DOCTYPE" in message or "entity" in message.lower()


def billion_laughs(levels: int = 10) -> str:
    entities = ['  <!ENTITY lol0 "lol">']
    for level in range(1, levels):
        entities.append(f'  <!ENTITY lol{level} "{f"&lol{level - 1};" * 10}">')
    return (
        '<?xml version="1.0"?>\n<!DOCTYPE net [\n' + "\n".join(entities) + "\n]>\n"
        f'<net name="&lol{levels - 1};" version="11"><layers>&lol{levels - 1};</layers></net>\n'
    )


@pytest.mark.parametrize("padding", ["", " " * 70_000], ids=["plain", "after-70k-blanks"])
def test_billion_laughs_is_refused_quickly(tmp_path, padding):
    path = write(tmp_path, padding + billion_laughs().split("\n", 1)[1])
    start = time.perf_counter()
    error = load_error(path)
    assert time.perf_counter() - start < 2
    assert isinstance(error, irrun.XMLSyntaxError)
    assert_location(error, path)
    assert "lol" * 20 not in str(error)


# -- ids, dims, precisions -------------------------------------------------------------------------
@pytest.mark.parametrize(
    "dim", ["5abc", "-5", "1e30", "", "2.5", "0x10", "?x", "99999999999999999999999"]
)
def test_port_dim_that_is_not_an_integer(tmp_path, dim):
    old, new = "<dim>2</dim><dim>-1</dim>", f"<dim>{dim}</dim><dim>-1</dim>"
    message = format_error(tmp_path, old, new, f"<dim>{dim}</dim>", within="data")
    assert "layer 0 'data' (Parameter) output port 0" in message
    assert f"<dim>{dim}</dim>" in message


def test_very_long_bad_dim_is_shortened_in_the_message(tmp_path):
    dim = "7" * 30 + "x" * 10_000
    path = write(
        tmp_path,
        edit(TINY, "<dim>2</dim><dim>-1</dim>", f"<dim>{dim}</dim><dim>-1</dim>", within="data"),
    )
    error = load_error(path)
    assert type(error) is irrun.IRFormatError
    assert len(str(error)) < 500


@pytest.mark.parametrize("layer_id", ["three", "-3", "1.5", "", "0x3", "99999999999999999999"])
def test_layer_id_that_is_not_a_non_negative_integer(tmp_path, layer_id):
    message = format_error(
        tmp_path, '<layer id="3"', f'<layer id="{layer_id}"', f'<layer id="{layer_id}"'
    )
    assert "<layer>" in message and "id=" in message
    assert "not a non-negative integer" in message


def test_layer_without_id_is_named_by_its_name_and_type(tmp_path):
    message = format_error(tmp_path, '<layer id="3" ', "<layer ", 'name="g"')
    assert "<layer> 'g' (Gather) has no 'id' attribute" in message


def test_layer_without_id_or_name_says_so(tmp_path):
    message = format_error(tmp_path, '<layer id="3" name="g" ', "<layer ", 'type="Gather"')
    assert "<layer> (no name) (Gather) has no 'id' attribute" in message


def test_layer_with_a_bad_id_is_named_too(tmp_path):
    message = format_error(tmp_path, '<layer id="3"', '<layer id="x"', '<layer id="x"')
    assert "<layer> 'g' (Gather) has id='x'" in message


def test_fragment_layer_without_id_is_named(tmp_path):
    path = tmp_path / "f.xml"
    path.write_text(
        '<layer name="relu" type="Relu" version="opset1"/>\n<layer id="1" type="Relu"/>'
    )
    error = load_error(path)
    assert "<layer> 'relu' (Relu) has no 'id' attribute" in str(error)


@pytest.mark.parametrize("attribute", ["from-layer", "from-port", "to-layer", "to-port"])
def test_edge_without_an_endpoint_names_the_layers_it_connects(tmp_path, attribute):
    old = '<edge from-layer="3" from-port="3" to-layer="4" to-port="0"/>'
    values = {"from-layer": "3", "from-port": "3", "to-layer": "4", "to-port": "0"}
    new = old.replace(f' {attribute}="{values[attribute]}"', "")
    assert new != old
    message = format_error(tmp_path, old, new, new)
    assert f"has no '{attribute}' attribute" in message
    if attribute != "from-layer":
        assert "from layer 3 'g' (Gather)" in message
    if attribute != "to-layer":
        assert "to layer 4 'cat' (Concat)" in message


def test_edge_to_a_missing_layer_without_a_port_names_the_id_it_gives(tmp_path):
    old = '<edge from-layer="3" from-port="3" to-layer="4" to-port="0"/>'
    message = format_error(tmp_path, old, '<edge from-layer="3" from-port="3" to-layer="9"/>',
                           'to-layer="9"')  # fmt: skip
    assert "from layer 3 'g' (Gather) to layer '9' has no 'to-port' attribute" in message


@pytest.mark.parametrize("attribute", ["name", "type", "version"])
def test_layer_without_mandatory_attribute(tmp_path, attribute):
    old = {"name": ' name="g"', "type": ' type="Gather"', "version": ' version="opset8"'}[attribute]
    message = format_error(tmp_path, old, "", '<layer id="3"')
    assert f"no '{attribute}' attribute" in message


@pytest.mark.parametrize("attribute", ["from-layer", "from-port", "to-layer", "to-port"])
def test_edge_with_non_integer_endpoint(tmp_path, attribute):
    old = '<edge from-layer="3" from-port="3" to-layer="4" to-port="0"/>'
    new = old.replace(f'{attribute}="', f'{attribute}="x')
    message = format_error(tmp_path, old, new, new)
    assert attribute in message


def test_unknown_output_precision(tmp_path):
    message = format_error(
        tmp_path,
        'precision="FP32" names="picked"',
        'precision="FOO" names="picked"',
        'precision="FOO"',
    )
    assert "layer 3 'g' (Gather) output port 3" in message
    assert "'FOO'" in message
    assert "FP32" in message  # lists what would be valid


def test_missing_output_precision(tmp_path):
    message = format_error(
        tmp_path, 'precision="FP32" names="picked"', 'names="picked"', 'names="picked"'
    )
    assert "layer 3 'g' (Gather) output port 3 has no precision" in message


def test_unexpected_element_inside_layers(tmp_path):
    message = format_error(tmp_path, "<layers>", "<layers>\n    <node id='9'/>", "<node")
    assert "<node>" in message


# -- Const attributes and weights ------------------------------------------------------------------
def test_const_with_unknown_element_type(tmp_path):
    error = const_error(tmp_path, 'element_type="f128" shape="2" offset="0" size="16"', TINY_BIN)
    assert type(error) is AttributeValueError
    assert "element_type='f128'" in str(error)


def test_const_with_dynamic_element_type(tmp_path):
    error = const_error(tmp_path, 'element_type="dynamic" shape="2" offset="0" size="16"', TINY_BIN)
    assert isinstance(error, irrun.IRError)
    assert "dynamic" in str(error)


def test_const_with_non_static_shape(tmp_path):
    error = const_error(tmp_path, 'element_type="i64" shape="2, ?" offset="0" size="16"', TINY_BIN)
    assert type(error) is AttributeValueError
    assert "static" in str(error)


@pytest.mark.parametrize("attribute", ["element_type", "shape", "offset", "size"])
def test_const_without_mandatory_attribute(tmp_path, attribute):
    attributes = {"element_type": "i64", "shape": "2", "offset": "0", "size": "16"}
    del attributes[attribute]
    data = " ".join(f'{k}="{v}"' for k, v in attributes.items())
    error = const_error(tmp_path, data, TINY_BIN)
    assert type(error) is MissingAttributeError
    assert f"no '{attribute}' attribute" in str(error)


def test_const_without_weights_file(tmp_path):
    xml = write(tmp_path, TINY)
    model = irrun.load(xml)  # loads: nothing needs the weights yet
    assert model.weights is None
    with pytest.raises(irrun.WeightsError) as info:
        model.constant("idx")
    error = info.value
    assert_location(error, xml, line_of(TINY, 'name="idx"'))
    assert "layer 1 'idx' (Const)" in str(error)
    assert "0..16" in str(error)
    assert "no weights file" in str(error)


def test_const_beyond_end_of_short_weights_file(tmp_path):
    xml = write(tmp_path, TINY)
    (tmp_path / "model.bin").write_bytes(TINY_BIN[:8])
    model = irrun.load(xml)
    with pytest.raises(irrun.WeightsError) as info:
        model.constant("idx")
    error = info.value
    assert_location(error, xml, line_of(TINY, 'name="idx"'))
    assert "layer 1 'idx' (Const)" in str(error)
    assert "0..16" in str(error)
    assert "model.bin" in str(error)
    assert "only 8 bytes long" in str(error)


def test_weights_given_as_bytes_are_checked_the_same_way(tmp_path):
    xml = write(tmp_path, TINY)
    model = irrun.load(xml, weights=TINY_BIN[:20])
    assert np.array_equal(model.constant("idx"), [-1, 0])
    with pytest.raises(irrun.WeightsError, match=r"16\.\.24.*only 20 bytes long"):
        model.constant("ax")


@pytest.mark.parametrize("offset", [2**63 - 1, 2**62, 25, 24])
def test_const_offset_beyond_the_file(tmp_path, offset):
    error = const_error(
        tmp_path, f'element_type="i64" shape="2" offset="{offset}" size="16"', TINY_BIN
    )
    assert type(error) is irrun.WeightsError
    assert f"{offset}..{offset + 16}" in str(error)
    assert "only 24 bytes long" in str(error)


@pytest.mark.parametrize("offset", [2**63, 2**64 + 8, 10**30])
def test_const_offset_outside_64_bits(tmp_path, offset):
    error = const_error(
        tmp_path, f'element_type="i64" shape="2" offset="{offset}" size="16"', TINY_BIN
    )
    assert type(error) is AttributeValueError
    assert f"offset='{offset}'" in str(error)
    assert "64-bit" in str(error)


@pytest.mark.parametrize(("offset", "size"), [(-8, 16), (0, -16), (-(2**63), 16)])
def test_const_negative_offset_or_size(tmp_path, offset, size):
    error = const_error(
        tmp_path, f'element_type="i64" shape="2" offset="{offset}" size="{size}"', TINY_BIN
    )
    assert type(error) is irrun.WeightsError
    assert "must not be negative" in str(error)
    assert str(offset) in str(error) and str(size) in str(error)


@pytest.mark.parametrize(
    ("element_type", "shape", "size", "needed"),
    [
        ("i64", "2", 8, 16),
        ("f32", "3, 2", 23, 24),
        ("u4", "5", 2, 3),
        ("u1", "9", 1, 2),
        ("u2", "5", 1, 2),
        ("u3", "9", 4, 6),  # the block size (3 bytes per 8), not ceil(9*3/8) = 4
        ("u6", "5", 4, 6),  # the block size (3 bytes per 4), not ceil(5*6/8) = 4
    ],
)
def test_const_size_smaller_than_its_elements_need(tmp_path, element_type, shape, size, needed):
    error = const_error(
        tmp_path,
        f'element_type="{element_type}" shape="{shape}" offset="0" size="{size}"',
        TINY_BIN,
    )
    assert type(error) is irrun.WeightsError
    assert f"declares size {size}" in str(error)
    assert f"needs {needed} bytes" in str(error)


def test_const_with_astronomical_shape_is_refused_without_allocating(tmp_path):
    error = const_error(
        tmp_path, f'element_type="i64" shape="{2**62}, {2**62}" offset="0" size="16"', TINY_BIN
    )
    assert type(error) is irrun.WeightsError
    assert "declares size 16" in str(error)


def string_blob(count: int, offsets: list[int], data: bytes) -> bytes:
    return np.array([count], "<i4").tobytes() + np.array(offsets, "<i4").tobytes() + data


@pytest.mark.parametrize(
    ("blob", "size", "words"),
    [
        (string_blob(2, [0, 1, 2], b"ab"), 12, "needs at least 16 bytes, size is 12"),
        (string_blob(3, [0, 1, 2, 3], b"abc"), 23, "header says 3 element(s)"),
        (string_blob(2, [0, 2, 1], b"ab"), 18, "not increasing"),
        (string_blob(2, [0, 1, 9], b"ab"), 18, "past the Const's size"),
        (string_blob(2, [1, 1, 2], b"ab"), 18, "not increasing"),
        (string_blob(2, [0, 1, 2], b"a\xff"), 18, "not valid UTF-8"),
    ],
    ids=["too-small", "count-mismatch", "decreasing", "past-end", "first-not-zero", "bad-utf8"],
)
def test_malformed_string_const(tmp_path, blob, size, words):
    blob = blob + bytes(max(0, size - len(blob)))
    error = const_error(
        tmp_path,
        f'element_type="string" shape="2" offset="0" size="{size}"',
        blob,
        precision="STRING",
    )
    assert type(error) is irrun.WeightsError
    assert words in str(error)


def test_weights_problems_lists_every_unreadable_const_without_raising(tmp_path):
    text = edit(TINY, 'offset="16" size="8"', 'offset="20" size="8"')
    xml = write(tmp_path, text)
    (tmp_path / "model.bin").write_bytes(TINY_BIN)
    problems = irrun.load(xml).weights_problems()
    assert [(layer.name, "20..28" in reason) for layer, reason in problems] == [("ax", True)]


# -- files that are not regular files --------------------------------------------------------------
def test_directory_as_model(tmp_path):
    error = load_error(tmp_path)
    assert type(error) is irrun.InputFileError
    assert "is a directory" in str(error)
    assert str(tmp_path) in str(error)


def test_directory_as_weights(tmp_path):
    xml = write(tmp_path, TINY)
    folder = tmp_path / "weights.bin"
    folder.mkdir()
    error = load_error(xml, folder)
    assert type(error) is irrun.InputFileError
    assert "weights file" in str(error) and "is a directory" in str(error)


def test_directory_beside_the_model_in_place_of_its_bin(tmp_path):
    xml = write(tmp_path, TINY)
    (tmp_path / "model.bin").mkdir()
    error = load_error(xml)
    assert type(error) is irrun.InputFileError
    assert "model.bin" in str(error) and "is a directory" in str(error)


def test_missing_model_file(tmp_path):
    error = load_error(tmp_path / "absent.xml")
    assert type(error) is irrun.InputFileError
    assert "absent.xml" in str(error) and "does not exist" in str(error)


def test_missing_weights_file_given_explicitly(tmp_path):
    xml = write(tmp_path, TINY)
    error = load_error(xml, tmp_path / "absent.bin")
    assert type(error) is irrun.InputFileError
    assert "absent.bin" in str(error) and "does not exist" in str(error)


def test_symlink_loop_as_model(tmp_path):
    loop = tmp_path / "loop.xml"
    os.symlink(loop, loop)
    error = load_error(loop)
    assert type(error) is irrun.InputFileError
    assert "loop.xml" in str(error)


def run_isolated(code: str) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter that must finish within 20 s (it fails if it hangs)."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=20)


def _load_in_subprocess(model: str, weights: str | None) -> subprocess.CompletedProcess:
    code = (
        "import irrun, sys\n"
        "try:\n"
        f"    irrun.load({model!r}, {weights!r})\n"
        "except irrun.InputFileError as error:\n"
        "    print('InputFileError:', error)\n"
        "    sys.exit(0)\n"
        "except BaseException as error:\n"
        "    print('other error:', type(error).__name__, error)\n"
        "    sys.exit(3)\n"
        "print('loaded')\n"
        "sys.exit(1)\n"
    )
    return run_isolated(code)


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return path


def test_fifo_as_model_does_not_hang(fifo):
    result = _load_in_subprocess(str(fifo), None)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "FIFO" in result.stdout and str(fifo) in result.stdout


def test_fifo_as_weights_does_not_hang(tmp_path, fifo):
    xml = write(tmp_path, TINY)
    result = _load_in_subprocess(str(xml), str(fifo))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "weights file" in result.stdout and "FIFO" in result.stdout


def test_fifo_beside_the_model_in_place_of_its_bin_does_not_hang(tmp_path):
    xml = write(tmp_path, TINY)
    os.mkfifo(tmp_path / "model.bin")
    result = _load_in_subprocess(str(xml), None)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "model.bin" in result.stdout and "FIFO" in result.stdout


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
@pytest.mark.parametrize("role", ["model", "weights"])
def test_dev_zero_does_not_hang(tmp_path, role):
    xml = write(tmp_path, TINY)
    model, weights = ("/dev/zero", None) if role == "model" else (str(xml), "/dev/zero")
    result = _load_in_subprocess(model, weights)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"{role} file '/dev/zero'" in result.stdout
    assert "not a regular file" in result.stdout


# -- fragment files --------------------------------------------------------------------------------
CONCAT_EXAMPLES = EXAMPLES / "concat_spec_examples.xml"


def test_fragment_with_repeated_ids_gives_one_model_per_snippet():
    models = irrun.load_all(CONCAT_EXAMPLES)
    assert len(models) == 2
    for model in models:
        assert model.is_fragment
        assert [layer.type for layer in model.layers] == ["Concat"]
        assert [str(i.shape) for i in model.inputs] == [
            "[1,8,50,50]",
            "[1,16,50,50]",
            "[1,32,50,50]",
        ]
        assert [str(o.shape) for o in model.outputs] == ["[1,56,50,50]"]
    assert [m.layers[0].attribute_int("axis") for m in models] == [1, -3]


def test_fragment_with_repeated_ids_cannot_be_loaded_as_one_model():
    with pytest.raises(irrun.FragmentError) as info:
        irrun.load(CONCAT_EXAMPLES)
    message = str(info.value)
    assert message.startswith(str(CONCAT_EXAMPLES))
    assert "2 separate <layer> snippets" in message
    assert "irrun.load_all()" in message


def test_fragment_with_repeated_ids_and_edges_is_ambiguous(tmp_path):
    snippet = CONCAT_EXAMPLES.read_text()
    text = snippet + '\n<edge from-layer="1" from-port="3" to-layer="1" to-port="0"/>\n'
    path = write(tmp_path, text)
    with pytest.raises(irrun.FragmentError) as info:
        irrun.load_all(path)
    assert_location(info.value, path, line_of(text, "<edge"))
    assert "ambiguous" in str(info.value)


# -- the command line ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('<net version="11"><layers><layer id="0"></layers></net>', "not well-formed"),
        ("", "not well-formed"),
        (edit(TINY, 'version="11"', 'version="7"'), "legacy"),
        (edit(TINY, "<dim>2</dim><dim>-1</dim>", "<dim>5abc</dim><dim>-1</dim>", "data"), "5abc"),
        (XXE, "DOCTYPE"),
    ],
    ids=["mismatched-tag", "empty", "v7", "bad-dim", "xxe"],
)
def test_cli_inspect_malformed_file_exits_2_without_traceback(tmp_path, text, words):
    path = write(tmp_path, text, "broken model.xml")
    result = invoke("inspect", path)
    assert result.exit_code == 2
    assert "irrun: error:" in result.output
    assert str(path) in result.output
    assert words in result.output
    assert "Traceback" not in result.output
    assert "root:" not in result.output


def test_cli_inspect_missing_file_exits_2(tmp_path):
    result = invoke("inspect", tmp_path / "absent.xml")
    assert result.exit_code == 2
    assert "irrun: error:" in result.output and "absent.xml" in result.output
    assert "Traceback" not in result.output


def test_cli_inspect_directory_exits_2(tmp_path):
    result = invoke("inspect", tmp_path)
    assert result.exit_code == 2
    assert "is a directory" in result.output


def test_cli_inspect_weights_directory_exits_2(tmp_path):
    xml = write(tmp_path, TINY)
    result = invoke("inspect", xml, "--weights", tmp_path)
    assert result.exit_code == 2
    assert "weights file" in result.output and "is a directory" in result.output


def test_cli_inspect_fifo_exits_2_without_hanging(fifo):
    result = subprocess.run(
        [sys.executable, "-m", "irrun", "inspect", str(fifo)],
        capture_output=True,
        text=True,
        timeout=20,
    )
    assert result.returncode == 2
    assert "irrun: error:" in result.stderr and "FIFO" in result.stderr
    assert "Traceback" not in result.stderr


def test_cli_inspect_fragment_file_shows_both_snippets():
    result = invoke("inspect", CONCAT_EXAMPLES)
    assert result.exit_code == 0, result.output
    assert result.output.count("fragment (layers from line") == 2
    assert result.output.count("[1,56,50,50]") == 2
