"""ConvolutionBackpropData-1 and GroupConvolutionBackpropData-1: shapes against OpenVINO,
kernels against its CPU plugin, reported errors."""

from __future__ import annotations

import time

import numpy as np
import openvino.opset1 as ops
import openvino.opset3 as opset3
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irrun.ops._backprop import transposed_convolve
from tests.helpers.conv_strategies import convolution_geometry
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


@st.composite
def backprop_case(draw, grouped):
    geometry = draw(convolution_geometry(grouped, transposed=True, max_size=6,
                                         pads=st.just((-1, 3))))  # fmt: skip
    output_padding = [draw(st.integers(0, 2)) for _ in geometry[2]]
    output_shape = draw(st.sampled_from([None, None, "const", "param", "partial"]))
    out_sizes = [draw(st.integers(1, 12)) for _ in geometry[2]]
    return (*geometry, output_padding, output_shape, out_sizes)


def _build(grouped, case, etype="f32"):
    (data, filters, strides, pads_begin, pads_end, dilations, auto_pad, output_padding,
     output_shape, out_sizes) = case  # fmt: skip
    x = parameter(data, etype, name="x")
    w = (
        constant(np.ones(filters), etype)
        if isinstance(filters, list)
        else parameter(filters, etype, name="w")
    )
    if output_shape == "const":
        shape = constant(np.array(out_sizes, np.int64))
    elif output_shape == "param":
        shape = parameter([len(out_sizes)], "i64", name="s")
    elif output_shape == "partial":
        dims = ",".join(f"{s}..{s + 2}" if i % 2 else str(s) for i, s in enumerate(out_sizes))
        shape = opset3.shape_of(parameter(f"[{dims}]", name="s"), "i64")
    else:
        shape = None
    op = ops.group_convolution_backprop_data if grouped else ops.convolution_backprop_data
    return op(x, w, strides, shape, pads_begin, pads_end, dilations, auto_pad, output_padding)


@op_settings(40)
@given(backprop_case(grouped=False))
def test_convolution_backprop_data_shapes_match_openvino(case):
    check_shapes(built(lambda: _build(False, case)))


@op_settings(40)
@given(backprop_case(grouped=True))
def test_group_convolution_backprop_data_shapes_match_openvino(case):
    check_shapes(built(lambda: _build(True, case)))


@pytest.mark.parametrize(
    "data, filters, output_shape",
    [
        ("[1,3,1..4,1..20]", "[3,4,3,3]", None),
        ("[...]", "[...]", None),
        ("[1,3,5,5]", "[3,4,3,3]", "[?]"),
        ("[1,3,5,5]", "[3,4,3,3]", "[...]"),
        ("[...]", "[...]", "[2]"),
    ],
)
def test_unknown_ranks_and_lengths_match_openvino(data, filters, output_shape):
    shape = None if output_shape is None else parameter(output_shape, "i64", name="s")
    node = ops.convolution_backprop_data(parameter(data, name="x"), parameter(filters, name="w"),
                                         [2, 2], shape, [4, 10], [0, 0])  # fmt: skip
    check_shapes(node)


@pytest.mark.parametrize(
    "data, filters",
    [("[1,?,5,5]", "[?,3,4,3,3]"), ("[1,4..9,5,5]", "[?,3,4,3,3]"),
     ("[1,4..9,5,5]", "[?,?,4,3,3]"), ("[1,4..9,5,5]", "[2..3,3,1..4,3,3]"),
     ("[...]", "[2,3,4,3,3]"), ("[1,6,5,5]", "[...]")],
)  # fmt: skip
def test_group_channel_intervals_match_openvino(data, filters):
    node = ops.group_convolution_backprop_data(
        parameter(data, name="x"), parameter(filters, name="w"), [2, 2]
    )
    check_shapes(node)


# -- kernels --------------------------------------------------------------------------------------

