"""One test per diagnostic code: a valid IR, one mutation, and the exact diagnostic it causes.

Every test starts from a small valid IR v11 written by :class:`Net` below (the unmutated
models are checked to validate cleanly, and to be read by ``ov.Core().read_model``), applies
one textual mutation with :func:`mutate`, and asserts the diagnostic's code, severity, layer
id, XML line (found by searching the text for the mutated element) and the key values and
arithmetic of its message.

Tests whose name ends in ``_bug`` show a defect of irrun found while writing these tests;
they fail until the library is fixed (the defect is described in the test's docstring).
"""

from __future__ import annotations

import numpy as np
import openvino as ov
import pytest

import irrun
from irrun.validation.diagnostics import CODES
from tests.helpers.ir_text import Net, edit, line_of


# -- helpers ------------------------------------------------------------------------------------
def check(text: str, blob=b"") -> irrun.Report:
    weights = None if blob is None else bytes(blob)
    return irrun.load(text, weights=weights).validate()


def only(report, code: str):
    """The one diagnostic of ``code`` in ``report``."""
    found = [d for d in report if d.code == code]
    assert len(found) == 1, report.to_text()
    return found[0]


def assert_single(report, code: str):
    """``report`` holds exactly one diagnostic, of ``code``; return it."""
    assert report.codes() == [code], report.to_text()
    return report[0]


def assert_diag(d, code, *, line, layer_id, severity=None, contains=(), port=None):
    assert d.code == code
    assert d.severity == (severity or CODES[code][0])
    assert d.line == line, f"line {d.line}, expected {line}: {d}"
    assert d.layer_id == layer_id
    if port is not None:
        assert d.port == port
    for text in contains:
        assert text in d.message, f"{text!r} not in {d.message!r}"


# -- valid base models ----------------------------------------------------------------------------
def concat3(axis=1):
    """Parameters [2,8], [2,16], [2,32] joined on axis 1 into [2,56] (ops.md §0 spec example)."""
    n = Net()
    a, b, c = n.param("a", "2,8"), n.param("b", "2,16"), n.param("c", "2,32")
    n.result(n.op("cat", "Concat", "opset1", {"axis": axis}, [a, b, c], [2, 56]), "out")
    return n


def gather(version="opset8", data="2,3,4", indices=((0, 1), (2, 0)), axis=1, batch_dims=0,
           out=(2, 2, 2, 4), index_dtype=np.int64):  # fmt: skip
    n = Net()
    d = n.param("data", data)
    i = n.const("idx", np.array(indices, dtype=index_dtype))
    a = n.const("axis", np.array(axis, dtype=np.int64))
    attrs = None if version == "opset1" else {"batch_dims": batch_dims}
    n.result(n.op("g", "Gather", version, attrs, [d, i, a], out), "out")
    return n


def gather_nd(version="opset8", data="2,3,4", indices=None, batch_dims=0, out=(2,)):
    n = Net()
    d = n.param("data", data)
    values = np.array([[1, 0], [0, 3]]) if indices is None else np.asarray(indices)
    i = n.const("idx", values.astype(np.int64))
    n.result(n.op("gnd", "GatherND", version, {"batch_dims": batch_dims}, [d, i], out), "out")
    return n


def gather_elements(data="2,3", indices=((0, 2, 1, 1), (2, 0, 0, 1)), axis=1, dtype=np.int64):
    n = Net()
    d = n.param("data", data)
    i = n.const("idx", np.array(indices, dtype=dtype))
    out = np.shape(indices)
    n.result(n.op("ge", "GatherElements", "opset6", {"axis": axis}, [d, i], out), "out")
    return n


BASES = {
    "concat3": concat3,
    "gather8": lambda: gather(),
    "gather8-b1": lambda: gather(batch_dims=1, out=(2, 2, 4)),
    "gather7": lambda: gather("opset7"),
    "gather1": lambda: gather("opset1"),
    "gathernd8": lambda: gather_nd(batch_dims=1),
    "gathernd5-b2": lambda: gather_nd("opset5", indices=np.zeros((2, 3, 1)), batch_dims=2,
                                      out=(6,)),
    "gathernd8-b2": lambda: gather_nd(indices=np.zeros((2, 3, 1)), batch_dims=2, out=(2, 3)),
    "gatherelements": gather_elements,
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(BASES))
def test_base_models_are_valid(name):
    net = BASES[name]()
    report = check(net.text(), net.blob)
    assert len(report) == 0, report.to_text()
    weights = ov.Tensor(np.frombuffer(bytes(net.blob) or b"\0", np.uint8).copy())
    ov.Core().read_model(model=net.text(), weights=weights)  # OpenVINO reads it too


def test_every_code_is_covered():
    """Each code of CODES (but ``internal``) has a test in this module."""
    with open(__file__, encoding="utf-8") as handle:
        source = handle.read()
    missing = [c for c in CODES if c != "internal" and f'"{c}"' not in source]
    assert not missing


# -- Concat -------------------------------------------------------------------------------------
def test_concat_declared_sum_mismatch_shows_the_arithmetic():
    net = concat3()
    text = net.text().replace("<dim>2</dim><dim>56</dim>", "<dim>2</dim><dim>48</dim>")
    d = assert_single(check(text), "shape-mismatch")
    line = line_of(text, '<port id="3" precision="FP32" names="cat">')
    assert_diag(d, "shape-mismatch", line=line, layer_id=3, port="output port 3",
                contains=["declares [2,48]", "[2,56]", "axis 1: 8 + 16 + 32 = 56"])  # fmt: skip
    assert d.op == "Concat-1"
    assert d.layer_name == "cat"
    assert "<dim>2</dim><dim>56</dim>" in d.hint


def test_concat_missing_axis():
    text = edit(concat3().text(), '<data axis="1"/>', "<data/>", within="cat")
    report = check(text)
    # One error at the <data> line: irrun does not go on to infer from the default axis 0
    # that OpenVINO would silently take (which would add an input-dims error for these inputs).
    d = assert_single(report, "missing-attribute")
    assert_diag(d, "missing-attribute", line=line_of(text, 'name="cat"') + 1, layer_id=3,
                contains=["no 'axis' attribute", "silently uses 0"])  # fmt: skip
    assert 'axis="..."' in d.hint


@pytest.mark.parametrize("axis", [2, -3, 17])
def test_concat_axis_out_of_range(axis):
    text = edit(concat3().text(), '<data axis="1"/>', f'<data axis="{axis}"/>', within="cat")
    d = assert_single(check(text), "axis-range")
    assert_diag(d, "axis-range", line=line_of(text, 'name="cat"'), layer_id=3,
                contains=[f"axis {axis} is out of the range [-2, 1]", "rank 2"])  # fmt: skip


def test_attribute_not_an_integer():
    """An attribute that is not a number: attribute-value (Gather's batch_dims here, so the
    default OpenVINO would use is valid and nothing else follows)."""
    text = edit(gather().text(), 'batch_dims="0"', 'batch_dims="zero"')
    d = assert_single(check(text, gather().blob), "attribute-value")
    assert_diag(d, "attribute-value", line=line_of(text, 'batch_dims="zero"'), layer_id=3,
                contains=["batch_dims='zero'", "not an integer"])  # fmt: skip


def _concat_with_b(shape: str, etype: str = "f32", first: bool = False) -> Net:
    """The Concat base with input b (or, with ``first``, input a) of another shape or type."""
    n = Net()
    shapes = {"a": "2,8", "b": "2,16", "c": "2,32"}
    types = dict.fromkeys(shapes, "f32")
    odd = "a" if first else "b"
    shapes[odd], types[odd] = shape, etype
    refs = [n.param(k, shapes[k], types[k]) for k in ("a", "b", "c")]
    n.result(n.op("cat", "Concat", "opset1", {"axis": 1}, refs, [2, 56], "FP32"), "out")
    return n


