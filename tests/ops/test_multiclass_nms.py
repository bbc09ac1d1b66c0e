"""MulticlassNms-8/9: shapes against OpenVINO (both input forms, every limit), kernel against
the CPU plugin (every sort, thresholds, eta, background class, the roisnum form), reported
errors."""

from __future__ import annotations

import numpy as np
import openvino.opset8 as opset8
import openvino.opset9 as opset9
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irrun.element_types import element_type
from irrun.errors import IRError
from irrun.ops.base import TensorInfo
from irrun.ops.multiclass_nms import MulticlassNms9
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

OPSETS = {8: opset8, 9: opset9}
LIMITS = st.sampled_from([-1, -1, 0, 2, 5, 40])


@op_settings(40)
@given(st.sampled_from([8, 9]), st.data(), LIMITS, LIMITS, st.sampled_from([-1, 0, 2]),
       st.sampled_from(["i32", "i64"]), st.sampled_from(["f32", "f16"]))  # fmt: skip
def test_multiclass_nms_shapes_match_openvino(version, data, nms_top_k, keep_top_k, background,
                                              output_type, etype):  # fmt: skip
    images, classes, count = (data.draw(st.integers(0, 4)) for _ in range(3))
    boxes = parameter(data.draw(shape_around([images, count, 4])), etype, name="b")
    scores = parameter(data.draw(shape_around([images, classes, count])), etype, name="s")
    node = built(lambda: OPSETS[version].multiclass_nms(
        boxes, scores, nms_top_k=nms_top_k, keep_top_k=keep_top_k, background_class=background,
        output_type=output_type))  # fmt: skip
    check_shapes(node)


@op_settings(30)
@given(st.data(), LIMITS, LIMITS, st.sampled_from(["i32", "i64"]))
def test_multiclass_nms_9_roisnum_shapes_match_openvino(data, nms_top_k, keep_top_k, rois_type):
    classes, count, images = (data.draw(st.integers(0, 4)) for _ in range(3))
    boxes = parameter(data.draw(shape_around([classes, count, 4])), name="b")
    scores = parameter(data.draw(shape_around([classes, count])), name="s")
    rois = parameter(data.draw(shape_around([images])), rois_type, name="r")
    node = built(lambda: opset9.multiclass_nms(boxes, scores, rois, nms_top_k=nms_top_k,
                                               keep_top_k=keep_top_k))  # fmt: skip
    check_shapes(node)


def _inputs(images=2, classes=4, count=30, seed=3):
    rng = np.random.default_rng(seed)
    centers = rng.uniform(0, 6, (images, 4, 2))
    picks = rng.integers(0, 4, (images, count))
    middle = np.take_along_axis(centers, picks[..., None], axis=1)
    middle = middle + rng.normal(0, 0.6, (images, count, 2))
    size = rng.uniform(1, 3, (images, count, 2))
    boxes = np.concatenate([middle - size / 2, middle + size / 2], axis=-1).astype(np.float32)
    scores = rng.uniform(0, 1, (images, classes, count)).astype(np.float32)
    return boxes, scores


CASES = [
    {"iou_threshold": 0.5},
    {"iou_threshold": 0.4, "score_threshold": 0.3, "nms_top_k": 10, "keep_top_k": 15},
    {"iou_threshold": 0.7, "nms_eta": 0.8, "background_class": 1, "normalized": False},
    {"iou_threshold": 0.5, "sort_result_type": "classid"},
    {"iou_threshold": 0.5, "sort_result_type": "score", "sort_result_across_batch": True},
    {"iou_threshold": 0.5, "sort_result_type": "classid", "sort_result_across_batch": True,
     "keep_top_k": 7},
    {"iou_threshold": 0.6, "sort_result_type": "none", "sort_result_across_batch": True,
     "output_type": "i32"},
]  # fmt: skip


def _check_same(got, expected):
    for g, e in zip(got, expected):
        assert g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_array_equal(g, e)


@pytest.mark.parametrize("version", [8, 9])
@pytest.mark.parametrize("attributes", CASES)
def test_multiclass_nms_matches_cpu_plugin_exactly(version, attributes):
    boxes, scores = _inputs()
    node = OPSETS[version].multiclass_nms(
        parameter([2, 30, 4], name="b"), parameter([2, 4, 30], name="s"), **attributes
    )
    feed = {"b": boxes, "s": scores}
    _check_same(run_irrun(model_of(node), feed), run_openvino(model_of(node), feed))


