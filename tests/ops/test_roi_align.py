"""ROIAlign-3 and ROIAlign-9: shapes against OpenVINO, kernel against the CPU plugin (every
mode and aligned mode, per-ROI sample counts), the reference's empty bins, reported errors."""

from __future__ import annotations

import numpy as np
import openvino.opset3 as opset3
import openvino.opset9 as opset9
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irrun.element_types import element_type
from irrun.errors import IRError
from irrun.ops.base import TensorInfo
from irrun.ops.roi_align import ROIAlign9
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


def _roi_align(version, data, rois, indices, pooled_h=2, pooled_w=3, ratio=2, scale=0.5,
               mode="avg", aligned="asymmetric"):  # fmt: skip
    if version == 3:
        return opset3.roi_align(data, rois, indices, pooled_h, pooled_w, ratio, scale, mode)
    return opset9.roi_align(data, rois, indices, pooled_h, pooled_w, ratio, scale, mode, aligned)


@op_settings(40)
@given(
    st.sampled_from([3, 9]),
    st.data(),
    st.integers(0, 4),
    st.integers(1, 4),
    st.sampled_from(["f32", "f16"]),
    st.sampled_from(["i32", "i64", "u8"]),
)
def test_roi_align_shapes_match_openvino(version, data, pooled_h, pooled_w, etype, index_type):
    count = data.draw(st.integers(0, 5))
    feature = parameter(data.draw(shape_around([2, 3, 8, 8])), etype, name="d")
    rois = parameter(data.draw(shape_around([count, 4])), etype, name="r")
    indices = parameter(data.draw(shape_around([count])), index_type, name="b")
    node = built(lambda: _roi_align(version, feature, rois, indices, pooled_h, pooled_w))
    check_shapes(node)


def _inputs(count=9, seed=0, negative=True):
    rng = np.random.default_rng(seed)
    data = rng.normal(size=(2, 3, 10, 12)).astype(np.float32)
    corner = rng.uniform(-2, 26, (count, 2))
    size = rng.uniform(-3 if negative else 0.5, 18, (count, 2))
    rois = np.concatenate([corner, corner + size], axis=1).astype(np.float32)
    indices = rng.integers(0, 2, count).astype(np.int32)
    return data, rois, indices


def _model(version, count, **attributes):
    node = _roi_align(version, parameter([2, 3, 10, 12], name="d"), parameter([count, 4], name="r"),
                      parameter([count], "i32", name="b"), **attributes)  # fmt: skip
    return model_of(node)


CASES = [(3, "asymmetric")] + [(9, mode) for mode in ("asymmetric", "half_pixel_for_nn",
                                                      "half_pixel")]  # fmt: skip


@pytest.mark.parametrize("version, aligned", CASES)
@pytest.mark.parametrize("mode", ["avg", "max"])
@pytest.mark.parametrize("ratio, pooled", [(0, (3, 4)), (2, (2, 3)), (1, (1, 1))])
def test_roi_align_matches_cpu_plugin(version, aligned, mode, ratio, pooled):
    """Within rtol=1e-5, atol=1e-5; ratio 0 gives every ROI its own sample counts. ROIs with a
    zero sample count are left out here: the reference gives 0 there (tested below), the CPU
    plugin 0/0 in avg mode."""
    data, rois, indices = _inputs(negative=ratio != 0 or aligned == "asymmetric")
    model = _model(version, len(rois), pooled_h=pooled[0], pooled_w=pooled[1], ratio=ratio,
                   mode=mode, aligned=aligned)  # fmt: skip
    feed = {"d": data, "r": rois, "b": indices}
    got, expected = run_irrun(model, feed)[0], run_openvino(model, feed)[0]
    assert got.shape == expected.shape == (len(rois), 3, *pooled)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


def test_roi_align_of_f16_matches_cpu_plugin():
    data, rois, indices = _inputs(seed=2)
    node = _roi_align(9, parameter([2, 3, 10, 12], "f16", name="d"),
                      parameter([9, 4], "f16", name="r"), parameter([9], "i64", name="b"),
                      mode="avg", aligned="half_pixel")  # fmt: skip
    feed = {"d": data.astype(np.float16), "r": rois.astype(np.float16),
            "b": indices.astype(np.int64)}  # fmt: skip
    got, expected = run_irrun(model_of(node), feed)[0], run_openvino(model_of(node), feed)[0]
    assert got.dtype == np.float16
    np.testing.assert_allclose(got.astype(np.float32), expected.astype(np.float32), rtol=2e-3,
                               atol=2e-3)  # fmt: skip


