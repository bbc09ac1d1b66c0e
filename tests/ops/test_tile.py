"""Tile-1: shapes against OpenVINO (constant, unknown and ShapeOf-computed repeats), kernel
against the CPU plugin, reported errors."""

from __future__ import annotations

import numpy as np
import openvino.opset1 as ops
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from irrun.element_types import element_type
from irrun.ops.base import TensorInfo
from irrun.ops.tile import Tile
from irrun.shape import Shape
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
from tests.helpers.strategies import (
    bare_op,
    dim_text,
    op_settings,
    shape_of_info,
    shape_text,
    validated,
)

DIM = dim_text(st.integers(0, 6))  # a dim of size 0 to 6


@op_settings(40)
@given(shape_text(DIM), st.lists(st.integers(-2, 4), max_size=5),
       st.sampled_from(["i64", "i32", "u8"]))  # fmt: skip
def test_tile_shapes_match_openvino(shape, repeats, etype):
    assume(repeats or etype != "u8")
    if etype == "u8":
        repeats = [abs(r) for r in repeats]
    data = parameter(shape, "f32", name="x")
    if repeats:
        node = ops.tile(data, constant(np.array(repeats), etype))
    else:
        node = ops.tile(data, parameter([0], etype, name="r"))
    check_shapes(node)


def test_tile_with_unknown_repeats():
    x = parameter("[2,?,1..3]", name="x")
    check_shapes(ops.tile(x, parameter([5], "i64", name="r")))
    check_shapes(ops.tile(x, parameter([2], "i64", name="r")))
    check_shapes(ops.tile(x, parameter("[?]", "i64", name="r")))
    check_shapes(ops.tile(parameter("[...]", name="y"), constant([2, 2])))


@op_settings(40)
@given(shape_text(DIM), shape_text(DIM, max_rank=5))
def test_tile_repeats_from_shape_of_match_openvino(shape, repeats_shape):
    """Repeats computed by ShapeOf of a dynamic tensor: irrun's infer given that partial value
    (what ShapeOf gives) against OpenVINO's bound evaluation."""
    import openvino.opset3 as opset3

    assume(repeats_shape != "[...]")
    node = ops.tile(parameter(shape, name="x"),
                    opset3.shape_of(parameter(repeats_shape, name="y")))  # fmt: skip
    parsed = Shape.parse(repeats_shape.strip("[]"))
    repeats = shape_of_info(parsed)
    data = TensorInfo(Shape.parse(shape.strip("[]")), element_type("f32"))
    (out,) = bare_op(Tile, name="t").infer([data, repeats])
    assert str(out.shape) == str(node.get_output_partial_shape(0))


@pytest.mark.parametrize("etype", ["f32", "f16", "i32", "i64", "u8", "boolean"])
@pytest.mark.parametrize(
    "shape, repeats",
    [([2, 3], [2, 1, 3]), ([2, 3, 4], [2]), ([3], [0, 2]), ([2, 2], [-1, 3]), ([], [2, 2])],
)
def test_tile_matches_cpu_plugin(shape, repeats, etype):
    dtype = element_type(etype).numpy_dtype
    data = np.random.default_rng(5).integers(0, 100, shape).astype(dtype)
    model = model_of(ops.tile(parameter(shape, etype, name="x"), constant(np.array(repeats))))
    expected = run_openvino(model, {"x": data})[0]
    got = run_irrun(model, {"x": data})[0]
    assert got.dtype == dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)


def _tile_net(repeats, data=None):
    net = Net()
    inputs = [net.param("x", "2,3"), net.const("repeats", repeats)]
    net.result(net.op("t", "Tile", "opset1", data, inputs, [4, 3]))
    return net


def test_tile_scalar_and_float_repeats_are_reported():
    check_rejected(lambda: ops.tile(parameter([2, 3]), constant(np.int64(2))))
    check_rejected(lambda: ops.tile(parameter([2, 3]), constant(np.array([2.0], np.float32))))
    for repeats, code, fragment in [
        (np.int64(2), "input-rank", "repeats must be 1-D, but its shape is []"),
        (
            np.array([2.0, 1.0], np.float32),
            "index-type",
            "must be an integer tensor, but input 1 is f32",
        ),
    ]:
        net = _tile_net(repeats)
        (error,) = validated(net).errors
        assert error.code == code and fragment in error.message
        assert error.line == line_of(net.text(), '<port id="1"', within="t")


def test_tile_unknown_attribute_is_warned():
    net = _tile_net(np.array([2, 1]), data={"repeats": "2,1"})
    (warning,) = list(validated(net))
    assert warning.code == "unknown-attribute" and "Tile-1 has no attributes" in warning.hint