def test_concat_inputs_of_different_rank():
    text = _concat_with_b("2,8,1", first=True).text()
    d = assert_single(check(text), "input-rank")
    line = line_of(text, '<port id="0" precision="FP32"><dim>2</dim><dim>8</dim><dim>1</dim>')
    assert_diag(d, "input-rank", line=line, layer_id=3,
                contains=["input 0 is [2,8,1] (rank 3)", "input 1 is [2,16] (rank 2)",
                          "input 2 is [2,32] (rank 2)"])  # fmt: skip


def test_concat_rank_error_points_at_the_odd_input_bug():
    """BUG: irrun/ops/concat.py Concat.infer reports input-rank on the *first* input port
    (``self.input_port(known[0][0])``) whatever input has the odd rank. With inputs [2,8],
    [2,16,1], [2,32] it points at input port 0 (a [2,8] input that is fine); input-dims points
    at the input that differs, and input-rank should too: input port 1."""
    text = _concat_with_b("2,16,1").text()
    d = assert_single(check(text), "input-rank")
    line = line_of(text, '<port id="1" precision="FP32"><dim>2</dim><dim>16</dim><dim>1</dim>')
    assert d.port == "input port 1"
    assert d.line == line


def test_concat_inputs_of_different_type():
    text = _concat_with_b("2,16", "i32").text()
    d = assert_single(check(text), "input-type")
    assert_diag(d, "input-type", line=line_of(text, 'name="cat"'), layer_id=3,
                contains=["input 0 is f32, input 1 is i32, input 2 is f32"])  # fmt: skip
    assert "Convert" in d.hint


def test_concat_inputs_differ_off_the_axis():
    text = _concat_with_b("3,16").text()
    d = assert_single(check(text), "input-dims")
    line = line_of(text, '<port id="1" precision="FP32"><dim>3</dim><dim>16</dim>')
    assert_diag(d, "input-dims", line=line, layer_id=3, port="input port 1",
                contains=["except the axis (1)", "dimension 0 differs", "input 0 is [2,8]",
                          "input 1 is [3,16]", "input 2 is [2,32]"])  # fmt: skip


def test_dynamic_dim_against_static_is_fine():
    """`?` against 5 (and an interval that holds the size) are compatible: no diagnostic."""
    for shape in ("?,16", "1..4,16", "2..,16", "..2,16"):
        net = _concat_with_b(shape)
        assert len(check(net.text())) == 0, shape
    # a declared ? against an inferred size is fine too
    text = concat3().text().replace("<dim>2</dim><dim>56</dim>", "<dim>-1</dim><dim>-1</dim>")
    assert len(check(text)) == 0


def test_disjoint_intervals_conflict():
    n = Net()
    a, b = n.param("a", "1..3,8"), n.param("b", "5..8,16")
    n.result(n.op("cat", "Concat", "opset1", {"axis": 1}, [a, b], [-1, 24]), "out")
    text = n.text()
    d = assert_single(check(text), "input-dims")
    line = line_of(text, '<port id="1" precision="FP32"><dim>-1</dim><dim>16</dim>')
    assert_diag(d, "input-dims", line=line, layer_id=2,
                contains=["input 0 is [1..3,8]", "input 1 is [5..8,16]"])  # fmt: skip


def test_interval_sum_is_checked_against_the_declaration():
    n = Net()
    a, b = n.param("a", "2,1..5"), n.param("b", "2,3..8")
    n.result(n.op("cat", "Concat", "opset1", {"axis": 1}, [a, b], [2, 14]), "out")
    text = n.text()
    d = assert_single(check(text), "shape-mismatch")
    assert_diag(d, "shape-mismatch", line=line_of(text, 'names="cat"'), layer_id=2,
                contains=["declares [2,14]", "axis 1: 1..5 + 3..8 = 4..13"])  # fmt: skip


# -- Gather ---------------------------------------------------------------------------------------
def test_gather_declared_shape_shows_the_formula():
    net = gather()
    text = edit(net.text(), "<dim>2</dim><dim>2</dim><dim>2</dim><dim>4</dim>",
                  "<dim>2</dim><dim>2</dim><dim>3</dim><dim>4</dim>", within="g")  # fmt: skip
    text = edit(text, "<dim>2</dim><dim>2</dim><dim>2</dim><dim>4</dim>",
                  "<dim>2</dim><dim>2</dim><dim>3</dim><dim>4</dim>", within="out")  # fmt: skip
    d = assert_single(check(text, net.blob), "shape-mismatch")
    assert_diag(d, "shape-mismatch", line=line_of(text, 'names="g"'), layer_id=3,
                port="output port 3",
                contains=["declares [2,2,3,4]", "data [2,3,4]", "indices [2,2]", "axis 1",
                          "batch_dims 0", "data[:1] + indices[0:] + data[2:]",
                          "[2] + [2,2] + [4] = [2,2,2,4]"])  # fmt: skip
    assert d.op == "Gather-8"


def test_gather_declared_rank_mismatch():
    net = gather()
    old = "<dim>2</dim><dim>2</dim><dim>2</dim><dim>4</dim>"
    text = edit(net.text(), old, "<dim>2</dim><dim>2</dim><dim>4</dim>", within="g")
    text = edit(text, old, "<dim>2</dim><dim>2</dim><dim>4</dim>", within="out")
    d = assert_single(check(text, net.blob), "rank-mismatch")
    assert_diag(d, "rank-mismatch", line=line_of(text, 'names="g"'), layer_id=3,
                contains=["declares rank 3 [2,2,4]", "rank 4 [2,2,2,4]"])  # fmt: skip


def test_gather_batch_dims_below_minus_rank_of_indices():
    """batch_dims -3 with indices of rank 2: OpenVINO accepts it (and infers the nonsense
    shape [2,2,2,2,4], ops.md §2.4); irrun must flag it."""
    net = gather()
    text = edit(net.text(), 'batch_dims="0"', 'batch_dims="-3"')
    weights = ov.Tensor(np.frombuffer(bytes(net.blob), np.uint8).copy())
    accepted = ov.Core().read_model(model=text, weights=weights)
    assert str(accepted.outputs[0].get_partial_shape()) == "[2,2,2,2,4]"
    d = assert_single(check(text, net.blob), "batch-dims-range")
    assert_diag(d, "batch-dims-range", line=line_of(text, 'name="g"'), layer_id=3,
                contains=["batch_dims -3", "[-2, 2]", "rank 2", "[2,2]"])  # fmt: skip


def test_gather_batch_dims_above_axis():
    net = gather(batch_dims=1, axis=0, out=(2, 3, 4))
    text = net.text()
    d = assert_single(check(text, net.blob), "batch-dims-range")
    assert_diag(d, "batch-dims-range", line=line_of(text, 'name="g"'), layer_id=3,
                contains=["batch_dims (1, normalised 1)", "axis (0, normalised 0)"])  # fmt: skip


def test_gather_batch_dims_above_rank_of_indices():
    net = gather(indices=(0, 1), axis=2, batch_dims=2, out=(2, 3))
    d = assert_single(check(net.text(), net.blob), "batch-dims-range")
    assert_diag(d, "batch-dims-range", line=line_of(net.text(), 'name="g"'), layer_id=3,
                contains=["batch_dims 2", "[-1, 1]", "rank 1"])  # fmt: skip


