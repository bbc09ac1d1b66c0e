"""LRN-1: shapes against OpenVINO, the kernel against the CPU plugin (rtol=1e-5, atol=1e-6),
reported errors."""

from __future__ import annotations

import numpy as np
import openvino.opset1 as opset1
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irrun.ops.lrn import LRN
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
from tests.helpers.strategies import bare_op, built, op_settings, shape_text, validated


@op_settings(30)
@given(shape_text(max_rank=4), st.lists(st.integers(-4, 3), min_size=1, max_size=4),
       st.sampled_from([1, 2, 3, 5]))  # fmt: skip
def test_shapes_match_openvino(shape, axes, size):
    data = parameter(shape, name="x")
    check_shapes(built(lambda: opset1.lrn(data, constant(axes, "i64"), 1e-4, 0.75, 1.0, size)))


CASES = [
    ([2, 6, 3, 3], [1], 5),
    ([2, 6, 3, 3], [1], 4),  # an even size: a window of 3
    ([1, 3, 5, 6], [2, 3], 3),
    ([2, 4, 6], [2], 3),  # the one spatial axis of a 3-D input
    ([4, 7], [1], 9),  # a window larger than the axis
]


@pytest.mark.parametrize("alpha, beta, bias", [(1e-4, 0.75, 1.0), (0.5, 0.5, 2.0), (2.0, 1.0, 1.0)])
@pytest.mark.parametrize("shape, axes, size", CASES)
def test_kernel_matches_cpu_plugin(shape, axes, size, alpha, beta, bias):
    data = np.random.default_rng(size).normal(size=shape).astype(np.float32) * 3
    node = opset1.lrn(parameter(shape, name="x"), constant(axes, "i64"), alpha, beta, bias, size)
    model = model_of(node)
    got, expected = run_irrun(model, {"x": data})[0], run_openvino(model, {"x": data})[0]
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def _lrn_by_element(x, axes, alpha, beta, bias, size):
    """The reference's loop: a clipped window of ``(size - 1) // 2`` each side per axis."""
    out = np.empty_like(x)
    half = (size - 1) // 2
    for index in np.ndindex(x.shape):
        window = tuple(slice(max(0, i - half), min(n, i + half + 1)) if axis in axes else i
                       for axis, (i, n) in enumerate(zip(index, x.shape)))  # fmt: skip
        total = np.sum(x[window].astype(np.float64) ** 2)
        out[index] = x[index] / (bias + alpha / size ** len(axes) * total) ** beta
    return out


@pytest.mark.parametrize("axes, size", [([1, 3], 3), ([0, 2], 4), ([0, 1, 2, 3], 3), ([2], 5)])
def test_axes_the_cpu_plugin_does_not_run_match_the_reference_formula(axes, size):
    x = np.random.default_rng(size).normal(size=(2, 3, 4, 5)).astype(np.float32)
    op = bare_op(LRN, {"alpha": "0.5", "beta": "0.75", "bias": "1", "size": str(size)})
    (got,) = op.evaluate([x, np.array(axes)])
    expected = _lrn_by_element(x, set(axes), 0.5, 0.75, 1.0, size)
    np.testing.assert_allclose(got, expected, rtol=1e-6)


def test_even_size_uses_a_window_of_size_minus_one():
    op = bare_op(LRN, {"alpha": "4", "beta": "1", "bias": "0", "size": "4"})
    (got,) = op.evaluate([np.array([1.0, 1.0, 1.0, 1.0], np.float32), np.array([0])])
    # windows of [i - 1, i + 1] clipped: 2, 3, 3, 2 squares; scale 4 / 4
    np.testing.assert_allclose(got, [1 / 2, 1 / 3, 1 / 3, 1 / 2], rtol=1e-7)


def test_negative_axes_pass_validation_and_are_refused_when_run():
    node = opset1.lrn(parameter([2, 3], name="x"), constant([-1], "i64"), 1e-4, 0.75, 1, 3)
    check_shapes(node)
    op = bare_op(LRN, {"alpha": "1", "beta": "1", "bias": "1", "size": "3"})
    with pytest.raises(ValueError, match=r"axes \[-1\] must lie in \[0, 1\]"):
        op.evaluate([np.ones((2, 3), np.float32), np.array([-1])])


def _net(data_shape, axes):
    net = Net()
    x = net.param("x", data_shape)
    a = net.const("a", np.array(axes, np.int64))
    out = [int(d) for d in data_shape.split(",")]
    attrs = {"alpha": "0.0001", "beta": "0.75", "bias": "1", "size": "5"}
    net.result(net.op("l", "LRN", "opset1", attrs, [x, a], out))
    return net


@pytest.mark.parametrize(
    "shape, axes, code, fragment",
    [
        ("2,3,4", [3], "axis-range", "axis 3 of [3] is out of the range [0, 2] of the data"),
        ("2,3,4", [0, 1, 2, 1], "input-dims", "axes has 4 elements, more than the data rank 3"),
        ("2,3,4", 1, "input-rank", "axes must be 1-D, but its shape is []"),
    ],
)  # fmt: skip
def test_bad_axes_are_reported(shape, axes, code, fragment):
    dims = [int(d) for d in shape.split(",")]
    check_rejected(lambda: opset1.lrn(parameter(dims), constant(axes, "i64"), 1e-4, 0.75, 1, 5))
    net = _net(shape, axes)
    (error,) = validated(net).errors
    assert error.code == code and fragment in error.message, error.message
    assert error.line == line_of(net.text(), '<port id="1"', within="l")
