"""What the kernels and shape rules say when they cannot go on: the layer, the values, the
arithmetic and what would fix it (inputs OpenVINO would also fail on at run time, given to the
ops directly as validation would refuse most of them first)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from irrun.element_types import ELEMENT_TYPES
from irrun.ops.base import OpContext, TensorInfo
from irrun.ops.registry import resolve
from irrun.shape import Shape
from tests.helpers.strategies import bare_op


class Collected(OpContext):
    def __init__(self):
        self.errors = []

    def error(self, code, message, *, port=None, hint=None, line=None):
        self.errors.append((code, message, hint))


def _op(op_type, opset, attributes=None, context=None):
    op_class = resolve(op_type, opset)
    op_class = getattr(op_class, "op_class", op_class)
    ports = [SimpleNamespace(id=i) for i in range(5)]
    return bare_op(op_class, attributes, id=7, name="L", type=op_type, data_line=3,
                   inputs=ports, outputs=ports, context=context or Collected())  # fmt: skip


def test_reduce_mean_of_an_empty_integer_reduction_names_the_values():
    op = _op("ReduceMean", 1, {"keep_dims": "false"})
    with pytest.raises(ZeroDivisionError) as caught:
        op.evaluate([np.zeros((2, 0), np.int32), np.array([1])])
    message = str(caught.value)
    assert "layer 7 'L' (ReduceMean-1): integer mean of an empty reduction" in message
    assert "data [2, 0] reduced over axes [1] has 0 elements per output" in message
    assert "Convert the data to a float type" in message


def test_reduce_kernel_axis_out_of_range_names_axes_rank_and_fix():
    with pytest.raises(ValueError) as caught:
        _op("ReduceSum", 1).evaluate([np.zeros((2, 3), np.float32), np.array([0, 2])])
    assert "layer 7 'L' (ReduceSum-1): axis 2 of axes [0, 2] is out of the range [-2, 1] " in (
        str(caught.value)
    )
    assert "use axes between -2 and 1" in str(caught.value)


def test_slice_kernel_step_zero_names_its_position():
    with pytest.raises(ValueError) as caught:
        _op("Slice", 8).evaluate([np.arange(10), np.array([0, 0]), np.array([5, 5]),
                                  np.array([1, 0]), np.array([0, 0])])  # fmt: skip
    assert "step at position 1 (for axis 0) is 0 in [1, 0]" in str(caught.value)


def test_strided_slice_kernel_errors_name_the_values():
    attributes = {"begin_mask": "0", "end_mask": "0", "shrink_axis_mask": "1"}
    op = _op("StridedSlice", 1, attributes)
    with pytest.raises(ValueError) as caught:
        op.evaluate([np.arange(10), np.array([12]), np.array([13]), np.array([1])])
    assert "shrink position 0 takes element 12 of a dimension of size 10, outside [-10, 9]" in (
        str(caught.value)
    )
    op = _op("StridedSlice", 1, {"begin_mask": "0", "end_mask": "0"})
    with pytest.raises(ValueError) as caught:
        op.evaluate([np.arange(10), np.array([1]), np.array([5]), np.array([0])])
    assert "(StridedSlice-1): the stride at position 0 is 0 in [0]" in str(caught.value)


def test_variadic_split_kernel_shows_the_sum():
    with pytest.raises(ValueError) as caught:
        _op("VariadicSplit", 1).evaluate([np.zeros((2, 6)), np.array(1), np.array([2, 3])])
    assert "split_lengths [2, 3] do not split axis 1 of data [2, 6]: 2 + 3 = 5, not 6" in (
        str(caught.value)
    )


def test_split_num_splits_zero_is_reported_once_without_a_crash():
    context = Collected()
    op = _op("Split", 1, {"num_splits": "0"}, context)
    info = TensorInfo(Shape([4, 6]), ELEMENT_TYPES["f32"])
    axis = TensorInfo(Shape([]), ELEMENT_TYPES["i64"], value=np.array(1))
    assert op.infer([info, axis]) is None
    assert [m for _, m, _ in context.errors] == [
        "layer 7 'L' (Split-1): num_splits is 0; it must be at least 1"
    ]


@pytest.mark.parametrize(
    "shape, code, fragment, hint",
    [
        ([2, 3], "input-rank", "rank 2", "Reshape the data to [N, C, spatial...] with 1 to 3"),
        ([0, 1, 4, 4], "input-dims", "batch size of zero", "must be at least 1"),
        ([1, 0, 4, 4], "input-dims", "channel count of zero", "must be at least 1"),
    ],
)
def test_pooling_data_errors_have_hints(shape, code, fragment, hint):
    context = Collected()
    attributes = {"strides": "1,1", "pads_begin": "0,0", "pads_end": "0,0", "kernel": "1,1"}
    op = _op("MaxPool", 1, attributes, context)
    assert op.infer([TensorInfo(Shape(shape), ELEMENT_TYPES["f32"])]) is None
    ((got_code, message, got_hint),) = context.errors
    assert got_code == code and fragment in message and hint in got_hint
