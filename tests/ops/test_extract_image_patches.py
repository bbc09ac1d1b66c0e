"""ExtractImagePatches-3: shapes against OpenVINO (every auto_pad, interval and dynamic dims),
values against the CPU plugin (exact), reported errors."""

from __future__ import annotations

import numpy as np
import openvino.opset3 as opset3
import pytest
from hypothesis import given
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
    built,
    diagnostic,
    dim_text,
    edited_report,
    first_line_with,
    op_settings,
    shape_text,
)

PAIR = st.lists(st.integers(1, 3), min_size=2, max_size=2)


@op_settings(40)
@given(shape_text(dim_text(st.integers(0, 9)), min_rank=4, max_rank=4), PAIR, PAIR, PAIR,
       st.sampled_from(["valid", "same_upper", "same_lower"]))  # fmt: skip
def test_extract_image_patches_shapes_match_openvino(shape, sizes, strides, rates, auto_pad):
    node = built(lambda: opset3.extract_image_patches(parameter(shape), sizes, strides, rates,
                                                      auto_pad))  # fmt: skip
    check_shapes(node)


@pytest.mark.parametrize("auto_pad", ["valid", "same_upper", "same_lower"])
@pytest.mark.parametrize(
    "shape, sizes, strides, rates",
    [
        ([1, 1, 10, 10], [3, 3], [5, 5], [1, 1]),
        ([2, 3, 7, 8], [2, 3], [2, 1], [2, 1]),
        ([1, 2, 5, 6], [3, 2], [3, 4], [1, 2]),
        ([1, 1, 2, 2], [3, 3], [1, 1], [1, 1]),
    ],  # fmt: skip
)
@pytest.mark.parametrize("etype, dtype", [("f32", np.float32), ("i32", np.int32)])
def test_extract_image_patches_matches_cpu_plugin(shape, sizes, strides, rates, auto_pad, etype,
                                                  dtype):  # fmt: skip
    data = (np.arange(int(np.prod(shape))).reshape(shape) + 1).astype(dtype)
    model = model_of(opset3.extract_image_patches(parameter(shape, etype, name="x"), sizes,
                                                  strides, rates, auto_pad))  # fmt: skip
    expected = run_openvino(model, {"x": data})[0]
    got = run_irrun(model, {"x": data})[0]
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)


def test_extract_image_patches_errors_are_reported():
    x = parameter([1, 2, 5, 5], name="x")
    check_rejected(lambda: opset3.extract_image_patches(parameter([1, 2, 3]), [2, 2], [1, 1],
                                                        [1, 1], "valid"))  # fmt: skip
    check_rejected(lambda: opset3.extract_image_patches(x, [2, 2, 1], [1, 1], [1, 1], "valid"))
    check_rejected(lambda: opset3.extract_image_patches(x, [2, 2], [0, 1], [1, 1], "valid"))
    check_rejected(lambda: opset3.extract_image_patches(x, [2, 2], [1, 1], [1, 1], "explicit"))
    model = model_of(opset3.extract_image_patches(x, [2, 2], [1, 1], [1, 1], "valid"))
    report, text = edited_report(model, lambda t: t.replace('strides="1, 1"', 'strides="0, 1"'))
    found = diagnostic(report, "attribute-value")
    assert "strides=0,1 must be two values > 0 (rows, cols)" in found.message
    assert found.line == first_line_with(text, 'strides="0, 1"')
    report, text = edited_report(model, lambda t: t.replace('auto_pad="valid"',
                                                            'auto_pad="explicit"'))  # fmt: skip
    found = diagnostic(report, "attribute-value")
    assert "auto_pad='explicit' is not one of valid, same_upper, same_lower" in found.message
