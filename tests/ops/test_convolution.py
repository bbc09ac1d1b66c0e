"""Convolution-1 and GroupConvolution-1: shapes against OpenVINO, kernels against its CPU
plugin, reported errors."""

from __future__ import annotations

import re

import numpy as np
import openvino.opset1 as ops
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import irrun
import irrun.errors
from irrun.ops import _conv_kernel
from tests.helpers.conv_strategies import convolution_geometry
from tests.helpers.openvino_oracle import (
    check_rejected,
    check_shapes,
    constant,
    model_of,
    parameter,
    run_irrun,
    run_openvino,
)
from tests.helpers.strategies import (
    diagnostic,
    edited_report,
    first_line_with,
    op_settings,
)


def conv_case(grouped):
    """A Convolution (``grouped``: GroupConvolution) case; pads from -2 one time in three."""
    pads = st.sampled_from([0, 0, -2]).map(lambda low: (low, 2))
    return convolution_geometry(grouped, transposed=False, max_size=7, pads=pads)


def _build(grouped, case, etype="f32"):
    data, filters, strides, pads_begin, pads_end, dilations, auto_pad = case
    x = parameter(data, etype, name="x")
    if isinstance(filters, list):
        w = constant(np.ones(filters), etype)
    else:
        w = parameter(filters, etype, name="w")
    op = ops.group_convolution if grouped else ops.convolution
    return op(x, w, strides, pads_begin, pads_end, dilations, auto_pad)


@op_settings(40)
@given(conv_case(grouped=False))
def test_convolution_shapes_match_openvino(case):
    try:
        node = _build(False, case)
    except Exception:
        assume(False)
    check_shapes(node)


@op_settings(40)
@given(conv_case(grouped=True))
def test_group_convolution_shapes_match_openvino(case):
    try:
        node = _build(True, case)
    except Exception:
        assume(False)
    check_shapes(node)


@pytest.mark.parametrize(
    "data, filters",
    [
        ("[1,2..,5,5]", "[?,3,2,3,3]"),
        ("[1,3..9,5,5]", "[?,3,2,3,3]"),
        ("[1,?,5,5]", "[2..5,3,2,3,3]"),
        ("[1,6,5,5]", "[2..5,3..4,2,3,3]"),
        ("[...]", "[2,3,2,3,3]"),
        ("[1,6,5,5]", "[...]"),
        ("[1,2..,5,5]", "[?,1,2,3,3]"),
    ],
)
def test_group_convolution_channel_intervals_match_openvino(data, filters):
    node = ops.group_convolution(
        parameter(data, name="x"), parameter(filters, name="w"), [1, 1], [0, 0], [0, 0], [1, 1]
    )
    check_shapes(node)


def test_convolution_of_unknown_ranks_takes_the_rank_from_the_attributes():
    x, w = parameter("[...]", name="x"), parameter("[...]", name="w")
    check_shapes(ops.convolution(x, w, [1, 2], [0, 0], [0, 0], [1, 1]))


CASES = [
    # data shape, filter shape, strides, pads_begin, pads_end, dilations, auto_pad
    ([1, 8, 12, 12], [16, 8, 3, 3], [1, 1], [1, 1], [1, 1], [1, 1], "explicit"),
    ([2, 8, 9, 9], [4, 8, 1, 1], [1, 1], [0, 0], [0, 0], [1, 1], "explicit"),
    ([1, 3, 23, 23], [8, 3, 7, 7], [2, 2], [3, 3], [3, 3], [1, 1], "explicit"),
    ([1, 4, 10, 11], [5, 4, 3, 2], [2, 3], [0, 1], [2, 0], [2, 1], "explicit"),
    ([1, 4, 10, 11], [5, 4, 3, 3], [2, 2], [0, 0], [0, 0], [1, 1], "same_upper"),
    ([1, 4, 10, 11], [5, 4, 4, 3], [3, 2], [0, 0], [0, 0], [1, 2], "same_lower"),
    ([1, 4, 10, 11], [5, 4, 3, 3], [1, 1], [5, 5], [5, 5], [1, 1], "valid"),
    ([2, 3, 17], [4, 3, 5], [2], [2], [1], [1], "explicit"),
    ([1, 2, 6, 7, 5], [3, 2, 3, 2, 3], [1, 2, 1], [1, 0, 1], [1, 1, 0], [1, 1, 2], "explicit"),
]
GROUP_CASES = [
    ([1, 16, 14, 14], [16, 1, 1, 3, 3], [1, 1], [1, 1], [1, 1], [1, 1], "explicit"),
    ([1, 16, 14, 14], [16, 1, 1, 3, 3], [2, 2], [0, 0], [0, 0], [1, 1], "same_upper"),
    ([2, 12, 9, 9], [3, 2, 4, 3, 3], [1, 1], [1, 1], [1, 1], [2, 2], "explicit"),
    ([1, 6, 11], [2, 5, 3, 3], [2], [1], [0], [1], "explicit"),
    ([1, 4, 5, 6, 7], [2, 3, 2, 2, 3, 2], [1, 1, 2], [0, 1, 0], [1, 0, 0], [1, 1, 1], "valid"),
]


