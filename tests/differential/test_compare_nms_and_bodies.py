"""irrun compare on NonMaxSuppression at IoU equal to the threshold (a known CPU deviation),
at the top of a model and inside the body of an If (as torchvision's batched NMS converts):
the divergence is looked for inside the body and labelled there."""

from __future__ import annotations

import numpy as np
import pytest

import irrun
from irrun.compare import compare

ov = pytest.importorskip("openvino")
from openvino import opset1, opset8, opset9  # noqa: E402

#: Box 1 overlaps box 0 with IoU exactly 0.5 (intersection 2, union 4); box 2 is apart.
BOXES = np.array([[[0, 0, 1, 3], [0, 1, 1, 4], [5, 5, 6, 6]]], np.float32)
SCORES = np.array([[[0.9, 0.8, 0.7]]], np.float32)


def _nms(boxes, scores):
    return opset9.non_max_suppression(
        boxes, scores, opset1.constant(np.int64(10)), opset1.constant(np.float32(0.5)),
        opset1.constant(np.float32(0.0)), box_encoding="corner", sort_result_descending=True,
        output_type="i64",
    )  # fmt: skip


@pytest.fixture
def nms_xml(tmp_path):
    boxes = opset1.parameter(BOXES.shape, np.float32, name="boxes")
    scores = opset1.parameter(SCORES.shape, np.float32, name="scores")
    selected = _nms(boxes, scores).output(0)
    path = tmp_path / "nms.xml"
    ov.save_model(ov.Model([opset1.result(selected)], [boxes, scores]), path,
                  compress_to_fp16=False)  # fmt: skip
    return path


def test_irrun_keeps_a_box_at_iou_equal_to_the_threshold_and_cpu_does_not(nms_xml):
    model = irrun.load(nms_xml)
    ((_, ours),) = model.run({"boxes": BOXES, "scores": SCORES}).items()
    assert ours.tolist() == [[0, 0, 0], [0, 0, 1], [0, 0, 2]]  # the spec: only above 0.5
    compiled = ov.Core().compile_model(ov.Core().read_model(nms_xml), "CPU")
    theirs = compiled({0: BOXES, 1: SCORES})[compiled.outputs[0]]
    assert theirs.tolist() == [[0, 0, 0], [0, 0, 2]]


def test_nms_at_the_threshold_is_a_known_cpu_deviation(nms_xml):
    comparison = compare(irrun.load(nms_xml), {"boxes": BOXES, "scores": SCORES})
    assert comparison.ok, comparison.to_text()
    # selected_indices, selected_scores (3 rows against 2) and valid_outputs (3 against 2)
    outputs = [t for t in comparison.tensors if t.layer_type == "NonMaxSuppression"]
    assert [t.output_index for t in outputs] == [0, 1, 2]
    for tensor in outputs:
        assert tensor.status == "known-deviation"
        assert tensor.deviation.startswith(
            "NonMaxSuppression: boxes whose IoU with a kept box equals iou_threshold are "
            "suppressed by CPU"
        )
    assert outputs[2].irrun_value == "3" and outputs[2].openvino_value == "2"


def test_a_box_apart_from_the_threshold_is_not_excused():
    from irrun.compare.deviations import nms_suppressed_at_threshold

    layer = irrun.load(
        '<layer id="1" type="NonMaxSuppression" version="opset9"><data box_encoding="corner" '
        'sort_result_descending="true" output_type="i64"/><input><port id="0"><dim>1</dim>'
        '<dim>3</dim><dim>4</dim></port><port id="1"><dim>1</dim><dim>1</dim><dim>3</dim>'
        '</port><port id="2"/><port id="3"/><port id="4"/></input><output>'
        '<port id="5" precision="I64"><dim>-1</dim><dim>3</dim></port>'
        '<port id="6" precision="FP32"><dim>-1</dim><dim>3</dim></port>'
        '<port id="7" precision="I64"><dim>1</dim></port></output></layer>'
    ).layers[0]
    inputs = [BOXES, SCORES, np.int64(10), np.float32(0.5), np.float32(0.0)]
    ours = np.int64([[0, 0, 0], [0, 0, 1], [0, 0, 2]])
    assert nms_suppressed_at_threshold(layer, inputs, ours, np.int64([[0, 0, 0], [0, 0, 2]]))
    # another result than suppression at equality gives: not this deviation
    assert nms_suppressed_at_threshold(layer, inputs, ours, np.int64([[0, 0, 0]])) is None


