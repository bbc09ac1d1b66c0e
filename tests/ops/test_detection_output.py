"""DetectionOutput-1/8: shapes against OpenVINO (prior and class counts deduced from partial
shapes, every row count rule), kernel against the CPU plugin (both code types, Caffe and MXNet
NMS, shared and per-class boxes, RefineDet's five inputs), reported errors."""

from __future__ import annotations

import numpy as np
import openvino.opset1 as opset1
import openvino.opset8 as opset8
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irrun.element_types import element_type
from irrun.errors import IRError
from irrun.ops.base import TensorInfo
from irrun.ops.detection_output import DetectionOutput8
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
    op_settings,
    shape_around,
)

OPS = {1: opset1, 8: opset8}
BASE = {"keep_top_k": [10], "nms_threshold": 0.45, "top_k": 20, "share_location": True,
        "normalized": True, "background_label_id": 0, "confidence_threshold": 0.05,
        "code_type": "caffe.PriorBoxParameter.CENTER_SIZE"}  # fmt: skip


@op_settings(40)
@given(st.sampled_from([1, 8]), st.data(), st.integers(1, 4), st.integers(1, 5),
       st.integers(1, 3), st.booleans(), st.booleans(), st.booleans(),
       st.sampled_from([[-1], [5], [0]]), st.sampled_from([-1, 3]))  # fmt: skip
def test_detection_output_shapes_match_openvino(version, data, priors, classes, images, shared,
                                                normalized, in_target, keep, top_k):  # fmt: skip
    attributes = {
        **BASE,
        "share_location": shared,
        "normalized": normalized,
        "variance_encoded_in_target": in_target,
        "keep_top_k": keep,
        "top_k": top_k,
    }
    if version == 1:
        attributes["num_classes"] = data.draw(st.sampled_from([classes, classes + 1]))
    locations = 1 if shared else classes
    size = (4 if normalized else 5) * priors
    wrong = data.draw(st.sampled_from([0, 0, 0, 1]))  # sometimes a count that does not fit
    logits = parameter(data.draw(shape_around([images, priors * locations * 4 + wrong])), name="l")
    preds = parameter(data.draw(shape_around([images, priors * classes])), name="c")
    rows = 1 if in_target else 2
    proposals = parameter(data.draw(shape_around([data.draw(st.sampled_from([1, images])), rows,
                                                  size])), name="p")  # fmt: skip
    node = built(lambda: OPS[version].detection_output(logits, preds, proposals, attributes))
    check_shapes(node)


def _priors(count, rng, normalized=True, variances=True, sets=1):
    center = rng.uniform(0.1, 0.9, (sets, count, 2))
    size = rng.uniform(0.05, 0.3, (sets, count, 2))
    boxes = np.concatenate([center - size / 2, center + size / 2], axis=-1)
    if not normalized:
        boxes = np.concatenate([np.zeros((sets, count, 1)), boxes * 300], axis=-1)
    rows = [boxes.reshape(sets, -1)]
    if variances:
        values = np.tile(np.array([0.1, 0.1, 0.2, 0.2]), (sets, count))
        rows.append(np.concatenate([values, np.zeros((sets, rows[0].shape[1] - values.shape[1]))],
                                   axis=1))  # fmt: skip
    return np.stack(rows, axis=1).astype(np.float32)


CASES = [
    {},
    {"keep_top_k": [-1]},
    {"keep_top_k": [-1], "top_k": -1},
    {"code_type": "caffe.PriorBoxParameter.CORNER", "clip_after_nms": True},
    {"share_location": False, "background_label_id": 1},
    {"decrease_label_id": True},
    {"clip_before_nms": True, "keep_top_k": [5]},
    {"normalized": False, "input_height": 300, "input_width": 300},
    {"variance_encoded_in_target": True},
    {"background_label_id": -1, "confidence_threshold": 0.5, "keep_top_k": [50]},
]