def _run_both(grouped, case, etype="f32", seed=0):
    data_shape, filter_shape, strides, pads_begin, pads_end, dilations, auto_pad = case
    dtype = {"f32": np.float32, "f16": np.float16}[etype]
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(data_shape).astype(dtype)
    w = rng.standard_normal(filter_shape).astype(dtype)
    op = ops.group_convolution if grouped else ops.convolution
    node = op(
        parameter(data_shape, etype, name="x"),
        constant(w, etype),
        strides,
        pads_begin,
        pads_end,
        dilations,
        auto_pad,
    )
    model = model_of(node)
    expected = run_openvino(model, {"x": x})[0]
    got = run_irrun(model, {"x": x})[0]
    assert got.dtype == dtype and got.shape == expected.shape
    depth = np.prod(filter_shape[2 if not grouped else 3 :]) * filter_shape[1 if not grouped else 2]
    return got, expected, np.sqrt(depth) * np.abs(x).max() * np.abs(w).max()


@pytest.mark.parametrize("case", CASES)
def test_convolution_f32_matches_cpu_plugin(case):
    got, expected, scale = _run_both(False, case)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5 * scale)


@pytest.mark.parametrize("case", GROUP_CASES)
def test_group_convolution_f32_matches_cpu_plugin(case):
    got, expected, scale = _run_both(True, case)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5 * scale)


# Depthwise and small groups (the tap-column kernel): strides 1 and 2, dilations, every
# padding mode, channel multipliers, 1-D and 3-D.
TAP_CASES = [
    ([1, 24, 15, 14], [24, 1, 1, 3, 3], [1, 1], [1, 1], [1, 1], [1, 1], "explicit"),
    ([1, 24, 15, 14], [24, 1, 1, 3, 3], [2, 2], [1, 1], [1, 1], [1, 1], "explicit"),
    ([2, 16, 13, 16], [16, 1, 1, 3, 3], [2, 2], [0, 0], [0, 0], [1, 1], "same_upper"),
    ([1, 16, 13, 16], [16, 1, 1, 5, 5], [2, 1], [0, 0], [0, 0], [1, 1], "same_lower"),
    ([1, 16, 12, 12], [16, 1, 1, 3, 3], [1, 1], [2, 2], [2, 2], [2, 2], "explicit"),
    ([1, 16, 17, 12], [16, 1, 1, 3, 3], [2, 2], [0, 1], [2, 0], [2, 3], "explicit"),
    ([1, 16, 11, 12], [16, 1, 1, 3, 2], [1, 2], [3, 3], [3, 3], [1, 1], "valid"),
    ([1, 8, 10, 10], [8, 3, 1, 3, 3], [1, 1], [1, 1], [1, 1], [1, 1], "explicit"),
    ([1, 32, 9, 9], [8, 4, 4, 3, 3], [2, 2], [1, 1], [1, 1], [1, 1], "explicit"),
    ([1, 6, 19], [6, 1, 1, 5], [3], [2], [1], [2], "explicit"),
    ([1, 4, 6, 7, 5], [4, 1, 1, 3, 2, 3], [2, 1, 2], [1, 0, 1], [1, 1, 0], [1, 2, 1], "explicit"),
]


@pytest.mark.parametrize("case", TAP_CASES)
def test_depthwise_f32_matches_cpu_plugin(case):
    groups, per_group, out_per_group, *kernel = case[1]
    assert _conv_kernel.choose_method(groups, per_group, out_per_group, kernel) == "taps"
    got, expected, scale = _run_both(True, case)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5 * scale)