@pytest.mark.parametrize("attributes", CASES[:4])
def test_multiclass_nms_9_roisnum_form_matches_cpu_plugin_exactly(attributes):
    """Each class with its own boxes; image 1 has no ROI."""
    boxes, _ = _inputs(images=1, count=60, seed=5)
    per_class = boxes.repeat(3, axis=0) + np.arange(3, dtype=np.float32)[:, None, None] * 0.3
    scores = np.random.default_rng(1).uniform(0, 1, (3, 60)).astype(np.float32)
    node = opset9.multiclass_nms(parameter([3, 60, 4], name="b"), parameter([3, 60], name="s"),
                                 parameter([3], "i32", name="r"), **attributes)  # fmt: skip
    feed = {"b": per_class, "s": scores, "r": np.array([25, 0, 35], np.int32)}
    got = run_irrun(model_of(node), feed)
    _check_same(got, run_openvino(model_of(node), feed))
    assert got[2][1] == 0


def test_multiclass_nms_of_f16_matches_cpu_plugin_exactly():
    boxes, scores = _inputs(seed=8)
    node = opset8.multiclass_nms(
        parameter([2, 30, 4], "f16", name="b"),
        parameter([2, 4, 30], "f16", name="s"),
        iou_threshold=0.5,
    )
    feed = {"b": boxes.astype(np.float16), "s": scores.astype(np.float16)}
    _check_same(run_irrun(model_of(node), feed), run_openvino(model_of(node), feed))


def test_multiclass_nms_score_at_the_threshold_meets_only_the_last_kept_box():
    """The reference's early break: a box scoring exactly score_threshold is compared with the
    last kept box only, so it survives an overlap with an earlier one."""
    boxes = np.array([[[0, 0, 2, 2], [5, 5, 7, 7], [0, 0, 2, 2.1]]], np.float32)
    scores = np.array([[[0.9, 0.8, 0.5]]], np.float32)
    op = bare_op(MulticlassNms9, {"iou_threshold": "0.5", "score_threshold": "0.5"})
    outputs, indices, valid = op.evaluate([boxes, scores])
    assert indices.reshape(-1).tolist() == [0, 1, 2] and valid.tolist() == [3]
    op.score_threshold = 0.4
    assert op.evaluate([boxes, scores])[1].reshape(-1).tolist() == [0, 1]


def test_multiclass_nms_invalid_inputs_are_rejected_and_reported():
    b, s = parameter([2, 10, 4], name="b"), parameter([2, 3, 10], name="s")
    check_rejected(lambda: opset8.multiclass_nms(b, s, nms_top_k=-2))
    check_rejected(lambda: opset8.multiclass_nms(b, s, nms_eta=1.5))
    check_rejected(lambda: opset8.multiclass_nms(b, parameter([2, 3, 9])))
    check_rejected(lambda: opset8.multiclass_nms(b, parameter([2, 3, 10], "f16")))
    check_rejected(lambda: opset9.multiclass_nms(parameter([3, 10, 4]), parameter([3, 10]),
                                                 parameter([2], "f32")))  # fmt: skip
    op = bare_op(MulticlassNms9, {})
    f32 = element_type("f32")
    with pytest.raises(IRError, match=r"dim 1 and scores \[2,3,9\] dim 2 must both be the box"):
        op.infer([TensorInfo(Shape([2, 10, 4]), f32), TensorInfo(Shape([2, 3, 9]), f32)])
    with pytest.raises(IRError, match=r"scores must have rank 2, but its shape is \[3,10,1\]"):
        op.infer([TensorInfo(Shape([3, 10, 4]), f32), TensorInfo(Shape([3, 10, 1]), f32),
                  TensorInfo(Shape([2]), element_type("i32"))])  # fmt: skip
    with pytest.raises(IRError, match="roisnum must be i32 or i64, but input 2 is u8"):
        op.infer([TensorInfo(Shape([3, 10, 4]), f32), TensorInfo(Shape([3, 10]), f32),
                  TensorInfo(Shape([2]), element_type("u8"))])  # fmt: skip
    model = model_of(opset9.multiclass_nms(b, s, nms_eta=1.0))
    report, text = edited_report(model, lambda t: t.replace('nms_eta="1"', 'nms_eta="2"'))
    found = diagnostic(report, "attribute-value")
    assert "nms_eta 2.0 must lie in [0, 1]" in found.message
    assert found.line == first_line_with(text, 'nms_eta="2"')
