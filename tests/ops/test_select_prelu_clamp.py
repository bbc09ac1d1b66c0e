"""Select-1, PRelu-1 and Clamp-1 against OpenVINO."""

from __future__ import annotations

import re

import numpy as np
import openvino.opset1 as opset1
import openvino.opset13 as ops
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from tests.helpers.openvino_oracle import (
    check_rejected,
    check_shapes,
    model_of,
    parameter,
    run_irrun,
    run_openvino,
)
from tests.helpers.strategies import diagnostic, edited_report, op_settings, shape_text

dims = st.sampled_from(["1", "2", "3", "?", "1..3", "2.."])
shapes = shape_text(dims, max_rank=3, dynamic_rank=2)  # [...] one time in 2


@op_settings(40)
@given(shapes, shapes, shapes, st.sampled_from(["numpy", "none", "pdpd"]),
       st.sampled_from(["f32", "i32", "boolean", "dynamic"]),
       st.sampled_from(["boolean", "dynamic"]))  # fmt: skip
def test_select_shapes_match_openvino(c, t, e, mode, etype, ctype):
    try:
        node = ops.select(parameter(c, ctype, "c"), parameter(t, etype, "t"),
                          parameter(e, etype, "e"), mode)  # fmt: skip
    except Exception:
        assume(False)
    check_shapes(node)


@op_settings(40)
@given(shapes, shapes, st.sampled_from(["f32", "i32", "u8", "boolean", "dynamic"]))
def test_prelu_shapes_match_openvino(x, slope, etype):
    check_shapes(ops.prelu(parameter(x, etype, "x"), parameter(slope, etype, "s")))


@op_settings(40)
@given(shapes, st.sampled_from(["f32", "f16", "i32", "u8", "dynamic"]),
       st.floats(-3, 3), st.floats(0, 3))  # fmt: skip
def test_clamp_shapes_match_openvino(x, etype, low, width):
    check_shapes(opset1.clamp(parameter(x, etype, "x"), low, low + width))


@pytest.mark.parametrize("etype", ["f32", "i32", "boolean", "f16"])
def test_select_kernel_is_exact(etype):
    rng = np.random.default_rng(7)
    dtype = {"f32": np.float32, "i32": np.int32, "boolean": bool, "f16": np.float16}[etype]
    c = rng.integers(0, 2, (3, 1)).astype(bool)
    t = (rng.normal(size=(2, 3, 4)) * 10).astype(dtype)
    e = (rng.normal(size=(4,)) * 10).astype(dtype)
    node = ops.select(parameter(c.shape, "boolean", "c"), parameter(t.shape, etype, "t"),
                      parameter(e.shape, etype, "e"))  # fmt: skip
    model = model_of(node)
    feed = {"c": c, "t": t, "e": e}
    expected, got = run_openvino(model, feed)[0], run_irrun(model, feed)[0]
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


def test_select_pdpd_kernel_follows_the_axis():
    # The CPU plugin fails to compile this valid pdpd Select (its rank normalisation pads the
    # condition on the left), so the expected values come from the spec: cond [2,3] and else
    # [2,3,1] placed at axis 0 of then [2,3,4].
    rng = np.random.default_rng(7)
    c = rng.integers(0, 2, (2, 3)).astype(bool)
    t = rng.normal(size=(2, 3, 4)).astype(np.float32)
    e = rng.normal(size=(2, 3, 1)).astype(np.float32)
    node = ops.select(parameter(c.shape, "boolean", "c"), parameter(t.shape, "f32", "t"),
                      parameter(e.shape, "f32", "e"), "pdpd")  # fmt: skip
    check_shapes(node)
    got = run_irrun(model_of(node), {"c": c, "t": t, "e": e})[0]
    np.testing.assert_array_equal(got, np.where(c[:, :, None], t, e))


@pytest.mark.parametrize(
    "x_shape, slope_shape", [((2, 3, 4), (3,)), ((2, 3, 4), (4,)), ((2, 3, 4), (1,)),
                             ((2, 3, 4), (3, 1)), ((5,), (5,)), ((2, 3), (3,))]
)  # fmt: skip
@pytest.mark.parametrize("etype", ["f32", "i32"])
def test_prelu_kernel_is_exact(x_shape, slope_shape, etype):
    rng = np.random.default_rng(8)
    dtype = np.float32 if etype == "f32" else np.int32
    x = (rng.normal(size=x_shape) * 10).astype(dtype)
    slope = (rng.uniform(0, 3, slope_shape)).astype(dtype)
    model = model_of(ops.prelu(parameter(x_shape, etype, "x"), parameter(slope_shape, etype, "s")))
    feed = {"x": x, "s": slope}
    np.testing.assert_array_equal(run_irrun(model, feed)[0], run_openvino(model, feed)[0])


def test_prelu_channel_slope_applies_to_axis_1():
    x = -np.ones((1, 3, 3), np.float32)  # 3 channels and a last axis of 3: axis 1 wins
    slope = np.array([1, 2, 3], np.float32)
    model = model_of(ops.prelu(parameter(x.shape, "f32", "x"), parameter([3], "f32", "s")))
    got = run_irrun(model, {"x": x, "s": slope})[0]
    np.testing.assert_array_equal(got[0], [[-1, -1, -1], [-2, -2, -2], [-3, -3, -3]])


