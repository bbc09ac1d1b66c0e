"""One wrong declaration is one error: what follows from it is a note under it (CLI text)."""

from __future__ import annotations

from tests.helpers.cli import invoke
from tests.helpers.ir_text import Net


def _concat_relu() -> str:
    net = Net()
    a = net.param("a", "1,8")
    b = net.param("b", "1,16")
    cat = net.op("cat", "Concat", "opset1", {"axis": "1"}, [a, b], [1, 24])
    relu = net.op("relu", "Relu", "opset1", None, [cat], [1, 24])
    net.result(relu)
    return net.text()


def _validate(tmp_path, text):
    path = tmp_path / "m.xml"
    path.write_text(text)
    result = invoke("validate", path, catch_exceptions=True)
    return result.exit_code, result.output.replace(str(path), "m.xml")


def test_one_changed_concat_dim_is_one_error_with_the_edge_as_a_note(tmp_path):
    text = _concat_relu().replace(
        'names="cat"><dim>1</dim><dim>24</dim>', 'names="cat"><dim>1</dim><dim>25</dim>'
    )
    code, output = _validate(tmp_path, text)
    assert code == 1
    assert output == (
        "m.xml:23: error[shape-mismatch]: layer 2 'cat' (Concat-1) output port 2 declares "
        "[1,25], but its inputs give [1,24] (axis 1: 8 + 16 = 24)\n"
        "    note: follow-on: line 28: layer 3 'relu' (Relu) input port 0 declares [1,24], as "
        "inferred, so its edge disagrees with the wrong declaration\n"
        "    hint: declare <dim>1</dim><dim>24</dim> on output port 2\n"
        "m.xml: 1 error, 0 warnings; 5 layers checked, 0 trusted\n"
    )


def test_one_changed_concat_precision_is_one_error_with_the_edge_as_a_note(tmp_path):
    text = _concat_relu().replace(
        '<port id="2" precision="FP32" names="cat">', '<port id="2" precision="FP16" names="cat">'
    )
    code, output = _validate(tmp_path, text)
    assert code == 1
    assert output == (
        "m.xml:23: error[type-mismatch]: layer 2 'cat' (Concat-1) output port 2 declares "
        "precision FP16 (f16), but its inputs give f32\n"
        "    note: follow-on: line 28: layer 3 'relu' (Relu) input port 0 declares precision "
        "FP32, as inferred, so its edge disagrees with the wrong declaration\n"
        '    hint: set precision="FP32" on the port\n'
        "m.xml: 1 error, 0 warnings; 5 layers checked, 0 trusted\n"
    )


def test_a_const_mismatch_names_its_attributes_not_inputs(tmp_path):
    import numpy as np

    net = Net()
    k = net.const("k", np.arange(4, dtype=np.int32))
    net.result(net.op("relu", "Relu", "opset1", None, [k], [4]))
    (tmp_path / "m.bin").write_bytes(bytes(net.blob))
    text = net.text().replace('element_type="i32" shape="4"', 'element_type="f32" shape="4"')
    code, output = _validate(tmp_path, text)
    assert code == 1
    assert output.splitlines()[0] == (
        "m.xml:7: error[type-mismatch]: layer 0 'k' (Constant-1) output port 0 declares "
        "precision I32 (i32), but its element_type attribute says f32"
    )
    text = net.text().replace('shape="4" offset', 'shape="2, 2" offset')
    code, output = _validate(tmp_path, text)
    assert output.splitlines()[0] == (
        "m.xml:7: error[rank-mismatch]: layer 0 'k' (Constant-1) output port 0 declares rank 1 "
        "[4], but its shape attribute says rank 2 [2,2]"
    )


def test_an_edited_const_element_type_is_one_error_with_the_op_refusing_it_as_a_note(tmp_path):
    """A Const whose element_type was edited (f32 -> i32) feeding an Add: the Add's refusal
    of mixed types follows from that one edit, so it is a note under the Const's error."""
    import numpy as np

    net = Net()
    x = net.param("x", "4")
    k = net.const("k", np.arange(4, dtype=np.float32))
    net.result(net.op("add", "Add", "opset1", {"auto_broadcast": "numpy"}, [x, k], [4]))
    (tmp_path / "m.bin").write_bytes(bytes(net.blob))
    text = net.text().replace('element_type="f32" shape="4"', 'element_type="i32" shape="4"')
    code, output = _validate(tmp_path, text)
    assert code == 1
    lines = output.splitlines()
    assert [line for line in lines if "error[" in line] == [
        "m.xml:13: error[type-mismatch]: layer 1 'k' (Constant-1) output port 0 declares "
        "precision FP32 (f32), but its element_type attribute says i32"
    ]
    assert lines[1] == (
        "    note: follow-on: line 16: layer 2 'add' (Add-1): all inputs must have one element "
        "type, but input 0 is f32, input 1 is i32"
    )
    assert lines[-1] == "m.xml: 1 error, 0 warnings; 4 layers checked, 0 trusted"