CASES = [
    # data, filters, strides, pads_begin, pads_end, dilations, auto_pad, output_padding, out
    ([1, 8, 6, 6], [8, 4, 3, 3], [2, 2], [1, 1], [1, 1], [1, 1], "explicit", [1, 1], None),
    ([2, 3, 5, 7], [3, 5, 4, 4], [2, 2], [1, 1], [1, 1], [1, 1], "explicit", [0, 0], None),
    ([1, 4, 5, 6], [4, 2, 3, 2], [3, 2], [0, 2], [1, 0], [2, 1], "explicit", [2, 1], None),
    ([1, 4, 5, 6], [4, 2, 3, 3], [2, 2], [0, 0], [0, 0], [1, 1], "valid", [0, 0], None),
    ([1, 4, 5, 6], [4, 2, 3, 3], [2, 2], [0, 0], [0, 0], [1, 1], "same_upper", [0, 0], [10, 12]),
    ([1, 4, 5, 6], [4, 2, 3, 3], [2, 2], [0, 0], [0, 0], [1, 1], "same_lower", [0, 0], [9, 11]),
    ([1, 4, 5, 6], [4, 2, 3, 3], [2, 1], [0, 0], [0, 0], [2, 1], "same_upper", [1, 0], [12, 7]),
    ([1, 4, 5, 6], [4, 2, 3, 3], [2, 2], [1, 2], [0, 0], [1, 1], "explicit", [0, 0], [9, 10]),
    ([1, 4, 5, 6], [4, 2, 3, 3], [1, 1], [0, 0], [0, 0], [1, 1], "explicit", [0, 0], None),
    ([2, 3, 9], [3, 4, 5], [3], [2], [1], [1], "explicit", [2], None),
    ([1, 2, 3, 4, 3], [2, 3, 2, 3, 2], [2, 1, 2], [1, 0, 0], [0, 1, 1], [1, 2, 1], "explicit",
     [1, 0, 1], None),
]  # fmt: skip
GROUP_CASES = [
    ([1, 8, 6, 6], [8, 1, 1, 4, 4], [2, 2], [1, 1], [1, 1], [1, 1], "explicit", [0, 0], None),
    ([2, 6, 5, 7], [2, 3, 2, 3, 3], [2, 2], [1, 1], [1, 1], [1, 1], "explicit", [1, 1], None),
    ([1, 6, 5, 6], [3, 2, 4, 3, 3], [2, 2], [0, 0], [0, 0], [1, 1], "same_upper", [0, 0], [10, 12]),
    ([1, 4, 9], [2, 2, 3, 3], [2], [1], [0], [2], "explicit", [1], None),
]  # fmt: skip


def _run_both(grouped, case, etype="f32"):
    (data, filters, strides, pads_begin, pads_end, dilations, auto_pad, output_padding,
     out) = case  # fmt: skip
    dtype = {"f32": np.float32, "f16": np.float16}[etype]
    rng = np.random.default_rng(0)
    x = rng.standard_normal(data).astype(dtype)
    w = rng.standard_normal(filters).astype(dtype)
    op = ops.group_convolution_backprop_data if grouped else ops.convolution_backprop_data
    shape = None if out is None else constant(np.array(out, np.int64))
    node = op(parameter(data, etype, name="x"), constant(w, etype), strides, shape, pads_begin,
              pads_end, dilations, auto_pad, output_padding)  # fmt: skip
    model = model_of(node)
    expected = run_openvino(model, {"x": x})[0]
    got = run_irrun(model, {"x": x})[0]
    assert got.dtype == dtype and got.shape == expected.shape
    depth = filters[1 if grouped else 0] * np.prod(filters[3 if grouped else 2 :])
    return got, expected, np.sqrt(depth) * np.abs(x).max() * np.abs(w).max()


@pytest.mark.parametrize("case", CASES)
def test_convolution_backprop_data_matches_cpu_plugin(case):
    got, expected, scale = _run_both(False, case)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5 * scale)


@pytest.mark.parametrize("case", GROUP_CASES)
def test_group_convolution_backprop_data_matches_cpu_plugin(case):
    got, expected, scale = _run_both(True, case)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5 * scale)


def test_f16_matches_cpu_plugin():
    got, expected, scale = _run_both(False, CASES[0], "f16")
    np.testing.assert_allclose(got.astype(np.float32), expected.astype(np.float32), rtol=1e-3,
                               atol=1e-3 * scale)  # fmt: skip


