"""GRN-1: shapes against OpenVINO, the kernel against the CPU plugin (rtol=1e-5, atol=1e-6),
reported errors."""

from __future__ import annotations

import numpy as np
import openvino.opset1 as opset1
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.helpers.ir_text import Net, line_of
from tests.helpers.openvino_oracle import (
    check_rejected,
    check_shapes,
    model_of,
    parameter,
    run_irrun,
    run_openvino,
)
from tests.helpers.strategies import built, op_settings, shape_text, validated


@op_settings(25)
@given(shape_text(max_rank=5), st.sampled_from([0.0, 1e-6, 2.5]),
       st.sampled_from(["f32", "f16"]))  # fmt: skip
def test_shapes_match_openvino(shape, bias, etype):
    data = parameter(shape, etype, name="x")
    check_shapes(built(lambda: opset1.grn(data, bias)))


@pytest.mark.parametrize("bias", [1e-6, 0.5, 4.0])
@pytest.mark.parametrize("shape", [[2, 3], [2, 5, 4], [1, 3, 4, 5]])
def test_kernel_matches_cpu_plugin(shape, bias):
    data = np.random.default_rng(len(shape)).normal(size=shape).astype(np.float32)
    model = model_of(opset1.grn(parameter(shape, name="x"), bias))
    got, expected = run_irrun(model, {"x": data})[0], run_openvino(model, {"x": data})[0]
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def test_rank_5_is_reported():
    check_rejected(lambda: opset1.grn(parameter([1, 2, 1, 1, 1]), 0.5))
    net = Net()
    out = net.op("g", "GRN", "opset1", {"bias": "0.5"}, [net.param("x", "1,2,1,1,1")],
                 [1, 2, 1, 1, 1])  # fmt: skip
    net.result(out)
    (error,) = validated(net).errors
    assert error.code == "input-rank" and "must have rank 2, 3 or 4" in error.message
    assert error.line == line_of(net.text(), '<port id="0"', within="g")