def test_gather_batch_dims_hint_fits_the_case_bug():
    """BUG: irrun/ops/gather.py _Gather.infer gives every out-of-range batch_dims the hint
    "OpenVINO accepts batch_dims < -rank(indices) but computes nonsense shapes". For
    batch_dims 2 > rank(indices) 1 that is wrong: OpenVINO rejects it ("The batch_dims must be
    <= indices_rank"), and the hint says nothing about how to fix it."""
    net = gather(indices=(0, 1), axis=2, batch_dims=2, out=(2, 3))
    d = only(check(net.text(), net.blob), "batch-dims-range")
    assert "batch_dims < -rank(indices)" not in (d.hint or "")


def test_gather_float_indices():
    net = gather(index_dtype=np.float32)
    text = net.text()
    d = assert_single(check(text, net.blob), "index-type")
    line = line_of(text, '<port id="1" precision="FP32"><dim>2</dim><dim>2</dim>', within="g")
    assert_diag(d, "index-type", line=line, layer_id=3, port="input port 1",
                contains=["indices must be an integer type", "input 1 is f32"])  # fmt: skip


def test_gather_float_axis():
    n = Net()
    d = n.param("data", "2,3,4")
    i = n.const("idx", np.array([0, 2]))
    a = n.const("axis", np.array(1, np.float32))
    n.result(n.op("g", "Gather", "opset8", {"batch_dims": 0}, [d, i, a], [2, 2, 4]), "out")
    text = n.text()
    d = assert_single(check(text, n.blob), "index-type")
    assert_diag(d, "index-type", line=line_of(text, '<port id="2" precision="FP32">'),
                layer_id=3, contains=["axis input must be an integer, not f32"])  # fmt: skip


def test_gather_axis_input_of_two_elements():
    n = Net()
    d = n.param("data", "2,3,4")
    i = n.const("idx", np.array([0, 2]))
    a = n.const("axis", np.array([1, 1]))
    n.result(n.op("g", "Gather", "opset8", {"batch_dims": 0}, [d, i, a], [2, 2, 4]), "out")
    text = n.text()
    d = assert_single(check(text, n.blob), "axis-input")
    line = line_of(text, '<port id="2" precision="I64"><dim>2</dim></port>')
    assert_diag(d, "axis-input", line=line, layer_id=3, port="input port 2",
                contains=["scalar or have one element", "shape is [2]"])  # fmt: skip


@pytest.mark.parametrize("axis", [3, -4])
def test_gather_axis_out_of_range(axis):
    net = gather(axis=axis)
    text = net.text()
    d = assert_single(check(text, net.blob), "axis-range")
    assert_diag(d, "axis-range", line=line_of(text, '<port id="2" precision="I64">'), layer_id=3,
                contains=[f"axis {axis} is out of the range [-3, 2]"])  # fmt: skip


def test_gather_batch_dims_of_data_and_indices_differ():
    net = gather(data="3,3,4", batch_dims=1, out=(3, 2, 4))
    text = net.text()
    d = assert_single(check(text, net.blob), "input-dims")
    line = line_of(text, '<port id="1" precision="I64">', within="g")
    assert_diag(d, "input-dims", line=line, layer_id=3,
                contains=["data [3,3,4] and indices [2,2]", "first 1 (batch)",
                          "dimension 0 is 3 vs 2"])  # fmt: skip


def test_gather_non_constant_axis_is_not_an_error():
    """Axis from a Parameter: rank known, dims unknown; any declaration of that rank is fine."""
    n = Net()
    d = n.param("data", "2,3,4")
    i = n.param("indices", "2,5", "i64")
    a = n.param("axis", "", "i64")
    n.result(n.op("g", "Gather", "opset8", {"batch_dims": 1}, [d, i, a], [2, 5, 4]), "out")
    assert len(check(n.text())) == 0
    model = irrun.load(n.text())
    model.validate()
    # what inference proves (declared dims are not evidence)
    assert str(model.layer("g").outputs[0].inferred_shape) == "[2,?,?]"
    # the batch dim is still known: declaring 3 there is an error
    text = n.text().replace("<dim>2</dim><dim>5</dim><dim>4</dim>", "<dim>3</dim><dim>5</dim>"
                            "<dim>4</dim>")  # fmt: skip
    d = only(check(text), "shape-mismatch")
    assert "[2,?,?]" in d.message and "the axis is not a constant" in d.message


@pytest.mark.parametrize(
    "version, severity, words",
    [
        ("opset8", "warning", "Gather-8 writes zeros there"),
        ("opset7", "error", "the Gather-7 result is undefined there"),
        ("opset1", "error", "the Gather-1 result is undefined there"),
    ],
)
def test_gather_constant_indices_out_of_range(version, severity, words):
    net = gather(version, indices=((0, 5), (2, -4)))
    text = net.text()
    report = check(text, net.blob)
    d = assert_single(report, "index-range")
    line = line_of(text, '<port id="1" precision="I64">', within="g")
    assert_diag(d, "index-range", severity=severity, line=line, layer_id=3,
                contains=["2 index value(s) outside [-3, 2]", "axis 1 of size 3",
                          "e.g. 5 at [0, 1]", words])  # fmt: skip
    assert report.ok == (severity == "warning")


def test_gather7_negative_index_is_a_warning():
    net = gather("opset7", indices=((0, -1), (2, 0)))
    d = assert_single(check(net.text(), net.blob), "index-range")
    assert_diag(d, "index-range", severity="warning",
                line=line_of(net.text(), '<port id="1" precision="I64">', within="g"), layer_id=3,
                contains=["negative index -1 at [0, 1]", "only [0, 2]"])  # fmt: skip
    net8 = gather("opset8", indices=((0, -1), (2, 0)))
    assert len(check(net8.text(), net8.blob)) == 0  # fine for Gather-8


# -- GatherND -------------------------------------------------------------------------------------
def test_gather_nd_tuple_longer_than_data_rank_after_batch():
    net = gather_nd(indices=np.zeros((2, 3)), batch_dims=1)
    text = net.text()
    d = assert_single(check(text, net.blob), "input-dims")
    line = line_of(text, '<port id="1" precision="I64">', within="gnd")
    assert_diag(d, "input-dims", line=line, layer_id=2, port="input port 1",
                contains=["length 3", "data [2,3,4]", "3 - 1 = 2"])  # fmt: skip


def test_gather_nd_batch_dims_not_below_rank_of_indices():
    net = gather_nd(indices=np.zeros((2, 1)), batch_dims=2)
    d = assert_single(check(net.text(), net.blob), "batch-dims-range")
    assert_diag(d, "batch-dims-range", line=line_of(net.text(), 'name="gnd"'), layer_id=2,
                contains=["batch_dims 2", "rank of indices (2, shape [2,1])",
                          "of data (3, shape [2,3,4])"])  # fmt: skip


def test_gather_nd_negative_batch_dims():
    net = gather_nd(batch_dims=-1)
    d = assert_single(check(net.text(), net.blob), "batch-dims-range")
    assert_diag(d, "batch-dims-range", line=line_of(net.text(), 'name="gnd"'), layer_id=2,
                contains=["batch_dims -1 must not be negative"])  # fmt: skip


def test_gather_nd_float_indices():
    n = Net()
    d = n.param("data", "2,3,4")
    i = n.const("idx", np.array([[1, 0], [0, 3]], np.float32))
    n.result(n.op("gnd", "GatherND", "opset8", {"batch_dims": 1}, [d, i], [2]), "out")
    d = assert_single(check(n.text(), n.blob), "index-type")
    line = line_of(n.text(), '<port id="1" precision="FP32">', within="gnd")
    assert_diag(d, "index-type", line=line, layer_id=2, contains=["input 1 is f32"])


def test_gather_nd_constant_indices_out_of_range():
    net = gather_nd(indices=[[1, 0], [0, 4]], batch_dims=1)
    d = assert_single(check(net.text(), net.blob), "index-range")
    line = line_of(net.text(), '<port id="1" precision="I64">', within="gnd")
    assert_diag(
        d,
        "index-range",
        line=line,
        layer_id=2,
        contains=["index 4 at [1, 1]", "[-4, 3]", "data dimension 2 of size 4"],
    )