@pytest.mark.parametrize("case", [TAP_CASES[0], TAP_CASES[2], TAP_CASES[5], TAP_CASES[8]])
def test_depthwise_f16_matches_cpu_plugin(case):
    got, expected, scale = _run_both(True, case, "f16")
    np.testing.assert_allclose(
        got.astype(np.float32), expected.astype(np.float32), rtol=1e-3, atol=1e-3 * scale
    )


def test_pointwise_matches_cpu_plugin():
    case = ([2, 16, 9, 10], [12, 16, 1, 1], [2, 3], [1, 0], [0, 2], [3, 1], "explicit")
    assert _conv_kernel.choose_method(1, 16, 12, [1, 1]) == "pointwise"
    got, expected, scale = _run_both(False, case)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5 * scale)


def _kernel_case(seed, dtype=np.float32):
    rng = np.random.default_rng(seed)
    spatial = int(rng.integers(1, 4))
    groups, per_group, out_per_group, batch = (int(rng.integers(1, 4)) for _ in range(4))
    kernel = [int(rng.integers(1, 4)) for _ in range(spatial)]
    strides = [int(rng.integers(1, 4)) for _ in range(spatial)]
    dilations = [int(rng.integers(1, 3)) for _ in range(spatial)]
    begin = [int(rng.integers(-1, 3)) for _ in range(spatial)]
    end = [int(rng.integers(0, 3)) - min(b, 0) for b in begin]  # totals never negative
    sizes = [
        int(rng.integers(max(1, (k - 1) * d + 1 - b - e), 9))
        for k, d, b, e in zip(kernel, dilations, begin, end)
    ]
    x = (rng.standard_normal((batch, groups * per_group, *sizes)) * 4).astype(dtype)
    w = (rng.standard_normal((groups, out_per_group, per_group, *kernel)) * 3).astype(dtype)
    return x, w, groups, begin, end, strides, dilations


@pytest.mark.parametrize("seed", range(60))
def test_tap_and_pointwise_kernels_match_the_gemm(seed):
    x, w, *rest = _kernel_case(seed)
    gemm = _conv_kernel.convolve(x, w, *rest, method="gemm")
    for method in ("taps", "pointwise"):  # pointwise falls back to the GEMM unless 1x1
        got = _conv_kernel.convolve(x, w, *rest, method=method)
        assert got.dtype == gemm.dtype and got.flags.c_contiguous
        np.testing.assert_allclose(got, gemm, rtol=1e-5, atol=1e-4 * np.abs(gemm).max())
    xi, wi = np.rint(x).astype(np.int32), np.rint(w).astype(np.int32)
    exact = _conv_kernel.convolve(xi, wi, *rest, method="gemm")
    np.testing.assert_array_equal(_conv_kernel.convolve(xi, wi, *rest, method="taps"), exact)
    np.testing.assert_array_equal(_conv_kernel.convolve(xi, wi, *rest, method="pointwise"), exact)


def test_tap_blocks_give_the_same_result(monkeypatch):
    x, w, *rest = _kernel_case(7)
    x = np.concatenate([x] * 3)  # several rows (batch x groups)
    whole = _conv_kernel.convolve(x, w, *rest, method="taps")
    monkeypatch.setattr(_conv_kernel, "TAP_BLOCK_BYTES", 1)  # one row per block
    np.testing.assert_array_equal(_conv_kernel.convolve(x, w, *rest, method="taps"), whole)


def test_kernel_choice():
    choose = _conv_kernel.choose_method
    assert choose(144, 1, 1, [3, 3]) == "taps"  # depthwise
    assert choose(32, 4, 4, [3, 3]) == "taps"
    assert choose(2, 32, 32, [3, 3]) == "gemm"
    assert choose(1, 3, 8, [3, 3]) == "gemm"  # ungrouped
    assert choose(1, 256, 64, [1, 1]) == "pointwise"


def test_convolution_negative_pads_crop():
    # The CPU plugin cannot compile negative pads ("could not construct a memory descriptor"):
    # compare with OpenVINO convolving the cropped data without pads.
    rng = np.random.default_rng(5)
    x = rng.standard_normal((1, 3, 8, 9)).astype(np.float32)
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    cropped = np.pad(x[:, :, 1:, 2:], [(0, 0), (0, 0), (0, 2), (0, 2)])
    plain = ops.convolution(
        parameter(cropped.shape, name="x"), constant(w), [1, 2], [0, 0], [0, 0], [1, 1]
    )
    expected = run_openvino(model_of(plain), {"x": cropped})[0]
    negative = ops.convolution(
        parameter(x.shape, name="x"), constant(w), [1, 2], [-1, -2], [2, 2], [1, 1]
    )
    got = run_irrun(model_of(negative), {"x": x})[0]
    scale = np.sqrt(27) * np.abs(x).max() * np.abs(w).max()
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5 * scale)


