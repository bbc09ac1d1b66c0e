"""Proposal-1/4: shapes against OpenVINO, kernel against the CPU plugin (Caffe and
TensorFlow anchors, clipping, normalising, scales), the reference's clipping, reported
errors."""

from __future__ import annotations

import numpy as np
import openvino.opset1 as opset1
import openvino.opset4 as opset4
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irrun.element_types import element_type
from irrun.errors import IRError
from irrun.ops.base import TensorInfo
from irrun.ops.proposal import Proposal4
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

OPS = {1: opset1, 4: opset4}
U = np.uint32
BASE = {"base_size": U(16), "pre_nms_topn": U(100), "post_nms_topn": U(20), "nms_thresh": 0.7,
        "feat_stride": U(16), "min_size": U(4), "ratio": [0.5, 1.0, 2.0], "scale": [2.0, 4.0],
        "framework": ""}  # fmt: skip


@op_settings(40)
@given(st.sampled_from([1, 4]), st.data(), st.integers(1, 3), st.integers(1, 30),
       st.sampled_from(["f32", "f16"]))  # fmt: skip
def test_proposal_shapes_match_openvino(version, data, anchors, post, etype):
    batch = data.draw(st.integers(0, 3))
    probs = parameter(data.draw(shape_around([batch, 2 * anchors, 5, 6])), etype, name="p")
    deltas = parameter(data.draw(shape_around([batch, 4 * anchors, 5, 6])), etype, name="d")
    image = parameter(data.draw(shape_around([data.draw(st.sampled_from([3, 4, 5]))])), etype,
                      name="i")  # fmt: skip
    node = built(
        lambda: OPS[version].proposal(probs, deltas, image, {**BASE, "post_nms_topn": U(post)})
    )
    check_shapes(node)


CASES = [
    ({}, [80, 96, 1.0]),
    ({"framework": "tensorflow"}, [1000, 1000, 1.0]),
    ({"clip_after_nms": True, "normalize": True}, [80, 96, 1.0]),
    ({"clip_before_nms": False}, [80, 96, 1.0, 1.0]),
    ({"post_nms_topn": U(200), "pre_nms_topn": U(1000), "min_size": U(1)}, [80, 96, 1.0]),
    ({"box_size_scale": 2.0, "box_coordinate_scale": 3.0, "min_size": U(8)}, [80, 96, 0.5, 2.0]),
]


@pytest.mark.parametrize("version", [1, 4])
@pytest.mark.parametrize("changes, image", CASES)
def test_proposal_matches_cpu_plugin(version, changes, image):
    """Within rtol=1e-6, atol=1e-6 (the CPU plugin's exp), without tied scores (the order of
    ties is the library's in both); the rows after the kept ones are
    compared up to the -1 that ends them (the CPU plugin leaves Proposal-4's scores there
    uninitialised)."""
    rng = np.random.default_rng(len(changes))
    anchors, batches, height, width = 6, 2, 5, 6
    node = OPS[version].proposal(
        parameter([batches, 2 * anchors, height, width], name="p"),
        parameter([batches, 4 * anchors, height, width], name="d"),
        parameter([len(image)], name="i"),
        {**BASE, **changes},
    )
    feed = {"p": rng.uniform(0, 1, (batches, 2 * anchors, height, width)).astype(np.float32),
            "d": (rng.normal(size=(batches, 4 * anchors, height, width)) * 0.2).astype(np.float32),
            "i": np.array(image, np.float32)}  # fmt: skip
    got, expected = run_irrun(model_of(node), feed), run_openvino(model_of(node), feed)
    assert [g.shape for g in got] == [e.shape for e in expected]
    np.testing.assert_allclose(got[0], expected[0], rtol=1e-6, atol=1e-6)
    if version == 4:
        first = got[0][:, 0].reshape(batches, -1)
        kept = (np.cumsum(first == -1, axis=1) == 0).reshape(-1)  # the rows before the -1
        np.testing.assert_allclose(got[1][kept], expected[1][kept], rtol=1e-6, atol=1e-6)
        assert (got[1][~kept] == 0).all()


def test_proposal_tensorflow_clips_x_by_the_image_width():
    """The reference clips x by the width in TensorFlow mode (the CPU plugin by the height)."""
    op = bare_op(Proposal4, {"base_size": "16", "pre_nms_topn": "10", "post_nms_topn": "1",
                             "nms_thresh": "0.7", "feat_stride": "16", "min_size": "1",
                             "ratio": "1", "scale": "8", "framework": "tensorflow"})  # fmt: skip
    probs = np.array([0, 1], np.float32).reshape(1, 2, 1, 1)
    deltas = np.zeros((1, 4, 1, 1), np.float32)
    rois, scores = op.evaluate([probs, deltas, np.array([50, 200, 1], np.float32)])
    # the anchor spans [-64, 64] in x and y: clipped to [0, 64] in x, [0, 50] in y
    assert rois.tolist() == [[0, 0, 0, 64, 50]] and scores.tolist() == [1]


def test_proposal_invalid_inputs_are_rejected_and_reported():
    p, d, i = parameter([2, 12, 5, 6]), parameter([2, 24, 5, 6]), parameter([3])
    check_rejected(lambda: opset4.proposal(p, parameter([2, 20, 5, 6]), i, BASE))
    check_rejected(lambda: opset4.proposal(p, d, parameter([5]), BASE))
    check_rejected(lambda: opset4.proposal(p, parameter([3, 24, 5, 6]), i, BASE))
    check_rejected(lambda: opset4.proposal(parameter([2, 12, 5, 6], "i32"), d, i, BASE))
    op = bare_op(Proposal4, {"base_size": "16", "pre_nms_topn": "10", "post_nms_topn": "5",
                             "nms_thresh": "0.7", "feat_stride": "16", "min_size": "1",
                             "ratio": "1", "scale": "8"})  # fmt: skip
    f32 = element_type("f32")

    def infer(*shapes):
        return op.infer([TensorInfo(Shape(s), f32) for s in shapes])

    with pytest.raises(IRError, match="must have twice the channels of class_probs"):
        infer([2, 12, 5, 6], [2, 20, 5, 6], [3])
    with pytest.raises(IRError, match=r"image_shape \[5\] must have 3 or 4 elements"):
        infer([2, 12, 5, 6], [2, 24, 5, 6], [5])
    with pytest.raises(IRError, match="must have one batch, but they have 2 and 3"):
        infer([2, 12, 5, 6], [3, 24, 5, 6], [3])
    assert [str(o.shape) for o in infer([2, 12, 5, 6], [2, 24, 5, 6], [3])] == ["[10,5]", "[10]"]
    node = opset1.proposal(
        parameter([1, 12, 5, 6], name="p"),
        parameter([1, 24, 5, 6], name="d"),
        parameter([3], name="i"),
        BASE,
    )
    report, _ = edited_report(model_of(node), lambda t: t.replace('post_nms_topn="20"',
                                                                 'post_nms_topn="0"'))  # fmt: skip
    assert "post_nms_topn 0 must be > 0" in diagnostic(report, "attribute-value").message