def test_roi_align_follows_the_reference_on_edges():
    """max starts from 0 (negative samples give 0); a ROI of zero size in an aligned mode has
    no sample with ratio 0 and gives 0; a sample beyond the map counts as 0."""
    data = -np.ones((1, 1, 4, 4), np.float32)
    op = bare_op(
        ROIAlign9,
        {
            "pooled_h": "1",
            "pooled_w": "1",
            "sampling_ratio": "0",
            "spatial_scale": "1",
            "mode": "max",
            "aligned_mode": "half_pixel",
        },
    )
    rois = np.array([[0, 0, 3, 3], [1, 1, 1, 1]], np.float32)
    assert op.evaluate([data, rois, np.zeros(2, np.int64)])[0].reshape(-1).tolist() == [0, 0]
    op.mode = "avg"
    got = op.evaluate([data + 2, rois, np.zeros(2, np.int64)])[0].reshape(-1).tolist()
    assert got == [1.0, 0.0]
    outside = np.array([[10, 10, 12, 12]], np.float32)
    assert op.evaluate([data + 2, outside, np.zeros(1, np.int64)])[0].item() == 0.0


def test_roi_align_bad_batch_index_is_an_error_when_run():
    data, rois, indices = _inputs()
    indices[3] = 2
    with pytest.raises(Exception, match=r"batch index 2 \(ROI 3\) is outside \[0, 2\)"):
        run_irrun(_model(9, len(rois)), {"d": data, "r": rois, "b": indices})


def test_roi_align_invalid_inputs_are_rejected_and_reported():
    d, r, b = parameter([2, 3, 8, 8], name="d"), parameter([5, 4], name="r"), parameter(
        [5], "i32", name="b")  # fmt: skip
    check_rejected(lambda: _roi_align(9, parameter([2, 3, 8], name="d"), r, b))
    check_rejected(lambda: _roi_align(9, d, parameter([5, 5], name="r"), b))
    check_rejected(lambda: _roi_align(9, d, r, parameter([4], "i32", name="b")))
    check_rejected(lambda: _roi_align(9, d, parameter([5, 4], "f16", name="r"), b))
    check_rejected(lambda: _roi_align(9, d, r, parameter([5], "f32", name="b")))
    check_rejected(lambda: _roi_align(9, parameter([2, 3, 8, 8], "i32"),
                                      parameter([5, 4], "i32"), b))  # fmt: skip
    op = bare_op(ROIAlign9, {"pooled_h": "2", "pooled_w": "2", "sampling_ratio": "2",
                             "spatial_scale": "1", "mode": "avg"})  # fmt: skip
    f32, i32 = element_type("f32"), element_type("i32")
    info = TensorInfo
    with pytest.raises(IRError, match=r"data must have rank 4 \(\[N, C, H, W\]\)"):
        op.infer([info(Shape([2, 3, 8]), f32), info(Shape([5, 4]), f32), info(Shape([5]), i32)])
    with pytest.raises(IRError, match=r"each ROI must have 4 numbers .* has 5"):
        op.infer([info(Shape([2, 3, 8, 8]), f32), info(Shape([5, 5]), f32),
                  info(Shape([5]), i32)])  # fmt: skip
    with pytest.raises(IRError, match="must have one dim 0 .* but they have 5 and 4"):
        op.infer([info(Shape([2, 3, 8, 8]), f32), info(Shape([5, 4]), f32),
                  info(Shape([4]), i32)])  # fmt: skip
    with pytest.raises(IRError, match="data and rois must have one floating-point type"):
        op.infer([info(Shape([2, 3, 8, 8]), f32), info(Shape([5, 4]), element_type("f16")),
                  info(Shape([5]), i32)])  # fmt: skip
    with pytest.raises(IRError, match="batch_indices must be an integer tensor"):
        op.infer([info(Shape([2, 3, 8, 8]), f32), info(Shape([5, 4]), f32),
                  info(Shape([5]), f32)])  # fmt: skip


def test_roi_align_bad_attribute_names_the_line():
    report, text = edited_report(
        _model(9, 4), lambda t: t.replace('aligned_mode="asymmetric"', 'aligned_mode="half"')
    )
    found = diagnostic(report, "attribute-value")
    assert "aligned_mode='half' is not one of asymmetric, half_pixel_for_nn, half_pixel" in (
        found.message)  # fmt: skip
    assert found.line == first_line_with(text, 'aligned_mode="half"')
    report, _ = edited_report(
        _model(3, 4), lambda t: t.replace('mode="avg"', 'mode="avg" aligned_mode="half_pixel"')
    )
    assert (
        "aligned_mode exists only in ROIAlign-9" in diagnostic(report, "unknown-attribute").message
    )
