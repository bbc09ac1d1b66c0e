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
