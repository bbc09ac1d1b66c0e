"""ShuffleChannels-1: shapes against OpenVINO, the kernel against the CPU plugin (exact),
reported errors."""

from __future__ import annotations

import numpy as np
import openvino.opset3 as opset3
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.helpers.ir_text import Net, line_of
from tests.helpers.openvino_oracle import (
    check_rejected,
    check_shapes,
    model_of,
    parameter,
    run_irrun,
    run_openvino,
)
from tests.helpers.strategies import built, dim_text, op_settings, shape_text, validated


@op_settings(30)
@given(shape_text(dim_text(st.sampled_from([0, 2, 3, 4, 6, 12])), min_rank=1, max_rank=4),
       st.integers(-4, 3), st.sampled_from([1, 2, 3]))  # fmt: skip
def test_shapes_match_openvino(shape, axis, group):
    data = parameter(shape, name="x")
    check_shapes(built(lambda: opset3.shuffle_channels(data, axis, group)))


@pytest.mark.parametrize("shape, axis, group", [([2, 6, 3], 1, 3), ([2, 6, 4], -1, 2),
                                                ([12], 0, 4), ([1, 2, 6, 5], 2, 6)])  # fmt: skip
@pytest.mark.parametrize("etype", ["f32", "i64", "u8"])
def test_kernel_matches_cpu_plugin(shape, axis, group, etype):
    data = np.arange(np.prod(shape)).reshape(shape).astype(
        {"f32": np.float32, "i64": np.int64, "u8": np.uint8}[etype])  # fmt: skip
    model = model_of(opset3.shuffle_channels(parameter(shape, etype, name="x"), axis, group))
    np.testing.assert_array_equal(run_irrun(model, {"x": data})[0],
                                  run_openvino(model, {"x": data})[0])  # fmt: skip


@pytest.mark.parametrize("shape, attrs, code, fragment", [
    ("2,5,3", {"axis": "1", "group": "3"}, "input-dims", "the dim 5 at axis 1 must be a multiple"),
    ("2,6,6", {"axis": "1", "group": "0"}, "attribute-value", "group 0 must be at least 1"),
    ("2,6,6", {"axis": "3", "group": "2"}, "axis-range", "axis 3 is out of the range [-3, 2]"),
])  # fmt: skip
def test_refusals_are_reported(shape, attrs, code, fragment):
    dims = [int(d) for d in shape.split(",")]
    check_rejected(lambda: opset3.shuffle_channels(parameter(dims), int(attrs["axis"]),
                                                   int(attrs["group"])))  # fmt: skip
    net = Net()
    net.result(net.op("s", "ShuffleChannels", "opset3", attrs, [net.param("x", shape)], dims))
    (error,) = validated(net).errors
    assert error.code == code and fragment in error.message, error.message
    if code == "input-dims":
        assert error.line == line_of(net.text(), '<port id="0"', within="s")


def test_kernel_refuses_a_dim_the_group_does_not_divide():
    from irrun.ops.shuffle_channels import ShuffleChannels
    from tests.helpers.strategies import bare_op

    op = bare_op(ShuffleChannels, {"axis": "1", "group": "4"})
    with pytest.raises(ValueError, match=r"the dim 6 at axis 1 of data \[1, 6\] is no multiple"):
        op.evaluate([np.zeros((1, 6), np.float32)])