def test_convolution_negative_pad_total_is_not_run():
    node = ops.convolution(
        parameter([1, 3, 8, 9], name="x"),
        constant(np.ones((4, 3, 3, 3), np.float32)),
        [1, 1],
        [-1, 0],
        [0, -1],
        [1, 1],
    )
    assert str(node.get_output_partial_shape(0)) == "[1,4,6..,7..]"  # OpenVINO's own rule
    check_shapes(node)
    with pytest.raises(irrun.errors.ExecutionError, match="pads_begin -1 \\+ pads_end 0 < 0"):
        run_irrun(model_of(node), {"x": np.zeros((1, 3, 8, 9), np.float32)})


def test_convolution_f16_matches_cpu_plugin():
    # f16 in, f16 out: both compute in f32 and round once; a last-bit difference is allowed
    got, expected, scale = _run_both(False, CASES[0], "f16")
    np.testing.assert_allclose(
        got.astype(np.float32), expected.astype(np.float32), rtol=1e-3, atol=1e-3 * scale
    )


def test_convolution_tiles_give_the_same_result(monkeypatch):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 13, 9)).astype(np.float32)
    w = rng.standard_normal((1, 4, 3, 3, 2)).astype(np.float32)
    whole = _conv_kernel.convolve(x, w, 1, [1, 0], [0, 1], [2, 1], [1, 2])
    monkeypatch.setattr(_conv_kernel, "TILE_BYTES", 1)  # one output row per tile
    tiled = _conv_kernel.convolve(x, w, 1, [1, 0], [0, 1], [2, 1], [1, 2])
    np.testing.assert_array_equal(whole, tiled)


def test_convolution_integer_kernel_is_exact():
    x = np.arange(2 * 3 * 4 * 4, dtype=np.int32).reshape(2, 3, 4, 4) - 40
    w = (np.arange(5 * 3 * 2 * 2, dtype=np.int32).reshape(5, 3, 2, 2) % 7) - 3
    got = _conv_kernel.convolve(x, w[None], 1, [0, 0], [0, 0], [1, 1], [1, 1])
    expected = np.zeros((2, 5, 3, 3), np.int64)
    for i in range(3):
        for j in range(3):
            patch = x[:, None, :, i : i + 2, j : j + 2].astype(np.int64)
            expected[:, :, i, j] = (patch * w[None]).sum(axis=(2, 3, 4))
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, expected)


def test_convolution_channel_mismatch_is_reported():
    check_rejected(
        lambda: ops.convolution(
            parameter([1, 3, 5, 5]), constant(np.ones((2, 4, 3, 3))), [1, 1], [0, 0], [0, 0], [1, 1]
        )
    )
    model = model_of(
        ops.convolution(
            parameter([1, 4, 5, 5], name="x"),
            parameter([2, 4, 3, 3], name="w"),
            [1, 1],
            [0, 0],
            [0, 0],
            [1, 1],
        )
    )

    def edit(text):  # data declared with 3 channels
        text = text.replace('shape="1,4,5,5"', 'shape="1,3,5,5"')
        return re.sub(
            r"<dim>1</dim>\s*<dim>4</dim>\s*<dim>5</dim>",
            "<dim>1</dim><dim>3</dim><dim>5</dim>",
            text,
        )

    report, _ = edited_report(model, edit)
    error = diagnostic(report, "input-dims")
    assert "the data [1,3,5,5] has 3 input channels" in error.message
    assert "the filters [2,4,3,3] expect 4" in error.message


def test_group_convolution_channel_mismatch_is_reported():
    check_rejected(
        lambda: ops.group_convolution(
            parameter([1, 7, 5, 5]),
            constant(np.ones((2, 3, 3, 3, 3))),
            [1, 1],
            [0, 0],
            [0, 0],
            [1, 1],
        )
    )
    model = model_of(
        ops.group_convolution(
            parameter([1, 6, 5, 5], name="x"),
            parameter([2, 3, 3, 3, 3], name="w"),
            [1, 1],
            [0, 0],
            [0, 0],
            [1, 1],
        )
    )

    def edit(text):
        text = text.replace('shape="1,6,5,5"', 'shape="1,7,5,5"')
        return re.sub(r"<dim>1</dim>\s*<dim>6</dim>", "<dim>1</dim><dim>7</dim>", text)

    report, _ = edited_report(model, edit)
    error = diagnostic(report, "input-dims")
    assert "has 7 input channels, which is not G x C_in/G = 2 x 3" in error.message


