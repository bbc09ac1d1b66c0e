"""Reduce* ops (Sum, Mean, Max, Min, Prod, L1, L2, LogicalAnd, LogicalOr): shapes and element
types against OpenVINO, kernels against its CPU plugin (and the reference where the plugin
differs), partial values of shape arithmetic, and the diagnostics of invalid layers."""

from __future__ import annotations

import numpy as np
import openvino as ov
import openvino.opset1 as opset1
import openvino.opset4 as opset4
import openvino.opset8 as opset8
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from irrun.element_types import element_type, from_numpy_dtype
from irrun.ops._values import elements_of
from irrun.ops.base import TensorInfo
from irrun.ops.registry import resolve
from irrun.shape import Dim, Shape
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
from tests.helpers.strategies import bare_op, op_settings, validated

ARITHMETIC = {
    "ReduceSum": opset1.reduce_sum,
    "ReduceMean": opset1.reduce_mean,
    "ReduceMax": opset1.reduce_max,
    "ReduceMin": opset1.reduce_min,
    "ReduceProd": opset1.reduce_prod,
    "ReduceL1": opset4.reduce_l1,
    "ReduceL2": opset4.reduce_l2,
}
LOGICAL = {
    "ReduceLogicalAnd": opset1.reduce_logical_and,
    "ReduceLogicalOr": opset1.reduce_logical_or,
}
ALL = {**ARITHMETIC, **LOGICAL}
DIMS = ["1", "2", "3", "?", "2..5", "0..3"]


def _empty_axes(etype="i64"):
    return ov.op.Constant(getattr(ov.Type, etype), ov.Shape([0]), [])


@st.composite
def _cases(draw):
    name = draw(st.sampled_from(sorted(ALL)))
    dynamic_rank = draw(st.integers(0, 9)) == 0
    rank = draw(st.integers(0, 4))
    shape = "[...]" if dynamic_rank else "[" + ",".join(draw(st.sampled_from(DIMS))
                                                     for _ in range(rank)) + "]"  # fmt: skip
    etype = "boolean" if name in LOGICAL else draw(st.sampled_from(["f32", "f16", "i32", "u8"]))
    keep = draw(st.booleans())
    kind = draw(st.sampled_from(["const", "const", "const", "scalar", "empty", "param"]))
    r = max(rank, 1)
    axes = draw(st.lists(st.integers(-r, r - 1), min_size=1, max_size=3))
    axes_type = draw(st.sampled_from(["i64", "i32", "u8" if min(axes) >= 0 else "i64"]))
    param_axes = draw(st.sampled_from(["[1]", "[2]", "[]", "[?]", "[...]"]))
    return name, shape, etype, keep, kind, axes, axes_type, param_axes


@op_settings(40)
@given(_cases())
def test_shapes_match_openvino(case):
    name, shape, etype, keep, kind, axes, axes_type, param_axes = case
    data = parameter(shape, etype, name="x")
    if kind == "const":
        axes_node = constant(np.array(axes), axes_type)
    elif kind == "scalar":
        axes_node = constant(np.array(axes[0]), axes_type)
    elif kind == "empty":
        axes_node = _empty_axes()
    else:
        axes_node = parameter(param_axes, axes_type, name="axes")
    try:
        node = ALL[name](data, axes_node, keep)
    except Exception:  # OpenVINO refuses it (checked separately below)
        assume(False)
    check_shapes(node)


@pytest.mark.parametrize("keep", [False, True])
def test_intervals_survive_and_reduced_interval_dims_become_1(keep):
    node = opset1.reduce_sum(parameter("[2..5,?,1..8,4]", "f32"), constant([0, -2], "i64"), keep)
    check_shapes(node)
    expected = "[1,?,1,4]" if keep else "[?,4]"
    assert str(node.get_output_partial_shape(0)) == expected


def test_axes_from_a_shape_subgraph_are_folded():
    """Axes computed from ShapeOf of a static input are constants for OpenVINO and irrun."""
    x = parameter("[2,3,4,5]", "f32", name="x")
    rank = opset1.shape_of(opset1.shape_of(parameter("[2,?,4]", "f32", name="y")))  # [3]
    node = opset1.reduce_max(x, rank, False)
    assert str(node.get_output_partial_shape(0)) == "[2,3,4]"
    check_shapes(node)