def test_gather_nd5_negative_index_is_a_warning_bug():
    """BUG (missed warning): ops.md §8 item 8 asks for a "negative not allowed" warning on
    constant negative indices of Gather-1/-7 *and GatherND-5*. irrun/ops/gather_nd.py
    _GatherND._check_index_values warns for Gather-1/-7 only; GatherND-5 with indices
    [[1, -1], [0, 3]] (batch_dims 1, data [2,3,4]) gets no diagnostic."""
    net = gather_nd("opset5", indices=[[1, -1], [0, 3]], batch_dims=1)
    d = assert_single(check(net.text(), net.blob), "index-range")
    assert d.severity == "warning"


def test_gather_nd5_declared_with_the_v8_shape():
    """batch_dims 2: GatherND-5 flattens the batch dims ([6]); GatherND-8 keeps them ([2,3]).
    The two formulas differ in rank when batch_dims >= 2, so the v8 declaration on a v5 layer
    is a rank-mismatch (a v5 declaration of the right rank but wrong size a shape-mismatch)."""
    net = gather_nd("opset5", indices=np.zeros((2, 3, 1)), batch_dims=2, out=(6,))
    text = net.text().replace("<dim>6</dim>", "<dim>2</dim><dim>3</dim>")
    d = assert_single(check(text, net.blob), "rank-mismatch")
    assert_diag(
        d,
        "rank-mismatch",
        line=line_of(text, 'names="gnd"'),
        layer_id=2,
        contains=[
            "(GatherND-5)",
            "declares rank 2 [2,3]",
            "rank 1 [6]",
            "[prod(indices[:2])] + indices[2:2] + data[3:] = [6] + [] = [6]",
        ],
    )
    text = net.text().replace("<dim>6</dim>", "<dim>5</dim>")
    d = assert_single(check(text, net.blob), "shape-mismatch")
    assert_diag(d, "shape-mismatch", line=line_of(text, 'names="gnd"'), layer_id=2,
                contains=["declares [5]", "[6]"])  # fmt: skip


def test_gather_nd8_declared_with_the_v5_shape():
    net = gather_nd(indices=np.zeros((2, 3, 1)), batch_dims=2, out=(2, 3))
    text = edit(net.text(), 'names="gnd"><dim>2</dim><dim>3</dim>', 'names="gnd"><dim>6</dim>')
    text = edit(text, "<dim>2</dim><dim>3</dim>", "<dim>6</dim>", within="out")
    d = assert_single(check(text, net.blob), "rank-mismatch")
    assert_diag(d, "rank-mismatch", line=line_of(text, 'names="gnd"'), layer_id=2,
                contains=["(GatherND-8)", "declares rank 1 [6]", "rank 2 [2,3]",
                          "indices[:2] + data[3:] = [2,3] + [] = [2,3]"])  # fmt: skip


def test_gather_nd_scalar_indices():
    n = Net()
    d = n.param("data", "2,3")
    i = n.param("idx", "", "i64")
    n.result(n.op("gnd", "GatherND", "opset8", {"batch_dims": 0}, [d, i], [3]), "out")
    d = assert_single(check(n.text()), "input-rank")
    line = line_of(n.text(), '<port id="1" precision="I64">', within="gnd")
    assert_diag(d, "input-rank", line=line, layer_id=2,
                contains=["indices must have rank >= 1, but it is a scalar"])  # fmt: skip


# -- GatherElements -------------------------------------------------------------------------------
def test_gather_elements_u8_indices():
    net = gather_elements(dtype=np.uint8)
    text = net.text()
    d = assert_single(check(text, net.blob), "index-type")
    line = line_of(text, '<port id="1" precision="U8">', within="ge")
    assert_diag(d, "index-type", line=line, layer_id=2, port="input port 1",
                contains=["indices must be i32 or i64", "input 1 is u8"])  # fmt: skip


def test_gather_elements_i32_indices_are_fine():
    net = gather_elements(dtype=np.int32)
    assert len(check(net.text(), net.blob)) == 0


def test_gather_elements_constant_indices_out_of_range():
    net = gather_elements(indices=((0, 2, 3, 1), (2, 0, 0, -4)))
    d = assert_single(check(net.text(), net.blob), "index-range")
    line = line_of(net.text(), '<port id="1" precision="I64">', within="ge")
    assert_diag(d, "index-range", line=line, layer_id=2,
                contains=["index 3 at [0, 2]", "[-3, 2]", "axis 1 of size 3",
                          "2 such value(s)"])  # fmt: skip


def test_gather_elements_non_axis_dims_differ():
    net = gather_elements(indices=((0, 2), (2, 0), (1, 1)))
    d = assert_single(check(net.text(), net.blob), "input-dims")
    line = line_of(net.text(), '<port id="1" precision="I64">', within="ge")
    assert_diag(d, "input-dims", line=line, layer_id=2,
                contains=["data [2,3] and indices [3,2]", "except the axis (1)",
                          "dimension 0 is 2 vs 3"])  # fmt: skip


def test_gather_elements_rank_differs():
    net = gather_elements(indices=(0, 2))
    d = assert_single(check(net.text(), net.blob), "input-rank")
    assert_diag(
        d,
        "input-rank",
        line=line_of(net.text(), '<port id="1" precision="I64">', within="ge"),
        layer_id=2,
        contains=["data [2,3] and indices [2]", "have 2 and 1"],
    )


def test_gather_elements_axis_out_of_range():
    net = gather_elements(indices=((0, 2), (2, 0)), axis=2)
    d = assert_single(check(net.text(), net.blob), "axis-range")
    assert_diag(d, "axis-range", line=line_of(net.text(), 'name="ge"'), layer_id=2,
                contains=["axis 2 is out of the range [-2, 1]"])  # fmt: skip


def test_axis_range_hint_grammar_bug():
    """BUG (wording): irrun/ops/base.py normalize_axis_or_report writes the hint
    f"use a {what} between ..." which reads "use a axis between -2 and 1"; it should read
    "use an axis between -2 and 1"."""
    text = edit(concat3().text(), '<data axis="1"/>', '<data axis="2"/>', within="cat")
    d = only(check(text), "axis-range")
    assert d.hint == "use an axis between -2 and 1"


# -- Const / weights ------------------------------------------------------------------------------
def test_const_size_too_small():
    net = gather()
    text = edit(net.text(), 'offset="0" size="32"', 'offset="0" size="24"', within="idx")
    d = assert_single(check(text, net.blob), "const-size")
    assert_diag(d, "const-size", line=line_of(text, 'name="idx"'), layer_id=1,
                contains=["declares size 24", "shape [2,2] of i64 needs 32 bytes",
                          "2 x 2 elements x 64 bits"])  # fmt: skip
    assert d.hint == 'set size="32" or fix the shape/element_type'


def test_const_outside_the_bin():
    net = gather()
    assert len(net.blob) == 40
    text = edit(net.text(), 'offset="32" size="8"', 'offset="36" size="8"', within="axis")
    d = assert_single(check(text, net.blob), "bin-range")
    assert_diag(d, "bin-range", line=line_of(text, 'name="axis"'), layer_id=2,
                contains=["needs bytes 36..44", "only 40 bytes long"])  # fmt: skip


def test_const_without_any_weights_file():
    net = gather()
    report = check(net.text(), None)
    assert report.codes() == ["bin-range", "bin-range"]
    assert [d.layer_id for d in report] == [1, 2]
    assert "there is no weights file" in report[0].message


