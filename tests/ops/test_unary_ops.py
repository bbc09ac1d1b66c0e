"""Unary elementwise ops: shapes and types against OpenVINO, kernels against the CPU plugin
(bit-exact, or within the tolerance each op's docstring states)."""

from __future__ import annotations

import numpy as np
import openvino.opset1 as opset1
import openvino.opset2 as opset2
import openvino.opset4 as opset4
import openvino.opset5 as opset5
import openvino.opset7 as opset7
import openvino.opset10 as opset10
import openvino.opset13 as ops
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from tests.helpers.openvino_oracle import (
    check_shapes,
    model_of,
    parameter,
    run_irrun,
    run_openvino,
)
from tests.helpers.strategies import diagnostic, edited_report, op_settings, shape_text

#: name -> (builder, tolerance (rtol, atol) or None for bit-exact)
UNARY = {
    "Relu": (ops.relu, None),
    "Abs": (ops.absolute, None),
    "Negative": (ops.negative, None),
    "Floor": (ops.floor, None),
    "Ceiling": (ops.ceiling, None),
    "Sign": (ops.sign, None),
    "LogicalNot": (ops.logical_not, None),
    "RoundEven": (lambda x: opset5.round(x, "half_to_even"), None),
    "RoundAway": (lambda x: opset5.round(x, "half_away_from_zero"), None),
    "Clamp": (lambda x: opset1.clamp(x, -1.5, 2.5), None),
    "Sigmoid": (ops.sigmoid, (1e-6, 1e-7)),
    "Tanh": (ops.tanh, (1e-6, 1e-7)),
    "Exp": (ops.exp, (1e-6, 0)),
    "Erf": (ops.erf, (1e-5, 1e-6)),
    "Sin": (ops.sin, (1e-6, 1e-6)),
    "Cos": (ops.cos, (1e-6, 1e-6)),
    "HSwish": (opset4.hswish, (1e-6, 1e-7)),
    "HSigmoid": (opset5.hsigmoid, (1e-6, 1e-7)),
    "Mish": (opset4.mish, (1e-5, 1e-6)),
    "SoftPlus": (opset4.softplus, (1e-6, 1e-6)),
    "Gelu2": (opset2.gelu, (1e-5, 1e-6)),
    "Gelu7Tanh": (lambda x: opset7.gelu(x, "tanh"), (1e-5, 1e-6)),
    "Swish": (opset4.swish, (1e-6, 1e-7)),
    "Elu": (lambda x: opset1.elu(x, 0.5), (1e-6, 1e-7)),
}
POSITIVE = {"Log": (ops.log, (1e-6, 1e-7)), "Sqrt": (ops.sqrt, None)}
CHECKS = {"IsNaN": opset10.is_nan, "IsFinite": opset10.is_finite, "IsInf": opset10.is_inf,
          "IsInfPositive": lambda x: opset10.is_inf(x, {"detect_negative": False}),
          "IsInfNegative": lambda x: opset10.is_inf(x, {"detect_positive": False})}  # fmt: skip
EXTRA = {"BitwiseNot": ops.bitwise_not, "Log": ops.log, "Sqrt": ops.sqrt}
ALL = {**{k: v[0] for k, v in {**UNARY, **POSITIVE}.items()}, **CHECKS, **EXTRA}

dims = st.sampled_from(["1", "3", "?", "1..3", "2..", "0"])
shapes = shape_text(dims, max_rank=3, dynamic_rank=2)  # [...] one time in 2


@op_settings(40)
@given(st.sampled_from(sorted(ALL)), st.sampled_from(["f32", "f16", "i32", "u8", "boolean",
                                                      "dynamic"]), shapes)  # fmt: skip
def test_shapes_and_types_match_openvino(name, etype, shape):
    try:
        node = ALL[name](parameter(shape, etype, "x"))
    except Exception:
        assume(False)
    check_shapes(node)


def _run(build, x):
    model = model_of(build(parameter(x.shape, ELEMENT_TYPES_BY_DTYPE[x.dtype], "x")))
    return run_openvino(model, {"x": x})[0], run_irrun(model, {"x": x})[0]


ELEMENT_TYPES_BY_DTYPE = {np.dtype(np.float32): "f32", np.dtype(np.float16): "f16",
                          np.dtype(np.int32): "i32", np.dtype(np.uint8): "u8",
                          np.dtype(bool): "boolean"}  # fmt: skip


def _compare(expected, got, tolerance):
    assert got.dtype == expected.dtype and got.shape == expected.shape
    if tolerance is None:
        np.testing.assert_array_equal(got, expected)
    else:
        np.testing.assert_allclose(got, expected, rtol=tolerance[0], atol=tolerance[1])


@pytest.mark.parametrize("name", sorted(UNARY))
def test_f32_kernel_matches_cpu(name):
    build, tolerance = UNARY[name]
    rng = np.random.default_rng(len(name))
    x = rng.uniform(-5, 5, (2, 3, 40)).astype(np.float32)
    x[0, 0, :6] = [0.5, -0.5, 1.5, -2.5, 0.0, 2.5]  # rounding ties, a zero
    _compare(*_run(build, x), tolerance)


@pytest.mark.parametrize("name", sorted(POSITIVE))
def test_f32_kernel_on_positive_inputs_matches_cpu(name):
    build, tolerance = POSITIVE[name]
    x = np.random.default_rng(1).uniform(0.01, 50, (3, 50)).astype(np.float32)
    _compare(*_run(build, x), tolerance)