# -- partial values ---------------------------------------------------------------------------
def _infer(op_type, version, inputs, keep_dims=False):
    attributes = {"keep_dims": "true" if keep_dims else "false"}
    op = bare_op(resolve(op_type, None), attributes, id=1, name="r", type=op_type,
                 inputs=[None, None])  # fmt: skip
    assert op.version == version
    return op.infer(inputs)


_I64 = element_type("i64")


def _shape_value(*elements):
    return TensorInfo(Shape([len(elements)]), _I64, partial=tuple(elements))


def _axes(*values):
    return TensorInfo(Shape([len(values)]), _I64, value=np.array(values, np.int64))


def test_prod_of_a_partial_shape_multiplies_the_bounds():
    (out,) = _infer("ReduceProd", 1, [_shape_value(Dim(2, 4), 3, Dim(1, 2)), _axes(0)])
    assert out.shape == Shape([]) and elements_of(out) == (Dim(6, 24),)


def test_prod_with_an_unbounded_dim_is_unbounded_and_keep_dims_gives_one_element():
    (out,) = _infer("ReduceProd", 1, [_shape_value(Dim(2, None), 3), _axes(-1)], keep_dims=True)
    assert out.shape == Shape([1]) and elements_of(out) == (Dim(6, None),)


def test_prod_with_a_zero_is_zero_and_with_minus_one_unknown():
    (zero,) = _infer("ReduceProd", 1, [_shape_value(Dim.dynamic(), 0), _axes(0)])
    assert zero.value is not None and zero.value.tolist() == 0
    (unknown,) = _infer("ReduceProd", 1, [_shape_value(Dim(1, 3), -1), _axes(0)])
    assert elements_of(unknown) is None and unknown.value is None


def test_sum_of_a_partial_shape_adds_the_bounds():
    (out,) = _infer("ReduceSum", 1, [_shape_value(Dim(2, 4), 3), _axes(0)])
    assert elements_of(out) == (Dim(5, 7),)
    (unknown,) = _infer("ReduceSum", 1, [_shape_value(None, 3), _axes(0)])
    assert elements_of(unknown) is None


def test_empty_axes_pass_a_partial_value_through():
    elements = (Dim(2, 4), 3)
    empty = TensorInfo(Shape([0]), _I64, value=np.zeros(0, np.int64))
    (same,) = _infer("ReduceProd", 1, [_shape_value(*elements), empty])
    assert elements_of(same) == elements


def test_min_and_max_of_a_partial_shape_take_the_bounds_apart():
    (low,) = _infer("ReduceMin", 1, [_shape_value(5, Dim(2, 8), Dim(3, 4)), _axes(0)])
    assert low.shape == Shape([]) and elements_of(low) == (Dim(2, 4),)
    (high,) = _infer("ReduceMax", 1, [_shape_value(5, Dim(2, 8), Dim(3, 4)), _axes(0)])
    assert elements_of(high) == (Dim(5, 8),)
    (unbounded,) = _infer("ReduceMax", 1, [_shape_value(20, Dim.dynamic()), _axes(0)])
    assert elements_of(unbounded) == (Dim(20, None),)
    (exact,) = _infer("ReduceMin", 1, [_shape_value(Dim(30, 40), 20), _axes(0)])
    assert elements_of(exact) == (20,)
    (negative,) = _infer("ReduceMin", 1, [_shape_value(-1, Dim(2, 8)), _axes(0)])
    assert elements_of(negative) is None  # (below every interval: only exact values say it)
    (unknown,) = _infer("ReduceMax", 1, [_shape_value(None, 3), _axes(0)])
    assert elements_of(unknown) is None


@pytest.mark.parametrize("reduce", ["reduce_min", "reduce_max"])
@pytest.mark.parametrize(("dims", "given"), [
    ("[..3234]", 20), ("[5..3234]", 20), ("[?]", 20), ("[30..40]", 20), ("[2..8,3..4]", 5),
])  # fmt: skip
def test_min_and_max_of_a_shape_bound_a_broadcast_as_openvino(reduce, dims, given):
    """Broadcast(1, [Reduce(Concat([given], ShapeOf(y)))]): SSD's TopK takes k = min(20, n)."""
    y = parameter(dims, "f32", name="y")
    joined = opset1.concat([constant([given], "i64"), opset4.shape_of(y, "i64")], 0)
    size = getattr(opset1, reduce)(joined, constant([0], "i64"), True)
    node = opset4.broadcast(constant(np.float32(1), "f32"), size)
    check_shapes(node)