# -- structure ------------------------------------------------------------------------------------
def test_duplicate_layer_ids():
    text = edit(concat3().text(), '<layer id="1" name="b"', '<layer id="0" name="b"')
    report = check(text)
    d = only(report, "duplicate-layer-id")
    assert_diag(
        d,
        "duplicate-layer-id",
        line=line_of(text, 'name="b"'),
        layer_id=0,
        contains=["layer id 0 ('b') is already used by layer 0 'a' (Parameter) at line 4"],
    )
    assert report[0] is d


def test_duplicate_port_ids():
    text = edit(
        concat3().text(),
        '<port id="1" precision="FP32"><dim>2</dim><dim>16</dim>',
        '<port id="0" precision="FP32"><dim>2</dim><dim>16</dim>',
        within="cat",
    )
    d = only(check(text), "duplicate-port-id")
    line = line_of(text, '<port id="0" precision="FP32"><dim>2</dim><dim>16</dim>', within="cat")
    assert_diag(
        d,
        "duplicate-port-id",
        line=line,
        layer_id=3,
        contains=["two input ports with id 0", f"(lines {line - 1} and {line})"],
    )


def test_duplicate_port_id_has_no_spurious_follow_ons_bug():
    """BUG (cascade / false positives): irrun/validation/inference.py infer_graph looks up each
    input port's producer by (layer id, port id) (Graph.producer), so when two input ports of
    the Concat share id 0, *both* get the edge of the first one. irrun then reports an
    edge-dims error on the second port ("declares [2,16], but its producer layer 0 'a' ...
    declares [2,8]") and a shape-mismatch "axis 1: 8 + 8 + 32 = 48" computed from an input
    fed twice, neither of which is in the file. Expected: duplicate-port-id, plus the
    edge-port error for the edge that names the now missing to-port 1 (OpenVINO: "Can not find
    input port with id 1") and the unused-parameter warning for b; nothing else."""
    text = edit(
        concat3().text(),
        '<port id="1" precision="FP32"><dim>2</dim><dim>16</dim>',
        '<port id="0" precision="FP32"><dim>2</dim><dim>16</dim>',
        within="cat",
    )
    report = check(text)
    assert sorted(report.codes()) == ["duplicate-port-id", "edge-port", "unused-parameter"]


def test_edge_to_a_missing_layer():
    text = edit(concat3().text(), 'from-port="3" to-layer="4"', 'from-port="3" to-layer="9"')
    report = check(text)
    d = only(report, "edge-endpoint")
    assert_diag(
        d,
        "edge-endpoint",
        line=line_of(text, 'to-layer="9"'),
        layer_id=None,
        contains=["edge 3:3 -> 9:0 names layer 9, which does not exist"],
    )
    # the Result it should have fed is then unfed
    assert only(report, "unconnected-input").layer_id == 4


def test_edge_from_a_missing_layer():
    text = edit(concat3().text(), '<edge from-layer="1" from-port="0"',
                  '<edge from-layer="7" from-port="0"')  # fmt: skip
    d = only(check(text), "edge-endpoint")
    assert_diag(d, "edge-endpoint", line=line_of(text, 'from-layer="7"'), layer_id=None,
                contains=["edge 7:0 -> 3:1 names layer 7"])  # fmt: skip


@pytest.mark.parametrize(
    "new, words",
    [
        ('<edge from-layer="1" from-port="0" to-layer="3" to-port="5"/>',
         ["to-port 5 is not an input port of layer 3 'cat'", "its input ports are [0, 1, 2]"]),
        ('<edge from-layer="1" from-port="0" to-layer="3" to-port="3"/>',
         ["to-port 3 is not an input port", "(port 3 is one of its output ports)"]),
        ('<edge from-layer="1" from-port="2" to-layer="3" to-port="1"/>',
         ["from-port 2 is not an output port of layer 1 'b' (Parameter)",
          "its output ports are [0]"]),
    ],
)  # fmt: skip
def test_edge_to_a_port_that_does_not_exist(new, words):
    text = edit(
        concat3().text(), '<edge from-layer="1" from-port="0" to-layer="3" to-port="1"/>', new
    )
    report = check(text)
    d = only(report, "edge-port")
    assert_diag(d, "edge-port", line=line_of(text, new), layer_id=None, contains=words)
    # input 1 of the Concat is left unfed and b feeds nothing
    assert sorted(report.codes()) == ["edge-port", "unconnected-input", "unused-parameter"]


def test_two_edges_into_one_port():
    extra = '<edge from-layer="0" from-port="0" to-layer="3" to-port="1"/>'
    text = edit(concat3().text(), "  </edges>", f"    {extra}\n  </edges>")
    d = assert_single(check(text), "multiple-producers")
    first, second = line_of(text, '<edge from-layer="1"'), line_of(text, extra)
    assert_diag(d, "multiple-producers", line=second, layer_id=3,
                contains=["input port 1 is fed by 2 edges", f"1:0 (line {first})",
                          f"0:0 (line {second})"])  # fmt: skip


def test_unconnected_input():
    text = edit(
        concat3().text(), '    <edge from-layer="2" from-port="0" to-layer="3" to-port="2"/>\n', ""
    )
    report = check(text)
    d = only(report, "unconnected-input")
    line = line_of(text, '<port id="2" precision="FP32"><dim>2</dim><dim>32</dim>')
    assert_diag(
        d,
        "unconnected-input",
        line=line,
        layer_id=3,
        contains=["layer 3 'cat' (Concat) input port 2 has no edge feeding it"],
    )
    assert report.codes() == ["unused-parameter", "unconnected-input"]  # c now feeds nothing


def test_unused_parameter_is_a_warning():
    n = Net()
    a = n.param("a", "2,8")
    n.param("spare", "1")
    n.result(n.op("cat", "Concat", "opset1", {"axis": 0}, [a], [2, 8]), "out")
    report = check(n.text())
    d = assert_single(report, "unused-parameter")
    assert_diag(
        d,
        "unused-parameter",
        line=line_of(n.text(), 'name="spare"'),
        layer_id=1,
        severity="warning",
        contains=["layer 1 'spare' (Parameter) feeds nothing"],
    )
    assert report.ok


def test_cycle():
    n = Net()
    a, b = n.param("a", "2,8"), n.param("b", "2,8")
    c1 = n.op("cat1", "Concat", "opset1", {"axis": 1}, [a, b], [2, 16])
    c2 = n.op("cat2", "Concat", "opset1", {"axis": 1}, [c1, a], [2, 24])
    n.result(c2, "out")
    text = edit(n.text(), '<edge from-layer="1" from-port="0" to-layer="2" to-port="1"/>',
                  '<edge from-layer="3" from-port="2" to-layer="2" to-port="1"/>')  # fmt: skip
    report = check(text)
    d = only(report, "cycle")
    assert_diag(d, "cycle", line=line_of(text, 'name="cat1"'), layer_id=2,
                contains=["2 'cat1' -> 3 'cat2' -> 2 'cat1'", "must be acyclic"])  # fmt: skip
    assert report.codes() == ["unused-parameter", "cycle"]  # b lost its edge


def test_summary_counts_one_layer_in_the_singular_bug():
    """BUG (wording): irrun/render/text.py summary_line pluralises errors and warnings but
    always writes "layers checked": the cycle file below checks one layer and says
    "1 layers checked"; expected "1 layer checked"."""
    n = Net()
    a = n.param("a", "2,8")
    c1 = n.op("cat1", "Concat", "opset1", {"axis": 1}, [a, a], [2, 16])
    n.result(c1, "out")
    text = edit(n.text(), '<edge from-layer="0" from-port="0" to-layer="1" to-port="1"/>',
                  '<edge from-layer="1" from-port="2" to-layer="1" to-port="1"/>')  # fmt: skip
    report = check(text)
    assert report.layers_checked == 1
    assert "; 1 layer checked, 0 trusted" in report.summary(), report.summary()


