"""Pad-1/12: shapes against OpenVINO (constant, unknown and ShapeOf-computed pads, every mode),
kernel against the CPU plugin, reported errors."""

from __future__ import annotations

import numpy as np
import openvino.opset1 as opset1
import openvino.opset12 as opset12
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
from tests.helpers.strategies import built, dim_text, op_settings, shape_text, validated

MODES = ["constant", "edge", "reflect", "symmetric"]
OPSETS = {"Pad-1": opset1, "Pad-12": opset12}


@op_settings(40)
@given(st.sampled_from(sorted(OPSETS)), shape_text(dim_text(st.integers(0, 5)), max_rank=4),
       st.data(), st.sampled_from(MODES), st.sampled_from(["i64", "i32"]))  # fmt: skip
def test_pad_shapes_match_openvino(label, shape, data, mode, etype):
    rank = 0 if shape == "[...]" else shape.count(",") + (shape != "[]")
    count = data.draw(st.integers(0, 4)) if shape == "[...]" else rank
    pads = st.lists(st.integers(-4, 4), min_size=count, max_size=count)
    begin, end = data.draw(pads), data.draw(pads)
    x = parameter(shape, "f32", name="x")
    pads_begin = constant(np.array(begin, np.int64), etype) if begin else parameter([0], etype)
    pads_end = constant(np.array(end, np.int64), "i64") if end else parameter([0], "i64")
    node = built(lambda: OPSETS[label].pad(x, pads_begin, pads_end, mode))
    check_shapes(node)


@op_settings(30)
@given(shape_text(dim_text(st.integers(0, 5)), min_rank=2, max_rank=2, dynamic_rank=None),
       shape_text(dim_text(st.integers(0, 4)), min_rank=2, max_rank=2, dynamic_rank=None),
       st.sampled_from(MODES))  # fmt: skip
def test_pad_by_shape_of_matches_openvino(shape, pads_shape, mode):
    x = parameter(shape, "f32", name="x")
    pads = opset1.shape_of(parameter(pads_shape, name="p"))
    node = built(lambda: opset12.pad(x, pads, constant(np.array([1, 0], np.int64)), mode))
    check_shapes(node)


def test_pad_with_unknown_pads_and_pad_value():
    x = parameter("[2,?,1..3]", name="x")
    check_shapes(opset12.pad(x, parameter([3], "i64", name="b"), constant([1, 1, 1]), "edge"))
    check_shapes(opset12.pad(parameter("[...]", name="y"), constant([1]), constant([2]), "edge"))
    value = parameter([], "f32", name="v")
    check_shapes(opset1.pad(x, constant([0, 1, 2]), constant([1, -1, 0]), "constant", value))
    any_type = parameter("[2,3]", "dynamic", name="z")
    check_shapes(opset12.pad(any_type, constant([1, 1]), constant([1, 1]), "constant",
                             parameter([], "i8", name="w")))  # fmt: skip


CASES = [
    ([3, 4], [1, 2], [2, 1]),
    ([2, 3, 4], [0, 1, -1], [1, -2, 2]),
    ([2, 5], [-1, 4], [0, -2]),
    ([1, 2, 3, 4], [0, 0, 2, 3], [0, 1, 2, 3]),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shape, begin, end", CASES)
@pytest.mark.parametrize("label", sorted(OPSETS))
def test_pad_matches_cpu_plugin(label, shape, begin, end, mode):
    data = np.random.default_rng(3).standard_normal(shape).astype(np.float32)
    x = parameter(shape, "f32", name="x")
    extra = [constant(np.float32(2.5))] if mode == "constant" else []
    node = OPSETS[label].pad(x, constant(begin), constant(end), mode, *extra)
    model = model_of(node)
    expected = run_openvino(model, {"x": data})[0]
    got = run_irrun(model, {"x": data})[0]
    assert got.dtype == np.float32 and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("etype", ["f16", "i32", "i64", "u8", "boolean"])
@pytest.mark.parametrize("mode", MODES)
def test_pad_element_types_match_cpu_plugin(etype, mode):
    dtype = element_type(etype).numpy_dtype
    data = np.random.default_rng(4).integers(0, 2 if etype == "boolean" else 50, [3, 4])
    data = data.astype(dtype)
    extra = [constant(np.array(1, dtype), etype)] if mode == "constant" else []
    node = opset12.pad(parameter([3, 4], etype, name="x"), constant([2, -1]), constant([1, 2]),
                       mode, *extra)  # fmt: skip
    model = model_of(node)
    expected = run_openvino(model, {"x": data})[0]
    got = run_irrun(model, {"x": data})[0]
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, expected)