@pytest.mark.parametrize("etype", ["f32", "f16", "i32", "u8"])
@pytest.mark.parametrize("low, high", [(-1.5, 2.5), (0.5, 1.7), (-300.0, 300.0), (2.0, 2.0)])
def test_clamp_kernel_is_exact(etype, low, high):
    if etype == "u8" and low != int(low):
        pytest.skip("the CPU plugin truncates a fractional min for u8 (ceil by the reference)")
    rng = np.random.default_rng(9)
    dtype = {"f32": np.float32, "f16": np.float16, "i32": np.int32, "u8": np.uint8}[etype]
    x = rng.uniform(0 if etype == "u8" else -5, 5, (4, 25)).astype(dtype)
    model = model_of(opset1.clamp(parameter(x.shape, etype, "x"), low, high))
    expected, got = run_openvino(model, {"x": x})[0], run_irrun(model, {"x": x})[0]
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


def test_clamp_on_integers_rounds_the_bounds_inward():
    x = np.arange(-3, 4, dtype=np.int32)
    model = model_of(opset1.clamp(parameter(x.shape, "i32", "x"), -1.5, 1.5))
    np.testing.assert_array_equal(run_irrun(model, {"x": x})[0], [-1, -1, -1, 0, 1, 1, 1])
    x = np.array([0, 1, 2, 3, 255], np.uint8)
    model = model_of(opset1.clamp(parameter(x.shape, "u8", "x"), 0.5, 300.0))
    np.testing.assert_array_equal(run_irrun(model, {"x": x})[0], [1, 1, 2, 3, 255])


def _report(build, edit):
    return edited_report(model_of(build()), edit)[0]


def test_clamp_min_above_max_is_reported():
    with pytest.raises(RuntimeError):
        opset1.clamp(parameter([2], "f32"), 3.0, 1.0)
    report = _report(lambda: opset1.clamp(parameter([2], "f32", "x"), 1.0, 3.0),
                     lambda t: t.replace('max="3"', 'max="0.5"'))  # fmt: skip
    error = diagnostic(report, "attribute-value", only=False)
    assert "min 1.0 is above max 0.5" in error.message, report.to_text()


def test_select_condition_must_be_boolean():
    def build():
        return ops.select(parameter([2], "dynamic", "c"), parameter([2], "f32", "t"),
                          parameter([2], "f32", "e"))  # fmt: skip

    def edit(text):
        return text.replace('element_type="dynamic"', 'element_type="i32"', 1).replace(
            'precision="UNSPECIFIED"', 'precision="I32"'
        )

    with pytest.raises(RuntimeError):
        ops.select(parameter([2], "i32"), parameter([2], "f32"), parameter([2], "f32"))
    report = _report(build, edit)
    error = diagnostic(report, "input-type", only=False)
    assert "the condition must be boolean, not i32" in error.message


def test_select_shape_clash_names_the_inputs():
    def build():
        return ops.select(parameter([1], "boolean", "c"), parameter([2, 3], "f32", "t"),
                          parameter([2, -1], "f32", "e"))  # fmt: skip

    def edit(text):
        return text.replace('shape="2,?"', 'shape="2,4"').replace("<dim>-1</dim>", "<dim>4</dim>")

    report = _report(build, edit)
    error = diagnostic(report, "input-dims", only=False)
    assert "input 1 [2,3] does not broadcast with input 2 [2,4]" in error.message
    assert "dimension 1: 4 vs 3 cannot broadcast" in error.message


@pytest.mark.parametrize("etype", ["i32", "u8", "i64"])
@pytest.mark.parametrize("low, high", [(-np.inf, 5.0), (-3.0, np.inf), (-np.inf, np.inf)])
def test_clamp_on_integers_with_infinite_bounds_saturates(etype, low, high):
    dtype = np.dtype({"i32": np.int32, "u8": np.uint8, "i64": np.int64}[etype])
    info = np.iinfo(dtype)
    x = np.array([info.min, 0, 1, 7, 100, info.max], dtype)
    model = model_of(opset1.clamp(parameter(x.shape, etype, "x"), low, high))
    got = run_irrun(model, {"x": x})[0]
    lowest = info.min if low == -np.inf else max(int(low), info.min)
    highest = info.max if high == np.inf else int(high)
    expected = np.array([min(max(int(v), lowest), highest) for v in x], dtype)
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, expected)
    if etype != "i64":  # the CPU plugin computes i64 in 32 bits
        np.testing.assert_array_equal(got, run_openvino(model, {"x": x})[0])


@pytest.mark.parametrize("attribute", ["min", "max"])
def test_clamp_nan_bound_is_reported(attribute):
    check_rejected(lambda: opset1.clamp(parameter([2], "f32"), 1.0, float("nan")))
    check_rejected(lambda: opset1.clamp(parameter([2], "f32"), float("nan"), 3.0))
    report = _report(lambda: opset1.clamp(parameter([2], "i32", "x"), 1.0, 3.0),
                     lambda t: re.sub(f'{attribute}="[^"]*"', f'{attribute}="nan"', t))  # fmt: skip
    error = diagnostic(report, "attribute-value", only=False)
    assert "a NaN bound clamps nothing" in error.message, report.to_text()
    assert "OpenVINO requires min <= max" in error.message
