"""MatrixNms-8: shapes against OpenVINO, kernel against the CPU plugin (both decays, every
sort and limit), reported errors."""

from __future__ import annotations

import numpy as np
import openvino.opset8 as opset8
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irrun.element_types import element_type
from irrun.errors import IRError
from irrun.ops.base import TensorInfo
from irrun.ops.matrix_nms import MatrixNms
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
from tests.ops.test_multiclass_nms import _inputs

LIMITS = st.sampled_from([-1, -1, 0, 2, 5, 40])


@op_settings(40)
@given(st.data(), LIMITS, LIMITS, st.sampled_from([-1, 0, 2]), st.sampled_from(["i32", "i64"]),
       st.sampled_from(["f32", "f16"]))  # fmt: skip
def test_matrix_nms_shapes_match_openvino(data, nms_top_k, keep_top_k, background, output_type,
                                          etype):  # fmt: skip
    images, classes, count = (data.draw(st.integers(0, 4)) for _ in range(3))
    boxes = parameter(data.draw(shape_around([images, count, 4])), etype, name="b")
    scores = parameter(data.draw(shape_around([images, classes, count])), etype, name="s")
    node = built(lambda: opset8.matrix_nms(boxes, scores, nms_top_k=nms_top_k,
                                           keep_top_k=keep_top_k, background_class=background,
                                           output_type=output_type))  # fmt: skip
    check_shapes(node)


CASES = [
    {},
    {"score_threshold": 0.3, "nms_top_k": 10, "keep_top_k": 15},
    {"decay_function": "gaussian", "gaussian_sigma": 2.0, "post_threshold": 0.1,
     "background_class": 1, "normalized": False},
    {"sort_result_type": "classid"},
    {"sort_result_type": "score", "sort_result_across_batch": True, "post_threshold": 0.2},
    {"sort_result_type": "classid", "sort_result_across_batch": True, "keep_top_k": 7},
    {"score_threshold": 0.2, "post_threshold": 0.3, "output_type": "i32"},
]  # fmt: skip


@pytest.mark.parametrize("attributes", CASES)
def test_matrix_nms_matches_cpu_plugin(attributes):
    """Indices and counts exactly, scores within rtol=1e-6; image 1 has no detection above
    the thresholds, and the images after it still have theirs."""
    boxes, scores = _inputs(images=3, seed=3)
    scores[1] *= 0.05
    node = opset8.matrix_nms(parameter([3, 30, 4], name="b"), parameter([3, 4, 30], name="s"),
                             **attributes)  # fmt: skip
    feed = {"b": boxes, "s": scores}
    got, expected = run_irrun(model_of(node), feed), run_openvino(model_of(node), feed)
    for g, e in zip(got, expected):
        assert g.dtype == e.dtype and g.shape == e.shape
    np.testing.assert_array_equal(got[1], expected[1])
    np.testing.assert_array_equal(got[2], expected[2])
    np.testing.assert_array_equal(got[0][:, [0, 2, 3, 4, 5]], expected[0][:, [0, 2, 3, 4, 5]])
    np.testing.assert_allclose(got[0][:, 1], expected[0][:, 1], rtol=1e-6, atol=0)


def test_matrix_nms_linear_decay_by_hand():
    """Box 1 overlaps box 0 (IoU 1/3) and decays to (1 - 1/3) / (1 - 0) of its score; box 2,
    apart, keeps its score divided by 1 + 1e-10."""
    boxes = np.array([[[0, 0, 2, 1], [1, 0, 3, 1], [9, 9, 10, 10]]], np.float32)
    scores = np.array([[[0.9, 0.6, 0.3]]], np.float32)
    op = bare_op(MatrixNms, {})
    outputs, indices, valid = op.evaluate([boxes, scores])
    assert indices.reshape(-1).tolist() == [0, 1, 2] and valid.tolist() == [3]
    iou = np.float32(1) / np.float32(3)
    assert outputs[:, 1].tolist() == [np.float32(0.9), np.float32(1 - iou) * np.float32(0.6),
                                      np.float32(0.3)]  # fmt: skip


def test_matrix_nms_invalid_inputs_are_rejected_and_reported():
    b, s = parameter([2, 10, 4], name="b"), parameter([2, 3, 10], name="s")
    check_rejected(lambda: opset8.matrix_nms(b, s, keep_top_k=-2))
    check_rejected(lambda: opset8.matrix_nms(b, parameter([3, 3, 10])))
    check_rejected(lambda: opset8.matrix_nms(parameter([2, 10, 5]), s))
    op = bare_op(MatrixNms, {})
    f32 = element_type("f32")
    with pytest.raises(IRError, match=r"must have one batch \(dim 0\), but they have 2 and 3"):
        op.infer([TensorInfo(Shape([2, 10, 4]), f32), TensorInfo(Shape([3, 3, 10]), f32)])
    with pytest.raises(IRError, match=r"the last dim of boxes \[2,10,5\] must be 4"):
        op.infer([TensorInfo(Shape([2, 10, 5]), f32), TensorInfo(Shape([2, 3, 10]), f32)])
    with pytest.raises(IRError, match="boxes must be bf16, f16 or f32, but input 0 is i32"):
        op.infer([TensorInfo(Shape([2, 10, 4]), element_type("i32")),
                  TensorInfo(Shape([2, 3, 10]), f32)])  # fmt: skip
    model = model_of(opset8.matrix_nms(b, s))
    report, _ = edited_report(model, lambda t: t.replace('decay_function="linear"',
                                                          'decay_function="cubic"'))  # fmt: skip
    assert "decay_function='cubic' is not one of linear, gaussian" in diagnostic(
        report, "attribute-value").message  # fmt: skip
