"""The float32 erf behind Erf-1 and Gelu's erf mode (irrun.ops._erf): accuracy against
``math.erf``, its edges, its blocks, and Erf/Gelu against the CPU plugin over a wide range."""

from __future__ import annotations

import math

import numpy as np
import openvino.opset2 as opset2
import openvino.opset7 as opset7
import openvino.opset13 as ops
import pytest

from irrun.ops import _erf
from irrun.ops._elementwise import erf as cody_erf
from tests.helpers.openvino_oracle import model_of, parameter, run_irrun, run_openvino


def test_float32_erf_is_within_1e_7_of_math_erf():
    xs = np.linspace(-7, 7, 14_001, dtype=np.float32)
    expected = np.array([math.erf(v) for v in xs.astype(np.float64)])
    got = _erf.erf(xs)
    assert got.dtype == np.float32
    assert float(np.max(np.abs(got - expected))) < 1e-7


def test_float32_erf_is_exactly_one_beyond_4_and_keeps_nan_and_signed_zero():
    x = np.array([4.0, 4.5, 1e30, np.inf, -4.0, -1e30, -np.inf, np.nan, -0.0, 0.0], np.float32)
    got = _erf.erf(x)
    assert got[:7].tolist() == [1.0, 1.0, 1.0, 1.0, -1.0, -1.0, -1.0]
    assert np.isnan(got[7])
    assert np.signbit(got[8]) and not np.signbit(got[9]) and got[8] == 0


def test_other_dtypes_keep_codys_float64_erf():
    x = np.linspace(-5, 5, 101)
    np.testing.assert_array_equal(_erf.erf(x), cody_erf(x))
    expected = 0.5 * x * (1 + cody_erf(x / np.sqrt(2)))
    np.testing.assert_array_equal(_erf.gelu_erf(x), expected)


def test_gelu_of_large_negative_inputs_is_zero():
    x = np.array([-6.0, -100.0, -1e6, -3e38], np.float32)
    assert _erf.gelu_erf(x).tolist() == [0.0, 0.0, 0.0, 0.0]


def test_blocks_give_the_same_result(monkeypatch):
    x = np.random.default_rng(0).standard_normal((3, 1001)).astype(np.float32) * 3
    whole_erf, whole_gelu = _erf.erf(x), _erf.gelu_erf(x)
    monkeypatch.setattr(_erf, "BLOCK", 64)  # 47 blocks, the last one short
    np.testing.assert_array_equal(_erf.erf(x), whole_erf)
    np.testing.assert_array_equal(_erf.gelu_erf(x), whole_gelu)
    assert _erf.erf(x[:, ::2]).tolist() == whole_erf[:, ::2].tolist()  # a strided input


@pytest.mark.parametrize(
    "build", [ops.erf, opset2.gelu, lambda x: opset7.gelu(x, "erf")], ids=["Erf", "Gelu2", "Gelu7"]
)
@pytest.mark.parametrize(
    "etype, dtype, tolerance",
    [("f32", np.float32, (1e-5, 1e-6)), ("f16", np.float16, (2e-3, 2e-3))],
)
def test_erf_and_gelu_match_cpu_over_a_wide_range(build, etype, dtype, tolerance):
    x = np.concatenate([np.linspace(-12, 12, 4801), [-1e4, -50, 50, 1e4, 0.0]]).astype(dtype)
    model = model_of(build(parameter(list(x.shape), etype, "x")))
    expected, got = run_openvino(model, {"x": x})[0], run_irrun(model, {"x": x})[0]
    assert got.dtype == expected.dtype
    np.testing.assert_allclose(got, expected, rtol=tolerance[0], atol=tolerance[1])


def _tanh_gelu_as_written(x):
    """Gelu-7's tanh form as one NumPy expression (float32 x: the cubic in float32, the rest
    promoted to float64 by the float64 constant), rounded once."""
    root = np.sqrt(2 / np.pi)
    with np.errstate(all="ignore"):  # (3e38 overflows in the cubic, as in the kernel)
        return (0.5 * x * (1 + np.tanh(root * (x + 0.044715 * x * x * x)))).astype(x.dtype)


def test_tanh_gelu_in_blocks_is_the_expression_bit_for_bit(monkeypatch):
    from irrun.ops import gelu

    x = np.random.default_rng(1).standard_normal((3, 40_000)).astype(np.float32) * 4
    x[0, :5] = [np.nan, np.inf, -np.inf, -0.0, 3e38]
    expected = _tanh_gelu_as_written(x)
    assert x.size > gelu._BLOCK  # (the blocked path)
    for block in (gelu._BLOCK, 4096, 7):  # the last block short
        monkeypatch.setattr(gelu, "_BLOCK", block)
        with np.errstate(all="ignore"):  # (the executor runs kernels so)
            got = gelu._tanh_blocks(x)
        assert got.dtype == np.float32 and got.shape == x.shape
        np.testing.assert_array_equal(got.view(np.uint32), expected.view(np.uint32))
    strided = x[:, ::3]
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(gelu._tanh_blocks(strided), _tanh_gelu_as_written(strided))
        # f16 still rounds the float64 result once (not through float32)
        half = x[0, :2000].astype(np.float16)
        op = gelu.Gelu7.__new__(gelu.Gelu7)
        op.approximation_mode = "tanh"
        wide = half.astype(np.float32)
        cubic = wide + 0.044715 * wide * wide * wide
        once = 0.5 * wide * (1 + np.tanh(np.sqrt(2 / np.pi) * cubic))  # float64
        np.testing.assert_array_equal(op.compute(half), once.astype(np.float16))


def test_tanh_gelu_of_a_large_tensor_matches_cpu():
    """GPT-2's MLP size (128 x 3072): the blocked path against OpenVINO's CPU plugin, within
    Gelu's documented tolerance."""
    x = (np.random.default_rng(2).standard_normal((128, 3072)) * 3).astype(np.float32)
    model = model_of(opset7.gelu(parameter([128, 3072], "f32", "x"), "tanh"))
    expected, got = run_openvino(model, {"x": x})[0], run_irrun(model, {"x": x})[0]
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
