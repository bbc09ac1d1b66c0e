"""GenerateProposals-9: shapes against OpenVINO, values against the CPU plugin (boxes within
``rtol=1e-5, atol=1e-5``, scores and counts exact), reported errors."""

from __future__ import annotations

import numpy as np
import openvino.opset9 as opset9
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irrun.errors import IRError
from irrun.ops.generate_proposals import GenerateProposals
from tests.helpers.openvino_oracle import check_shapes, model_of, parameter, run_irrun, run_openvino
from tests.helpers.strategies import bare_op, built, dim_around, op_settings

_ATTRIBUTES = {"min_size": "0", "nms_threshold": "0.7", "pre_nms_count": "10",
               "post_nms_count": "5"}  # fmt: skip


@st.composite
def _shapes(draw):
    batch, height, width, anchors = (draw(st.integers(1, 4)) for _ in range(4))
    info = draw(st.sampled_from([3, 4]))
    sizes = [[batch, info], [height, width, anchors, 4], [batch, anchors * 4, height, width],
             [batch, anchors, height, width]]  # fmt: skip
    return ["[" + ",".join(draw(dim_around(s)) for s in shape) + "]"
            if draw(st.integers(0, 5)) else "[...]" for shape in sizes]  # fmt: skip


@op_settings(40)
@given(_shapes(), st.integers(1, 20), st.integers(1, 8), st.sampled_from(["i32", "i64"]),
       st.sampled_from(["f32", "f16"]))  # fmt: skip
def test_generate_proposals_shapes_match_openvino(shapes, pre, post, roi_num_type, etype):
    params = [parameter(s, etype, name=n) for s, n in zip(shapes, "iads")]
    node = built(lambda: opset9.generate_proposals(*params, 0.5, 0.7, pre, post, True, 1.0,
                                                   roi_num_type))  # fmt: skip
    check_shapes(node)


def _inputs(batch, height, width, anchors, info_size, seed):
    rng = np.random.default_rng(seed)
    corners = rng.uniform(0, 40, (height, width, anchors, 2)).astype(np.float32)
    sizes = rng.uniform(1, 30, (height, width, anchors, 2)).astype(np.float32)
    anchor_boxes = np.concatenate([corners, corners + sizes], axis=-1)
    deltas = rng.normal(0, 0.5, (batch, anchors * 4, height, width)).astype(np.float32)
    scores = rng.permutation(batch * anchors * height * width).astype(np.float32) / 100
    info = [50, 60, 1.0, 1.5][:info_size]
    im_info = np.array([info] * batch, np.float32)
    return {"i": im_info, "a": anchor_boxes, "d": deltas,
            "s": scores.reshape(batch, anchors, height, width)}  # fmt: skip


@pytest.mark.parametrize("normalized", [True, False])
@pytest.mark.parametrize(
    "batch, height, width, anchors, info_size, pre, post, threshold, min_size",
    [(1, 3, 4, 3, 3, 20, 8, 0.7, 0.0), (2, 5, 5, 2, 4, 30, 10, 0.5, 2.0),
     (3, 4, 6, 4, 3, 1000, 40, 0.3, 1.0), (2, 2, 3, 1, 4, 4, 6, 0.6, 0.0)],
)  # fmt: skip
def test_generate_proposals_matches_cpu_plugin(batch, height, width, anchors, info_size, pre,
                                               post, threshold, min_size, normalized):  # fmt: skip
    feed = _inputs(batch, height, width, anchors, info_size, seed=batch * height)
    params = [parameter(list(feed[n].shape), "f32", name=n) for n in "iads"]
    model = model_of(opset9.generate_proposals(*params, min_size, threshold, pre, post,
                                               normalized, 1.0, "i32"))  # fmt: skip
    rois, scores, counts = run_openvino(model, feed)
    got_rois, got_scores, got_counts = run_irrun(model, feed)
    np.testing.assert_array_equal(got_counts, counts)
    np.testing.assert_array_equal(got_scores, scores)
    np.testing.assert_allclose(got_rois, rois, rtol=1e-5, atol=1e-5)


def test_generate_proposals_reports_a_zero_post_nms_count():
    with pytest.raises(IRError, match="post_nms_count must be larger than 0, but it is 0"):
        bare_op(GenerateProposals, {**_ATTRIBUTES, "post_nms_count": "0"})


def test_generate_proposals_reports_nms_eta():
    with pytest.raises(IRError, match="nms_eta must be 1"):
        bare_op(GenerateProposals, {**_ATTRIBUTES, "nms_eta": "0.5"})


def test_generate_proposals_reports_mismatched_heights():
    from irrun.element_types import element_type
    from irrun.ops.base import TensorInfo
    from irrun.shape import Shape

    f32 = element_type("f32")
    shapes = ["2,3", "4,5,3,4", "2,12,4,5", "2,3,6,5"]
    op = bare_op(GenerateProposals, _ATTRIBUTES)
    with pytest.raises(IRError, match=r"the height of deltas \(4\) and scores \(6\) must be equal"):
        op.infer([TensorInfo(Shape.parse(s), f32) for s in shapes])
