"""Trigonometric and hyperbolic unary ops (Acos ... Tan), SoftSign, Selu and HardSigmoid:
shapes and types against OpenVINO, kernels against the CPU plugin within the tolerance each
op's docstring states, and the diagnostics of inputs OpenVINO refuses."""

from __future__ import annotations

import numpy as np
import openvino.opset1 as opset1
import openvino.opset4 as opset4
import openvino.opset9 as opset9
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
from tests.helpers.strategies import built, diagnostic, op_settings, shape_text, validated

#: name -> (builder, low, high): the f32 inputs drawn in [low, high] (the function's domain)
TRIG = {
    "Acos": (opset1.acos, -1, 1),
    "Asin": (opset1.asin, -1, 1),
    "Atan": (opset1.atan, -20, 20),
    "Acosh": (opset4.acosh, 1, 50),
    "Asinh": (opset4.asinh, -50, 50),
    "Atanh": (opset4.atanh, -0.999, 0.999),
    "Cosh": (opset1.cosh, -10, 10),
    "Sinh": (opset1.sinh, -10, 10),
    "Tan": (opset1.tan, -6, 6),
    "SoftSign": (opset9.softsign, -20, 20),
}
F32_TOLERANCE = dict(rtol=1e-6, atol=1e-7)  # (the modules' docstrings)
F16_TOLERANCE = dict(rtol=1e-3, atol=1e-3)  # 1 f16 ulp

dims = st.sampled_from(["1", "3", "?", "1..3", "2..", "0"])
shapes = shape_text(dims, max_rank=3, dynamic_rank=3)
ETYPES = ["f32", "f16", "i32", "u8", "i64", "boolean", "dynamic"]


@op_settings(40)
@given(st.sampled_from(sorted(TRIG)), st.sampled_from(ETYPES), shapes)
def test_shapes_and_types_match_openvino(name, etype, shape):
    check_shapes(built(lambda: TRIG[name][0](parameter(shape, etype, "x"))))


def _run(node, feed):
    model = model_of(node)
    return run_openvino(model, feed)[0], run_irrun(model, feed)[0]


@pytest.mark.parametrize("name", sorted(TRIG))
def test_f32_kernel_matches_cpu(name):
    build, low, high = TRIG[name]
    x = np.random.default_rng(len(name)).uniform(low, high, (3, 200)).astype(np.float32)
    x[0, :3] = [low, high, 0.0 if low < 0 else low]
    expected, got = _run(build(parameter([3, 200], "f32", "x")), {"x": x})
    assert got.dtype == np.float32 and got.shape == expected.shape
    np.testing.assert_allclose(got, expected, **F32_TOLERANCE)


@pytest.mark.parametrize("name", sorted(TRIG))
def test_f16_kernel_matches_cpu(name):
    build, low, high = TRIG[name]
    x = np.random.default_rng(3).uniform(low, high, (4, 50)).astype(np.float16)
    expected, got = _run(build(parameter([4, 50], "f16", "x")), {"x": x})
    assert got.dtype == np.float16
    np.testing.assert_allclose(got.astype(np.float32), expected.astype(np.float32),
                               **F16_TOLERANCE)  # fmt: skip


@pytest.mark.parametrize("name", sorted(set(TRIG) - {"SoftSign"}))
def test_i32_kernel_rounds_as_cpu(name):
    """Rounded to the nearest integer; NaN results give the type's minimum (as the CPU
    plugin's conversion does). Atanh(1) = inf is left out: the CPU plugin gives 2147483520
    there (inf through f32), irrun the minimum (the result is undefined)."""
    x = np.arange(-7, 8, dtype=np.int32)
    if name == "Atanh":
        x = x[x != 1]
    expected, got = _run(TRIG[name][0](parameter(list(x.shape), "i32", "x")), {"x": x})
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, expected)


def test_u8_kernel_rounds_as_cpu():
    """(Acosh(0) is NaN, undefined: left out.)"""
    x = np.array([1, 2, 3, 5, 100, 200], np.uint8)
    for name in ("Atan", "Asinh", "Acosh", "Cosh"):
        x = x[:4] if name == "Cosh" else x
        expected, got = _run(TRIG[name][0](parameter(list(x.shape), "u8", "x")), {"x": x})
        np.testing.assert_array_equal(got, expected, err_msg=name)


def test_exact_values():
    model = model_of(opset4.atanh(parameter([3], "f32", "x")))
    got = run_irrun(model, {"x": np.array([0.0, 1.0, 2.0], np.float32)})[0]
    np.testing.assert_array_equal(got, [0.0, np.inf, np.nan])
    model = model_of(opset9.softsign(parameter([3], "f32", "x")))
    got = run_irrun(model, {"x": np.array([-3.0, 0.0, 1.0], np.float32)})[0]
    np.testing.assert_array_equal(got, [-0.75, 0.0, 0.5])