@pytest.fixture
def nms_in_if_xml(tmp_path):
    """torchvision's batched NMS as converted: If (no boxes) then a constant, else NMS."""
    boxes = opset1.parameter(BOXES.shape, np.float32, name="boxes")
    scores = opset1.parameter(SCORES.shape, np.float32, name="scores")
    empty = opset1.parameter([], np.bool_, name="empty")
    then_boxes = opset1.parameter(BOXES.shape, np.float32, name="then_boxes")
    then_result = opset1.result(opset1.constant(np.full((1, 3), -1, np.int64)))
    then_body = ov.Model([then_result], [then_boxes], "then")
    else_boxes = opset1.parameter(BOXES.shape, np.float32, name="else_boxes")
    else_scores = opset1.parameter(SCORES.shape, np.float32, name="else_scores")
    else_result = opset1.result(_nms(else_boxes, else_scores).output(0))
    else_body = ov.Model([else_result], [else_boxes, else_scores], "else")
    branch = opset8.if_op(empty)
    branch.set_then_body(then_body)
    branch.set_else_body(else_body)
    branch.set_input(boxes.output(0), then_boxes, else_boxes)
    branch.set_input(scores.output(0), None, else_scores)
    selected = branch.set_output(then_result, else_result)
    plus = opset1.add(selected, opset1.constant(np.int64(0)))  # a layer after the If
    path = tmp_path / "nms_in_if.xml"
    ov.save_model(ov.Model([opset1.result(plus)], [empty, boxes, scores]), path,
                  compress_to_fp16=False)  # fmt: skip
    return path


def test_an_if_whose_body_meets_the_nms_deviation_is_labelled_with_where_inside(nms_in_if_xml):
    feeds = {"empty": np.array(False), "boxes": BOXES, "scores": SCORES}
    model = irrun.load(nms_in_if_xml)
    ((_, ours),) = model.run(feeds).items()
    assert ours.tolist() == [[0, 0, 0], [0, 0, 1], [0, 0, 2]]
    comparison = compare(model, feeds)
    assert comparison.ok, comparison.to_text()
    (branch,) = [t for t in comparison.tensors if t.layer_type == "If"]
    assert branch.status == "known-deviation"
    nms = next(b for b in model.layers if b.type == "If").bodies["else_body"].layers
    (nms,) = [b for b in nms if b.type == "NonMaxSuppression"]
    assert branch.deviation == (
        f"inside its else_body, at {nms.describe()} output 0: NonMaxSuppression: boxes whose "
        "IoU with a kept box equals iou_threshold are suppressed by CPU and kept by the "
        "specification (suppression only above the threshold)"
    )
    (after,) = [t for t in comparison.tensors if t.layer_type == "Add"]
    assert after.status == "downstream" and after.cause == branch.where


def test_an_if_that_differs_inside_for_another_reason_still_differs(nms_in_if_xml, monkeypatch):
    from irrun.ops import non_max_suppression

    # irrun's NMS made wrong (it drops the last box): nothing known explains the body's
    # difference, so the If differs
    evaluate = non_max_suppression.NonMaxSuppression9.evaluate
    monkeypatch.setattr(non_max_suppression.NonMaxSuppression9, "evaluate",
                        lambda self, inputs: [a[:1] for a in evaluate(self, inputs)])  # fmt: skip
    feeds = {"empty": np.array(False), "boxes": BOXES, "scores": SCORES}
    comparison = compare(irrun.load(nms_in_if_xml), feeds)
    assert not comparison.ok
    (branch,) = [t for t in comparison.tensors if t.layer_type == "If"]
    assert branch.status == "differs"
