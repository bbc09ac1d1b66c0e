"""DeformablePSROIPooling-1: shapes against OpenVINO, values against the CPU plugin (with and
without offsets, several sub-bins; ``rtol=1e-5, atol=1e-5``), reported errors."""

from __future__ import annotations

import numpy as np
import openvino.opset1 as opset1
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irrun.errors import IRError
from irrun.ops.deformable_psroi_pooling import DeformablePSROIPooling
from tests.helpers.openvino_oracle import check_shapes, model_of, parameter, run_irrun, run_openvino
from tests.helpers.strategies import bare_op, built, dim_text, op_settings, shape_text

DIM = dim_text(st.integers(0, 6))


@op_settings(40)
@given(st.one_of(shape_text(DIM, min_rank=4, max_rank=4), shape_text(DIM, max_rank=5)),
       st.one_of(shape_text(DIM, min_rank=2, max_rank=2), shape_text(DIM, max_rank=3)),
       st.one_of(st.none(), shape_text(DIM, min_rank=4, max_rank=4), shape_text(DIM, max_rank=5)),
       st.integers(1, 4), st.integers(1, 3), st.sampled_from(["f32", "f16"]))  # fmt: skip
def test_deformable_psroi_pooling_shapes_match_openvino(data, rois, offsets, output_dim, group,
                                                        etype):  # fmt: skip
    params = [parameter(data, etype, name="x"), parameter(rois, etype, name="r")]
    extra = None if offsets is None else parameter(offsets, etype, name="o")
    check_shapes(built(lambda: opset1.deformable_psroi_pooling(*params, output_dim, 0.5, group,
                                                               offsets=extra)))  # fmt: skip


def _rois(count, seed):
    rng = np.random.default_rng(seed)
    corners = rng.uniform(-4, 40, (count, 2))
    sizes = rng.uniform(0, 30, (count, 2))
    batch = rng.integers(0, 2, (count, 1))
    return np.concatenate([batch, corners, corners + sizes], axis=1).astype(np.float32)


@pytest.mark.parametrize("with_offsets", [False, True])
@pytest.mark.parametrize(
    "output_dim, group, bins_x, bins_y, part, trans_std, scale",
    [(2, 3, 1, 1, 3, 0.1, 0.25), (4, 2, 2, 3, 2, 0.5, 0.5), (3, 1, 4, 4, 1, 1.0, 0.125),
     (2, 4, 2, 2, 2, 0.2, 0.25)],
)  # fmt: skip
def test_deformable_psroi_pooling_matches_cpu_plugin(output_dim, group, bins_x, bins_y, part,
                                                     trans_std, scale, with_offsets):  # fmt: skip
    rng = np.random.default_rng(output_dim * group)
    data = rng.normal(size=(2, output_dim * group * group, 12, 10)).astype(np.float32)
    rois = _rois(6, seed=group)
    feed = {"x": data, "r": rois}
    params = [parameter(list(data.shape), name="x"), parameter([6, 5], name="r")]
    offsets = None
    if with_offsets:
        feed["o"] = rng.normal(size=(6, 2, part, part)).astype(np.float32)
        offsets = parameter([6, 2, part, part], name="o")
    node = opset1.deformable_psroi_pooling(*params, output_dim, scale, group,
                                           "bilinear_deformable", bins_x, bins_y, trans_std, part,
                                           offsets=offsets)  # fmt: skip
    model = model_of(node)
    (expected,) = run_openvino(model, feed)
    (got,) = run_irrun(model, feed)
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


def test_deformable_psroi_pooling_reports_a_zero_group_size():
    with pytest.raises(IRError, match="group_size must be greater than 0, but it is 0"):
        bare_op(DeformablePSROIPooling, {"output_dim": "2", "spatial_scale": "1",
                                         "group_size": "0"})  # fmt: skip


def test_deformable_psroi_pooling_reports_too_few_channels():
    op = bare_op(DeformablePSROIPooling, {"output_dim": "2", "spatial_scale": "1",
                                          "group_size": "2"})  # fmt: skip
    with pytest.raises(ValueError, match=r"data has 4 channels, fewer than output_dim \* "):
        op.evaluate([np.zeros((1, 4, 3, 3), np.float32), np.zeros((1, 5), np.float32)])


def test_a_roi_of_negative_batch_gives_zeros_and_later_rois_still_pool():
    """As the reference (the CPU plugin zeroes every ROI from the first negative one on)."""
    rng = np.random.default_rng(0)
    data = rng.normal(size=(2, 4, 8, 8)).astype(np.float32)
    rois = np.array([[0, 1, 1, 5, 5], [-1, 1, 1, 5, 5], [1, 2, 2, 6, 6]], np.float32)
    op = bare_op(DeformablePSROIPooling, {"output_dim": "1", "spatial_scale": "1",
                                          "group_size": "2"})  # fmt: skip
    (out,) = op.evaluate([data, rois])
    (alone,) = op.evaluate([data, rois[2:]])
    assert not out[1].any()
    np.testing.assert_array_equal(out[2], alone[0])


def test_deformable_psroi_pooling_reports_offsets_of_the_wrong_size():
    op = bare_op(DeformablePSROIPooling, {"output_dim": "2", "spatial_scale": "1",
                                          "part_size": "3"})  # fmt: skip
    data, rois = np.zeros((1, 2, 3, 3), np.float32), np.zeros((1, 5), np.float32)
    with pytest.raises(
        ValueError, match=r"offsets \[1, 2, 2, 2\] do not fit 1 ROIs of part_size 3"
    ):
        op.evaluate([data, rois, np.zeros((1, 2, 2, 2), np.float32)])