@pytest.mark.parametrize("name", ["Relu", "Abs", "Negative", "Sign", "Floor", "RoundAway",
                                  "Clamp", "Sigmoid", "Exp", "HSwish"])  # fmt: skip
def test_f16_kernel_matches_cpu(name):
    build, tolerance = UNARY[name]
    x = np.random.default_rng(2).uniform(-4, 4, (4, 30)).astype(np.float16)
    expected, got = _run(build, x)
    _compare(expected, got, None if tolerance is None else (2e-3, 2e-3))  # 1 f16 ulp


@pytest.mark.parametrize("name", ["Relu", "Abs", "Negative", "Sign", "Floor", "Ceiling",
                                  "Clamp", "RoundEven", "LogicalNot", "Exp", "Sigmoid",
                                  "Tanh", "Sin", "Erf", "HSwish"])  # fmt: skip
def test_i32_kernel_matches_cpu(name):
    build = UNARY[name][0]
    x = np.arange(-7, 8, dtype=np.int32).reshape(3, 5)
    _compare(*_run(build, x), None)


@pytest.mark.parametrize("name", ["Log", "Sqrt"])
def test_i32_log_and_sqrt_round(name):
    x = np.array([1, 2, 3, 5, 10, 100], np.int32)
    expected, got = _run(POSITIVE[name][0], x)
    _compare(expected, got, None)


def test_bitwise_not_matches_cpu():
    for x in (np.array([0, 1, -2, 77], np.int32), np.array([0, 1, 200], np.uint8),
              np.array([True, False])):  # fmt: skip
        _compare(*_run(ops.bitwise_not, x), None)


def test_is_checks_are_exact():
    x = np.array([np.nan, np.inf, -np.inf, 0.0, -1.5, 3.0], np.float32)
    for name, build in CHECKS.items():
        expected, got = _run(build, x)
        assert got.dtype == bool, name
        np.testing.assert_array_equal(got, expected, err_msg=name)


def test_round_half_away_from_zero_near_a_half():
    # std::round (the reference): 0.49999997 rounds to 0. The CPU plugin gives 1 there (it
    # adds 0.5 in f32, which rounds up), so only the ties are compared with it.
    x = np.array([0.49999997, -0.49999997, 0.5, -0.5, 2.5, -3.5], np.float32)
    expected, got = _run(UNARY["RoundAway"][0], x)
    np.testing.assert_array_equal(got, [0, -0.0, 1, -1, 3, -4])
    np.testing.assert_array_equal(got[2:], expected[2:])


def test_swish_with_beta_matches_cpu():
    rng = np.random.default_rng(4)
    x = rng.uniform(-5, 5, (3, 7)).astype(np.float32)
    node = opset4.swish(parameter([3, 7], "f32", "x"), parameter([], "f32", "beta"))
    feed = {"x": x, "beta": np.array(0.7, np.float32)}
    model = model_of(node)
    np.testing.assert_allclose(run_irrun(model, feed)[0], run_openvino(model, feed)[0],
                               rtol=1e-6, atol=1e-7)  # fmt: skip


def _report(build, edit):
    return edited_report(model_of(build(parameter("[2,3]", "f32", "x"))), edit)[0]


def test_float_only_op_on_integers_is_reported():
    with pytest.raises(RuntimeError):
        opset4.mish(parameter("[2,3]", "i32"))

    def to_i32(text):
        return text.replace('element_type="f32"', 'element_type="i32"').replace("FP32", "I32")

    report = _report(opset4.mish, to_i32)
    error = diagnostic(report, "input-type", only=False)
    assert "takes a floating-point type, but its input is i32" in error.message


def test_relu_on_boolean_is_reported():
    def to_boolean(text):
        return text.replace('element_type="f32"', 'element_type="boolean"').replace("FP32", "BOOL")

    report = _report(ops.relu, to_boolean)
    diagnostic(report, "input-type", only=False)


def test_round_without_mode_is_a_missing_attribute():
    report = _report(UNARY["RoundEven"][0], lambda t: t.replace('mode="half_to_even"', ""))
    diagnostic(report, "missing-attribute", only=False)


def test_misspelt_gelu_mode_is_warned():
    report = _report(UNARY["Gelu7Tanh"][0],
                     lambda t: t.replace("approximation_mode=", "aproximation_mode="))  # fmt: skip
    warning = diagnostic(report, "unknown-attribute", only=False)
    assert warning.hint == "did you mean approximation_mode?", report.to_text()


def test_erf_is_within_1e_15_of_math_erf_on_a_grid():
    """The float64 erf behind Erf and Gelu (Cody's approximations) against ``math.erf``: over
    every range it switches at (0.46875, 4, 27), far tails, signed zeros, infinities, NaN."""
    import math

    from irrun.ops._elementwise import erf

    xs = np.concatenate([np.linspace(-30, 30, 120001), np.linspace(-1, 1, 40001),
                         [0.46875, -0.46875, 4.0, -4.0, 26.5, 27.0, 1e-300, -1e-300, 5e-324],
                         [0.0, -0.0, np.inf, -np.inf]])  # fmt: skip
    expected = np.array([math.erf(v) for v in xs])
    got = erf(xs)
    assert got.dtype == np.float64
    assert float(np.max(np.abs(got - expected))) <= 1e-15
    assert np.array_equal(np.signbit(got), np.signbit(expected))  # erf(-0.0) is -0.0
    assert np.isnan(erf(np.array([np.nan]))).all()