def _unary_net(op_type, version, etype):
    net = Net()
    net.result(net.op("u", op_type, version, None, [net.param("x", "2,3", etype)], [2, 3]))
    return net


@pytest.mark.parametrize("op_type, version", [("Acos", "opset1"), ("Atanh", "opset4"),
                                              ("Tan", "opset1")])  # fmt: skip
def test_boolean_input_is_reported(op_type, version):
    check_rejected(lambda: TRIG[op_type][0](parameter([2, 3], "boolean")))
    net = _unary_net(op_type, version, "boolean")
    text, report = net.text(), validated(net)
    error = diagnostic(report.errors, "input-type")
    assert "takes any type but boolean, but its input is boolean" in error.message
    assert error.line == line_of(text, '<port id="0"', within="u")


def test_softsign_on_integers_is_reported():
    check_rejected(lambda: opset9.softsign(parameter([2, 3], "i32")))
    report = validated(_unary_net("SoftSign", "opset9", "i32"))
    error = diagnostic(report.errors, "input-type")
    assert "takes a floating-point type, but its input is i32" in error.message


def test_acosh_is_in_opset4_only():
    """OpenVINO's Acosh (class v3) is in opset4 and later: opset3 has no Acosh."""
    report = validated(_unary_net("Acosh", "opset3", "f32"))
    assert report.errors, report.to_text()
    assert not validated(_unary_net("Acosh", "opset4", "f32")).errors


# -- Selu ---------------------------------------------------------------------------------
@op_settings(30)
@given(shapes, st.sampled_from(["f32", "f16", "dynamic", "i32"]),
       st.sampled_from(["same", "same", "f32", "dynamic", "i32"]),
       st.sampled_from(["[]", "[1]", "[?]", "[...]", "[3]"]))  # fmt: skip
def test_selu_shapes_and_types_match_openvino(shape, etype, parameter_type, parameter_shape):
    parameter_type = etype if parameter_type == "same" else parameter_type
    node = built(lambda: opset1.selu(parameter(shape, etype, "x"),
                                     parameter(parameter_shape, parameter_type, "a"),
                                     parameter("[1]", parameter_type, "l")))  # fmt: skip
    check_shapes(node)


@pytest.mark.parametrize(
    "etype, dtype, tolerance",
    [("f32", np.float32, F32_TOLERANCE), ("f16", np.float16, F16_TOLERANCE)],
)
def test_selu_kernel_matches_cpu(etype, dtype, tolerance):
    rng = np.random.default_rng(5)
    x = rng.uniform(-6, 6, (2, 3, 50)).astype(dtype)
    x[0, 0, :2] = 0
    node = opset1.selu(parameter(list(x.shape), etype, "x"), constant(np.array([1.67], dtype)),
                       constant(np.array([1.05], dtype)))  # fmt: skip
    expected, got = _run(node, {"x": x})
    assert got.dtype == dtype
    np.testing.assert_allclose(got.astype(np.float32), expected.astype(np.float32), **tolerance)


def test_selu_parameters_repeat_over_the_flat_data_as_the_reference_does():
    """The reference takes ``alpha[i % alpha.size]``; the CPU plugin (quirk) only alpha[0], so
    this is checked against values derived from the reference's formula."""
    x = np.array([[-1.0, -1.0, -1.0], [2.0, 2.0, 2.0]], np.float32)
    node = opset1.selu(parameter([2, 3], "f32", "x"), constant(np.array([1.0, 2.0], np.float32)),
                       constant(np.array([1.0, 2.0, 3.0], np.float32)))  # fmt: skip
    got = run_irrun(model_of(node), {"x": x})[0]
    e = np.float32(np.expm1(-1.0))
    alpha, lambda_ = np.array([1, 2, 1, 2, 1, 2]), np.array([1, 2, 3, 1, 2, 3])
    expected = np.where(x.reshape(-1) > 0, lambda_ * x.reshape(-1), alpha * lambda_ * e)
    np.testing.assert_allclose(got.reshape(-1), expected, rtol=1e-6)


def test_selu_on_integers_is_reported():
    check_rejected(lambda: opset1.selu(parameter([2], "i32"), parameter([1], "i32"),
                                       parameter([1], "i32")))  # fmt: skip
    net = Net()
    x = net.param("x", "2", "i32")
    a, lam = net.const("a", np.array([1], np.int32)), net.const("l", np.array([1], np.int32))
    net.result(net.op("s", "Selu", "opset1", None, [x, a, lam], [2]))
    error = diagnostic(validated(net).errors, "input-type")
    assert "takes a floating-point type, but its input is i32" in error.message