def test_integer_kernel_is_exact():
    rng = np.random.default_rng(1)
    x = rng.integers(-5, 6, (2, 3, 4, 5)).astype(np.int32)
    w = rng.integers(-5, 6, (1, 3, 2, 3, 2)).astype(np.int32)
    got = transposed_convolve(x, w, 1, [0, 0], [9, 11], [2, 2], [1, 2])
    expected = np.zeros((2, 2, 9, 11), np.int64)
    for i in range(4):
        for j in range(5):
            for ki in range(3):
                for kj in range(2):
                    contribution = x[:, :, i, j] @ w[0, :, :, ki, kj]
                    expected[:, :, 2 * i + ki, 2 * j + 2 * kj] += contribution
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, expected)


def test_kernel_is_vectorised():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((1, 64, 64, 64)).astype(np.float32)
    w = rng.standard_normal((1, 64, 32, 4, 4)).astype(np.float32)
    start = time.perf_counter()
    out = transposed_convolve(x, w, 1, [1, 1], [128, 128], [2, 2], [1, 1])
    assert out.shape == (1, 32, 128, 128)
    assert time.perf_counter() - start < 2.0


# -- reported errors ------------------------------------------------------------------------------


def _net(op_type, data_shape, filters, attributes, output_shape=None, out=(1,)):
    net = Net()
    inputs = [net.param("x", data_shape), net.const("w", np.ones(filters, np.float32))]
    if output_shape is not None:
        inputs.append(net.const("s", np.array(output_shape, np.int64)))
    net.result(net.op("d", op_type, "opset1", attributes, inputs, list(out)))
    return net


ATTRS = {"strides": "2,2", "pads_begin": "0,0", "pads_end": "0,0", "dilations": "1,1"}


def test_channel_mismatch_is_reported():
    check_rejected(
        lambda: ops.convolution_backprop_data(
            parameter([1, 5, 5, 5]), constant(np.ones((3, 4, 3, 3))), [2, 2]
        )
    )
    net = _net("ConvolutionBackpropData", "1,5,5,5", (3, 4, 3, 3), ATTRS)
    error = diagnostic(validated(net), "input-dims")
    assert "the data [1,5,5,5] has 5 input channels (dimension 1), but the filters [3,4,3,3] " \
           "expect 3" in error.message  # fmt: skip


def test_group_channel_mismatch_is_reported():
    check_rejected(
        lambda: ops.group_convolution_backprop_data(
            parameter([1, 7, 5, 5]), constant(np.ones((2, 3, 4, 3, 3))), [2, 2]
        )
    )
    net = _net("GroupConvolutionBackpropData", "1,7,5,5", (2, 3, 4, 3, 3), ATTRS)
    error = diagnostic(validated(net), "input-dims")
    assert "has 7 input channels, which is not G x C_in/G = 2 x 3" in error.message


def test_output_padding_of_wrong_length_is_reported():
    check_rejected(
        lambda: ops.convolution_backprop_data(
            parameter([1, 3, 5, 5]), constant(np.ones((3, 4, 3, 3))), [2, 2], output_padding=[1]
        )
    )
    net = _net("ConvolutionBackpropData", "1,3,5,5", (3, 4, 3, 3), {**ATTRS, "output_padding": "1"})
    error = diagnostic(validated(net), "attribute-value")
    assert "output_padding has 1 value(s) (1), but the data has 2 spatial" in error.message
    assert error.line == line_of(net.text(), "<data", within="d")


def test_negative_output_shape_is_reported():
    check_rejected(lambda: ops.convolution_backprop_data(
        parameter([1, 3, 5, 5]), constant(np.ones((3, 4, 3, 3))), [2, 2],
        constant(np.array([-1, 7]))))  # fmt: skip
    net = _net("ConvolutionBackpropData", "1,3,5,5", (3, 4, 3, 3), ATTRS, [-1, 7])
    error = diagnostic(validated(net), "input-value")
    assert "output_shape (input 2) [-1, 7] has a negative value (-1)" in error.message


def test_output_shape_of_wrong_length_is_reported():
    check_rejected(lambda: ops.convolution_backprop_data(
        parameter([1, 3, 5, 5]), constant(np.ones((3, 4, 3, 3))), [2, 2],
        constant(np.array([7, 7, 7]))))  # fmt: skip
    net = _net("ConvolutionBackpropData", "1,3,5,5", (3, 4, 3, 3), ATTRS, [7, 7, 7])
    error = diagnostic(validated(net), "input-dims")
    assert "output_shape (input 2) has 3 element(s), but the data has 2 spatial" in error.message