@pytest.mark.parametrize("version", [1, 8])
@pytest.mark.parametrize("changes", CASES)
def test_detection_output_matches_cpu_plugin_exactly(version, changes):
    attributes = {**BASE, **changes}
    images, priors, classes = 2, 30, 4
    if version == 1:
        attributes["num_classes"] = classes
    rng = np.random.default_rng(len(changes))
    locations = 1 if attributes["share_location"] else classes
    proposals = _priors(priors, rng, attributes["normalized"],
                        not attributes.get("variance_encoded_in_target", False))  # fmt: skip
    node = OPS[version].detection_output(
        parameter([images, priors * locations * 4], name="l"),
        parameter([images, priors * classes], name="c"),
        parameter(list(proposals.shape), name="p"), attributes)  # fmt: skip
    feed = {"l": (rng.normal(size=(images, priors * locations * 4)) * 0.5).astype(np.float32),
            "c": rng.uniform(0, 1, (images, priors * classes)).astype(np.float32),
            "p": proposals}  # fmt: skip
    got, expected = run_irrun(model_of(node), feed)[0], run_openvino(model_of(node), feed)[0]
    assert got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)


def test_detection_output_refinedet_inputs_match_cpu_plugin_exactly():
    """Five inputs: the priors refined by aux_box_preds, low objectness reads as background."""
    images, priors, classes = 2, 20, 3
    rng = np.random.default_rng(7)
    proposals = _priors(priors, rng)
    attributes = {**BASE, "objectness_score": 0.4}
    node = opset8.detection_output(
        parameter([images, priors * 4], name="l"),
        parameter([images, priors * classes], name="c"),
        parameter(list(proposals.shape), name="p"),
        attributes,
        parameter([images, priors * 2], name="x"),
        parameter([images, priors * 4], name="y"),
    )
    feed = {"l": (rng.normal(size=(images, priors * 4)) * 0.3).astype(np.float32),
            "c": rng.uniform(0, 1, (images, priors * classes)).astype(np.float32),
            "p": proposals, "x": rng.uniform(0, 1, (images, priors * 2)).astype(np.float32),
            "y": (rng.normal(size=(images, priors * 4)) * 0.3).astype(np.float32)}  # fmt: skip
    got, expected = run_irrun(model_of(node), feed)[0], run_openvino(model_of(node), feed)[0]
    np.testing.assert_array_equal(got, expected)


def test_detection_output_marks_the_end_with_minus_one():
    op = bare_op(DetectionOutput8, {"keep_top_k": "5", "nms_threshold": "0.5", "top_k": "-1",
                                    "normalized": "true", "confidence_threshold": "0.5",
                                    "code_type": "caffe.PriorBoxParameter.CORNER"})  # fmt: skip
    proposals = np.array([[[0.1, 0.1, 0.3, 0.3, 0.5, 0.5, 0.9, 0.9],
                           [0.1] * 8]], np.float32)  # fmt: skip
    logits = np.zeros((1, 8), np.float32)
    preds = np.array([[0.1, 0.9, 0.8, 0.2]], np.float32)  # prior 0: class 1; prior 1: none
    out = op.evaluate([logits, preds, proposals])[0].reshape(5, 7)
    assert out[0].tolist() == pytest.approx([0, 1, 0.9, 0.1, 0.1, 0.3, 0.3])
    assert out[1, 0] == -1 and not out[1, 1:].any() and not out[2:].any()


