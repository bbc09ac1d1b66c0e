"""Softmax-1, Softmax-8 and LogSoftmax-5: shapes and types against OpenVINO, kernels against its
CPU plugin within the documented tolerances, and the diagnostics of invalid axes."""

from __future__ import annotations

import tempfile

import numpy as np
import openvino.opset1 as opset1
import openvino.opset5 as opset5
import openvino.opset8 as opset8
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import irrun
from tests.helpers.ir_text import Net, line_of
from tests.helpers.openvino_oracle import (
    check_rejected,
    check_shapes,
    model_of,
    parameter,
    run_irrun,
    run_openvino,
)
from tests.helpers.strategies import op_settings, shape_text

OPS = {"Softmax-1": opset1.softmax, "Softmax-8": opset8.softmax, "LogSoftmax-5": opset5.log_softmax}
DIMS = ["1", "3", "?", "2..6"]


@op_settings(30, suppress_too_slow=False)
@given(
    st.sampled_from(sorted(OPS)),
    shape_text(st.sampled_from(DIMS), dynamic_rank=2),
    st.integers(-4, 4),
    st.sampled_from(["f32", "f16", "i32"]),
)
def test_shapes_match_openvino(label, shape, axis, etype):
    if label == "Softmax-1" and axis < 0:
        assume(False)  # Softmax-1's axis is unsigned in OpenVINO's API
    try:
        node = OPS[label](parameter(shape, etype, name="x"), axis)
    except Exception:  # OpenVINO refuses the axis (checked separately below)
        assume(False)
    check_shapes(node)


def _run(label, shape, axis, data):
    model = model_of(OPS[label](parameter(shape, data.dtype.name.replace("float", "f"),
                                          name="x"), axis))  # fmt: skip
    expected = run_openvino(model, {"x": data})[0]
    got = run_irrun(model, {"x": data})[0]
    assert got.dtype == data.dtype and got.shape == expected.shape
    return got, expected


@pytest.mark.parametrize("label", sorted(OPS))
@pytest.mark.parametrize("shape, axis", [([2, 8, 5, 16], 3), ([2, 8, 5, 16], 1), ([7, 33], 0),
                                         ([4, 1000], 1)])  # fmt: skip
def test_f32_kernel_matches_openvino(label, shape, axis):
    data = (np.random.default_rng(len(shape) + axis).standard_normal(shape) * 4).astype(np.float32)
    got, expected = _run(label, shape, axis, data)
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6 if "Log" in label else 1e-7)


@pytest.mark.parametrize("label", sorted(OPS))
def test_f16_kernel_matches_openvino_within_one_ulp(label):
    data = (np.random.default_rng(2).standard_normal([3, 4, 40]) * 3).astype(np.float16)
    got, expected = _run(label, [3, 4, 40], 2, data)
    np.testing.assert_allclose(got.astype(np.float32), expected, rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("label", ["Softmax-8", "LogSoftmax-5"])
def test_negative_axis_counts_from_the_end(label):
    data = np.random.default_rng(4).standard_normal([3, 5]).astype(np.float32)
    got, expected = _run(label, [3, 5], -2, data)
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)


def test_large_inputs_do_not_overflow():
    """The max is subtracted first: exp(1000) would be inf."""
    data = np.array([[1000.0, 1000.0, -1000.0]], np.float32)
    got, _ = _run("Softmax-8", [1, 3], 1, data)
    np.testing.assert_array_equal(got, [[0.5, 0.5, 0.0]])
    got, _ = _run("LogSoftmax-5", [1, 3], 1, data)
    np.testing.assert_allclose(got, [[-np.log(2), -np.log(2), -2000 - np.log(2)]], rtol=1e-6)


def test_scalar_softmax_is_one():
    got, expected = _run("Softmax-8", [], -1, np.array(3.5, np.float32))
    assert got.shape == () and got == 1.0 == expected


# -- diagnostics ------------------------------------------------------------------------------
def _validate(op_type, version, axis, shape="2,3"):
    net = Net()
    x = net.param("x", shape)
    net.result(net.op("s", op_type, version, {"axis": axis}, [x], [2, 3]))
    text = net.text()
    with tempfile.TemporaryDirectory() as tmp:
        with open(f"{tmp}/m.xml", "w") as f:
            f.write(text)
        return text, irrun.load(f"{tmp}/m.xml").validate()


@pytest.mark.parametrize("label, op_type, version, axis, fragment", [
    ("Softmax-1", "SoftMax", "opset1", 2, "axis 2 is out of the range [0, 1]"),
    ("Softmax-8", "Softmax", "opset8", -3, "axis -3 is out of the range [-2, 1]"),
    ("LogSoftmax-5", "LogSoftmax", "opset5", 2, "axis 2 is out of the range [-2, 1]"),
])  # fmt: skip
def test_axis_out_of_range_is_reported(label, op_type, version, axis, fragment):
    check_rejected(lambda: OPS[label](parameter([2, 3]), axis))
    text, report = _validate(op_type, version, axis)
    (error,) = report.errors
    assert error.code == "axis-range" and fragment in error.message
    assert error.line == line_of(text, '<port id="0"', within="s")


def test_negative_axis_of_softmax_1_is_reported():
    text, report = _validate("SoftMax", "opset1", -1)
    (error,) = report.errors
    assert error.code == "attribute-value" and "Softmax-8" in error.message
    assert error.line == line_of(text, '<data axis="-1"', within="s")


def test_misspelt_axis_is_warned():
    net = Net()
    net.result(net.op("s", "Softmax", "opset8", {"axes": 1}, [net.param("x", "2,3")], [2, 3]))
    with tempfile.TemporaryDirectory() as tmp:
        with open(f"{tmp}/m.xml", "w") as f:
            f.write(net.text())
        report = irrun.load(f"{tmp}/m.xml").validate()
    (warning,) = list(report)
    assert warning.code == "unknown-attribute" and warning.hint == "did you mean axis?"


@pytest.mark.parametrize("label", sorted(OPS))
def test_an_empty_axis_gives_an_empty_output(label):
    data = np.zeros((2, 0, 3), np.float32)
    model = model_of(OPS[label](parameter([2, 0, 3], "f32", name="x"), 1))
    got, expected = run_irrun(model, {"x": data}), run_openvino(model, {"x": data})
    assert got[0].shape == expected[0].shape == (2, 0, 3) and got[0].dtype == np.float32