def test_convolution_kernel_larger_than_padded_data_is_reported():
    check_rejected(
        lambda: ops.convolution(
            parameter([1, 1, 2, 5]), constant(np.ones((1, 1, 3, 3))), [1, 1], [0, 0], [0, 0], [1, 1]
        )
    )
    model = model_of(
        ops.convolution(
            parameter([1, 1, 5, 5], name="x"),
            parameter([1, 1, 3, 3], name="w"),
            [1, 1],
            [0, 0],
            [0, 0],
            [1, 1],
        )
    )
    report, text = edited_report(model, lambda t: t.replace('dilations="1, 1"', 'dilations="3, 1"'))
    error = diagnostic(report, "input-dims")
    assert "(3 - 1) * 3 + 1 = 7 is larger than the padded data 5 + 0 + 0 = 5" in error.message


def test_convolution_attribute_errors_are_reported():
    model = model_of(
        ops.convolution(
            parameter([1, 1, 5, 5], name="x"),
            parameter([1, 1, 3, 3], name="w"),
            [1, 1],
            [0, 0],
            [0, 0],
            [1, 1],
        )
    )
    check_rejected(
        lambda: ops.convolution(
            parameter([1, 1, 5, 5]), parameter([1, 1, 3, 3]), [1, 1, 1], [0, 0], [0, 0], [1, 1]
        )
    )
    report, text = edited_report(model, lambda t: t.replace('strides="1, 1"', 'strides="1, 1, 1"'))
    error = diagnostic(report, "attribute-value")
    assert "strides has 3 value(s)" in error.message, report.to_text()
    assert error.line == first_line_with(text, "strides=")
    report, _ = edited_report(
        model, lambda t: t.replace('auto_pad="explicit"', 'auto_pad="notset"')
    )
    assert [d.code for d in report if d.severity == "error"] == ["attribute-value"], (
        report.to_text()
    )
    report, _ = edited_report(model, lambda t: t.replace('strides="1, 1"', 'strides="0, 1"'))
    error = diagnostic(report, "attribute-value")
    assert "below 1" in error.message, report.to_text()


def test_convolution_misspelt_attribute_is_warned():
    model = model_of(
        ops.convolution(
            parameter([1, 1, 5, 5], name="x"),
            parameter([1, 1, 3, 3], name="w"),
            [1, 1],
            [0, 0],
            [0, 0],
            [1, 1],
        )
    )
    report, _ = edited_report(model, lambda t: t.replace("dilations=", "dilation="))
    codes = sorted(d.code for d in report)
    assert codes == ["missing-attribute", "unknown-attribute"], report.to_text()
    warning = next(d for d in report if d.code == "unknown-attribute")
    assert warning.hint == "did you mean dilations?"


@pytest.mark.parametrize(
    "kernel, strides, dilations",
    [([3, 3], [1, 1], [1, 1]), ([5, 5], [2, 2], [1, 1]), ([3, 2], [2, 3], [2, 3]),
     ([4, 3, 5], [3, 2, 4], [2, 1, 6]), ([1], [3], [1]), ([5], [2], [4])],
)  # fmt: skip
def test_tap_runs_cover_every_tap_once_where_it_reads(kernel, strides, dilations):
    pitches = [1000**a for a in reversed(range(len(kernel)))]  # flat offsets read back by axis
    read = {}
    for phase, start, counts, steps, taps in _conv_kernel._tap_runs(
        kernel, strides, dilations, pitches
    ):
        for index, tap in zip(np.ndindex(*counts), taps):
            flat = start + sum(i * s for i, s in zip(index, steps))
            read[tap] = (phase, flat)
    assert sorted(read) == list(range(int(np.prod(kernel))))
    for tap, (phase, flat) in read.items():
        offsets = [t * d for t, d in zip(np.unravel_index(tap, kernel), dilations)]
        assert phase == np.ravel_multi_index([o % s for o, s in zip(offsets, strides)], strides)
        assert flat == sum(o // s * p for o, s, p in zip(offsets, strides, pitches))
