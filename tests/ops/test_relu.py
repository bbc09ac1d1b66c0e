"""Relu-1's kernel on the values its fast paths treat apart: NaN, -0, infinities."""

from __future__ import annotations

import numpy as np
import openvino.opset1 as ops
import pytest

from tests.helpers.openvino_oracle import model_of, parameter, run_irrun, run_openvino

SPECIAL = [np.nan, -0.0, 0.0, -1.5, 2.5, np.inf, -np.inf, -1e-42, 1e-42]


@pytest.mark.parametrize("etype, dtype", [("f32", np.float32), ("f16", np.float16)])
@pytest.mark.parametrize("with_nan", [True, False])
def test_relu_matches_cpu_bit_for_bit(etype, dtype, with_nan):
    values = SPECIAL if with_nan else SPECIAL[1:]
    x = np.array(values * 40, dtype).reshape(4, -1)  # long enough for the SIMD loops
    model = model_of(ops.relu(parameter(list(x.shape), etype, "x")))
    got, expected = run_irrun(model, {"x": x})[0], run_openvino(model, {"x": x})[0]
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)
    assert not np.signbit(got).any()  # NaN gives 0 and -0 gives +0


def test_relu_f64_nan_gives_zero_and_negative_zero_gives_positive_zero():
    from irrun.ops.relu import Relu

    got = Relu.compute(None, np.array(SPECIAL * 9))
    assert got.reshape(9, -1)[0].tolist() == [0.0, 0.0, 0.0, 0.0, 2.5, np.inf, 0.0, 0.0, 1e-42]
    assert not np.signbit(got).any()


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int32])
@pytest.mark.parametrize("layout", ["contiguous", "strided"])
def test_relu_in_chunks_gives_what_the_formula_gives(dtype, layout):
    """Big contiguous arrays take the chunked path (more than one chunk, a short last one),
    in place and not; strided ones the scalar path."""
    from irrun.ops.relu import CHUNK, _relu_into

    rng = np.random.default_rng(7)
    x = (rng.standard_normal(2 * CHUNK + 123) * 100).astype(dtype)
    if dtype != np.int32:
        x[::97] = np.array(SPECIAL, dtype).repeat(len(x[::97]) // len(SPECIAL) + 1)[: len(x[::97])]
    if layout == "strided":
        x = np.stack([x, x])[:, ::2]
    expected = np.where(x > 0, x, 0).astype(dtype)
    out = np.empty_like(x)
    _relu_into(x, out)
    np.testing.assert_array_equal(out, expected)
    assert not np.signbit(out).any()
    _relu_into(x, x)  # in place
    np.testing.assert_array_equal(x, expected)
