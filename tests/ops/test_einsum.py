"""Einsum-7: equation parsing, shapes against OpenVINO, the kernel against the CPU plugin
(rtol=1e-5, atol=1e-5; integers exactly), reported errors."""

from __future__ import annotations

import numpy as np
import openvino.opset7 as opset7
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irrun.ops.einsum import parse_equation
from tests.helpers.ir_text import Net, line_of
from tests.helpers.openvino_oracle import (
    check_rejected,
    check_shapes,
    model_of,
    parameter,
    run_irrun,
    run_openvino,
)
from tests.helpers.strategies import built, dim_text, op_settings, shape_text, validated

EQUATIONS = [
    "ij,jk->ik", "ij,jk", "bij,bjk->bik", "...ij,...jk->...ik", "...ij,jk->...ik", "ii->i",
    "ii", "iij->ij", "ij->", "ij->ji", "i,j->ij", "...i->i", "ij->...i", "a...b,b...->a...",
    "ab,bc,cd->ad", "Bj,jA", "ij...,...ij->...", "...j,jk", "abcd,cd->ab", "i...i->i",
    "...,...->...", "ijk,ikl->ijl", ",i->i", "i,i->i",
]  # fmt: skip


def _rank_for(labels):
    return len([x for x in labels if x != "..."])


@op_settings(40)
@given(st.sampled_from(EQUATIONS), st.data())
def test_shapes_match_openvino(equation, data):
    inputs_labels, _ = parse_equation(equation)
    params = []
    for index, labels in enumerate(inputs_labels):
        rank = _rank_for(labels) + (data.draw(st.integers(0, 2)) if "..." in labels else 0)
        shape = data.draw(shape_text(dim_text(st.sampled_from([1, 2, 3])), min_rank=rank,
                                     max_rank=rank + data.draw(st.integers(0, 1)),
                                     dynamic_rank=6))  # fmt: skip
        params.append(parameter(shape, "f32", name=f"x{index}"))
    check_shapes(built(lambda: opset7.einsum(params, equation)))


@pytest.mark.parametrize("equation, shapes, expected", [
    ("ij,jk->ik", ["[2..5,?]", "[3..8,4]"], "[2..5,4]"),
    ("...i,...i->...", ["[2..5,1,3]", "[?,4,3]"], "[2..5,4]"),
    ("ij,jk->ik", ["[...]", "[3,4]"], "[?,4]"),
    ("...j,jk->...k", ["[...]", "[3,4]"], "[...]"),
    ("...i,...i,k->...k", ["[2,3]", "[...]", "[5]"], "[...]"),
    ("ij...,...ij->...", ["[2,3]", "[4,2,3]"], "[4]"),
    ("ij,jk->ik", ["[2,1]", "[3,4]"], "[2,4]"),
    ("ii", ["[3,3]"], "[3,3]"),
])  # fmt: skip
def test_partial_shapes(equation, shapes, expected):
    params = [parameter(s, name=f"x{i}") for i, s in enumerate(shapes)]
    node = opset7.einsum(params, equation)
    check_shapes(node)
    assert str(node.get_output_partial_shape(0)) == expected


KERNEL_CASES = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("...ij,...jk->...ik", [(2, 1, 2, 3), (5, 3, 4)]),
    ("ii->i", [(3, 3)]),
    ("iij->ij", [(3, 3, 2)]),
    ("ij->", [(4, 5)]),
    ("ij->ji", [(2, 3)]),
    ("i,j->ij", [(3,), (4,)]),
    ("...i->i", [(2, 4, 3)]),
    ("a...b,b...->a...", [(2, 3, 4), (4, 3)]),
    ("ab,bc,cd->ad", [(2, 3), (3, 4), (4, 5)]),
    ("Bj,jA", [(2, 3), (3, 4)]),
    ("ij,jk->ik", [(2, 1), (3, 4)]),
    ("abcd,cd->ab", [(2, 3, 4, 5), (4, 5)]),
    ("ij,ij->i", [(3, 4), (1, 4)]),
]


