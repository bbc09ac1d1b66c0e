"""DepthToSpace-1 and SpaceToDepth-1: shapes against OpenVINO, kernels against the CPU plugin,
reported errors."""

from __future__ import annotations

import numpy as np
import openvino.opset1 as opset1
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irrun.element_types import element_type
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

MODES = ["blocks_first", "depth_first"]
BUILD = {"DepthToSpace": opset1.depth_to_space, "SpaceToDepth": opset1.space_to_depth}


@op_settings(40)
@given(st.sampled_from(sorted(BUILD)),
       shape_text(dim_text(st.sampled_from([0, 1, 2, 3, 4, 6, 8, 9, 12, 16])), min_rank=3,
                  max_rank=5),
       st.sampled_from(MODES), st.integers(1, 3))  # fmt: skip
def test_shapes_match_openvino(op_type, shape, mode, block_size):
    x = parameter(shape, "f32", name="x")
    check_shapes(built(lambda: BUILD[op_type](x, mode, block_size)))


def test_unbounded_dims_divide_as_openvino_does():
    for shape in ["[1,8..,3]", "[1,1..,3,3]", "[1,0..,3,3]", "[1,2..17,2,3]"]:
        check_shapes(opset1.depth_to_space(parameter(shape, name="x"), "blocks_first", 2))
    for shape in ["[1,1,?,4..,1..]", "[1,2..,3..5,2..6]"]:
        for block_size in (1, 2, 3):
            node = opset1.space_to_depth(parameter(shape, name="x"), "depth_first", block_size)
            check_shapes(node)


CASES = [([2, 8, 3, 4], 2), ([1, 27, 2, 1, 2], 3), ([2, 4, 5], 2), ([1, 12, 2, 3], 1)]


@pytest.mark.parametrize("etype", ["f32", "f16", "i32", "i64", "u8", "boolean"])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shape, block_size", CASES)
def test_kernels_match_cpu_plugin(shape, block_size, mode, etype):
    dtype = element_type(etype).numpy_dtype
    rng = np.random.default_rng(2)
    data = rng.integers(0, 2 if etype == "boolean" else 100, shape).astype(dtype)
    model = model_of(opset1.depth_to_space(parameter(shape, etype, name="x"), mode, block_size))
    expected = run_openvino(model, {"x": data})[0]
    got = run_irrun(model, {"x": data})[0]
    assert got.dtype == dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)
    spatial = [shape[0], shape[1] // block_size ** (len(shape) - 2)]
    spatial += [d * block_size for d in shape[2:]]
    data = rng.integers(0, 2 if etype == "boolean" else 100, spatial).astype(dtype)
    model = model_of(opset1.space_to_depth(parameter(spatial, etype, name="x"), mode, block_size))
    expected = run_openvino(model, {"x": data})[0]
    got = run_irrun(model, {"x": data})[0]
    assert got.dtype == dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)


def _net(op_type, shape, data):
    net = Net()
    dims = [int(d) for d in shape.split(",")]
    net.result(net.op("d", op_type, "opset1", data, [net.param("x", shape)], dims))
    return net


@pytest.mark.parametrize(
    "op_type, shape, block_size, code, fragment",
    [
        ("DepthToSpace", "1,7,2,3", 2, "input-dims",
         "the channel (block_size 2^2) dim 7 must be a multiple of 4"),
        ("SpaceToDepth", "1,8,4,3", 2, "input-dims", "the spatial (axis 3) dim 3 must be a"),
        ("DepthToSpace", "1,8", 2, "input-rank", "must have rank 3 or more"),
        ("SpaceToDepth", "1,8", 2, "input-rank", "must have rank 3 or more"),
        ("DepthToSpace", "1,8,2", 0, "attribute-value", "block_size 0 must be at least 1"),
        ("SpaceToDepth", "1,8,2", 0, "attribute-value", "block_size 0 must be at least 1"),
    ],
)  # fmt: skip
def test_refusals_are_reported(op_type, shape, block_size, code, fragment):
    dims = [int(d) for d in shape.split(",")]
    check_rejected(lambda: BUILD[op_type](parameter(dims), "blocks_first", block_size))
    net = _net(op_type, shape, {"mode": "blocks_first", "block_size": block_size})
    (error,) = validated(net).errors
    assert error.code == code and fragment in error.message, error.message
    if code == "attribute-value":
        assert error.line == line_of(net.text(), "<data mode", within="d")
    else:
        assert error.line == line_of(net.text(), '<port id="0"', within="d")


def test_unknown_attribute_is_warned():
    net = _net("DepthToSpace", "1,4,2", {"mode": "depth_first", "blocksize": "2"})
    (warning,) = list(validated(net))
    assert warning.code == "unknown-attribute" and "did you mean block_size?" in warning.hint
