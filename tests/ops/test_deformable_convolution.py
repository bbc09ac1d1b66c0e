"""DeformableConvolution-1 and -8: shapes against OpenVINO, kernels against its CPU plugin,
reported errors."""

from __future__ import annotations

import time

import numpy as np
import openvino.opset1 as opset1
import openvino.opset8 as opset8
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irrun.ops.deformable_convolution import deformable_convolve
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
from tests.helpers.strategies import built, diagnostic, op_settings, shape_around, validated

AUTO_PADS = ["explicit", "explicit", "valid", "same_upper", "same_lower"]


@st.composite
def deformable_case(draw):
    kernel = [draw(st.integers(1, 3)) for _ in range(2)]
    sizes = [draw(st.integers(3, 7)) for _ in range(2)]
    strides = [draw(st.integers(1, 2)) for _ in range(2)]
    dilations = [draw(st.integers(1, 2)) for _ in range(2)]
    pads_begin = [draw(st.integers(0, 2)) for _ in range(2)]
    pads_end = [draw(st.integers(0, 2)) for _ in range(2)]
    auto_pad = draw(st.sampled_from(AUTO_PADS))
    group, deformable_group = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    per_group, out_per_group = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    channels = group * per_group * deformable_group
    out = []
    for size, k, s, d, b, e in zip(sizes, kernel, strides, dilations, pads_begin, pads_end):
        if auto_pad in ("same_upper", "same_lower"):
            out.append(-(-size // s))
        else:
            pads = 0 if auto_pad == "valid" else b + e
            out.append(max(1, (size + pads - (k - 1) * d - 1) // s + 1))
    taps = kernel[0] * kernel[1]
    data = draw(shape_around([2, channels, *sizes]))
    offsets = draw(shape_around([2, taps * 2 * deformable_group, *out]))
    filters = draw(shape_around([group * out_per_group, channels // group, *kernel]))
    mask = draw(st.none() | shape_around([2, taps * deformable_group, *out]))
    pad = draw(st.booleans())
    return (data, offsets, filters, mask, strides, pads_begin, pads_end, dilations, auto_pad,
            group, deformable_group, pad)  # fmt: skip


@op_settings(40)
@given(deformable_case(), st.sampled_from([1, 8]))
def test_shapes_match_openvino(case, version):
    (data, offsets, filters, mask, strides, pads_begin, pads_end, dilations, auto_pad, group,
     deformable_group, pad) = case  # fmt: skip
    x, o, w = (parameter(s, name=n) for s, n in ((data, "x"), (offsets, "o"), (filters, "w")))
    common = (strides, pads_begin, pads_end, dilations)
    if version == 1:
        node = built(lambda: opset1.deformable_convolution(
            x, o, w, *common, auto_pad, group, deformable_group))  # fmt: skip
    else:
        m = None if mask is None else parameter(mask, name="m")
        node = built(lambda: opset8.deformable_convolution(
            x, o, w, *common, m, auto_pad, group, deformable_group, pad))  # fmt: skip
    check_shapes(node)


@pytest.mark.parametrize("data, offsets, filters", [
    ("[...]", "[...]", "[...]"), ("[...]", "[?,?,?,?]", "[...]"), ("[?,4,5,5]", "[1..3,18,3,3]",
    "[2,4,3,3]"), ("[1,4,?,?]", "[...]", "[2,4,3,3]")])  # fmt: skip
def test_unknown_ranks_match_openvino(data, offsets, filters):
    node = opset8.deformable_convolution(parameter(data, name="x"), parameter(offsets, name="o"),
                                         parameter(filters, name="w"), [1, 1], [0, 0], [0, 0],
                                         [1, 1])  # fmt: skip
    check_shapes(node)


# -- kernels --------------------------------------------------------------------------------------

CASES = [
    # data, filters, strides, pads_begin, pads_end, dilations, group, deformable_group
    ([1, 4, 7, 8], [6, 4, 3, 3], [1, 1], [1, 1], [1, 1], [1, 1], 1, 1),
    ([2, 4, 9, 7], [4, 2, 3, 3], [2, 2], [1, 0], [0, 1], [1, 1], 2, 1),
    ([1, 6, 8, 8], [4, 3, 3, 2], [1, 2], [2, 1], [2, 1], [2, 1], 2, 3),
    ([1, 4, 6, 6], [2, 4, 1, 1], [1, 1], [0, 0], [0, 0], [1, 1], 1, 2),
    ([1, 2, 5, 9], [3, 2, 2, 3], [1, 1], [0, 0], [0, 0], [1, 2], 1, 1),
]


def _run_both(case, version, with_mask, pad, scale=2.0):
    data, filters, strides, pads_begin, pads_end, dilations, group, deformable_group = case
    rng = np.random.default_rng(sum(data) + version)
    x = rng.standard_normal(data).astype(np.float32)
    w = rng.standard_normal(filters).astype(np.float32)
    out = [(d + b + e - (k - 1) * dl - 1) // s + 1 for d, b, e, k, dl, s in
           zip(data[2:], pads_begin, pads_end, filters[2:], dilations, strides)]  # fmt: skip
    taps = filters[2] * filters[3]
    # offsets spread the samples inside, across and outside the borders
    off = rng.standard_normal((data[0], taps * 2 * deformable_group, *out)) * scale
    off = off.astype(np.float32)
    inputs = [parameter(data, name="x"), parameter(off.shape, name="o"), constant(w)]
    common = (strides, pads_begin, pads_end, dilations)
    feed = {"x": x, "o": off}
    if version == 1:
        node = opset1.deformable_convolution(*inputs, *common, "explicit", group,
                                             deformable_group)  # fmt: skip
    else:
        mask = None
        if with_mask:
            m = rng.uniform(0, 1, (data[0], taps * deformable_group, *out)).astype(np.float32)
            mask, feed["m"] = parameter(m.shape, name="m"), m
        node = opset8.deformable_convolution(*inputs, *common, mask, "explicit", group,
                                             deformable_group, pad)  # fmt: skip
    model = model_of(node)
    expected = run_openvino(model, feed)[0]
    got = run_irrun(model, feed)[0]
    assert got.dtype == np.float32 and got.shape == expected.shape
    depth = filters[1] * taps
    return got, expected, np.sqrt(depth) * np.abs(x).max() * np.abs(w).max()


@pytest.mark.parametrize("case", CASES)
def test_version_1_matches_cpu_plugin(case):
    got, expected, scale = _run_both(case, 1, False, False)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5 * scale)


@pytest.mark.parametrize("pad", [False, True])
@pytest.mark.parametrize("with_mask", [False, True])
@pytest.mark.parametrize("case", CASES)
def test_version_8_matches_cpu_plugin(case, with_mask, pad):
    got, expected, scale = _run_both(case, 8, with_mask, pad)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5 * scale)


def test_integer_offsets_equal_a_plain_convolution():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((1, 3, 6, 7)).astype(np.float32)
    w = rng.standard_normal((2, 3, 3, 3)).astype(np.float32)
    offsets = np.zeros((1, 18, 4, 5), np.float32)
    got = deformable_convolve(x, offsets, w, None, [0, 0], [1, 1], [1, 1], 1, 1, False, [4, 5])
    expected = np.zeros((1, 2, 4, 5))
    for i in range(4):
        for j in range(5):
            expected[0, :, i, j] = np.tensordot(w, x[0, :, i : i + 3, j : j + 3], 3)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


def test_kernel_is_vectorised():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((1, 64, 56, 56)).astype(np.float32)
    w = rng.standard_normal((64, 64, 3, 3)).astype(np.float32)
    offsets = rng.standard_normal((1, 18, 56, 56)).astype(np.float32)
    start = time.perf_counter()
    out = deformable_convolve(x, offsets, w, None, [1, 1], [1, 1], [1, 1], 1, 1, False, [56, 56])
    assert out.shape == (1, 64, 56, 56)
    assert time.perf_counter() - start < 3.0


# -- reported errors ------------------------------------------------------------------------------

ATTRS = {"strides": "1,1", "pads_begin": "0,0", "pads_end": "0,0", "dilations": "1,1"}


def _net(data, offsets, filters, attributes, version="opset8"):
    net = Net()
    inputs = [net.param("x", data), net.param("o", offsets),
              net.const("w", np.ones(filters, np.float32))]  # fmt: skip
    net.result(net.op("d", "DeformableConvolution", version, attributes, inputs, [1]))
    return net


def test_offsets_channels_are_checked():
    check_rejected(lambda: opset8.deformable_convolution(
        parameter([1, 4, 5, 5]), parameter([1, 16, 3, 3]), parameter([2, 4, 3, 3]),
        [1, 1], [0, 0], [0, 0], [1, 1]))  # fmt: skip
    net = _net("1,4,5,5", "1,16,3,3", (2, 4, 3, 3), ATTRS)
    error = diagnostic(validated(net), "input-dims")
    assert "the offsets [1,16,3,3] have 16 channels, but filters [2,4,3,3] with " \
           "deformable_group 1 need KH * KW * 2 * DG = 18" in error.message  # fmt: skip


def test_offsets_spatial_dims_are_checked():
    check_rejected(lambda: opset8.deformable_convolution(
        parameter([1, 4, 5, 5]), parameter([1, 18, 3, 4]), parameter([2, 4, 3, 3]),
        [1, 1], [0, 0], [0, 0], [1, 1]))  # fmt: skip
    net = _net("1,4,5,5", "1,18,3,4", (2, 4, 3, 3), ATTRS)
    error = diagnostic(validated(net), "input-dims")
    assert (
        "the offsets [1,18,3,4] have spatial dims [3,4], but the output's are [3,3]"
        in error.message
    )


def test_group_must_divide_the_channels():
    check_rejected(lambda: opset1.deformable_convolution(
        parameter([1, 5, 5, 5]), parameter([1, 18, 3, 3]), parameter([2, 2, 3, 3]),
        [1, 1], [0, 0], [0, 0], [1, 1], group=2))  # fmt: skip
    net = _net("1,5,5,5", "1,18,3,3", (2, 2, 3, 3), {**ATTRS, "group": "2"}, "opset1")
    error = diagnostic(validated(net), "input-dims")
    assert "the data's channels 5 are not divisible by group 2" in error.message


def test_zero_group_is_reported():
    check_rejected(lambda: opset8.deformable_convolution(
        parameter([1, 4, 5, 5]), parameter([1, 18, 3, 3]), parameter([2, 4, 3, 3]),
        [1, 1], [0, 0], [0, 0], [1, 1], group=0))  # fmt: skip
    net = _net("1,4,5,5", "1,18,3,3", (2, 4, 3, 3), {**ATTRS, "group": "0"})
    error = diagnostic(validated(net), "attribute-value")
    assert "group 0 must be at least 1" in error.message
    assert error.line == line_of(net.text(), "<data", within="d")


def test_rank_5_data_is_reported():
    check_rejected(lambda: opset1.deformable_convolution(
        parameter([1, 4, 5, 5, 5]), parameter([1, 36, 3, 3]), parameter([2, 2, 3, 3]),
        [1, 1], [0, 0], [0, 0], [1, 1]))  # fmt: skip
    net = _net("1,4,5,5,5", "1,18,3,3", (2, 4, 3, 3), ATTRS)
    error = diagnostic(validated(net), "input-rank")
    assert "data must be of rank 4, but it is [1,4,5,5,5]" in error.message


def test_bilinear_interpolation_pad_is_not_in_version_1():
    net = _net("1,4,5,5", "1,18,3,3", (2, 4, 3, 3),
               {**ATTRS, "bilinear_interpolation_pad": "true"}, "opset1")  # fmt: skip
    warning = diagnostic(validated(net), "unknown-attribute")
    assert "bilinear_interpolation_pad exists only in DeformableConvolution-8" in warning.message


def test_offsets_of_the_wrong_shape_at_run_time_are_an_execution_error():
    import irrun.errors

    node = opset8.deformable_convolution(parameter("[1,4,?,?]", name="x"),
                                         parameter("[1,18,?,?]", name="o"),
                                         constant(np.ones((2, 4, 3, 3), np.float32)), [1, 1],
                                         [0, 0], [0, 0], [1, 1])  # fmt: skip
    feed = {"x": np.zeros((1, 4, 5, 5), np.float32), "o": np.zeros((1, 18, 4, 4), np.float32)}
    with pytest.raises(irrun.errors.ExecutionError) as caught:
        run_irrun(model_of(node), feed)
    # (the shape rule, run on the shapes of the run, says what is wrong)
    assert caught.value.message.endswith(
        "(DeformableConvolution-8): the offsets [1,18,4,4] have spatial dims [4,4], but the "
        "output's are [3,3] (in this run: input shapes [1, 4, 5, 5], [1, 18, 4, 4], [2, 4, 3, 3]; "
        "the model's dynamic dims allow them, this layer does not: feed other input shapes, e.g. "
        "with --shape NAME=DIMS)"
    )