@pytest.mark.parametrize("etype", ["f32", "i32"])
@pytest.mark.parametrize("equation, shapes", KERNEL_CASES)
def test_kernel_matches_cpu_plugin(equation, shapes, etype):
    rng = np.random.default_rng(len(equation))
    dtype = np.float32 if etype == "f32" else np.int32
    arrays = [(rng.normal(size=s) * 3).astype(dtype) for s in shapes]
    params = [parameter(s, etype, name=f"x{i}") for i, s in enumerate(shapes)]
    model = model_of(opset7.einsum(params, equation))
    feed = {f"x{i}": a for i, a in enumerate(arrays)}
    got, expected = run_irrun(model, feed)[0], run_openvino(model, feed)[0]
    assert got.dtype == dtype and got.shape == expected.shape
    if etype == "f32":
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    else:
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("equation, shapes", [("bhqd,bhkd->bhqk", [(1, 2, 16, 8), (1, 2, 16, 8)]),
                                              ("...ij,jk", [(2, 3, 4), (4, 5)])])  # fmt: skip
def test_f16_computes_in_f32_and_rounds_once(equation, shapes):
    rng = np.random.default_rng(1)
    arrays = [rng.normal(size=s).astype(np.float16) for s in shapes]
    params = [parameter(s, "f16", name=f"x{i}") for i, s in enumerate(shapes)]
    model = model_of(opset7.einsum(params, equation))
    feed = {f"x{i}": a for i, a in enumerate(arrays)}
    got = run_irrun(model, feed)[0]
    assert got.dtype == np.float16
    cpu = run_openvino(model, feed)[0].astype(np.float32)
    np.testing.assert_allclose(got.astype(np.float32), cpu, rtol=1e-3, atol=1e-3)  # f16 ulps
    expected = np.einsum(equation, *(a.astype(np.float32) for a in arrays)).astype(np.float16)
    np.testing.assert_array_equal(got, expected)


def test_implicit_output_is_sorted_with_capitals_first():
    assert parse_equation("Bj,jA")[1] == ["A", "B"]
    assert parse_equation("...ij,jk")[1] == ["...", "i", "k"]
    assert parse_equation("ii")[1] == ["i", "i"]  # repeated within one input: kept


def _net(equation, shapes, out_dims):
    net = Net()
    params = [net.param(f"x{i}", s) for i, s in enumerate(shapes)]
    net.result(net.op("e", "Einsum", "opset7", {"equation": equation}, params, out_dims))
    return net


@pytest.mark.parametrize("equation, shapes, code, fragment, line", [
    ("ij,jk->ik", ["2,3", "4,5"], "input-dims", "label 'j' is 3 before input 1 and 4 in it",
     '<port id="1"'),
    ("ij->k", ["2,3"], "input-dims", "output label 'k' is in no input subscript", None),
    ("ij,j->i", ["2,3"], "input-dims", "2 input subscripts for 1 inputs", None),
    ("ij->i", ["2,3,4"], "input-dims", "has rank 3, but its subscript 'ij' needs rank 2",
     '<port id="0"'),
    ("ii->i", ["2,3"], "input-dims", "label 'i' repeated in input 0 [2,3] has the dims 2 and 3",
     '<port id="0"'),
    ("i1->i", ["2,3"], "attribute-value", "has '1' at position 1", "<data"),
    ("......->...", ["2,3"], "attribute-value", "has '.' at position 3", "<data"),
])  # fmt: skip
def test_refusals_are_reported(equation, shapes, code, fragment, line):
    params = [parameter([int(d) for d in s.split(",")]) for s in shapes]
    check_rejected(lambda: opset7.einsum(params, equation))
    net = _net(equation, shapes, [2])
    (error,) = validated(net).errors
    assert error.code == code and fragment in error.message, error.message
    if line is not None:
        assert error.line == line_of(net.text(), line, within="e")


def test_boolean_inputs_are_reported():
    check_rejected(lambda: opset7.einsum([parameter([2, 3], "boolean")], "ij->i"))
    net = Net()
    out = net.op("e", "Einsum", "opset7", {"equation": "ij->i"},
                 [net.param("x", "2,3", "boolean")], [2])  # fmt: skip
    net.result(out)
    (error,) = validated(net).errors
    assert error.code == "input-type" and "must be numeric" in error.message
