"""MVN-1 (OpenVINO's opset2 op) and MVN-6: shapes against OpenVINO, kernels against its CPU
plugin and its reference evaluator, and the diagnostics of invalid axes and attributes."""

from __future__ import annotations

import numpy as np
import openvino as ov
import openvino.opset2 as opset2
import openvino.opset6 as opset6
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from irrun.ops.mvn import mvn
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
from tests.helpers.strategies import op_settings, shape_text, validated

DIMS = ["1", "3", "?", "2..6"]


@op_settings(30, suppress_too_slow=False)
@given(
    st.one_of(st.just(None), st.lists(st.sampled_from(DIMS), max_size=4)),
    st.lists(st.integers(-4, 3), max_size=4, unique=True),
    st.sampled_from(["const", "param", "param-dynamic"]),
    st.booleans(),
    st.sampled_from(["inside_sqrt", "outside_sqrt"]),
    st.sampled_from(["f32", "f16"]),
)
def test_mvn6_shapes_match_openvino(dims, axes, kind, normalize, mode, etype):
    shape = "[...]" if dims is None else "[" + ",".join(dims) + "]"
    if dims is not None:
        assume(all(-len(dims) <= a < len(dims) for a in axes))
    if kind == "const":
        axes_node = (
            constant(np.array(axes, np.int64), "i64")
            if axes
            else ov.op.Constant(ov.Type.i64, ov.Shape([0]), [])
        )
    else:
        axes_node = parameter(f"[{len(axes)}]" if kind == "param" else "[?]", "i32", name="axes")
    try:
        node = opset6.mvn(parameter(shape, etype, name="x"), axes_node, normalize, 1e-5, mode)
    except Exception:  # more axes than dims: refused (checked separately below)
        assume(False)
    check_shapes(node)


@op_settings(25, suppress_too_slow=False)
@given(
    shape_text(st.sampled_from(DIMS), max_rank=5, dynamic_rank=2),
    st.booleans(),
    st.booleans(),
)
def test_mvn1_shapes_match_openvino(shape, across, normalize):
    check_shapes(opset2.mvn(parameter(shape, "f32", name="x"), across, normalize, 1e-9))


def _compare(node, data, **tolerance):
    model = model_of(node)
    expected = run_openvino(model, {"x": data})[0]
    got = run_irrun(model, {"x": data})[0]
    assert got.dtype == data.dtype and got.shape == expected.shape
    np.testing.assert_allclose(got.astype(np.float32), expected, **tolerance)


F32 = {"rtol": 1e-5, "atol": 2e-6}


@pytest.mark.parametrize("axes", [[-1], [1, 2, 3], [0, 2], [2, 3]])
@pytest.mark.parametrize("normalize", [True, False])
@pytest.mark.parametrize("mode", ["inside_sqrt", "outside_sqrt"])
def test_mvn6_f32_matches_openvino(axes, normalize, mode):
    data = np.random.default_rng(len(axes)).standard_normal([2, 8, 5, 64]) * 3 + 1
    data = data.astype(np.float32)
    x = parameter([2, 8, 5, 64], "f32", name="x")
    _compare(opset6.mvn(x, constant(np.array(axes), "i32"), normalize, 1e-5, mode), data, **F32)


def test_layer_norm_of_a_transformer_matches_openvino():
    """BERT's LayerNorm: MVN-6 over the hidden axis, eps 1e-12 inside the square root."""
    data = np.random.default_rng(7).standard_normal([2, 128, 768]).astype(np.float32)
    x = parameter([2, 128, 768], "f32", name="x")
    node = opset6.mvn(x, constant([-1], "i64"), True, 1e-12, "inside_sqrt")
    _compare(node, data, **F32)


@pytest.mark.parametrize("across", [True, False])
@pytest.mark.parametrize("normalize", [True, False])
def test_mvn1_f32_matches_openvino(across, normalize):
    data = (np.random.default_rng(1).standard_normal([2, 8, 5, 16]) * 3 - 2).astype(np.float32)
    _compare(opset2.mvn(parameter([2, 8, 5, 16], "f32", name="x"), across, normalize, 1e-5),
             data, **F32)  # fmt: skip


@pytest.mark.parametrize("mode", ["inside_sqrt", "outside_sqrt"])
def test_mvn6_f16_matches_openvino_within_one_ulp(mode):
    data = (np.random.default_rng(3).standard_normal([2, 8, 64]) * 3 + 1).astype(np.float16)
    x = parameter([2, 8, 64], "f16", name="x")
    node = opset6.mvn(x, constant([1, 2], "i64"), True, 1e-5, mode)
    _compare(node, data, rtol=1e-3, atol=1e-3)


def test_f32_result_is_that_of_openvinos_reference_evaluator():
    """Model.evaluate runs OpenVINO's reference (mvn.hpp): irrun is within one ulp of it."""
    data = (np.random.default_rng(5).standard_normal([3, 4, 50]) * 2 + 5).astype(np.float32)
    x = parameter([3, 4, 50], "f32", name="x")
    for mode in ("inside_sqrt", "outside_sqrt"):
        model = model_of(opset6.mvn(x, constant([0, 2], "i64"), True, 1e-3, mode))
        out = [ov.Tensor(ov.Type.f32, ov.Shape(data.shape))]
        assert model.evaluate(out, [ov.Tensor(data)])
        reference = out[0].data.copy()
        got = run_irrun(model, {"x": data})[0]
        np.testing.assert_array_max_ulp(got, reference, maxulp=1)


