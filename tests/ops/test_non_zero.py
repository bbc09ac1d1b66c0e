"""NonZero-3: shapes against OpenVINO (intervals from the data's bounds, folded constants),
kernel against the CPU plugin, reported errors."""

from __future__ import annotations

import numpy as np
import openvino.opset3 as ops
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irrun.element_types import element_type
from tests.helpers.ir_text import Net
from tests.helpers.openvino_oracle import (
    check_rejected,
    check_shapes,
    constant,
    model_of,
    parameter,
    run_irrun,
    run_openvino,
)
from tests.helpers.strategies import (
    diagnostic,
    dim_text,
    edited_report,
    op_settings,
    shape_text,
    validated,
)


@op_settings(40)
@given(shape_text(dim_text(st.integers(0, 6))), st.sampled_from(["i32", "i64"]),
       st.sampled_from(["f32", "boolean", "u8", "i64"]))  # fmt: skip
def test_non_zero_shapes_match_openvino(shape, output_type, etype):
    check_shapes(ops.non_zero(parameter(shape, etype, name="x"), output_type))


def test_non_zero_of_huge_and_constant_data():
    check_shapes(ops.non_zero(parameter([100000, 100000, 100000], name="x")))
    check_shapes(ops.non_zero(constant(np.array([[0, 1], [2, 0]]))))


@pytest.mark.parametrize("output_type", ["i32", "i64"])
@pytest.mark.parametrize("etype", ["f32", "f16", "i32", "i64", "u8", "boolean"])
@pytest.mark.parametrize("shape", [[7], [3, 4], [2, 3, 4], [2, 0, 3]])
def test_non_zero_matches_cpu_plugin(shape, etype, output_type):
    rng = np.random.default_rng(4)
    data = (rng.integers(0, 3, shape) * rng.integers(0, 2, shape)).astype(
        element_type(etype).numpy_dtype)  # fmt: skip
    model = model_of(ops.non_zero(parameter(shape, etype, name="x"), output_type))
    expected = run_openvino(model, {"x": data})[0]
    got = run_irrun(model, {"x": data})[0]
    assert got.dtype == element_type(output_type).numpy_dtype
    assert got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)


def test_non_zero_of_floats_counts_nan_and_not_negative_zero():
    data = np.array([0.0, -0.0, np.nan, 1.5, np.inf], np.float32)
    model = model_of(ops.non_zero(parameter([5], name="x")))
    got = run_irrun(model, {"x": data})[0]
    assert got.tolist() == [[2, 3, 4]]
    np.testing.assert_array_equal(got, run_openvino(model, {"x": data})[0])


@pytest.mark.parametrize("value, expected", [(0.0, (1, 0)), (3.0, (1, 1))])
def test_non_zero_of_a_scalar(value, expected):
    model = model_of(ops.non_zero(parameter([], name="x")))
    data = np.array(value, np.float32)
    got = run_irrun(model, {"x": data})[0]
    assert got.shape == expected
    np.testing.assert_array_equal(got, run_openvino(model, {"x": data})[0])


def test_non_zero_output_type_must_be_i32_or_i64():
    check_rejected(lambda: ops.non_zero(parameter([2, 3]), "u8"))
    model = model_of(ops.non_zero(parameter([2, 3], name="x"), "i32"))
    report, text = edited_report(
        model, lambda t: t.replace('output_type="i32"', 'output_type="f32"')
    )
    found = diagnostic(report, "attribute-value")
    assert "output_type f32 is not i32 or i64" in found.message
    assert 'output_type="f32"' in text.splitlines()[found.line - 1]


def test_non_zero_misspelt_attribute_is_warned():
    net = Net()
    net.result(net.op("n", "NonZero", "opset3", {"output_typ": "i64"}, [net.param("x", "2,3")],
                      [2, -1], "I64"))  # fmt: skip
    found = diagnostic(validated(net), "unknown-attribute")
    assert found.hint == "did you mean output_type?"
