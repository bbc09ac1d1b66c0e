"""RegionYolo-1: shapes against OpenVINO (both modes, every flattening), kernel against the
CPU plugin, reported errors."""

from __future__ import annotations

import numpy as np
import openvino.opset1 as opset1
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irrun.element_types import element_type
from irrun.errors import IRError
from irrun.ops.base import TensorInfo
from irrun.ops.region_yolo import RegionYolo
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
    shape_text,
)


@op_settings(40)
@given(shape_text(min_rank=3, max_rank=5), st.booleans(), st.integers(-4, 3), st.integers(-4, 3),
       st.lists(st.integers(0, 4), max_size=3), st.sampled_from(["f32", "f16"]))  # fmt: skip
def test_region_yolo_shapes_match_openvino(shape, softmax, axis, end_axis, mask, etype):
    node = built(lambda: opset1.region_yolo(parameter(shape, etype, name="x"), 4, 20, 5, softmax,
                                            mask, axis, end_axis))  # fmt: skip
    check_shapes(node)


@pytest.mark.parametrize(
    "shape, arguments",
    [
        ([2, 125, 5, 6], (4, 20, 5, True, [], 1, 3)),
        ([2, 125, 5, 6], (4, 20, 5, True, [], 0, -1)),
        ([2, 125, 5, 6], (4, 20, 5, True, [], 2, 1)),
        ([2, 130, 5, 6], (4, 20, 5, True, [], 1, 3)),
        ([2, 255, 5, 6], (4, 80, 3, False, [0, 1, 2], 1, 3)),
        ([1, 20, 4, 4], (4, 5, 3, False, [1, 2], 1, 3)),
    ],
)
def test_region_yolo_matches_cpu_plugin(shape, arguments):
    """Within rtol=1e-6, atol=1e-6; with more channels than the regions use, the regions of
    batch item 1 start right after those of item 0 (the reference's stride)."""
    data = (np.random.default_rng(0).normal(size=shape) * 3).astype(np.float32)
    model = model_of(opset1.region_yolo(parameter(shape, name="x"), *arguments))
    got, expected = run_irrun(model, {"x": data})[0], run_openvino(model, {"x": data})[0]
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)


def test_region_yolo_v2_by_hand():
    """One region of 1 class: x, y and the confidence are logistic, the softmax of one class
    is 1, the box sizes stay."""
    op = bare_op(RegionYolo, {"coords": "4", "classes": "1", "num": "1"})
    data = np.array([0.0, 0.0, 2.0, 3.0, 0.0, 7.0], np.float32).reshape(1, 6, 1, 1)
    assert op.evaluate([data])[0].tolist() == [[0.5, 0.5, 2.0, 3.0, 0.5, 1.0]]


def test_region_yolo_invalid_inputs_are_rejected_and_reported():
    check_rejected(lambda: opset1.region_yolo(parameter([1, 125, 13]), 4, 20, 5, True, [], 1, 3))
    check_rejected(lambda: opset1.region_yolo(parameter([1, 125, 13, 13], "i32"), 4, 20, 5, True,
                                              [], 1, 3))  # fmt: skip
    op = bare_op(RegionYolo, {"coords": "4", "classes": "20", "num": "5", "axis": "5"})
    with pytest.raises(IRError, match=r"axis 5 is out of the range \[-4, 3\]"):
        op.infer([TensorInfo(Shape([1, 125, 13, 13]), element_type("f32"))])
    with pytest.raises(IRError, match="the input must be floating-point, but it is i32"):
        op.infer([TensorInfo(Shape([1, 125, 13, 13]), element_type("i32"))])
    model = model_of(opset1.region_yolo(parameter([1, 125, 13, 13], name="x"), 4, 20, 5, True,
                                        [], 1, 3))  # fmt: skip
    report, _ = edited_report(model, lambda t: t.replace('do_softmax="true"',
                                                          'do_softmax="yes please"'))  # fmt: skip
    assert "do_softmax" in diagnostic(report, "attribute-value").message
