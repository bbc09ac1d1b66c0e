"""ROIAlignRotated-15: shapes against OpenVINO, values against the CPU plugin
(``rtol=1e-5, atol=1e-5``), reported errors."""

from __future__ import annotations

import numpy as np
import openvino.opset15 as opset15
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irrun.element_types import element_type
from irrun.errors import IRError
from irrun.ops.base import TensorInfo
from irrun.ops.roi_align_rotated import ROIAlignRotated
from irrun.shape import Shape
from tests.helpers.openvino_oracle import check_shapes, model_of, parameter, run_irrun, run_openvino
from tests.helpers.strategies import bare_op, built, dim_around, op_settings

_ATTRIBUTES = {"pooled_h": "2", "pooled_w": "3", "sampling_ratio": "2", "spatial_scale": "1"}


@op_settings(40)
@given(
    st.integers(0, 4), st.integers(1, 3), st.integers(0, 3), st.integers(0, 4),
    st.sampled_from(["f32", "f16"]), st.sampled_from(["i32", "i64"]), st.data(),
)  # fmt: skip
def test_roi_align_rotated_shapes_match_openvino(rois, channels, pooled_h, pooled_w, etype,
                                                 index_type, data):  # fmt: skip
    data_shape = "[" + ",".join(data.draw(dim_around(s)) for s in (2, channels, 8, 8)) + "]"
    rois_shape = "[" + ",".join(data.draw(dim_around(s)) for s in (rois, 5)) + "]"
    index_shape = "[" + data.draw(dim_around(rois)) + "]"
    params = [parameter(data_shape, etype, name="x"), parameter(rois_shape, etype, name="r"),
              parameter(index_shape, index_type, name="b")]  # fmt: skip
    check_shapes(built(lambda: opset15.roi_align_rotated(*params, pooled_h, pooled_w, 2, 0.5,
                                                         True)))  # fmt: skip


def _rois(count, seed, size=16):
    rng = np.random.default_rng(seed)
    centres = rng.uniform(-2, size + 2, (count, 2))
    sizes = rng.uniform(0.5, size * 0.8, (count, 2))
    angles = rng.uniform(-np.pi, np.pi, (count, 1))
    return np.concatenate([centres, sizes, angles], axis=1).astype(np.float32)


@pytest.mark.parametrize("clockwise", [False, True])
@pytest.mark.parametrize(
    "rois, pooled_h, pooled_w, ratio, scale",
    [(6, 2, 3, 2, 1.0), (9, 4, 4, 0, 0.5), (5, 1, 5, 3, 2.0), (7, 3, 2, 0, 1.0)],
)
def test_roi_align_rotated_matches_cpu_plugin(rois, pooled_h, pooled_w, ratio, scale, clockwise):
    rng = np.random.default_rng(rois)
    data = rng.normal(size=(2, 3, 16, 16)).astype(np.float32)
    boxes = _rois(rois, seed=rois * 7, size=int(16 / scale))
    indices = rng.integers(0, 2, rois).astype(np.int32)
    params = [parameter(list(data.shape), "f32", name="x"), parameter([rois, 5], "f32", name="r"),
              parameter([rois], "i32", name="b")]  # fmt: skip
    node = opset15.roi_align_rotated(*params, pooled_h, pooled_w, ratio, scale, clockwise)
    model = model_of(node)
    feed = {"x": data, "r": boxes, "b": indices}
    (expected,) = run_openvino(model, feed)
    (got,) = run_irrun(model, feed)
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


def test_an_unrotated_box_averages_its_samples():
    data = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    # centre (2, 2) - 0.5 = pixel 1.5: a 2x2 box over pixels 1 and 2 of rows 1 and 2
    rois = np.array([[2, 2, 2, 2, 0]], np.float32)
    op = bare_op(ROIAlignRotated, {"pooled_h": "1", "pooled_w": "1", "sampling_ratio": "1",
                                   "spatial_scale": "1"})  # fmt: skip
    (out,) = op.evaluate([data, rois, np.array([0])])
    assert out.tolist() == [[[[7.5]]]]


def test_roi_align_rotated_reports_rois_of_4_numbers():
    f32 = element_type("f32")
    infos = [TensorInfo(Shape.parse("1,3,8,8"), f32), TensorInfo(Shape.parse("4,4"), f32),
             TensorInfo(Shape.parse("4"), element_type("i32"))]  # fmt: skip
    with pytest.raises(IRError, match=r"each ROI must have 5 numbers \(\[num_rois, 5\]\)"):
        bare_op(ROIAlignRotated, _ATTRIBUTES).infer(infos)


def test_roi_align_rotated_reports_a_batch_index_out_of_range():
    op = bare_op(ROIAlignRotated, _ATTRIBUTES)
    data = np.zeros((2, 1, 4, 4), np.float32)
    with pytest.raises(ValueError, match=r"batch index 2 \(ROI 0\) is outside \[0, 2\)"):
        op.evaluate([data, np.ones((1, 5), np.float32), np.array([2])])