def test_selu_mixed_types_are_reported():
    check_rejected(lambda: opset1.selu(parameter([2], "f32"), parameter([1], "f16"),
                                       parameter([1], "f32")))  # fmt: skip
    net = Net()
    x = net.param("x", "2")
    a, lam = net.const("a", np.array([1], np.float16)), net.const("l", np.array([1], np.float32))
    net.result(net.op("s", "Selu", "opset1", None, [x, a, lam], [2]))
    error = diagnostic(validated(net).errors, "input-type")
    assert "input 1 is f16" in error.message


# -- HardSigmoid --------------------------------------------------------------------------
@op_settings(30)
@given(shapes, st.sampled_from(ETYPES), st.sampled_from(["same", "same", "f32", "dynamic"]),
       st.sampled_from(["[]", "[]", "[1]", "[?]", "[...]", "[2,3]"]))  # fmt: skip
def test_hard_sigmoid_shapes_and_types_match_openvino(shape, etype, parameter_type, alpha_shape):
    parameter_type = etype if parameter_type == "same" else parameter_type
    node = built(lambda: opset1.hard_sigmoid(parameter(shape, etype, "x"),
                                             parameter(alpha_shape, parameter_type, "a"),
                                             parameter("[]", parameter_type, "b")))  # fmt: skip
    check_shapes(node)


def _hard_sigmoid(x, alpha, beta, etype):
    return opset1.hard_sigmoid(parameter(list(x.shape), etype, "x"), constant(alpha, etype),
                               constant(beta, etype))  # fmt: skip


def test_hard_sigmoid_f32_kernel_matches_cpu():
    x = np.random.default_rng(6).uniform(-8, 8, (3, 100)).astype(np.float32)
    x[0, :4] = [-2.5, 2.5, 0.0, 1.0]
    expected, got = _run(_hard_sigmoid(x, np.float32(0.2), np.float32(0.5), "f32"), {"x": x})
    np.testing.assert_allclose(got, expected, **F32_TOLERANCE)
    np.testing.assert_array_equal(got[0, :4], np.array([0.0, 1.0, 0.5, 0.7], np.float32))


def test_hard_sigmoid_f16_kernel_matches_cpu():
    x = np.random.default_rng(7).uniform(-8, 8, (3, 100)).astype(np.float16)
    expected, got = _run(_hard_sigmoid(x, np.float16(0.2), np.float16(0.5), "f16"), {"x": x})
    assert got.dtype == np.float16
    np.testing.assert_allclose(got.astype(np.float32), expected.astype(np.float32),
                               **F16_TOLERANCE)  # fmt: skip


def test_hard_sigmoid_integer_and_boolean_kernels_are_exact():
    x = np.arange(-4, 5, dtype=np.int32)
    expected, got = _run(_hard_sigmoid(x, np.int32(2), np.int32(1), "i32"), {"x": x})
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(got, [0, 0, 0, 0, 1, 1, 1, 1, 1])
    x = np.array([True, False])
    expected, got = _run(_hard_sigmoid(x, np.bool_(True), np.bool_(False), "boolean"), {"x": x})
    assert got.dtype == bool
    np.testing.assert_array_equal(got, expected)


def _hard_sigmoid_net(alpha, beta, etype="f32"):
    net = Net()
    x = net.param("x", "2,3", etype)
    a, b = net.const("a", alpha), net.const("b", beta)
    net.result(net.op("h", "HardSigmoid", "opset1", None, [x, a, b], [2, 3]))
    return net


def test_hard_sigmoid_non_scalar_alpha_is_reported():
    check_rejected(lambda: opset1.hard_sigmoid(parameter([2, 3]), parameter([1]),
                                               parameter([])))  # fmt: skip
    net = _hard_sigmoid_net(np.array([0.2], np.float32), np.array(0.5, np.float32))
    text, report = net.text(), validated(net)
    error = diagnostic(report.errors, "input-rank")
    assert "alpha must be a scalar (rank 0), but its shape is [1]" in error.message
    assert error.line == line_of(text, '<port id="1"', within="h")


def test_hard_sigmoid_mismatched_types_are_reported():
    check_rejected(lambda: opset1.hard_sigmoid(parameter([2, 3]), parameter([], "f32"),
                                               parameter([], "f16")))  # fmt: skip
    net = _hard_sigmoid_net(np.array(0.2, np.float32), np.array(0.5, np.float16))
    error = diagnostic(validated(net).errors, "input-type")
    assert "beta is f16" in error.message


def test_unknown_attribute_of_hard_sigmoid_is_warned():
    net = Net()
    x = net.param("x", "2,3")
    a, b = net.const("a", np.array(0.2, np.float32)), net.const("b", np.array(0.5, np.float32))
    net.result(net.op("h", "HardSigmoid", "opset1", {"alpha": "0.2"}, [x, a, b], [2, 3]))
    report = validated(net)
    assert not report.errors, report.to_text()
    warning = diagnostic(report.warnings, "unknown-attribute")
    assert "HardSigmoid-1 has no attributes" in warning.hint
