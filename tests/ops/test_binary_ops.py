"""Binary elementwise ops: shapes and types against OpenVINO, kernels against the CPU plugin,
partial values through shape arithmetic."""

from __future__ import annotations

import numpy as np
import openvino.opset13 as ops
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from irrun.element_types import ELEMENT_TYPES
from irrun.ops._values import elements_of
from irrun.ops.base import TensorInfo
from irrun.ops.registry import resolve
from irrun.shape import Dim, Shape
from tests.helpers.openvino_oracle import (
    check_shapes,
    model_of,
    parameter,
    run_irrun,
    run_openvino,
)
from tests.helpers.strategies import (
    bare_op,
    const_info,
    diagnostic,
    edited_report,
    op_settings,
    shape_of_info,
    shape_text,
)

ARITHMETIC = ["add", "subtract", "multiply", "divide", "power", "maximum", "minimum",
              "squared_difference", "floor_mod", "mod"]  # fmt: skip
COMPARISON = ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]
LOGICAL = ["logical_and", "logical_or", "logical_xor"]
BITWISE = ["bitwise_and", "bitwise_or", "bitwise_xor"]
TYPES = ["f32", "f16", "i32", "i64", "u8", "boolean", "dynamic"]

dims = st.sampled_from(["1", "2", "3", "?", "1..3", "2..", "0"])
shapes = shape_text(dims, max_rank=3, dynamic_rank=2)  # [...] one time in 2


@op_settings(40)
@given(st.sampled_from(ARITHMETIC + COMPARISON + LOGICAL + BITWISE), st.sampled_from(TYPES),
       shapes, shapes, st.sampled_from(["numpy", "none"]))  # fmt: skip
def test_shapes_and_types_match_openvino(name, etype, a, b, mode):
    try:
        node = getattr(ops, name)(parameter(a, etype, "a"), parameter(b, etype, "b"), mode)
    except Exception:
        assume(False)
    check_shapes(node)


def _report(name, etype_a, etype_b):
    """irrun's report for ``name`` built on f32 inputs, with the input types edited."""
    node = getattr(ops, name)(parameter("[2]", "dynamic", "a"), parameter("[2]", "dynamic", "b"))

    def edit(text):
        for etype in (etype_a, etype_b):  # each Parameter: its type, its port's precision
            precision = ELEMENT_TYPES[etype].precision
            text = text.replace('element_type="dynamic"', f'element_type="{etype}"', 1)
            text = text.replace('precision="UNSPECIFIED"', f'precision="{precision}"', 1)
        return text

    return edited_report(model_of(node), edit)[0]


@pytest.mark.parametrize(
    "name, a, b, fragment",
    [
        ("add", "boolean", "boolean", "takes any type but boolean, but its input is boolean"),
        ("add", "f32", "i32", "input 0 is f32, input 1 is i32"),
        ("logical_and", "f32", "f32", "takes boolean, but its input is f32"),
        ("bitwise_or", "f32", "f32", "takes an integer type or boolean, but its input is f32"),
        ("equal", "f16", "f32", "input 0 is f16, input 1 is f32"),
    ],
)
def test_types_openvino_refuses_are_reported(name, a, b, fragment):
    with pytest.raises(RuntimeError):
        getattr(ops, name)(parameter("[2]", a), parameter("[2]", b))
    report = _report(name, a, b)
    error = diagnostic(report, "input-type", only=False)
    assert fragment in error.message, report.to_text()


def _inputs(etype, rng, shape_a=(2, 3, 4), shape_b=(3, 1), nonzero=False, small=False):
    dtype = ELEMENT_TYPES[etype].numpy_dtype
    if etype in ("f32", "f16"):
        a = rng.uniform(-4, 4, shape_a).astype(dtype)
        b = rng.uniform(0.25, 3, shape_b).astype(dtype) * rng.choice([-1, 1], shape_b)
    elif etype == "boolean":
        a, b = rng.integers(0, 2, shape_a).astype(bool), rng.integers(0, 2, shape_b).astype(bool)
    elif etype == "u8":  # the CPU plugin saturates u8 arithmetic: stay in range
        a, b = rng.integers(10, 16, shape_a).astype(dtype), rng.integers(0, 10, shape_b)
        if nonzero:
            b[b == 0] = 7
    else:
        info = np.iinfo(dtype)
        low, high = (0, 3) if small else (max(info.min, -1000), min(info.max, 1000))
        a = rng.integers(low if not small else -3 * (info.min < 0), 20 if small else high, shape_a)
        b = rng.integers(low, high, shape_b)
        a, b = a.astype(dtype), b.astype(dtype)
        if nonzero:
            b[b == 0] = 7
    return {"a": a, "b": np.asarray(b, dtype)}


