"""MatMul-1: shapes against OpenVINO, kernel against the CPU plugin, reported errors."""

from __future__ import annotations

import re

import numpy as np
import openvino.opset13 as ops
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from tests.helpers.openvino_oracle import (
    check_rejected,
    check_shapes,
    model_of,
    parameter,
    run_irrun,
    run_openvino,
)
from tests.helpers.strategies import (
    diagnostic,
    edited_report,
    first_line_with,
    op_settings,
    shape_around,
)


@st.composite
def matmul_case(draw):
    batch = draw(st.lists(st.sampled_from([1, 2, 3]), max_size=3))
    m, k, n = (draw(st.integers(1, 4)) for _ in range(3))
    rank_a = draw(st.integers(1, 2 + len(batch)))
    rank_b = draw(st.integers(1, 2 + len(batch)))
    ta, tb = draw(st.booleans()), draw(st.booleans())

    def shape(rank, rows, cols, transpose):
        if rank == 1:
            return [k]
        core = [cols, rows] if transpose else [rows, cols]
        heads = [draw(st.sampled_from([b, 1])) for b in batch][len(batch) - (rank - 2) :]
        return heads + core

    a = shape(rank_a, m, k, ta)
    b = shape(rank_b, k, n, tb)
    if draw(st.booleans()):  # a K mismatch now and then (skipped when OpenVINO refuses it)
        b[-2 if rank_b > 1 and not tb else -1] += draw(st.integers(0, 2))
    texts = [draw(shape_around(dims, dynamic_rank=7, open_intervals=False, max_above=3))
             for dims in (a, b)]  # fmt: skip
    return texts[0], texts[1], ta, tb


@op_settings(40)
@given(matmul_case(), st.sampled_from(["f32", "i32"]))
def test_matmul_shapes_match_openvino(case, etype):
    a_text, b_text, ta, tb = case
    a, b = parameter(a_text, etype, name="a"), parameter(b_text, etype, name="b")
    try:
        node = ops.matmul(a, b, ta, tb)
    except Exception:
        assume(False)
    check_shapes(node)


@pytest.mark.parametrize(
    "a_shape, b_shape, ta, tb",
    [
        ([2, 3], [3, 4], False, False),
        ([3, 2], [3, 4], True, False),
        ([2, 3], [4, 3], False, True),
        ([3, 2], [4, 3], True, True),
        ([5, 2, 3], [3, 4], False, False),
        ([2, 1, 4, 3], [3, 3, 5], False, False),
        ([3], [3, 4], False, False),
        ([2, 3], [3], False, False),
        ([3], [3], True, True),
        ([4, 1, 7, 33], [1, 5, 33, 9], False, False),
        ([1, 128, 64], [1, 64, 128], False, False),
    ],
)
def test_matmul_f32_matches_cpu_plugin(a_shape, b_shape, ta, tb):
    rng = np.random.default_rng(len(a_shape) * 10 + len(b_shape))
    a = rng.standard_normal(a_shape).astype(np.float32)
    b = rng.standard_normal(b_shape).astype(np.float32)
    model = model_of(ops.matmul(parameter(a_shape, name="a"), parameter(b_shape, name="b"), ta, tb))
    expected = run_openvino(model, {"a": a, "b": b})[0]
    got = run_irrun(model, {"a": a, "b": b})[0]
    assert got.dtype == np.float32 and got.shape == expected.shape
    k = a_shape[-2] if ta and len(a_shape) > 1 else a_shape[-1]
    atol = 1e-5 * np.sqrt(k) * np.abs(a).max() * np.abs(b).max()
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=atol)


@pytest.mark.parametrize("etype", ["i32", "f16"])
def test_matmul_other_types_match_cpu_plugin(etype):
    rng = np.random.default_rng(7)
    dtype = {"i32": np.int32, "f16": np.float16}[etype]
    a = rng.integers(-20, 20, (2, 3, 5)).astype(dtype)
    b = rng.integers(-20, 20, (5, 4)).astype(dtype)
    model = model_of(
        ops.matmul(
            parameter([2, 3, 5], etype, name="a"), parameter([5, 4], etype, name="b"), False, False
        )
    )
    expected = run_openvino(model, {"a": a, "b": b})[0]
    got = run_irrun(model, {"a": a, "b": b})[0]
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, expected)  # small integers: exact in f16 too


def test_matmul_inner_dimension_mismatch_is_reported():
    check_rejected(lambda: ops.matmul(parameter([2, 3]), parameter([4, 5]), False, False))
    model = model_of(
        ops.matmul(parameter([2, 3], name="a"), parameter([3, 5], name="b"), False, False)
    )

    def edit(text):  # declare b as [4, 5]
        text = text.replace('shape="3,5"', 'shape="4,5"')
        return re.sub(r"<dim>3</dim>\s*<dim>5</dim>", "<dim>4</dim><dim>5</dim>", text)

    report, text = edited_report(model, edit)
    error = diagnostic(report, "input-dims")
    assert "A [2,3] (transpose_a=false) has K = 3 and B [4,5]" in error.message
    assert "K = 4" in error.message
    assert error.layer_type == "MatMul"


def test_matmul_scalar_input_is_reported():
    check_rejected(lambda: ops.matmul(parameter([]), parameter([3]), False, False))
    model = model_of(ops.matmul(parameter([3], name="a"), parameter([3], name="b"), False, False))

    def edit(text):
        text = text.replace(
            'name="a" type="Parameter" version="opset1">\n\t\t\t<data shape="3"',
            'name="a" type="Parameter" version="opset1">\n\t\t\t<data shape=""',
        )
        return re.sub(
            r'(name="a".*?<port id="0" precision="FP32"[^>]*>)\s*<dim>3</dim>',
            r"\1",
            text,
            count=1,
            flags=re.S,
        )

    report, _ = edited_report(model, edit)
    error = diagnostic(report, "input-rank", only=False)
    assert "scalars are not supported" in error.message, report.to_text()


def test_matmul_misspelt_attribute_is_warned():
    model = model_of(
        ops.matmul(parameter([2, 3], name="a"), parameter([3, 5], name="b"), False, False)
    )
    report, text = edited_report(model, lambda t: t.replace("transpose_b=", "transpose_bb="))
    warning = diagnostic(report, "unknown-attribute")
    assert "transpose_bb" in warning.message
    assert warning.hint == "did you mean transpose_b?"
    assert warning.line == first_line_with(text, "transpose_a=")


def test_matmul_of_two_vectors_is_a_scalar():
    model = model_of(ops.matmul(parameter([3], name="a"), parameter([3], name="b"), False, False))
    got = run_irrun(
        model, {"a": np.array([1, 2, 3], np.float32), "b": np.array([4, 5, 6], np.float32)}
    )[0]
    assert got.shape == () and got.dtype == np.float32 and float(got) == 32.0
