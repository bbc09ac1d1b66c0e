"""NMSRotated-13: shapes against OpenVINO, selections against the CPU plugin (exact), rotated
IoU against known areas, reported errors."""

from __future__ import annotations

import numpy as np
import openvino.opset13 as opset13
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irrun.element_types import element_type
from irrun.errors import IRError
from irrun.ops._rotated_boxes import rotated_iou
from irrun.ops.base import TensorInfo
from irrun.ops.nms_rotated import NMSRotated
from irrun.shape import Shape
from tests.helpers.openvino_oracle import (
    check_shapes,
    constant,
    model_of,
    parameter,
    run_irrun,
    run_openvino,
)
from tests.helpers.strategies import bare_op, built, dim_around, op_settings


@op_settings(40)
@given(st.integers(1, 3), st.integers(0, 6), st.integers(1, 3),
       st.one_of(st.none(), st.integers(0, 8)), st.data())  # fmt: skip
def test_nms_rotated_shapes_match_openvino(batches, boxes, classes, maximum, data):
    box_shape = "[" + ",".join(data.draw(dim_around(s)) for s in (batches, boxes, 5)) + "]"
    score_shape = "[" + ",".join(data.draw(dim_around(s)) for s in (batches, classes, boxes)) + "]"
    limit = parameter([], "i64", name="m") if maximum is None else constant(np.int64(maximum))
    node = built(lambda: opset13.nms_rotated(parameter(box_shape, name="b"),
                                             parameter(score_shape, name="s"), limit,
                                             constant(np.float32(0.5)),
                                             constant(np.float32(0.0))))  # fmt: skip
    check_shapes(node)


def _boxes(batches, count, seed):
    rng = np.random.default_rng(seed)
    centres = rng.uniform(0, 20, (batches, count, 2))
    sizes = rng.uniform(2, 10, (batches, count, 2))
    angles = rng.uniform(-np.pi, np.pi, (batches, count, 1))
    return np.concatenate([centres, sizes, angles], axis=-1).astype(np.float32)


@pytest.mark.parametrize("clockwise", [True, False])
@pytest.mark.parametrize("descending", [True, False])
@pytest.mark.parametrize(
    "batches, count, classes, maximum, iou, score",
    [(1, 10, 1, 10, 0.3, 0.0), (2, 25, 3, 6, 0.2, 0.3), (3, 40, 2, 40, 0.1, 0.1),
     (2, 16, 2, 3, 0.5, 0.0)],
)  # fmt: skip
def test_nms_rotated_matches_cpu_plugin(batches, count, classes, maximum, iou, score,
                                        descending, clockwise):  # fmt: skip
    boxes = _boxes(batches, count, seed=count)
    rng = np.random.default_rng(count + 1)
    scores = rng.permutation(batches * classes * count).reshape(batches, classes, count)
    scores = (scores / scores.size).astype(np.float32)
    limits = [constant(np.int64(maximum)), constant(np.float32(iou)), constant(np.float32(score))]
    params = [parameter(list(boxes.shape), name="b"), parameter(list(scores.shape), name="s")]
    node = opset13.nms_rotated(*params, *limits, descending, "i32", clockwise)
    model = model_of(node)
    feed = {"b": boxes, "s": scores}
    expected = run_openvino(model, feed)
    got = run_irrun(model, feed)
    for g, e in zip(got, expected):
        assert g.dtype == e.dtype
        np.testing.assert_array_equal(g, e)


def test_rotated_iou_of_known_overlaps():
    square = np.array([0, 0, 2, 2, 0], np.float32)
    others = np.array([[1, 0, 2, 2, 0], [0, 0, 2, 2, np.pi / 2], [5, 5, 1, 1, 0.3],
                       [0, 0, 2, 2, np.pi / 4], [0, 0, 0, 2, 0]], np.float32)  # fmt: skip
    # half overlap: 2 / (4 + 4 - 2); a quarter turn is the same square; apart; an octagon
    octagon = 8 * (np.sqrt(2) - 1)
    expected = [1 / 3, 1.0, 0.0, octagon / (8 - octagon), 0.0]
    np.testing.assert_allclose(rotated_iou(square, others), expected, rtol=1e-5, atol=1e-6)


def _info(shape, etype="f32"):
    return TensorInfo(Shape.parse(shape), element_type(etype))


def test_nms_rotated_reports_boxes_of_4_numbers():
    infos = [_info("1,3,4"), _info("1,1,3"), _info("", "i64"), _info(""), _info("")]
    with pytest.raises(IRError, match=r"the last dim of boxes \[1,3,4\] must be 5"):
        bare_op(NMSRotated).infer(infos)


def test_nms_rotated_reports_mismatched_box_counts():
    infos = [_info("1,3,5"), _info("1,1,4"), _info("", "i64"), _info(""), _info("")]
    with pytest.raises(IRError, match="must agree on num_batches"):
        bare_op(NMSRotated).infer(infos)


def test_nms_rotated_reports_a_bad_output_type():
    with pytest.raises(IRError, match="output_type u8 is not i32 or i64"):
        bare_op(NMSRotated, {"output_type": "u8"})