def _run_both(name, etype, feed, **attrs):
    node = getattr(ops, name)(parameter(feed["a"].shape, etype, "a"),
                              parameter(feed["b"].shape, etype, "b"), **attrs)  # fmt: skip
    model = model_of(node)
    return run_openvino(model, feed)[0], run_irrun(model, feed)[0]


EXACT = [(n, t) for n in ["add", "subtract", "multiply", "maximum", "minimum"]
         for t in ["f32", "f16", "i32", "u8"]]  # fmt: skip
# The CPU plugin's u8 SquaredDifference gives 0 and its integer Divide truncates even with
# m_pythondiv: those are checked against the reference semantics below instead.
EXACT += [("squared_difference", t) for t in ["f32", "f16", "i32"]]
EXACT += [(n, t) for n in ["floor_mod", "mod"] for t in ["i32", "u8"]] + [("mod", "f32")]
EXACT += [(n, t) for n in COMPARISON for t in ["f32", "i32", "u8", "boolean"]]
EXACT += [(n, "boolean") for n in LOGICAL] + [
    (n, t) for n in BITWISE for t in ["i32", "u8", "boolean"]
]


@pytest.mark.parametrize("name, etype", EXACT)
def test_kernel_is_bit_exact(name, etype):
    rng = np.random.default_rng(abs(hash((name, etype))) % 2**32)
    feed = _inputs(etype, rng, nonzero=name in ("divide", "floor_mod", "mod"))
    expected, got = _run_both(name, etype, feed)
    assert got.dtype == ELEMENT_TYPES[etype].numpy_dtype or got.dtype == bool
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)


def test_integer_power_is_exact():
    rng = np.random.default_rng(3)
    feed = {"a": rng.integers(-5, 6, (2, 3, 4)).astype(np.int32),
            "b": rng.integers(0, 5, (3, 1)).astype(np.int32)}  # fmt: skip
    expected, got = _run_both("power", "i32", feed)
    np.testing.assert_array_equal(got, expected)


def test_integer_divide_floors_and_squared_difference_wraps():
    a = np.array([7, -7, 7, -7, 6, 0], np.int32)
    b = np.array([2, 2, -2, -2, 3, 5], np.int32)
    np.testing.assert_array_equal(_op("Divide").evaluate([a, b])[0], [3, -4, -4, 3, 2, 0])
    got = _op("SquaredDifference").evaluate([np.array([3, 250], np.uint8),
                                             np.array([5, 10], np.uint8)])[0]  # fmt: skip
    assert got.dtype == np.uint8
    np.testing.assert_array_equal(got, [4, (240 * 240) % 256])


@pytest.mark.parametrize("name, rtol", [("divide", 2.5e-7), ("power", 1e-6), ("floor_mod", 1e-6)])
@pytest.mark.parametrize("etype", ["f32", "f16"])
def test_float_divide_and_power_within_tolerance(name, rtol, etype):
    rng = np.random.default_rng(5)
    feed = _inputs(etype, rng)
    if name == "power":
        feed["a"] = np.abs(feed["a"]) + np.asarray(0.5, feed["a"].dtype)
    expected, got = _run_both(name, etype, feed)
    assert got.dtype == expected.dtype
    if etype == "f16":
        np.testing.assert_allclose(got, expected, rtol=1e-3, atol=1e-3)  # f16: 1 ulp is 2**-10
    else:  # FloorMod: the reference computes in double, the CPU plugin in f32 (1 ulp)
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=rtol)


def test_divide_truncates_without_pythondiv():
    a = np.array([7, -7, 7, -7, 6], np.int32)
    b = np.array([2, 2, -2, -2, 3], np.int32)
    got = _op("Divide", {"m_pythondiv": "false"}).evaluate([a, b])[0]
    np.testing.assert_array_equal(got, [3, -3, -3, 3, 2])
    assert got.dtype == np.int32


