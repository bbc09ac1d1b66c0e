"""ROIPooling-2: shapes against OpenVINO, max and bilinear kernels against the CPU plugin,
reported errors."""

from __future__ import annotations

import numpy as np
import openvino.opset2 as opset2
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irrun.element_types import element_type
from irrun.errors import IRError
from irrun.ops.base import TensorInfo
from irrun.ops.roi_pooling import ROIPooling
from irrun.shape import Shape
from tests.helpers.openvino_oracle import (
    check_rejected,
    check_shapes,
    model_of,
    parameter,
    run_irrun,
    run_openvino,
)
from tests.helpers.strategies import (
    bare_op,
    built,
    diagnostic,
    edited_report,
    first_line_with,
    op_settings,
    shape_around,
)


@op_settings(40)
@given(st.data(), st.integers(1, 4), st.integers(1, 4), st.sampled_from(["max", "bilinear"]),
       st.sampled_from(["f32", "f16"]))  # fmt: skip
def test_roi_pooling_shapes_match_openvino(data, pooled_h, pooled_w, method, etype):
    feature = parameter(data.draw(shape_around([2, 3, 8, 8])), etype, name="d")
    rois = parameter(data.draw(shape_around([data.draw(st.integers(0, 5)), 5])), etype, name="r")
    node = built(lambda: opset2.roi_pooling(feature, rois, [pooled_h, pooled_w], 0.5, method))
    check_shapes(node)


def _inputs(count=9, seed=0, normalised=False):
    rng = np.random.default_rng(seed)
    data = rng.normal(size=(2, 3, 10, 12)).astype(np.float32)
    if normalised:
        corners = rng.uniform(-0.1, 1.1, (count, 4))
    else:
        corner = rng.uniform(-2, 25, (count, 2))
        corners = np.concatenate([corner, corner + rng.uniform(-3, 15, (count, 2))], axis=1)
    ids = rng.integers(0, 2, (count, 1))
    return data, np.concatenate([ids, corners], axis=1).astype(np.float32)


def _model(count, pooled, method, scale=0.5, etype="f32"):
    node = opset2.roi_pooling(
        parameter([2, 3, 10, 12], etype, name="d"),
        parameter([count, 5], etype, name="r"),
        pooled,
        scale,
        method,
    )
    return model_of(node)


@pytest.mark.parametrize("pooled", [(2, 3), (1, 1), (3, 1), (6, 6)])
@pytest.mark.parametrize("scale", [0.5, 1.0])
def test_roi_pooling_max_matches_cpu_plugin_exactly(pooled, scale):
    data, rois = _inputs(seed=pooled[0])
    feed = {"d": data, "r": rois}
    model = _model(len(rois), list(pooled), "max", scale)
    got, expected = run_irrun(model, feed)[0], run_openvino(model, feed)[0]
    assert got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("pooled", [(2, 3), (1, 1), (3, 1), (4, 5)])
def test_roi_pooling_bilinear_matches_cpu_plugin(pooled):
    """Within rtol=1e-5, atol=1e-5 (normalised corners, some outside the map: 0)."""
    data, rois = _inputs(seed=3, normalised=True)
    feed = {"d": data, "r": rois}
    model = _model(len(rois), list(pooled), "bilinear")
    got, expected = run_irrun(model, feed)[0], run_openvino(model, feed)[0]
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


def test_roi_pooling_of_f16_matches_cpu_plugin():
    data, rois = _inputs(seed=4)
    feed = {"d": data.astype(np.float16), "r": rois.astype(np.float16)}
    model = _model(len(rois), [3, 3], "max", etype="f16")
    got, expected = run_irrun(model, feed)[0], run_openvino(model, feed)[0]
    assert got.dtype == np.float16
    np.testing.assert_array_equal(got, expected)


def test_roi_pooling_rounds_half_away_from_zero_and_fills_empty_bins_with_zero():
    op = bare_op(ROIPooling, {"pooled_h": "1", "pooled_w": "1", "spatial_scale": "0.5"})
    data = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    # x 2.5 * 0.5 = 1.25 rounds to 1, 5 * 0.5 = 2.5 rounds to 3 (half away from zero)
    rois = np.array([[0, 0, 0, 2.5, 5], [0, 20, 20, 30, 30]], np.float32)
    assert op.evaluate([data, rois])[0].reshape(-1).tolist() == [13.0, 0.0]
    with pytest.raises(ValueError, match=r"ROI 0 has batch id 1.0, outside \[0, 1\)"):
        op.evaluate([data, np.array([[1, 0, 0, 1, 1]], np.float32)])


def test_roi_pooling_invalid_inputs_are_rejected_and_reported():
    d, r = parameter([2, 3, 8, 8], name="d"), parameter([5, 5], name="r")
    check_rejected(lambda: opset2.roi_pooling(d, parameter([5, 4]), [2, 2], 0.5))
    check_rejected(lambda: opset2.roi_pooling(parameter([2, 3, 8]), r, [2, 2], 0.5))
    check_rejected(lambda: opset2.roi_pooling(d, parameter([5, 5], "f16"), [2, 2], 0.5))
    check_rejected(lambda: opset2.roi_pooling(d, r, [0, 2], 0.5))
    check_rejected(lambda: opset2.roi_pooling(d, r, [2, 2], 0.0))
    op = bare_op(ROIPooling, {"pooled_h": "2", "pooled_w": "2", "spatial_scale": "1"})
    f32 = element_type("f32")
    with pytest.raises(IRError, match=r"each ROI must have 5 numbers .* has 4"):
        op.infer([TensorInfo(Shape([2, 3, 8, 8]), f32), TensorInfo(Shape([5, 4]), f32)])
    with pytest.raises(IRError, match="must have one element type, but they are f32 and f16"):
        op.infer([TensorInfo(Shape([2, 3, 8, 8]), f32),
                  TensorInfo(Shape([5, 5]), element_type("f16"))])  # fmt: skip
    with pytest.raises(IRError, match="the ROIs must be a floating-point tensor"):
        op.infer([TensorInfo(Shape([2, 3, 8, 8]), f32),
                  TensorInfo(Shape([5, 5]), element_type("i32"))])  # fmt: skip
    report, text = edited_report(
        _model(4, [2, 2], "max"), lambda t: t.replace('spatial_scale="0.5"', 'spatial_scale="0"')
    )
    found = diagnostic(report, "attribute-value")
    assert "spatial_scale 0.0 is not a positive number" in found.message
    assert found.line == first_line_with(text, 'spatial_scale="0"')
    report, _ = edited_report(
        _model(4, [2, 2], "max"), lambda t: t.replace('method="max"', 'method="avg"')
    )
    assert (
        "method='avg' is not one of max, bilinear" in diagnostic(report, "attribute-value").message
    )
