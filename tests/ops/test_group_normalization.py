"""GroupNormalization-12: shapes and types against OpenVINO, the kernel against the CPU
plugin (within the module docstring's tolerance), and the diagnostics of what OpenVINO
refuses."""

from __future__ import annotations

import numpy as np
import openvino.opset12 as opset12
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
from tests.helpers.strategies import built, diagnostic, op_settings, validated

VECTORS = ["[6]", "[6]", "[?]", "[...]", "[2..8]", "[3..]", "[4]", "[6,1]"]
CHANNELS = ["6", "6", "?", "2..8", "3..", "4", "1..3"]
ETYPES = ["f32", "f16", "dynamic", "i32"]


@op_settings(40)
@given(st.sampled_from(["2", "?", "1..4"]), st.sampled_from(CHANNELS),
       st.lists(st.sampled_from(["5", "?", "1..4"]), max_size=2), st.sampled_from(VECTORS),
       st.sampled_from(VECTORS), st.sampled_from([1, 2, 3, 4]), st.sampled_from(ETYPES),
       st.integers(0, 7))  # fmt: skip
def test_shapes_match_openvino(batch, channels, rest, scale, bias, groups, etype, shape_kind):
    """Data ``[batch, channels, ...]``, or one time in 8 of rank 1 or of dynamic rank."""
    data = "[" + ",".join([batch, channels, *rest]) + "]"
    data = {0: "[...]", 1: f"[{channels}]"}.get(shape_kind, data)
    node = built(lambda: opset12.group_normalization(parameter(data, etype), parameter(scale),
                                                     parameter(bias), groups, 1e-5))  # fmt: skip
    check_shapes(node)


@pytest.mark.parametrize(
    "etype, dtype, tolerance",
    [("f32", np.float32, (1e-5, 1e-5)), ("f16", np.float16, (2e-3, 2e-3))],
)
@pytest.mark.parametrize("groups", [1, 4, 8])
def test_kernel_matches_cpu(etype, dtype, tolerance, groups):
    rng = np.random.default_rng(groups)
    x = rng.uniform(-10, 10, (3, 8, 7, 9)).astype(dtype)
    scale, bias = (rng.uniform(-2, 2, 8).astype(dtype) for _ in range(2))
    node = opset12.group_normalization(parameter(list(x.shape), etype, "x"), constant(scale),
                                       constant(bias), groups, 1e-5)  # fmt: skip
    model = model_of(node)
    expected, got = run_openvino(model, {"x": x})[0], run_irrun(model, {"x": x})[0]
    assert got.dtype == dtype and got.shape == x.shape
    np.testing.assert_allclose(got.astype(np.float32), expected.astype(np.float32),
                               rtol=tolerance[0], atol=tolerance[1])  # fmt: skip


def test_exact_small_case():
    x = np.array([[1.0, 3.0, 10.0, 20.0]], np.float32).reshape(1, 4)
    node = opset12.group_normalization(parameter([1, 4], "f32", "x"),
                                       constant(np.ones(4, np.float32)),
                                       constant(np.zeros(4, np.float32)), 2, 0.0)  # fmt: skip
    got = run_irrun(model_of(node), {"x": x})[0]
    np.testing.assert_array_equal(got, [[-1.0, 1.0, -1.0, 1.0]])


def _net(groups="3", channels=6, scale=6, bias=6):
    net = Net()
    x = net.param("x", f"2,{channels}")
    s, b = net.param("s", str(scale)), net.param("b", str(bias))
    net.result(net.op("gn", "GroupNormalization", "opset12",
                      {"num_groups": groups, "epsilon": "1e-05"}, [x, s, b],
                      [2, channels]))  # fmt: skip
    return net


def test_groups_not_dividing_channels_are_reported():
    check_rejected(lambda: opset12.group_normalization(parameter([2, 6]), parameter([6]),
                                                       parameter([6]), 4, 1e-5))  # fmt: skip
    net = _net("4")
    text, report = net.text(), validated(net)
    error = diagnostic(report.errors, "input-dims")
    assert "6 channels do not split into num_groups=4 equal groups (6 % 4 = 2)" in error.message
    assert error.line == line_of(text, '<port id="0"', within="gn")


def test_bad_num_groups_and_scale_are_reported():
    check_rejected(lambda: opset12.group_normalization(parameter([2, 6]), parameter([6]),
                                                       parameter([6]), 0, 1e-5))  # fmt: skip
    error = diagnostic(validated(_net("0")).errors, "attribute-value")
    assert "num_groups 0 is not a positive integer" in error.message
    check_rejected(lambda: opset12.group_normalization(parameter([2, 6]), parameter([5]),
                                                       parameter([5]), 3, 1e-5))  # fmt: skip
    error = diagnostic(validated(_net(scale=5, bias=5)).errors, "input-dims")
    assert "scale [5] does not match the data's channel dim (axis 1) 6" in error.message


def test_misspelt_epsilon_is_warned():
    net = _net()
    report = validated(net, net.text().replace('epsilon="1e-05"', 'epsilon="1e-05" epsilom="1"'))
    warning = diagnostic(report.warnings, "unknown-attribute")
    assert warning.hint == "did you mean epsilon?"
