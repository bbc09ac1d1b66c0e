"""ReverseSequence-1: shapes against OpenVINO, the kernel against the CPU plugin (exact),
reported errors."""

from __future__ import annotations

import numpy as np
import openvino.opset1 as opset1
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irrun.ops.reverse_sequence import ReverseSequence
from tests.helpers.ir_text import Net, line_of
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
    dim_text,
    op_settings,
    shape_text,
    validated,
)


@op_settings(30)
@given(shape_text(dim_text(st.sampled_from([2, 3])), min_rank=2, max_rank=4),
       shape_text(dim_text(st.sampled_from([2, 3])), min_rank=1, max_rank=1, dynamic_rank=6),
       st.integers(-2, 1), st.integers(-3, 2), st.sampled_from(["i32", "i64", "f32"]))  # fmt: skip
def test_shapes_match_openvino(data_shape, lengths_shape, batch_axis, seq_axis, lengths_type):
    data = parameter(data_shape, name="x")
    lengths = parameter(lengths_shape, lengths_type, name="s")
    check_shapes(built(lambda: opset1.reverse_sequence(data, lengths, batch_axis, seq_axis)))


@pytest.mark.parametrize("shape, batch_axis, seq_axis, lengths", [
    ([4, 5, 2], 0, 1, [5, 0, 1, 3]),
    ([5, 4, 2], 1, 0, [2, 5, 4, 1]),
    ([3, 2, 6], -3, -1, [6, 2, 4]),
    ([2, 3, 4, 2], 0, 2, [4, 3]),
])  # fmt: skip
@pytest.mark.parametrize("lengths_type", ["i32", "i64", "f32"])
def test_kernel_matches_cpu_plugin(shape, batch_axis, seq_axis, lengths, lengths_type):
    data = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    dtype = {"i32": np.int32, "i64": np.int64, "f32": np.float32}[lengths_type]
    model = model_of(opset1.reverse_sequence(parameter(shape, name="x"),
                                             parameter([len(lengths)], lengths_type, name="s"),
                                             batch_axis, seq_axis))  # fmt: skip
    feed = {"x": data, "s": np.array(lengths, dtype)}
    np.testing.assert_array_equal(run_irrun(model, feed)[0], run_openvino(model, feed)[0])


def test_axes_checked_only_where_openvino_checks_them():
    """The batch axis is checked only when the seq_lengths rank is known; no axis for a data
    of dynamic rank."""
    for data_shape, lengths_shape, batch_axis, seq_axis in [("[0,0]", "[...]", 2, 0),
                                                             ("[...]", "[3]", 5, 5)]:  # fmt: skip
        data, lengths = parameter(data_shape, name="x"), parameter(lengths_shape, "i32", name="s")
        check_shapes(opset1.reverse_sequence(data, lengths, batch_axis, seq_axis))


def test_length_above_the_sequence_is_an_error_when_run():
    op = bare_op(ReverseSequence, {})
    with pytest.raises(ValueError, match=r"seq_lengths \[3, 1\] must lie in \[0, 2\]"):
        op.evaluate([np.zeros((2, 2), np.float32), np.array([3, 1])])


def _net(data_shape, lengths_shape, attrs):
    net = Net()
    inputs = [net.param("x", data_shape), net.param("s", lengths_shape, "i32")]
    out = net.op("r", "ReverseSequence", "opset1", attrs, inputs,
                 [int(d) for d in data_shape.split(",")])  # fmt: skip
    net.result(out)
    return net


@pytest.mark.parametrize("data_shape, lengths_shape, attrs, code, fragment", [
    ("4,5", "5", {"batch_axis": "0", "seq_axis": "1"}, "input-dims",
     "has 5 lengths, but the batch axis 0 of the data [4,5] is 4"),
    ("4", "4", {"batch_axis": "0", "seq_axis": "0"}, "input-rank", "must have rank 2 or more"),
    ("4,5", "4,1", {"batch_axis": "0", "seq_axis": "1"}, "input-rank", "seq_lengths must be 1-D"),
    ("4,5", "4", {"batch_axis": "0", "seq_axis": "2"}, "axis-range", "seq_axis 2 is out of"),
])  # fmt: skip
def test_refusals_are_reported(data_shape, lengths_shape, attrs, code, fragment):
    dims = [int(d) for d in data_shape.split(",")]
    lengths = [int(d) for d in lengths_shape.split(",")]
    check_rejected(lambda: opset1.reverse_sequence(parameter(dims), parameter(lengths, "i32"),
                                                   int(attrs["batch_axis"]),
                                                   int(attrs["seq_axis"])))  # fmt: skip
    net = _net(data_shape, lengths_shape, attrs)
    (error,) = validated(net).errors
    assert error.code == code and fragment in error.message, error.message
    if code == "input-dims":
        assert error.line == line_of(net.text(), '<port id="1"', within="r")
