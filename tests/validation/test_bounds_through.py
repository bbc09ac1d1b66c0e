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


def _window_pads(x, windows):
    """torchvision's swin3d padding: ``(w - d % w) % w`` per dim ``d``, with the window ``w``
    a constant or the dim itself (``min(window, d)`` when the input is smaller)."""
    shape = ops.shape_of(x)
    axis = constant(np.array(0, np.int64))
    pads = []
    for index, window in windows:
        size = ops.gather(shape, _ints(index), axis)
        w = size if window is None else _ints(window)
        pads.append(ops.floor_mod(ops.subtract(w, ops.floor_mod(size, w)), w))
    end = ops.concat([ZERO, *pads, ZERO], 0)
    begin = constant(np.zeros(len(windows) + 2, np.int64))
    return ops.pad(x, begin, end, "constant", constant(np.array(0, np.float32)))


def test_window_pads_keep_the_lower_bounds_of_the_padded_dims():
    # swin3d_t: a padded dim of 1.. stayed 1.. for OpenVINO, but was ? for irrun (FloorMod of
    # an interval gave nothing): 409 of its tensors were less precise than OpenVINO's
    x = parameter("[?,1..,1..,1..,96]", name="x")
    pad = _window_pads(x, [(1, None), (2, 7), (3, 7)])
    model = check_shapes(pad)
    [layer] = [layer for layer in model.layers if layer.type == "Pad"]
    assert str(layer.outputs[0].inferred_shape) == "[?,1..,1..,1..,96]"


def test_remainders_of_short_intervals_are_intervals():
    from irrun.ops._elementwise import dim_floor_mod, dim_subtract
    from irrun.shape import Dim

    assert dim_floor_mod(Dim(9, 12), 7) == Dim(2, 5)  # no wrap: the remainders themselves
    assert dim_floor_mod(Dim(5, 9), 7) == Dim(0, 6)  # wraps around 7
    assert dim_floor_mod(Dim(1, 3), 7) == Dim(1, 3)
    assert dim_floor_mod(Dim(1, None), Dim(1, None)) == Dim(0, None)  # d mod d: a size
    assert dim_floor_mod(None, 8) == Dim(0, 7)  # anything mod 8
    assert dim_floor_mod(Dim(2, 3), Dim(0, 4)) is None  # a divisor that may be 0
    assert dim_subtract(7, Dim(0, 6)) == Dim(1, 7)
    assert dim_subtract(Dim(3, 9), 2) == Dim(1, 7)
    assert dim_subtract(5, Dim(0, 6)) is None  # may be negative
    assert dim_subtract(7, Dim(0, None)) is None


def test_a_slice_keeps_the_axes_whose_bounds_are_known_and_int64_max_stays_to_the_end():
    # swin3d_t's attention-mask slices: stop = [-d (nothing known to irrun), -7, INT64_MAX]
    # through a Concat; irrun said [?,?,?] (one unknown element, and INT64_MAX taken for an
    # unknown bound), OpenVINO [?,?,1..3] (and [?,?,..4] for -7:-3)
    x = parameter("[1..,1..,1..]", name="x")
    y = parameter("[?,1..]", name="y")
    d = ops.reshape(ops.gather(ops.shape_of(y), _ints(1), constant(np.array(0, np.int64))),
                    _ints(1), False)  # fmt: skip
    minus_d = ops.multiply(d, _ints(-1))
    steps, axes = _ints(1, 1, 1), _ints(0, 1, 2)
    to_end = ops.slice(x, _ints(0, 0, -3), ops.concat([minus_d, _ints(-7), _ints(2**63 - 1)], 0),
                       steps, axes)  # fmt: skip
    window = ops.slice(x, _ints(0, 0, -7), ops.concat([minus_d, _ints(-7), _ints(-3)], 0), steps,
                       axes)  # fmt: skip
    model = check_shapes(to_end, window)
    shapes = {layer.name: str(layer.outputs[0].inferred_shape) for layer in model.layers
              if layer.type == "Slice"}  # fmt: skip
    assert shapes == {to_end.get_friendly_name(): "[?,?,1..3]",
                      window.get_friendly_name(): "[?,?,..4]"}  # fmt: skip
