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
