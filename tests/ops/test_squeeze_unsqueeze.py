"""Squeeze-1, Squeeze-15 and Unsqueeze-1: shapes against OpenVINO (constant and computed axes,
dynamic dims), partial values, the kernels against the CPU plugin, reported errors."""

from __future__ import annotations

import numpy as np
import openvino.opset1 as ops1
import openvino.opset15 as ops15
import pytest
from hypothesis import assume, given
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

DIMS = st.sampled_from(["1", "1", "2", "3", "?", "0..2", "1..3", "2..5", "..1", "0"])
SHAPE = shape_text(DIMS, dynamic_rank=10)


@op_settings(40)
@given(SHAPE, st.lists(st.integers(-4, 3), max_size=3), st.booleans(),
       st.sampled_from(["v1", "v15", "v15-skip"]))  # fmt: skip
def test_squeeze_shapes_match_openvino(shape, axes, scalar_axis, version):
    x = parameter(shape, "f32", name="x")
    args = [x]
    if axes or scalar_axis:
        value = np.array(axes[0] if scalar_axis and axes else axes, np.int64)
        assume(value.size > 0)
        args.append(constant(value, "i64"))
    if version == "v1":
        node = built(lambda: ops1.squeeze(*args) if len(args) == 2 else ops15.squeeze(x))
    else:
        node = built(lambda: ops15.squeeze(*args, allow_axis_skip=version == "v15-skip"))
    check_shapes(node)


@op_settings(40)
@given(SHAPE, st.lists(st.integers(-5, 4), min_size=1, max_size=3))
def test_unsqueeze_shapes_match_openvino(shape, axes):
    x = parameter(shape, "f32", name="x")
    node = built(lambda: ops1.unsqueeze(x, constant(np.array(axes, np.int64))))
    check_shapes(node)


@pytest.mark.parametrize("axes_shape", ["[1]", "[2]", "[]"])
def test_squeeze_with_axes_not_constant(axes_shape):
    x = parameter("[1,3,?]", "f32", name="x")
    axes = parameter(axes_shape, "i64", name="axes")
    check_shapes(ops1.squeeze(x, axes))
    check_shapes(ops1.unsqueeze(x, axes))


def test_squeeze_and_unsqueeze_pass_partial_values():
    """ShapeOf of a dynamic input, one element picked, squeezed to a scalar and unsqueezed back:
    Reshape still sees the dynamic dim's interval."""
    y = parameter("[2..6,4]", "f32", name="y")
    picked = ops15.gather(ops15.shape_of(y), constant(np.array([0], np.int64)), constant(0))
    scalar = ops15.squeeze(picked, constant(np.array([0], np.int64)))
    vector = ops15.unsqueeze(scalar, constant(np.array([0], np.int64)))
    target = ops15.concat([vector, constant(np.array([-1], np.int64))], 0)
    x = parameter("[?,8]", "f32", name="x")
    reshaped = ops15.reshape(x, target, False)
    assert str(reshaped.get_output_partial_shape(0)) == "[2..6,?]"
    check_shapes(reshaped)


@pytest.mark.parametrize("etype", ["f32", "f16", "i32", "i64", "u8", "boolean"])
def test_squeeze_unsqueeze_kernels_match_openvino(etype):
    rng = np.random.default_rng(3)
    x = parameter("[1,3,1,4]", etype, name="x")
    nodes = [
        ops1.squeeze(x, constant(np.array([0, -2], np.int64))),
        ops1.squeeze(x, constant(np.array([1], np.int64))),
        ops15.squeeze(x),
        ops1.unsqueeze(x, constant(np.array([0, -1, 3], np.int64))),
    ]
    model = model_of(*nodes)
    value = rng.normal(size=(1, 3, 1, 4)) * 50
    value = value > 0 if etype == "boolean" else value.astype(x.get_element_type().to_dtype())
    expected = run_openvino(model, {"x": value})
    actual = run_irrun(model, {"x": value})
    for a, e in zip(actual, expected):
        assert a.dtype == e.dtype and a.shape == e.shape
        np.testing.assert_array_equal(a, e)


def test_squeeze_axis_out_of_range_is_reported():
    check_rejected(lambda: ops1.squeeze(parameter([1, 3]), constant(np.array([2], np.int64))))
    net = Net()
    x = net.param("x", "1,3")
    net.result(net.op("s", "Squeeze", "opset1", None, [x, net.const("a", np.array([2]))], [3]))
    text = net.text()
    (error,) = validated(net).errors
    assert error.code == "axis-range" and "axis 2 is out of the range [-2, 1]" in error.message
    assert error.line == line_of(text, '<port id="1"', within="s")


def test_unsqueeze_axis_out_of_range_is_reported():
    check_rejected(lambda: ops1.unsqueeze(parameter([2, 3]), constant(np.array([3], np.int64))))
    net = Net()
    x = net.param("x", "2,3")
    net.result(net.op("u", "Unsqueeze", "opset1", None, [x, net.const("a", np.array([3]))],
                      [2, 3, 1]))  # fmt: skip
    (error,) = validated(net).errors
    assert error.code == "axis-range" and "axis 3 is out of the range [-3, 2]" in error.message


def test_squeeze15_unknown_attribute_is_warned():
    net = Net()
    x = net.param("x", "1,3")
    net.result(net.op("s", "Squeeze", "opset15", {"allow_axis_skp": "true"},
                      [x, net.const("a", np.array([0]))], [3]))  # fmt: skip
    (warning,) = list(validated(net))
    assert warning.code == "unknown-attribute" and "did you mean allow_axis_skip?" in warning.hint


FLOAT_AXES = [
    ("Squeeze-1", lambda x, a: ops1.squeeze(x, a), [3, 1], [-1.5]),
    ("Squeeze-1", lambda x, a: ops1.squeeze(x, a), [3, 1], [-0.7]),
    ("Squeeze-15", lambda x, a: ops15.squeeze(x, a, True), [3, 1], [1.9]),
    ("Unsqueeze-1", lambda x, a: ops1.unsqueeze(x, a), [3, 2], [-0.5]),
    ("Unsqueeze-1", lambda x, a: ops1.unsqueeze(x, a), [3, 2], [1.9, 3.2]),
]


@pytest.mark.parametrize("label, build, shape, axes", FLOAT_AXES)
@pytest.mark.parametrize("etype", [np.float32, np.float16])
def test_float_axes_are_truncated_with_a_warning_as_openvino_does(label, build, shape, axes,
                                                                 etype):  # fmt: skip
    """OpenVINO accepts float axes and truncates them toward 0 (-1.5 is -1, -0.7 is 0); irrun
    infers and runs the same and warns that the specification wants integers."""
    model = model_of(build(parameter(shape, "f32", "x"), constant(np.array(axes, etype))))
    loaded = check_shapes(model, allow_warnings=True)
    (warning,) = loaded.validate().warnings
    assert warning.code == "index-type" and "the specification wants an integer" in (
        warning.message
    )
    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    got = run_irrun(model, {"x": x})[0]
    np.testing.assert_array_equal(got, x.reshape(list(model.output(0).get_shape())))
    if label != "Squeeze-15":  # (the CPU plugin cannot run Squeeze-15 with float axes)
        expected = run_openvino(model, {"x": x})[0]
        assert got.shape == expected.shape
        np.testing.assert_array_equal(got, expected)
