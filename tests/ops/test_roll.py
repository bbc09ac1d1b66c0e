"""Roll-7: shapes against OpenVINO, kernel against the CPU plugin, reported errors."""

from __future__ import annotations

import numpy as np
import openvino.opset7 as opset7
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irrun.element_types import element_type
from tests.helpers.ir_text import Net, line_of
from tests.helpers.openvino_oracle import (
    check_rejected,
    check_shapes,
    constant,
    model_of,
    parameter,
    run_irrun,
    run_openvino,
)
from tests.helpers.strategies import built, op_settings, shape_text, validated


@op_settings(30)
@given(shape_text(max_rank=4), st.lists(st.integers(-4, 3), min_size=1, max_size=3),
       st.booleans(), st.sampled_from(["i32", "i64"]))  # fmt: skip
def test_roll_shapes_match_openvino(shape, axes, scalar_shift, etype):
    x = parameter(shape, "f32", name="x")
    shift = constant(np.array(2 if scalar_shift else [1] * len(axes)), etype)
    check_shapes(built(lambda: opset7.roll(x, shift, constant(np.array(axes), etype))))


def test_roll_with_unknown_shift_and_axes():
    x = parameter("[2,?,1..3]", name="x")
    check_shapes(opset7.roll(x, parameter([2], "i64", name="s"), parameter("[?]", "i32", name="a")))


@pytest.mark.parametrize("etype", ["f32", "f16", "i32", "i64", "u8", "boolean"])
@pytest.mark.parametrize(
    "shape, shift, axes",
    [([5], 2, [0]), ([3, 4], [1, -5], [0, 1]), ([2, 3, 4], [7, 7], [-1, 0]),
     ([2, 3, 4], [1, 2], [2, 2]), ([4, 3], [-1], [1])],
)  # fmt: skip
def test_roll_matches_cpu_plugin(shape, shift, axes, etype):
    dtype = element_type(etype).numpy_dtype
    data = np.random.default_rng(5).integers(0, 100, shape).astype(dtype)
    node = opset7.roll(parameter(shape, etype, name="x"), constant(np.array(shift)),
                       constant(np.array(axes)))  # fmt: skip
    model = model_of(node)
    expected = run_openvino(model, {"x": data})[0]
    got = run_irrun(model, {"x": data})[0]
    assert got.dtype == dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)


def test_roll_scalar_shift_moves_every_axis():
    """The CPU plugin refuses a scalar shift with several axes ('shift' and 'axes' dimensions
    mismatch); the specification moves each axis by it, as OpenVINO's reference does."""
    data = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    model = model_of(opset7.roll(parameter([2, 3, 4], name="x"), constant(np.array(7)),
                                 constant(np.array([-1, 0]))))  # fmt: skip
    got = run_irrun(model, {"x": data})[0]
    np.testing.assert_array_equal(got, np.roll(np.roll(data, 7, 2), 7, 0))
    assert got[0, 0, 0] == data[1, 0, 1]


def _roll_net(shift, axes, data=None):
    net = Net()
    inputs = [net.param("x", "2,3"), net.const("s", np.array(shift)), net.const("a", axes)]
    net.result(net.op("r", "Roll", "opset7", data, inputs, [2, 3]))
    return net


@pytest.mark.parametrize(
    "shift, axes, port, code, fragment",
    [
        ([1, 2, 3], np.array([0, 1]), 2, "input-dims", "a 1-D shift of shape [3] needs a 1-D"),
        ([1], np.array([2]), 2, "axis-range", "axis 2 is out of the range [-2, 1]"),
        (np.int8([1]), np.array([1]), 1, "index-type", "shift must be i32 or i64, but input 1"),
        ([1], np.uint8([1]), 2, "index-type", "axes must be i32 or i64, but input 2 is u8"),
        ([[1]], np.array([1]), 1, "input-rank", "shift must be a scalar or 1-D"),
    ],
)
def test_roll_refusals_are_reported(shift, axes, port, code, fragment):
    check_rejected(lambda: opset7.roll(parameter([2, 3]), constant(np.array(shift)),
                                       constant(axes)))  # fmt: skip
    net = _roll_net(shift, axes)
    (error,) = validated(net).errors
    assert error.code == code and fragment in error.message, error.message
    assert error.line == line_of(net.text(), f'<port id="{port}"', within="r")


def test_roll_unknown_attribute_is_warned():
    net = _roll_net([1], np.array([1]), data={"axis": "1"})
    (warning,) = list(validated(net))
    assert warning.code == "unknown-attribute" and "Roll-7 has no attributes" in warning.hint