def test_no_result():
    text = concat3().text()
    start = text.index('    <layer id="4" name="out"')
    text = text[:start] + text[text.index("  </layers>") :]
    text = edit(text, '    <edge from-layer="3" from-port="3" to-layer="4" to-port="0"/>\n', "")
    d = assert_single(check(text), "no-result")
    assert_diag(d, "no-result", line=None, layer_id=None,
                contains=["no Result layer", "no outputs"])  # fmt: skip


def test_unknown_op_is_a_trusted_warning():
    text = edit(concat3().text(), 'type="Concat" version="opset1"',
                'type="Konkat" version="extension"')  # fmt: skip
    report = check(text)
    d = assert_single(report, "unknown-op")
    assert_diag(
        d,
        "unknown-op",
        line=line_of(text, 'type="Konkat"'),
        layer_id=3,
        severity="warning",
        contains=["does not know op type 'Konkat' of opset 'extension'", "trusted"],
    )
    assert report.ok
    assert (report.layers_checked, report.layers_trusted) == (4, 1)
    assert report.trusted_types == {"Konkat extension": 1}
    assert "1 trusted" in report.summary()


def test_op_type_its_opset_does_not_have():
    """OpenVINO refuses a type its declared opset lacks ("Cannot create Konkat layer")."""
    text = edit(concat3().text(), 'type="Concat"', 'type="Konkat"')
    with pytest.raises(RuntimeError):
        ov.Core().read_model(model=text, weights=ov.Tensor(np.zeros(1, np.uint8)))
    report = check(text)
    d = assert_single(report, "not-in-opset")
    expected = "opset1 has no op type 'Konkat'; OpenVINO refuses the model"
    assert_diag(d, "not-in-opset", line=line_of(text, 'type="Konkat"'), layer_id=3,
                contains=[expected])  # fmt: skip
    assert d.hint == "did you mean Concat?"
    assert not report.ok


def test_op_in_an_opset_before_its_first():
    text = edit(concat3().text(), 'type="Concat" version="opset1"',
                'type="Concat" version="opset0"')  # fmt: skip
    d = assert_single(check(text), "unknown-opset")
    assert "'opset0' is not an opset OpenVINO has (opset1 to opset17)" in d.message
    assert d.hint == 'use an existing opset, e.g. version="opset16"'


def test_op_in_an_opset_that_does_not_exist():
    """OpenVINO refuses the file ("Cannot create Concat layer cat id:3 from unsupported opset:
    opset99", ir-format.md §13; the last opset of 2026.4 is opset17)."""
    text = edit(concat3().text(), 'version="opset1">\n      <data axis',
                  'version="opset99">\n      <data axis')  # fmt: skip
    with pytest.raises(RuntimeError, match="unsupported opset"):
        ov.Core().read_model(model=text, weights=ov.Tensor(np.zeros(1, np.uint8)))
    report = check(text)
    assert report.codes() == ["unknown-opset"]
    assert not report.ok


def test_unknown_attribute_is_a_warning_with_a_suggestion():
    text = edit(concat3().text(), '<data axis="1"/>', '<data axis="1" axes="1"/>')
    d = assert_single(check(text), "unknown-attribute")
    assert_diag(d, "unknown-attribute", line=line_of(text, 'axes="1"'), layer_id=3,
                contains=["attribute axes='1' is not an attribute of Concat-1; OpenVINO "
                          "ignores it"])  # fmt: skip
    assert d.hint == "did you mean axis?"


def test_negative_pooling_end_pad_is_a_warning_and_the_shape_is_openvinos():
    # pads_end -3 on axis 0: OpenVINO's pooling rule counts the pad sum -3 as 0 (6 - 2 + 1 = 5)
    n = Net()
    x = n.param("x", "1,2,6,6")
    data = {"strides": "1,1", "pads_begin": "0,0", "pads_end": "-3,0", "kernel": "2,2"}
    n.result(n.op("pool", "MaxPool", "opset1", data, [x], [1, 2, 5, 5]), "out")
    text = n.text()
    d = assert_single(check(text), "negative-pad")
    expected = ("pads_end -3,0 has a negative value (-3), outside the specification's range; "
                "OpenVINO's shape rule counts a pad sum below -1 as 0")  # fmt: skip
    assert_diag(d, "negative-pad", line=line_of(text, 'pads_end="-3,0"'), layer_id=1,
                contains=[expected])  # fmt: skip


def _if_model(tmp_path):
    from openvino import opset8, opset13

    cond = opset13.parameter([], ov.Type.boolean, name="cond")
    x = opset13.parameter([2, 3], ov.Type.f32, name="x")
    bodies = []
    for _ in range(2):
        inner = opset13.parameter([2, 3], ov.Type.f32)
        res = opset13.result(opset13.concat([inner, inner], 1))
        bodies.append((inner, res, ov.Model([res], [inner])))
    if_op = opset8.if_op(cond)
    if_op.set_friendly_name("branch")
    if_op.set_then_body(bodies[0][2])
    if_op.set_else_body(bodies[1][2])
    if_op.set_input(x.output(0), bodies[0][0], bodies[1][0])
    out = if_op.set_output(bodies[0][1], bodies[1][1])
    xml = tmp_path / "if.xml"
    ov.save_model(ov.Model([opset13.result(out)], [cond, x]), xml, compress_to_fp16=False)
    return xml, xml.read_text()


def test_if_bodies_are_checked(tmp_path):
    xml, _ = _if_model(tmp_path)
    report = irrun.load(xml).validate()
    assert report.ok and not list(report)
    assert (report.layers_checked, report.layers_trusted) == (10, 0)


def test_subgraph_of_an_unknown_op_is_not_checked(tmp_path):
    xml, text = _if_model(tmp_path)
    text = text.replace('type="If" version="opset8"', 'type="MyIf" version="extension"')
    xml.write_text(text)
    report = irrun.load(xml).validate()
    d = only(report, "subgraph-not-checked")
    assert_diag(
        d,
        "subgraph-not-checked",
        line=line_of(text, 'type="MyIf"'),
        layer_id=2,
        severity="warning",
        contains=[
            "layer 2 'branch' (MyIf) has then_body (3 layers), else_body (3 layers)",
            "trusted",
        ],
    )
    assert report.ok


def test_port_map_naming_a_port_the_layer_lacks(tmp_path):
    xml, text = _if_model(tmp_path)
    text = text.replace('<output external_port_id="2"', '<output external_port_id="9"', 1)
    xml.write_text(text)
    report = irrun.load(xml).validate()
    d = only(report, "port-map")
    assert_diag(d, "port-map", line=line_of(text, 'type="If"'), layer_id=2,
                contains=["layer 2 'branch' (If-8) <else_port_map> maps output port 9, which the "
                          "layer does not have (its output ports are [2])"])  # fmt: skip


def test_wrong_number_of_inputs():
    net = gather()
    text = edit(net.text(), '        <port id="2" precision="I64"></port>\n', "", within="g")
    text = edit(text, '    <edge from-layer="2" from-port="0" to-layer="3" to-port="2"/>\n', "")
    report = check(text, net.blob)
    d = only(report, "input-count")
    assert_diag(
        d,
        "input-count",
        line=line_of(text, 'name="g"'),
        layer_id=3,
        contains=["(Gather-8) takes 3 input(s), but the layer has 2"],
    )
    assert report.errors == [d]  # (the now unused axis Const is dropped silently, as in OpenVINO)


