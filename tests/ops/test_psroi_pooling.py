"""PSROIPooling-1: shapes against OpenVINO, average and bilinear kernels against the CPU
plugin, reported errors."""

from __future__ import annotations

import numpy as np
import openvino.opset1 as opset1
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irrun.element_types import element_type
from irrun.errors import IRError
from irrun.ops.base import TensorInfo
from irrun.ops.psroi_pooling import PSROIPooling
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


@op_settings(40)
@given(st.data(), st.integers(1, 3), st.integers(1, 3), st.integers(1, 2), st.integers(1, 2),
       st.sampled_from(["average", "bilinear"]))  # fmt: skip
def test_psroi_pooling_shapes_match_openvino(data, output_dim, group, bins_x, bins_y, mode):
    channels = output_dim * (group * group if mode == "average" else bins_x * bins_y)
    channels += data.draw(st.sampled_from([0, 0, 0, 1]))  # sometimes a wrong channel count
    feature = parameter(data.draw(shape_around([2, channels, 8, 8])), name="d")
    rois = parameter(data.draw(shape_around([data.draw(st.integers(0, 5)), 5])), name="r")
    node = built(lambda: opset1.psroi_pooling(feature, rois, output_dim, group, 0.5, bins_x,
                                              bins_y, mode))  # fmt: skip
    check_shapes(node)


def _rois(count, seed, normalised):
    rng = np.random.default_rng(seed)
    ids = rng.integers(0, 2, (count, 1))
    if normalised:
        low = rng.uniform(0, 0.5, (count, 2))
        corners = np.concatenate([low, low + rng.uniform(0.1, 0.5, (count, 2))], axis=1)
    else:
        low = rng.uniform(0, 10, (count, 2))
        corners = np.concatenate([low, low + rng.uniform(0, 14, (count, 2))], axis=1)
    return np.concatenate([ids, corners], axis=1).astype(np.float32)


@pytest.mark.parametrize(
    "mode, output_dim, group, bins_x, bins_y",
    [("average", 2, 2, 1, 1), ("average", 8, 1, 1, 1), ("average", 2, 3, 1, 1),
     ("bilinear", 2, 3, 2, 2), ("bilinear", 4, 1, 1, 2), ("bilinear", 1, 2, 4, 2)],
)  # fmt: skip
def test_psroi_pooling_matches_cpu_plugin(mode, output_dim, group, bins_x, bins_y):
    """average exactly; bilinear within rtol=1e-5, atol=1e-5."""
    channels = output_dim * (group * group if mode == "average" else bins_x * bins_y)
    data = np.random.default_rng(1).normal(size=(2, channels, 10, 12)).astype(np.float32)
    rois = _rois(9, seed=group, normalised=mode == "bilinear")
    node = opset1.psroi_pooling(parameter(data.shape, name="d"), parameter([9, 5], name="r"),
                                output_dim, group, 0.5 if mode == "average" else 1.0, bins_x,
                                bins_y, mode)  # fmt: skip
    feed = {"d": data, "r": rois}
    got, expected = run_irrun(model_of(node), feed)[0], run_openvino(model_of(node), feed)[0]
    assert got.shape == expected.shape == (9, output_dim, group, group)
    assert np.abs(expected).max() > 0
    if mode == "average":
        np.testing.assert_array_equal(got, expected)
    else:
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


def test_psroi_pooling_average_picks_a_channel_per_bin():
    """Output channel c, bin (ph, pw) averages input channel (c * group + ph) * group + pw."""
    data = np.arange(8, dtype=np.float32)[None, :, None, None] * np.ones((1, 8, 4, 4), np.float32)
    op = bare_op(PSROIPooling, {"output_dim": "2", "group_size": "2", "spatial_scale": "1"})
    out = op.evaluate([data, np.array([[0, 0, 0, 3, 3]], np.float32)])[0]
    assert out.reshape(-1).tolist() == list(range(8))


def test_psroi_pooling_bilinear_between_the_last_pixel_and_the_edge_follows_the_reference():
    """A sample in (W - 1, W) reads the last column (left = right = W - 1) in the reference;
    the CPU plugin gives other values there."""
    data = np.arange(4, dtype=np.float32).reshape(1, 1, 1, 4) * np.ones((1, 1, 2, 4), np.float32)
    op = bare_op(PSROIPooling, {"output_dim": "1", "group_size": "1", "spatial_scale": "1",
                                "mode": "bilinear"})  # fmt: skip
    # x = (1.1 + 1.1 + 0.0) * 3 / 2 = 3.3: between the last pixel (3) and the edge (4)
    out = op.evaluate([data, np.array([[0, 1.1, 0, 1.1, 1]], np.float32)])[0]
    assert out.item() == 3.0


def test_psroi_pooling_invalid_inputs_are_rejected_and_reported():
    d, r = parameter([2, 8, 8, 8], name="d"), parameter([5, 5], name="r")
    check_rejected(lambda: opset1.psroi_pooling(d, r, 3, 2, 0.5, 1, 1, "average"))
    check_rejected(lambda: opset1.psroi_pooling(d, r, 2, 0, 0.5, 1, 1, "average"))
    check_rejected(lambda: opset1.psroi_pooling(d, r, 2, 2, 0.5, 0, 1, "bilinear"))
    check_rejected(lambda: opset1.psroi_pooling(d, parameter([5, 4]), 2, 2, 0.5, 1, 1, "average"))
    op = bare_op(PSROIPooling, {"output_dim": "3", "group_size": "2", "spatial_scale": "1"})
    f32 = element_type("f32")
    with pytest.raises(IRError, match=r"output_dim \* group_size \* group_size = 3 \* 4 = 12 "
                                      r"channels, but they have 8"):  # fmt: skip
        op.infer([TensorInfo(Shape([2, 8, 8, 8]), f32), TensorInfo(Shape([5, 5]), f32)])
    with pytest.raises(IRError, match="the feature maps must be a floating-point tensor"):
        op.infer([TensorInfo(Shape([2, 12, 8, 8]), element_type("i32")),
                  TensorInfo(Shape([5, 5]), f32)])  # fmt: skip
    model = model_of(opset1.psroi_pooling(d, r, 2, 2, 0.5, 1, 1, "average"))
    report, _ = edited_report(model, lambda t: t.replace('group_size="2"', 'group_size="0"'))
    found = diagnostic(report, "attribute-value")
    assert "group_size 0 must be > 0" in found.message
