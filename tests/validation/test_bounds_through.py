"""Partial values of shape sub-graphs through ops that only move elements, at any rank.

Converters compute pads and shapes with ShapeOf, arithmetic, and data movement through
tensors of rank 2 (swin's window padding: a [6] vector reshaped to [3,2] pairs, split,
squeezed, reversed); irrun runs those ops' kernels on the elements' lower and upper bounds, as
OpenVINO evaluates bounds. Shapes are compared with OpenVINO's op constructors."""

import numpy as np
from openvino import opset8 as ops

from tests.helpers.openvino_oracle import check_shapes, constant, parameter

ZERO = constant(np.array([0], np.int64))


def _ints(*values):
    return constant(np.array(values, np.int64))


def test_window_pads_through_a_rank_2_reshape_split_and_squeeze():
    # swin_t's padding to a multiple of 7: without the bounds, every padded dim was `?`
    # (the 96 channels too), where OpenVINO keeps 96.
    x = parameter("[?,?,?,96]", name="x")
    shape = ops.shape_of(x)
    seven = _ints(7)
    axis = constant(np.array(0, np.int64))
    pad_h, pad_w = (ops.floor_mod(ops.subtract(seven, ops.floor_mod(
        ops.gather(shape, _ints(i), axis), seven)), seven) for i in (1, 2))  # fmt: skip
    flat = ops.concat([ZERO, ZERO, ZERO, pad_w, ZERO, pad_h], 0)
    pairs = ops.reshape(flat, _ints(3, 2), False)
    halves = ops.split(pairs, constant(np.array(1, np.int64)), 2)
    begins, ends = (ops.squeeze(halves.output(i), _ints(1)) for i in (0, 1))
    reverse = _ints(2, 1, 0)
    begin = ops.concat([ZERO, ops.gather(begins, reverse, axis)], 0)
    end = ops.concat([ZERO, ops.gather(ends, reverse, axis)], 0)
    pad = ops.pad(x, begin, end, "constant", constant(np.array(0, np.float32)))
    model = check_shapes(pad)
    [layer] = [layer for layer in model.layers if layer.type == "Pad"]
    assert str(layer.outputs[0].inferred_shape) == "[?,?,?,96]"


def test_intervals_through_a_transpose_of_a_rank_2_shape_tensor():
    # [2,3..8,4] -> ShapeOf -> Reshape [3,1] -> Transpose [1,3] -> Reshape [3] -> the target of
    # another Reshape: its dims keep the interval and the static sizes.
    x = parameter("[2,3..8,4]", name="x")
    column = ops.reshape(ops.shape_of(x), _ints(3, 1), False)
    row = ops.transpose(column, _ints(1, 0))
    target = ops.reshape(row, _ints(3), False)
    y = parameter("[2,?,4]", name="y")
    reshaped = ops.reshape(y, target, False)
    model = check_shapes(reshaped)
    [layer] = [layer for layer in model.layers if layer.name == reshaped.get_friendly_name()]
    assert str(layer.outputs[0].inferred_shape) == "[2,3..8,4]"