def test_wrong_number_of_outputs():
    text = edit(concat3().text(), '<port id="3" precision="FP32" names="cat">',
                  '<port id="4" precision="FP32"/>\n        <port id="3" precision="FP32" '
                  'names="cat">')  # fmt: skip
    d = assert_single(check(text), "input-count")
    assert_diag(
        d,
        "input-count",
        line=line_of(text, 'name="cat"'),
        layer_id=3,
        contains=["has 1 output(s), but the layer declares 2 output port(s)"],
    )


# -- edges and declarations -----------------------------------------------------------------------
def test_edge_dims_disagree():
    text = edit(
        concat3().text(),
        '<port id="1" precision="FP32"><dim>2</dim><dim>16</dim>',
        '<port id="1" precision="FP32"><dim>2</dim><dim>61</dim>',
        within="cat",
    )
    d = assert_single(check(text), "edge-dims")
    line = line_of(text, "<dim>61</dim>")
    assert_diag(
        d,
        "edge-dims",
        line=line,
        layer_id=3,
        port="input port 1",
        contains=[
            "input port 1 declares [2,61]",
            "producer layer 1 'b' (Parameter) output port 0 declares [2,16]",
        ],
    )


def test_edge_dims_dynamic_is_compatible():
    text = edit(
        concat3().text(),
        '<port id="1" precision="FP32"><dim>2</dim><dim>16</dim>',
        '<port id="1" precision="FP32"><dim>-1</dim><dim>16</dim>',
        within="cat",
    )
    assert len(check(text)) == 0


def test_edge_type_disagree():
    text = edit(
        concat3().text(),
        '<port id="1" precision="FP32"><dim>2</dim><dim>16</dim>',
        '<port id="1" precision="I32"><dim>2</dim><dim>16</dim>',
        within="cat",
    )
    d = assert_single(check(text), "edge-type")
    assert_diag(d, "edge-type", line=line_of(text, 'precision="I32"'), layer_id=3,
                contains=["input port 1 declares precision I32",
                          "output port 0 declares FP32"])  # fmt: skip


def test_type_mismatch():
    text = edit(concat3().text(), 'precision="FP32" names="cat"', 'precision="FP16" names="cat"')
    text = edit(text, 'precision="FP32"', 'precision="FP16"', within="out")
    d = assert_single(check(text), "type-mismatch")
    assert_diag(
        d,
        "type-mismatch",
        line=line_of(text, 'names="cat"'),
        layer_id=3,
        contains=["declares precision FP16 (f16), but its inputs give f32"],
    )
    assert d.hint == 'set precision="FP32" on the port'


def _param_only() -> str:
    n = Net()
    n.result(n.op("cat", "Concat", "opset1", {"axis": 0}, [n.param("a", "2,8")], [2, 8]), "out")
    return n.text()


def test_parameter_port_dims_against_its_shape_attribute():
    # every port says [3,8] (consistently), the Parameter's shape attribute says 2,8
    text = _param_only().replace("<dim>2</dim><dim>8</dim>", "<dim>3</dim><dim>8</dim>")
    report = check(text)
    d = report[0]
    assert_diag(d, "shape-mismatch", line=line_of(text, 'names="a"'), layer_id=0,
                contains=["(Parameter-1) output port 0 declares [3,8]",
                          "its shape attribute says [2,8]"])  # fmt: skip
    assert report.codes() == ["shape-mismatch"], report.to_text()  # the rest follows from it


def test_parameter_precision_against_its_element_type_bug():
    """BUG (wrong message): irrun/validation/inference.py _compare words every Parameter
    mismatch as "its shape attribute says", also for the element type: a Parameter with
    element_type="f32" whose port says precision="I64" gets "declares precision I64 (i64), but
    its shape attribute says f32"; it should name the element_type attribute."""
    text = edit(_param_only(), 'precision="FP32" names="a"', 'precision="I64" names="a"')
    d = only(check(text), "type-mismatch")
    assert_diag(d, "type-mismatch", line=line_of(text, 'names="a"'), layer_id=0,
                contains=["declares precision I64 (i64)"])  # fmt: skip
    assert "its element_type attribute says f32" in d.message, d.message


# -- no cascades ----------------------------------------------------------------------------------
def _chain(first_declared=48, cat5=None):
    """cat1 joins [2,8]+[2,16]+[2,32] (really [2,56]); cat2..cat4 extend it with a, b, c and
    declare what follows from cat1's declaration; cat5 stacks cat4 on itself along axis 0."""
    n = Net()
    a, b, c = n.param("a", "2,8"), n.param("b", "2,16"), n.param("c", "2,32")
    c1 = n.op("cat1", "Concat", "opset1", {"axis": 1}, [a, b, c], [2, first_declared])
    c2 = n.op("cat2", "Concat", "opset1", {"axis": 1}, [c1, a], [2, first_declared + 8])
    c3 = n.op("cat3", "Concat", "opset1", {"axis": 1}, [c2, b], [2, first_declared + 24])
    c4 = n.op("cat4", "Concat", "opset1", {"axis": 1}, [c3, c], [2, first_declared + 56])
    last = c4
    if cat5 is not None:
        last = n.op("cat5", "Concat", "opset1", {"axis": 0}, [c4, c4], cat5)
    n.result(last, "out")
    return n


def test_no_cascades_one_wrong_declaration_is_one_error():
    text = _chain().text()
    report = check(text)
    d = assert_single(report, "shape-mismatch")
    assert_diag(d, "shape-mismatch", line=line_of(text, 'names="cat1"'), layer_id=3,
                contains=["declares [2,48]", "8 + 16 + 32 = 56"])  # fmt: skip
    assert len(d.notes) == 3
    for note, name, sums in zip(d.notes, ("cat2", "cat3", "cat4"),
                                ("56 + 8 = 64", "64 + 16 = 80", "80 + 32 = 112")):  # fmt: skip
        line = line_of(text, f'names="{name}"')
        assert note.startswith(f"follow-on: line {line}: layer ")
        assert sums in note


def test_no_cascades_an_independent_mistake_is_still_an_error():
    # cat5 stacks the declared [2,104] twice: [4,104] would follow; [3,104] is a mistake of its own
    text = _chain(cat5=[3, 104]).text()
    report = check(text)
    assert report.codes() == ["shape-mismatch", "shape-mismatch"]
    first, second = report
    assert first.line == line_of(text, 'names="cat1"') and len(first.notes) == 3
    assert_diag(second, "shape-mismatch", line=line_of(text, 'names="cat5"'), layer_id=7,
                contains=["declares [3,104]", "axis 0: 2 + 2 = 4"])  # fmt: skip
    assert second.notes == []
    # while [4,104] does follow from cat4's declaration: a fourth note, no second error
    report = check(_chain(cat5=[4, 104]).text())
    assert report.codes() == ["shape-mismatch"] and len(report[0].notes) == 4


def test_no_cascades_independent_type_mistake_is_still_an_error_bug():
    """BUG (missed error): irrun/validation/inference.py infer_graph treats any mismatch of a
    layer downstream of an earlier error as a follow-on when its *shape* follows
    (``_consistent`` compares shapes only, and ``_reinfer_declared`` uses the inferred element
    types rather than the declared precisions). cat1 declares FP16 (really f32); cat2 follows
    (FP16 from FP16 inputs); cat3 declares I32 although its inputs are declared FP16, a
    mistake of its own, yet it only becomes a note under cat1's error."""
    n = Net()
    a, b = n.param("a", "2,8"), n.param("b", "2,16")
    c1 = n.op("cat1", "Concat", "opset1", {"axis": 1}, [a, b], [2, 24], precision="FP16")
    c2 = n.op("cat2", "Concat", "opset1", {"axis": 1}, [c1, c1], [2, 48], precision="FP16")
    c3 = n.op("cat3", "Concat", "opset1", {"axis": 1}, [c2, c2], [2, 96], precision="I32")
    n.result(c3, "out")
    text = n.text()
    report = check(text)
    assert report.codes() == ["type-mismatch", "type-mismatch"], report.to_text()
    assert report[1].line == line_of(text, 'names="cat3"')