def test_mvn_spec_formula():
    data = np.array([[1.0, 2.0, 3.0, 6.0]], np.float32)  # mean 3, variance 3.5
    np.testing.assert_allclose(mvn(data, (1,), True, 0.5),
                               (data - 3) / np.sqrt(4.0), rtol=1e-7)  # fmt: skip
    np.testing.assert_allclose(mvn(data, (1,), True, 0.5, inside_sqrt=False),
                               (data - 3) / (np.sqrt(3.5) + 0.5), rtol=1e-7)  # fmt: skip
    np.testing.assert_array_equal(mvn(data, (1,), False, 0.5), data - 3)


# -- diagnostics ------------------------------------------------------------------------------
def _validate(net):
    return net.text(), validated(net)


MVN6 = {"eps": "1e-5", "normalize_variance": "true", "eps_mode": "inside_sqrt"}


def _mvn6_net(axes, data=None, shape="2,3"):
    net = Net()
    x = net.param("x", shape)
    net.result(net.op("m", "MVN", "opset6", data or MVN6, [x, net.const("axes", axes)], [2, 3]))
    return net


def test_mvn6_two_dimensional_axes_are_reported():
    check_rejected(lambda: opset6.mvn(parameter([2, 3]), constant([[1]], "i64"), True, 1e-5,
                                      "inside_sqrt"))  # fmt: skip
    _, report = _validate(_mvn6_net(np.array([[1]])))
    (error,) = report.errors
    assert error.code == "input-rank" and "axes must be 1-D" in error.message


def test_mvn6_more_axes_than_dims_are_reported():
    check_rejected(lambda: opset6.mvn(parameter([2, 3]), constant([0, 1, 0], "i64"), True, 1e-5,
                                      "inside_sqrt"))  # fmt: skip
    text, report = _validate(_mvn6_net(np.array([0, 1, 0])))
    (error,) = report.errors
    assert error.code == "input-rank" and "(3 > 2)" in error.message
    assert error.line == line_of(text, '<port id="0"', within="m")


def test_mvn6_axis_out_of_range_is_reported():
    """OpenVINO builds it (its reference then fails at run time); irrun reports it."""
    _, report = _validate(_mvn6_net(np.array([2])))
    (error,) = report.errors
    assert error.code == "axis-range"
    assert "axis 2 is out of the range [-2, 1] allowed for rank 2" in error.message


def test_mvn6_float_axes_are_warned_and_truncated_as_openvino_does():
    """OpenVINO builds and runs MVN-6 with f32 axes, truncated toward 0 (1.9 is axis 1)."""
    _, report = _validate(_mvn6_net(np.array([1.9], np.float32)))
    assert not report.errors, report.to_text()
    (warning,) = report.warnings
    assert warning.code == "index-type" and "the axes input is f32" in warning.message
    model = model_of(opset6.mvn(parameter([3, 2], "f32", "x"), constant(np.array([1.9],
                                np.float32)), True, 1e-5, "inside_sqrt"))  # fmt: skip
    x = np.array([[1, 2], [3, 5], [0, 1]], np.float32)
    got, expected = run_irrun(model, {"x": x})[0], run_openvino(model, {"x": x})[0]
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=2e-6)  # (module docstring)
    np.testing.assert_allclose(got, [[-1, 1], [-1, 1], [-1, 1]], atol=3e-5)


def test_mvn6_bad_eps_mode_is_reported():
    _, report = _validate(_mvn6_net(np.array([1]), {**MVN6, "eps_mode": "inside"}))
    (error,) = report.errors
    assert error.code == "attribute-value" and "eps_mode='inside'" in error.message


def test_mvn1_reduction_axis_out_of_range_is_reported():
    net = Net()
    data = {"eps": "1e-5", "normalize_variance": "true", "across_channels": "false",
            "reduction_axes": "1,2"}  # fmt: skip
    net.result(net.op("m", "MVN", "opset2", data, [net.param("x", "2,3")], [2, 3]))
    text, report = _validate(net)
    (error,) = report.errors
    assert error.code == "axis-range" and "axis 2 of [1, 2]" in error.message
    assert error.line == line_of(text, "<data eps", within="m")


def test_mvn1_missing_eps_is_reported_and_misspelt_one_warned():
    net = Net()
    data = {"epsilon": "1e-5", "normalize_variance": "true", "across_channels": "false"}
    net.result(net.op("m", "MVN", "opset2", data, [net.param("x", "2,3")], [2, 3]))
    _, report = _validate(net)
    (error,) = report.errors
    assert error.code == "missing-attribute" and "'eps'" in error.message
    (warning,) = [d for d in report if d.severity == "warning"]
    assert warning.code == "unknown-attribute" and warning.hint == "did you mean eps?"