def _pad_net(begin, end, mode="constant", shape="2,3", extra=(), data=None):
    net = Net()
    inputs = [net.param("x", shape), net.const("b", np.array(begin)), net.const("e", end)]
    inputs += [net.const(f"v{i}", value) for i, value in enumerate(extra)]
    out = [2, 3]
    net.result(net.op("p", "Pad", "opset12", {"pad_mode": mode} | (data or {}), inputs, out))
    return net


@pytest.mark.parametrize(
    "build, net, port, code, fragment",
    [
        (lambda: opset12.pad(parameter([2, 3]), constant([0, 0, 1]), constant([0, 0]), "edge"),
         _pad_net([0, 0, 1], np.array([0, 0])), 1, "input-dims",
         "pads_begin has 3 elements, more than the data rank 2"),
        (lambda: opset12.pad(parameter([2, 3]), constant([0, 0]), constant([0]), "edge"),
         _pad_net([0, 0], np.array([0])), 2, "input-dims",
         "pads_end has 1 elements, but the data has rank 2"),
        (lambda: opset12.pad(parameter([2, 3]), constant(np.float32([0, 0])), constant([0, 0]),
                             "edge"),
         _pad_net(np.float32([0, 0]), np.array([0, 0])), 1, "index-type",
         "the pads_begin input must be an integer tensor, but input 1 is f32"),
        (lambda: opset12.pad(parameter([2, 3]), constant([[0, 0]]), constant([0, 0]), "edge"),
         _pad_net([[0, 0]], np.array([0, 0])), 1, "input-rank",
         "pads_begin must be 1-D, but its shape is [1,2]"),
        (lambda: opset12.pad(parameter([2, 3]), constant([0, 3]), constant([0, 0]), "reflect"),
         _pad_net([0, 3], np.array([0, 0]), "reflect"), 1, "input-value",
         "reflect padding takes pads below the dim, but axis 1 of size 3 is padded by 3 and 0"),
        (lambda: opset12.pad(parameter([2, 3]), constant([0, 0]), constant([0, 4]), "symmetric"),
         _pad_net([0, 0], np.array([0, 4]), "symmetric"), 2, "input-value",
         "symmetric padding takes pads of at most the dim, but axis 1 of size 3"),
        (lambda: opset12.pad(parameter([2, 1]), constant([0, 0]), constant([0, 1]), "reflect"),
         _pad_net([0, 0], np.array([0, 1]), "reflect", "2,1"), 2, "input-value",
         "reflect padding needs a dim of at least 2, but axis 1 has 1"),
        (lambda: opset12.pad(parameter([0, 3]), constant([1, 0]), constant([0, 0]), "edge"),
         _pad_net([1, 0], np.array([0, 0]), "edge", "0,3"), 1, "input-value",
         "edge padding needs a dim of at least 1, but axis 0 has 0"),
        (lambda: opset12.pad(parameter([2, 3]), constant([0, 0]), constant([0, 0]), "constant",
                             constant(np.float32([1]))),
         _pad_net([0, 0], np.array([0, 0]), extra=[np.float32([1])]), 3, "input-rank",
         "pad_value must be a scalar, but its shape is [1]"),
        (lambda: opset12.pad(parameter([2, 3]), constant([0, 0]), constant([0, 0]), "constant",
                             constant(np.int32(1))),
         _pad_net([0, 0], np.array([0, 0]), extra=[np.int32(1)]), None, "input-type",
         "input 0 is f32, input 3 is i32"),
    ],
)  # fmt: skip
def test_pad_refusals_are_reported(build, net, port, code, fragment):
    check_rejected(build)
    (error,) = validated(net).errors
    assert error.code == code and fragment in error.message, error.message
    if port is not None:
        assert error.line == line_of(net.text(), f'<port id="{port}"', within="p")


def test_pad_unknown_attribute_is_warned():
    net = _pad_net([0, 0], np.array([0, 0]), data={"pad_mod": "edge"})
    (warning,) = list(validated(net))
    assert warning.code == "unknown-attribute" and "did you mean pad_mode?" in warning.hint
