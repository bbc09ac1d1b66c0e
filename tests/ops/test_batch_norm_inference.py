"""BatchNormInference-1 and -5: shapes and types against OpenVINO, the kernel against the CPU
plugin (within the module docstring's tolerance), and the diagnostics of what OpenVINO
refuses."""

from __future__ import annotations

import numpy as np
import openvino.opset1 as opset1
import openvino.opset5 as opset5
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

BUILDERS = {1: opset1.batch_norm_inference, 5: opset5.batch_norm_inference}
channel_dims = st.sampled_from(["3", "?", "2..5", "3..", "1", "0..4"])
channel_shapes = st.one_of(st.just("[...]"), channel_dims.map(lambda d: f"[{d}]"))
data_dims = st.sampled_from(["2", "3", "?", "1..4", "2.."])


@op_settings(40)
@given(st.sampled_from([1, 5]), shape_text(data_dims, min_rank=1, max_rank=4, dynamic_rank=6),
       st.lists(channel_shapes, min_size=4, max_size=4),
       st.sampled_from(["f32", "f16", "dynamic"]))  # fmt: skip
def test_shapes_match_openvino(version, data, channels, etype):
    gamma, beta, mean, variance = (parameter(s, etype) for s in channels)
    check_shapes(built(lambda: BUILDERS[version](parameter(data, etype), gamma, beta, mean,
                                                  variance, 1e-5)))  # fmt: skip


@pytest.mark.parametrize("version", [1, 5])
@pytest.mark.parametrize(
    "etype, dtype, tolerance",
    [("f32", np.float32, (1e-5, 1e-5)), ("f16", np.float16, (2e-3, 2e-3))],
)
def test_kernel_matches_cpu(version, etype, dtype, tolerance):
    rng = np.random.default_rng(version)
    x = rng.uniform(-10, 10, (4, 4, 16, 16)).astype(dtype)
    gamma, beta, mean = (rng.uniform(-2, 2, 4).astype(dtype) for _ in range(3))
    variance = rng.uniform(0.1, 3, 4).astype(dtype)
    node = BUILDERS[version](parameter(list(x.shape), etype, "x"), constant(gamma),
                             constant(beta), constant(mean), constant(variance), 1e-3)  # fmt: skip
    model = model_of(node)
    expected, got = run_openvino(model, {"x": x})[0], run_irrun(model, {"x": x})[0]
    assert got.dtype == dtype
    np.testing.assert_allclose(got.astype(np.float32), expected.astype(np.float32),
                               rtol=tolerance[0], atol=tolerance[1])  # fmt: skip
    reference = (x.astype(np.float64) - mean.reshape(1, 4, 1, 1)) / np.sqrt(
        variance.reshape(1, 4, 1, 1) + 1e-3
    ) * gamma.reshape(1, 4, 1, 1) + beta.reshape(1, 4, 1, 1)
    np.testing.assert_allclose(got.astype(np.float64), reference, rtol=2e-3 if
                               dtype == np.float16 else 1e-5, atol=1e-2 if dtype == np.float16
                               else 1e-5)  # fmt: skip


def _net(version, data_shape="2,3", channel=(3, 3, 3, 3), epsilon="1e-05", etype="f32"):
    net = Net()
    x = net.param("x", data_shape, etype)
    params = [net.param(n, str(c)) for n, c in zip(("g", "b", "m", "v"), channel)]
    ordered = [params[0], params[1], x, *params[2:]] if version == 1 else [x, *params]
    out = [int(d) for d in data_shape.split(",")]
    net.result(net.op("bn", "BatchNormInference", f"opset{version}", {"epsilon": epsilon},
                      ordered, out))  # fmt: skip
    return net


@pytest.mark.parametrize("version", [1, 5])
def test_channel_mismatch_is_reported(version):
    check_rejected(lambda: BUILDERS[version](parameter([2, 4]), *(parameter([3]) for _ in
                                                                  range(4)), 1e-5))  # fmt: skip
    net = _net(version, "2,4")
    text, report = net.text(), validated(net)
    error = diagnostic(report.errors, "input-dims")
    assert "channel dim (axis 1) 4 does not match the length 3" in error.message
    data_port = 2 if version == 1 else 0
    assert error.line == line_of(text, f'<port id="{data_port}"', within="bn")


def test_version_1_reads_data_from_input_2():
    """gamma [5] and data [2,3] in v1's order (gamma, beta, data, ...) are a mismatch; the
    same net read as v5 (data first) is one of data [5]... so only v1 reports channels."""
    net = _net(1, "2,3", channel=(3, 3, 3, 3))
    assert not validated(net).errors
    error = diagnostic(validated(_net(1, "2,3", channel=(3, 3, 4, 3))).errors, "input-dims")
    assert "mean [4]" in error.message


def test_negative_epsilon_and_small_rank_are_reported():
    check_rejected(lambda: opset5.batch_norm_inference(*(parameter([2, 3])
                   for _ in range(1)), *(parameter([3]) for _ in range(4)), -1.0))  # fmt: skip
    error = diagnostic(validated(_net(5, epsilon="-1")).errors, "attribute-value")
    assert "epsilon -1.0 is negative" in error.message
    channels = [parameter([3]) for _ in range(4)]
    check_rejected(lambda: opset5.batch_norm_inference(parameter([3]), *channels, 1e-5))
    error = diagnostic(validated(_net(5, data_shape="3")).errors, "input-rank")
    assert "rank 2 or more" in error.message


def test_integer_data_is_reported():
    check_rejected(lambda: opset5.batch_norm_inference(parameter([2, 3], "i32"),
                   *(parameter([3], "i32") for _ in range(4)), 1e-5))  # fmt: skip
    net = Net()
    x = net.param("x", "2,3", "i32")
    params = [net.param(n, "3", "i32") for n in ("g", "b", "m", "v")]
    net.result(net.op("bn", "BatchNormInference", "opset5", {"epsilon": "0.001"}, [x, *params],
                      [2, 3]))  # fmt: skip
    error = diagnostic(validated(net).errors, "input-type")
    assert "takes a floating-point type, but its input is i32" in error.message


def test_misspelt_epsilon_is_warned():
    net = _net(5)
    report = validated(net, net.text().replace('epsilon="1e-05"', 'epsilon="1e-05" epsilom="1"'))
    warning = diagnostic(report.warnings, "unknown-attribute")
    assert warning.hint == "did you mean epsilon?"