def test_flattening_a_dynamic_shape_through_reduce_prod_matches_openvino():
    """Reshape(y, [ReduceProd(ShapeOf(y)[0:2]), -1]): the product of the bounds, as OpenVINO."""
    y = parameter("[2..4,3,?]", "f32", name="y")
    first_two = opset8.gather(opset1.shape_of(y), constant([0, 1], "i64"), constant(0, "i64"))
    size = opset1.reduce_prod(first_two, constant([0], "i64"), True)
    node = opset1.reshape(y, opset1.concat([size, constant([-1], "i64")], 0), False)
    assert str(node.get_output_partial_shape(0)) == "[6..12,?]"
    check_shapes(node)


# -- kernels ----------------------------------------------------------------------------------
def _compare(name, shape, axes, keep, data, **tolerance):
    etype = from_numpy_dtype(data.dtype).name
    node = ALL[name](parameter(shape, etype, name="x"), constant(np.array(axes), "i64"), keep)
    model = model_of(node)
    expected = run_openvino(model, {"x": data})[0]
    got = run_irrun(model, {"x": data})[0]
    assert got.dtype == data.dtype and got.shape == expected.shape
    if tolerance:
        np.testing.assert_allclose(got, expected, **tolerance)
    else:
        np.testing.assert_array_equal(got, expected)
    return got


CASES = [([2, 3, 4, 5], [1, -1], False), ([2, 3, 4, 5], [0, 2, 2], True), ([6, 7], [0], True),
         ([3, 4], [-1], False)]  # fmt: skip


@pytest.mark.parametrize("shape, axes, keep", CASES)
@pytest.mark.parametrize("name, rtol", [("ReduceSum", 1e-6), ("ReduceMean", 1e-6),
                                        ("ReduceProd", 1e-6), ("ReduceL1", 1e-6),
                                        ("ReduceL2", 2e-6)])  # fmt: skip
def test_float_kernels_match_openvino_within_the_documented_tolerance(name, rtol, shape, axes,
                                                                      keep):  # fmt: skip
    data = np.random.default_rng(len(shape) + len(axes)).standard_normal(shape).astype(np.float32)
    _compare(name, shape, axes, keep, data, rtol=rtol, atol=1e-6)


@pytest.mark.parametrize("shape, axes, keep", CASES)
@pytest.mark.parametrize("name", ["ReduceMax", "ReduceMin"])
@pytest.mark.parametrize("dtype", ["float32", "float16", "int32", "uint8", "int8"])
def test_max_and_min_are_exact(name, dtype, shape, axes, keep):
    rng = np.random.default_rng(3)
    data = (rng.standard_normal(shape) * 50).astype(dtype)
    _compare(name, shape, axes, keep, data)


@pytest.mark.parametrize("shape, axes, keep", CASES)
@pytest.mark.parametrize("name", ["ReduceSum", "ReduceL1", "ReduceProd", "ReduceMean"])
@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_integer_kernels_are_exact(name, dtype, shape, axes, keep):
    data = np.random.default_rng(5).integers(-4, 5, shape).astype(dtype)
    _compare(name, shape, axes, keep, data)


