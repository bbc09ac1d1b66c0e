"""ReorgYolo-2: shapes against OpenVINO (intervals divided by the stride), kernel against the
CPU plugin (exactly), reported errors."""

from __future__ import annotations

import numpy as np
import openvino.opset2 as opset2
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irrun.element_types import element_type
from irrun.errors import IRError
from irrun.ops.base import TensorInfo
from irrun.ops.reorg_yolo import ReorgYolo
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
    dim_text,
    edited_report,
    op_settings,
    shape_text,
)


@op_settings(40, rejects_many=True)  # (most shapes drawn have channels stride**2 does not divide)
@given(shape_text(dim_text(st.integers(0, 12)), min_rank=3, max_rank=5), st.integers(1, 3),
       st.sampled_from(["f32", "i32", "u8"]))  # fmt: skip
def test_reorg_yolo_shapes_match_openvino(shape, stride, etype):
    node = built(lambda: opset2.reorg_yolo(parameter(shape, etype, name="x"), [stride]))
    check_shapes(node)


CASES = [([2, 64, 6, 8], 2), ([1, 18, 9, 6], 3), ([1, 4, 2, 2], 2), ([2, 8, 4, 4], 1)]


@pytest.mark.parametrize("shape, stride", CASES)
@pytest.mark.parametrize("etype", ["f32", "i32", "u8"])
def test_reorg_yolo_matches_cpu_plugin_exactly(shape, stride, etype):
    data = np.arange(np.prod(shape)).reshape(shape).astype(element_type(etype).numpy_dtype)
    model = model_of(opset2.reorg_yolo(parameter(shape, etype, name="x"), [stride]))
    got, expected = run_irrun(model, {"x": data})[0], run_openvino(model, {"x": data})[0]
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


def test_reorg_yolo_invalid_inputs_are_rejected_and_reported():
    check_rejected(lambda: opset2.reorg_yolo(parameter([1, 3, 26, 26]), [2]))
    check_rejected(lambda: opset2.reorg_yolo(parameter([1, 64, 25, 26]), [2]))
    check_rejected(lambda: opset2.reorg_yolo(parameter([1, 64, 26]), [2]))
    op = bare_op(ReorgYolo, {"stride": "2"})
    f32 = element_type("f32")
    with pytest.raises(IRError, match=r"at least stride \* stride = 2 \* 2 = 4 channels"):
        op.infer([TensorInfo(Shape([1, 3, 26, 26]), f32)])
    with pytest.raises(
        IRError, match=r"dim 2 of the input \[1,64,25,26\] \(25\) must be a multiple"
    ):
        op.infer([TensorInfo(Shape([1, 64, 25, 26]), f32)])
    model = model_of(opset2.reorg_yolo(parameter([1, 64, 26, 26], name="x"), [2]))
    report, _ = edited_report(model, lambda t: t.replace('stride="2"', 'stride="0"'))
    assert "stride [0] must start with a size >= 1" in diagnostic(report, "attribute-value").message