def test_type_mistake_behind_a_follow_on_shape_is_reported_bug():
    """BUG (missed error): irrun/validation/inference.py _compare returns one problem per port,
    shape before type. cat1 declares [2,20] (really [2,24]); cat2 declares [2,40], which
    follows, but also precision I32 on f32 inputs. The shape problem becomes a note under
    cat1 and the type mistake is reported nowhere (not even in the note)."""
    n = Net()
    a, b = n.param("a", "2,8"), n.param("b", "2,16")
    c1 = n.op("cat1", "Concat", "opset1", {"axis": 1}, [a, b], [2, 20])
    c2 = n.op("cat2", "Concat", "opset1", {"axis": 1}, [c1, c1], [2, 40], precision="I32")
    n.result(c2, "out")
    text = n.text()
    report = check(text)
    type_errors = [d for d in report if d.code == "type-mismatch"]
    assert len(type_errors) == 1, report.to_text()
    assert type_errors[0].line == line_of(text, 'names="cat2"')


# -- every problem at once ------------------------------------------------------------------------
def test_every_problem_at_once_in_line_order():
    """Five unrelated mistakes in one file: five errors, in line order, nothing else."""
    n = Net()
    data = n.param("data", "2,3,4")
    x, y = n.param("x", "2,8"), n.param("y", "2,16")
    idx = n.const("idx", np.array([0, 2]))
    axis = n.const("axis", np.array(1))
    nd_idx = n.param("nd_idx", "2,1", "i64")
    ge_idx = n.param("ge_idx", "2,3,4", "i64")
    outputs = {
        "g": n.op("g", "Gather", "opset8", {"batch_dims": 0}, [data, idx, axis], [2, 2, 4]),
        "cat": n.op("cat", "Concat", "opset1", {"axis": 1}, [x, y], [2, 24]),
        "gnd": n.op("gnd", "GatherND", "opset8", {"batch_dims": 0}, [data, nd_idx], [2, 3, 4]),
        "ge": n.op("ge", "GatherElements", "opset6", {"axis": 0}, [data, ge_idx], [2, 3, 4],
                   "FP32"),
        "stack": n.op("stack", "Concat", "opset1", {"axis": 0}, [x, x], [4, 8]),
    }  # fmt: skip
    for name, ref in outputs.items():
        n.result(ref, f"r_{name}")
    valid = n.text()
    assert len(check(valid, n.blob)) == 0, check(valid, n.blob).to_text()

    # 1. the indices Const is 4 bytes short
    text = edit(valid, 'offset="0" size="16"', 'offset="0" size="12"', within="idx")
    # 2. GatherElements gets f32 indices (the Parameter and both ends of its edge say so)
    text = edit(text, 'element_type="i64"', 'element_type="f32"', within="ge_idx")
    text = edit(text, 'precision="I64"', 'precision="FP32"', within="ge_idx")
    text = edit(text, '<port id="1" precision="I64">', '<port id="1" precision="FP32">',
                  within="ge")  # fmt: skip
    # 3. Concat axis out of range
    text = edit(text, '<data axis="1"/>', '<data axis="2"/>', within="cat")
    # 4. GatherND batch_dims = rank(indices)
    text = edit(text, 'batch_dims="0"', 'batch_dims="2"', within="gnd")
    # 5. a wrong declared sum (on both ends of the edge)
    text = edit(text, 'names="stack"><dim>4</dim>', 'names="stack"><dim>5</dim>')
    text = edit(text, "<dim>4</dim><dim>8</dim>", "<dim>5</dim><dim>8</dim>", within="r_stack")

    report = check(text, n.blob)
    expected = [
        ("const-size", line_of(text, 'name="idx"')),
        ("axis-range", line_of(text, 'name="cat"')),
        ("batch-dims-range", line_of(text, 'name="gnd"')),
        ("index-type", line_of(text, '<port id="1" precision="FP32">', within="ge")),
        ("shape-mismatch", line_of(text, 'names="stack"')),
    ]
    assert [line for _, line in expected] == sorted(line for _, line in expected)
    assert [(d.code, d.line) for d in report] == expected, report.to_text()
    assert len(report.errors) == 5 and not report.ok
    assert report.summary().startswith("5 errors, 0 warnings")


def test_constant_input_value_the_op_refuses():
    """A Reshape target with two -1s: OpenVINO refuses it ("More than one dimension has size of
    -1"), irrun says which value is wrong and where."""
    net = Net()
    data = net.param("data", "2,3,4")
    target = net.const("target", np.array([-1, -1], dtype=np.int64))
    net.result(net.op("flat", "Reshape", "opset1", {"special_zero": "false"}, [data, target],
                      [-1, -1]))  # fmt: skip
    text, blob = net.text(), bytes(net.blob)
    with pytest.raises(RuntimeError, match="More than one dimension has size of -1"):
        ov.Core().read_model(model=text, weights=ov.Tensor(np.frombuffer(blob, np.uint8)))
    d = assert_single(check(text, blob), "input-value")
    expected = "the target [-1,-1] has -1 at both index 0 and index 1"
    assert_diag(d, "input-value", line=line_of(text, "<dim>2</dim></port>", within="flat"),
                layer_id=2, contains=[expected])  # fmt: skip
    assert d.hint == "keep one -1 and give the other dimension's size"


def test_one_output_dim_edited_only_at_the_producer_is_one_error():
    """The Concat's output declares 57 where the inputs give 56, and its consumer (the Result)
    still declares 56: one shape-mismatch, the edge disagreement a note under it."""
    text = concat3().text()
    cat = text.index('name="cat"')
    out = text.index("<dim>56</dim>", cat)
    text = text[:out] + "<dim>57</dim>" + text[out + len("<dim>56</dim>") :]
    report = check(text)
    d = assert_single(report, "shape-mismatch")
    assert report.codes() == ["shape-mismatch"]
    assert "declares [2,57], but its inputs give [2,56]" in d.message
    (note,) = d.notes
    assert note.startswith(f"follow-on: line {line_of(text, '<dim>56</dim>', within='out')}: ")
    assert "declares [2,56], as inferred, so its edge disagrees with the wrong declaration" in note


def test_a_const_whose_element_type_was_edited_names_its_attribute():
    """A Const has no inputs: the message names its element_type attribute."""
    n = gather()
    text = n.text().replace('<data element_type="i64" shape="2, 2"', '<data element_type="i32" '
                            'shape="2, 2"', 1)  # fmt: skip
    d = assert_single(check(text, bytes(n.blob)), "type-mismatch")
    assert d.message == (
        "layer 1 'idx' (Constant-1) output port 0 declares precision I64 (i64), but its "
        "element_type attribute says i32"
    )


def test_v10_layer_named_like_a_tensor_is_a_name_collision(tmp_path):
    """OpenVINO refuses it in IR v10 (the golden file examples/ir/broken/name-collision.xml)."""
    from pathlib import Path

    xml = Path(__file__).parents[2] / "examples" / "ir" / "broken" / "name-collision.xml"
    text = xml.read_text()
    with pytest.raises(RuntimeError, match="names have collisions with tensor names"):
        ov.Core().read_model(model=text, weights=ov.Tensor(np.zeros(1, np.uint8)))
    d = assert_single(check(text), "name-collision")
    expected = "is named like the tensor 'x' of layer 0 'input' (Parameter)"
    assert_diag(d, "name-collision", line=line_of(text, 'name="x" type="Relu"'), layer_id=1,
                contains=[expected])  # fmt: skip
    assert check(text.replace('version="10"', 'version="11"')).ok