def test_mod_and_floor_mod_signs():
    feed = {"a": np.array([7, -7, 7, -7], np.int32), "b": np.array([3, 3, -3, -3], np.int32)}
    np.testing.assert_array_equal(_run_both("mod", "i32", feed)[1], [1, -1, 1, -1])
    np.testing.assert_array_equal(_run_both("floor_mod", "i32", feed)[1], [1, 2, -2, -1])


def test_integer_division_by_zero_raises():
    node = ops.divide(parameter([2], "i32", "a"), parameter([2], "i32", "b"))
    feed = {"a": np.array([1, 2], np.int32), "b": np.array([1, 0], np.int32)}
    with pytest.raises(Exception, match="integer division by zero"):
        run_irrun(model_of(node), feed)


def test_integer_overflow_wraps():
    feed = {"a": np.array([2**31 - 1, -(2**31)], np.int32), "b": np.array([1, -1], np.int32)}
    np.testing.assert_array_equal(_run_both("add", "i32", feed)[1], [-(2**31), 2**31 - 1])
    feed = {"a": np.array([250, 3], np.uint8), "b": np.array([10, 5], np.uint8)}
    np.testing.assert_array_equal(_run_both("add", "u8", feed)[1], [4, 8])
    np.testing.assert_array_equal(_run_both("subtract", "u8", feed)[1], [240, 254])


def test_pdpd_kernel_matches_openvino():
    rng = np.random.default_rng(9)
    feed = {"a": rng.normal(size=(2, 3, 4)).astype(np.float32),
            "b": rng.normal(size=(2, 1)).astype(np.float32)}  # fmt: skip
    expected, got = _run_both("add", "f32", feed, auto_broadcast="pdpd")
    np.testing.assert_array_equal(got, expected)


# -- partial values ---------------------------------------------------------------------
def _op(name, attributes=None):
    return bare_op(resolve(name, 13), attributes, id=1, name=name)


I64 = ELEMENT_TYPES["i64"]


def _shape_of(text):
    info = shape_of_info(text)
    assert info.partial is not None  # (a dynamic dim in each case)
    return info


def _const(*values):
    return const_info(values)


@pytest.mark.parametrize(
    "name, left, right, expected",
    [
        ("Multiply", _shape_of("?,8"), _const(16), (Dim.dynamic(), 128)),
        ("Multiply", _shape_of("1..4,8"), _const(16, 2), (Dim(16, 64), 16)),
        ("Multiply", _shape_of("2..4,8"), _const(-1, 1), (None, 8)),
        ("Add", _shape_of("?,8"), _const(1), (Dim(1, None), 9)),
        ("Subtract", _shape_of("2..,3..9"), _const(1, 1), (Dim(1, None), Dim(2, 8))),
        ("Subtract", _shape_of("?,8"), _const(1), (None, 7)),
        ("Divide", _shape_of("4..9,8"), _const(2), (Dim(2, 4), 4)),
        ("Divide", _shape_of("?,8"), _const(0, 2), (None, 4)),
        ("Maximum", _shape_of("?,8"), _const(1), (Dim(1, None), 8)),
        ("Minimum", _shape_of("?,2..9"), _const(4), (Dim(0, 4), Dim(2, 4))),
        ("Minimum", _shape_of("?,?"), _const(-1), (-1, -1)),
    ],
)
def test_partial_values_of_shape_arithmetic(name, left, right, expected):
    info = _op(name).infer([left, right])[0]
    assert str(info.shape) == f"[{len(expected)}]" and info.element_type is I64
    assert elements_of(info) == expected


def test_partial_values_need_integers_and_not_equal_ops():
    f32 = ELEMENT_TYPES["f32"]
    info = _op("Multiply").infer([_shape_of("?,8"), _const(16)])[0]
    assert info.value is None
    left = TensorInfo(Shape([2]), f32)
    assert _op("Multiply").infer([left, TensorInfo(Shape([2]), f32)])[0].partial is None
    assert _op("Equal").infer([_shape_of("?,8"), _const(8)])[0].partial is None