def test_f16_sum_and_mean_are_within_one_ulp():
    data = np.random.default_rng(8).standard_normal([4, 64]).astype(np.float16)
    for name in ("ReduceSum", "ReduceMean", "ReduceL2"):
        _compare(name, "[4,64]", [1], False, data, rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("shape, axes, keep", CASES)
@pytest.mark.parametrize("name", sorted(LOGICAL))
def test_logical_kernels_are_exact(name, shape, axes, keep):
    data = np.random.default_rng(9).random(shape) < 0.7
    _compare(name, shape, axes, keep, data)


def test_integer_mean_truncates_toward_zero():
    """OpenVINO's reference divides with C++ integer division: -7 / 2 is -3."""
    got = _compare("ReduceMean", "[2,2]", [1], False, np.array([[-3, -4], [3, 4]], np.int32))
    assert got.tolist() == [-3, 3]


def test_integer_l2_truncates_the_square_root():
    model = model_of(opset4.reduce_l2(parameter("[2]", "i32", name="x"), constant([0], "i64")))
    assert run_irrun(model, {"x": np.array([1, 3], np.int32)})[0].tolist() == 3  # sqrt(10)


def test_max_skips_nan_and_an_empty_reduction_gives_the_lowest_value():
    """OpenVINO's reference (std::max from the type's lowest value) ignores NaN; an empty
    reduction or one of NaNs only gives that lowest value (the CPU plugin differs: a spec
    statement in NumPy instead)."""
    op_model = model_of(opset1.reduce_max(parameter("[2,2]", "f32", name="x"),
                                          constant([1], "i64")))  # fmt: skip
    data = np.array([[np.nan, 1.0], [np.nan, np.nan]], np.float32)
    got = run_irrun(op_model, {"x": data})[0]
    np.testing.assert_array_equal(got, [1.0, np.finfo(np.float32).min])
    empty = model_of(opset1.reduce_min(parameter("[0,2]", "i32", name="x"), constant([0], "i64")))
    got = run_irrun(empty, {"x": np.zeros((0, 2), np.int32)})[0]
    np.testing.assert_array_equal(got, [2**31 - 1, 2**31 - 1])


def test_empty_axes_reduce_nothing():
    data = np.arange(6, dtype=np.float32).reshape(2, 3)
    model = model_of(opset1.reduce_prod(parameter("[2,3]", "f32", name="x"), _empty_axes()))
    np.testing.assert_array_equal(run_irrun(model, {"x": data})[0], data)


# -- diagnostics ------------------------------------------------------------------------------
def _validate(net):
    return net.text(), validated(net)


def _reduce_net(op_type, axes, shape="2,3,4", etype="f32", out_dims=(2, 4), data=None,
                version="opset1"):  # fmt: skip
    net = Net()
    x = net.param("x", shape, etype)
    net.result(net.op("r", op_type, version, data or {"keep_dims": "false"},
                      [x, net.const("axes", np.array(axes))], list(out_dims)))  # fmt: skip
    return net


def test_axis_out_of_range_is_reported():
    check_rejected(lambda: opset1.reduce_sum(parameter([2, 3, 4]), constant([3], "i64")))
    text, report = _validate(_reduce_net("ReduceSum", [1, 3]))
    (error,) = report.errors
    assert error.code == "axis-range"
    assert "axis 3 of [1, 3] is out of the range [-3, 2]" in error.message
    assert error.line == line_of(text, '<port id="1"', within="r")


def test_keep_dims_on_a_scalar_is_reported():
    check_rejected(lambda: opset1.reduce_sum(parameter([]), constant([0], "i64"), True))
    _, report = _validate(_reduce_net("ReduceSum", [0], "", out_dims=(),
                                      data={"keep_dims": "true"}))  # fmt: skip
    (error,) = report.errors
    assert error.code == "axis-range" and "data is a scalar" in error.message


def test_two_dimensional_axes_are_reported():
    check_rejected(lambda: opset1.reduce_sum(parameter([2, 3]), constant([[1]], "i64")))
    _, report = _validate(_reduce_net("ReduceMean", [[1]], "2,3", out_dims=(2,)))
    (error,) = report.errors
    assert error.code == "input-rank" and "its shape is [1,1]" in error.message


def test_float_axes_are_reported():
    check_rejected(lambda: opset1.reduce_sum(parameter([2, 3]), constant([1.0], "f32")))
    _, report = _validate(_reduce_net("ReduceSum", np.array([1.0], np.float32), "2,3",
                                      out_dims=(2,)))  # fmt: skip
    (error,) = report.errors
    assert error.code == "index-type" and "input 1 is f32" in error.message


def test_boolean_data_of_an_arithmetic_reduction_is_reported():
    check_rejected(lambda: opset4.reduce_l1(parameter([2, 3], "boolean"), constant([1], "i64")))
    _, report = _validate(_reduce_net("ReduceL1", [1], "2,3", "boolean", out_dims=(2,),
                                      version="opset4"))  # fmt: skip
    (error,) = report.errors
    assert error.code == "input-type" and "must be a number type" in error.message


def test_numeric_data_of_a_logical_reduction_is_reported():
    check_rejected(lambda: opset1.reduce_logical_or(parameter([2, 3], "i32"),
                                                    constant([1], "i64")))  # fmt: skip
    _, report = _validate(_reduce_net("ReduceLogicalOr", [1], "2,3", "i32", out_dims=(2,)))
    (error,) = report.errors
    assert error.code == "input-type" and "must be boolean, but it is i32" in error.message


def test_misspelt_keep_dims_is_warned():
    text, report = _validate(_reduce_net("ReduceSum", [1], data={"keepdims": "false"}))
    (warning,) = list(report)
    assert warning.code == "unknown-attribute" and "keepdims='false'" in warning.message
    assert warning.hint == "did you mean keep_dims?"
    assert warning.line == line_of(text, "<data keepdims", within="r")