def test_detection_output_invalid_inputs_are_rejected_and_reported():
    attributes = {**BASE, "keep_top_k": [5]}
    check_rejected(lambda: opset8.detection_output(parameter([2, 120]), parameter([2, 150]),
                                                   parameter([1, 2, 119]), attributes))  # fmt: skip
    check_rejected(lambda: opset8.detection_output(parameter([2, 120]), parameter([3, 120]),
                                                   parameter([1, 2, 120]), attributes))  # fmt: skip
    check_rejected(
        lambda: opset8.detection_output(
            parameter([2, 120], "i32"),
            parameter([2, 120], "i32"),
            parameter([1, 2, 120], "i32"),
            attributes,
        )
    )
    op = bare_op(DetectionOutput8, {"keep_top_k": "5", "nms_threshold": "0.5",
                                    "normalized": "true"})  # fmt: skip
    f32 = element_type("f32")

    def infer(*shapes):
        return op.infer([TensorInfo(Shape(s), f32) for s in shapes])

    with pytest.raises(IRError, match=r"the last dim of proposals \[1,2,119\] must be a multiple"):
        infer([2, 120], [2, 150], [1, 2, 119])
    with pytest.raises(IRError, match=r"dim 0 of class_preds \[3,120\] must be the batch 2"):
        infer([2, 120], [3, 120], [1, 2, 120])
    with pytest.raises(IRError, match=r"dim 1 of proposals \[1,3,120\] must be 2"):
        infer([2, 120], [2, 120], [1, 3, 120])
    with pytest.raises(IRError, match=r"box_logits must have rank 2"):
        infer([2, 120, 1], [2, 120], [1, 2, 120])
    node = opset8.detection_output(
        parameter([2, 120], name="l"),
        parameter([2, 150], name="c"),
        parameter([1, 2, 120], name="p"),
        attributes,
    )
    report, _ = edited_report(model_of(node), lambda t: t.replace('keep_top_k="5"',
                                                                 'keep_top_k=""'))  # fmt: skip
    assert (
        "keep_top_k must have at least one value" in diagnostic(report, "attribute-value").message
    )


def test_ssd_head_with_prior_boxes_from_shape_of_matches_cpu_plugin():
    """An SSD head: PriorBoxClustered sized by ShapeOf of the feature map, DetectionOutput on
    its priors; every layer checked (none trusted) and the detections exact."""
    import openvino.opset3 as opset3

    from tests.helpers.openvino_oracle import constant

    feature = parameter([1, 8, 4, 5], name="f")
    spatial = opset8.slice(opset3.shape_of(feature), constant(np.array([2])),
                           constant(np.array([4])), constant(np.array([1])))  # fmt: skip
    priors = opset1.prior_box_clustered(
        spatial, constant(np.array([64, 80])),
        {"width": [10.0, 20.0], "height": [12.0, 24.0], "clip": False, "offset": 0.5,
         "variance": [0.1, 0.1, 0.2, 0.2]})  # fmt: skip
    count = 4 * 5 * 2
    node = opset8.detection_output(
        parameter([1, count * 4], name="l"),
        parameter([1, count * 3], name="c"),
        opset1.unsqueeze(priors, constant(np.array([0]))),
        {**BASE, "keep_top_k": [15]},
    )
    check_shapes(node)
    rng = np.random.default_rng(11)
    feed = {"f": rng.normal(size=(1, 8, 4, 5)).astype(np.float32),
            "l": (rng.normal(size=(1, count * 4)) * 0.3).astype(np.float32),
            "c": rng.uniform(0, 1, (1, count * 3)).astype(np.float32)}  # fmt: skip
    got, expected = run_irrun(model_of(node), feed)[0], run_openvino(model_of(node), feed)[0]
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize(
    "changes",
    [
        {},
        {"share_location": False, "background_label_id": -1},
        {"decrease_label_id": True, "share_location": False},
    ],
)
def test_detection_output_with_priors_per_image_matches_cpu_plugin_exactly(changes):
    attributes = {**BASE, **changes}
    images, priors, classes = 3, 25, 5
    rng = np.random.default_rng(3)
    locations = 1 if attributes["share_location"] else classes
    proposals = _priors(priors, rng, sets=images)
    node = opset8.detection_output(
        parameter([images, priors * locations * 4], name="l"),
        parameter([images, priors * classes], name="c"),
        parameter(list(proposals.shape), name="p"), attributes)  # fmt: skip
    feed = {"l": (rng.normal(size=(images, priors * locations * 4)) * 0.5).astype(np.float32),
            "c": rng.uniform(0, 1, (images, priors * classes)).astype(np.float32),
            "p": proposals}  # fmt: skip
    got, expected = run_irrun(model_of(node), feed)[0], run_openvino(model_of(node), feed)[0]
    np.testing.assert_array_equal(got, expected)