def test_data_of_rank_6_is_reported():
    check_rejected(
        lambda: ops.convolution_backprop_data(
            parameter([1, 3, 5, 5, 5, 5]), parameter([3, 4, 3, 3, 3, 3]), [2, 2, 2, 2]
        )
    )
    attrs = {"strides": "2,2,2,2", "pads_begin": "0,0,0,0", "pads_end": "0,0,0,0",
             "dilations": "1,1,1,1"}  # fmt: skip
    net = _net("ConvolutionBackpropData", "1,3,5,5,5,5", (3, 4, 3, 3, 3, 3), attrs)
    error = diagnostic(validated(net), "input-rank")
    assert "data must be 3-D, 4-D or 5-D" in error.message


def test_output_shape_given_at_run_time_matches_cpu_plugin_with_it_constant():
    # the CPU plugin cannot compile an output_shape computed at run time ("Destination memory
    # is undefined"): irrun's run-time result is compared with the plugin's for the same
    # output_shape as a constant
    rng = np.random.default_rng(5)
    x = rng.standard_normal((1, 4, 5, 6)).astype(np.float32)
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    args = ([2, 2],)
    node = ops.convolution_backprop_data(parameter(x.shape, name="x"), constant(w), *args,
                                         parameter([2], "i64", name="s"), [0, 0], [0, 0], [1, 1],
                                         "same_upper")  # fmt: skip
    for sizes in ([10, 12], [9, 11]):
        fixed = ops.convolution_backprop_data(parameter(x.shape, name="x"), constant(w), *args,
                                              constant(np.array(sizes, np.int64)), [0, 0],
                                              [0, 0], [1, 1], "same_upper")  # fmt: skip
        expected = run_openvino(model_of(fixed), {"x": x})[0]
        got = run_irrun(model_of(node), {"x": x, "s": np.array(sizes, np.int64)})[0]
        assert got.shape == expected.shape
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-4)


def test_wrong_output_shape_at_run_time_is_an_execution_error():
    import irrun.errors

    node = ops.convolution_backprop_data(parameter([1, 4, 5, 6], name="x"),
                                         constant(np.ones((4, 3, 3, 3), np.float32)), [2, 2],
                                         parameter("[?]", "i64", name="s"))  # fmt: skip
    feed = {"x": np.zeros((1, 4, 5, 6), np.float32), "s": np.array([10, 12, 3], np.int64)}
    with pytest.raises(irrun.errors.ExecutionError) as caught:
        run_irrun(model_of(node), feed)
    # (the shape rule, run on the run's inputs, says what is wrong)
    assert caught.value.message.endswith(
        "(ConvolutionBackpropData-1): output_shape (input 2) "
        "has 3 element(s), but the data has 2 spatial dimension(s) (in this run: input shapes "
        "[1, 4, 5, 6], [4, 3, 3, 3], [3]; the model's dynamic dims allow them, this layer does "
        "not: feed other input shapes, e.g. with --shape NAME=DIMS)"
    )


def test_negative_pads_extend_with_zeros():
    # The CPU plugin cannot compile negative pads ("could not create a primitive descriptor")
    # and OpenVINO's core has no evaluator for this op: compare with the plugin's result
    # without pads, extended by zeros as the negative pads ask.
    rng = np.random.default_rng(6)
    x = rng.standard_normal((1, 3, 5, 6)).astype(np.float32)
    w = rng.standard_normal((3, 2, 3, 3)).astype(np.float32)
    plain = ops.convolution_backprop_data(parameter(x.shape, name="x"), constant(w), [2, 2],
                                          None, [0, 0], [0, 0])  # fmt: skip
    expected = np.pad(run_openvino(model_of(plain), {"x": x})[0], [(0, 0), (0, 0), (1, 0), (0, 2)])
    negative = ops.convolution_backprop_data(parameter(x.shape, name="x"), constant(w), [2, 2],
                                             None, [-1, 0], [0, -2])  # fmt: skip
    check_shapes(negative)
    got = run_irrun(model_of(negative), {"x": x})[0]
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-4)
