"""OneHot-1/16: shapes against OpenVINO, kernel against the CPU plugin, reported errors."""

from __future__ import annotations

import numpy as np
import openvino.opset1 as opset1
import openvino.opset16 as opset16
import pytest
from hypothesis import given
from hypothesis import strategies as st

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


def _build(version, indices, depth, on, off, axis, mode=None):
    if version == 1:
        return opset1.one_hot(indices, depth, on, off, axis)
    return opset16.one_hot(indices, depth, on, off, axis, negative_indices_mode=mode)


@op_settings(30)
@given(st.sampled_from([1, 16]), shape_text(max_rank=3), st.integers(-4, 3),
       st.sampled_from(["const", "param", "shape_of"]),
       st.sampled_from(["f32", "i32", "u8"]))  # fmt: skip
def test_one_hot_shapes_match_openvino(version, shape, axis, depth_kind, etype):
    indices = parameter(shape, "i64", name="i")
    if depth_kind == "const":
        depth = constant(np.int64(4))
    elif depth_kind == "param":
        depth = parameter([], "i32", name="d")
    else:
        depth = opset1.squeeze(opset1.shape_of(parameter("[2..7]", name="s")), constant([0]))
    on, off = constant(np.array(1), etype), constant(np.array(0), etype)
    check_shapes(built(lambda: _build(version, indices, depth, on, off, axis)))


@pytest.mark.parametrize("mode", [None, "ignore_negative", "normalize"])
@pytest.mark.parametrize("etype", ["f32", "i32", "i64", "u8", "boolean"])
@pytest.mark.parametrize("shape, axis", [([6], 0), ([2, 3], -1), ([2, 3], 1), ([], 0)])
def test_one_hot_matches_cpu_plugin(shape, axis, etype, mode):
    indices = np.random.default_rng(1).integers(-5, 6, shape).astype(np.int32)
    version = 1 if mode is None else 16
    on, off = constant(np.array(1), etype), constant(np.array(0), etype)
    if etype != "boolean":
        on, off = constant(np.array(7), etype), constant(np.array(2), etype)
    node = _build(version, parameter(shape, "i32", name="i"), constant(np.int64(4)), on, off,
                  axis, mode)  # fmt: skip
    model = model_of(node)
    expected = run_openvino(model, {"i": indices})[0]
    got = run_irrun(model, {"i": indices})[0]
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)


ON, OFF = np.float32(1), np.float32(0)


def _one_hot_net(depth, on=ON, off=OFF, indices="i64", axis=-1, data=None):
    net = Net()
    inputs = [net.param("i", "2,3", indices), net.const("d", depth), net.const("on", on),
              net.const("off", off)]  # fmt: skip
    net.result(net.op("h", "OneHot", "opset1", {"axis": axis} | (data or {}), inputs, [2, 3, 4],
                      precision="FP32"))  # fmt: skip
    return net


@pytest.mark.parametrize(
    "kwargs, port, code, fragment",
    [
        ({"depth": np.int64(-4)}, 1, "input-value", "depth -4 is negative"),
        ({"depth": np.array([4])}, 1, "input-rank", "depth must be a scalar, but its shape is [1]"),
        ({"depth": np.float32(4)}, 1, "index-type", "the depth input must be an integer tensor"),
        ({"depth": np.int64(4), "indices": "f32"}, 0, "index-type", "indices input must be an"),
        ({"depth": np.int64(4), "off": np.int32(0)}, 3, "input-type", "off_value is i32"),
        ({"depth": np.int64(4), "on": np.float32([1])}, 2, "input-rank", "on_value must be a"),
        ({"depth": np.int64(4), "axis": 3}, None, "axis-range", "axis 3 is out of the range"),
    ],
)
def test_one_hot_refusals_are_reported(kwargs, port, code, fragment):
    args = {"depth": np.int64(4), "on": np.float32(1), "off": np.float32(0), "indices": "i64",
            "axis": -1} | kwargs  # fmt: skip
    check_rejected(lambda: opset1.one_hot(parameter([2, 3], args["indices"]),
                                          constant(args["depth"]), constant(args["on"]),
                                          constant(args["off"]), args["axis"]))  # fmt: skip
    net = _one_hot_net(**kwargs)
    (error,) = validated(net).errors
    assert error.code == code and fragment in error.message, error.message
    if port is not None:
        assert error.line == line_of(net.text(), f'<port id="{port}"', within="h")


def test_one_hot_unknown_attribute_is_warned():
    net = _one_hot_net(np.int64(4), data={"negative_indices_mode": "normalize"})
    (warning,) = list(validated(net))
    assert warning.code == "unknown-attribute" and "OneHot-16 and later" in warning.hint
