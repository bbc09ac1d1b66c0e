"""MaxPool-1/8/14 and AvgPool-1/14/16: shapes against OpenVINO, kernels against its CPU plugin
(AvgPool-16: against a NumPy statement of the spec, the CPU plugin crashes on it), reported
errors."""

from __future__ import annotations

import itertools

import numpy as np
import openvino.opset1 as opset1
import openvino.opset8 as opset8
import openvino.opset14 as opset14
import openvino.opset16 as opset16
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
from tests.helpers.strategies import diagnostic, edited_report, op_settings, shape_around

AUTO_PADS = ["explicit", "explicit", "valid", "same_upper", "same_lower"]


@st.composite
def pool_case(draw, torch_rounding, dilations):
    spatial = draw(st.integers(1, 3))
    kernel = [draw(st.integers(1, 3)) for _ in range(spatial)]
    sizes = [draw(st.integers(1, 7)) for _ in range(spatial)]
    data = draw(shape_around([2, 3, *sizes]))
    return dict(
        data=data,
        kernel=kernel,
        strides=[draw(st.integers(1, 3)) for _ in range(spatial)],
        dilations=[draw(st.integers(1, 2)) if dilations else 1 for _ in range(spatial)],
        pads_begin=[draw(st.integers(0, 2)) for _ in range(spatial)],
        pads_end=[draw(st.integers(0, 2)) for _ in range(spatial)],
        rounding=draw(
            st.sampled_from(["floor", "ceil"] + (["ceil_torch"] if torch_rounding else []))
        ),
        auto_pad=draw(st.sampled_from(AUTO_PADS)),
        exclude_pad=draw(st.booleans()),
    )


def _max_pool(version, c, x):
    if version == 1:
        return opset1.max_pool(
            x,
            c["strides"],
            c["pads_begin"],
            c["pads_end"],
            c["kernel"],
            c["rounding"],
            c["auto_pad"],
        )
    module = opset8 if version == 8 else opset14
    return module.max_pool(
        x,
        c["strides"],
        c["dilations"],
        c["pads_begin"],
        c["pads_end"],
        c["kernel"],
        c["rounding"],
        c["auto_pad"],
        c.get("index", "i64"),
        c.get("axis", 0),
    )


def _avg_pool(version, c, x):
    args = (
        x,
        c["strides"],
        c["pads_begin"],
        c["pads_end"],
        c["kernel"],
        c["exclude_pad"],
        c["rounding"],
        c["auto_pad"],
    )
    if version == 16:
        return opset16.avg_pool(*args, dilations=c["dilations"])
    return (opset1 if version == 1 else opset14).avg_pool(*args)


@pytest.mark.parametrize("version", [1, 8, 14])
@op_settings(30)
@given(data=st.data())
def test_max_pool_shapes_match_openvino(version, data):
    case = data.draw(pool_case(version == 14, version != 1))
    try:
        node = _max_pool(version, case, parameter(case["data"], name="x"))
    except Exception:
        assume(False)
    check_shapes(node)


@pytest.mark.parametrize("version", [1, 14, 16])
@op_settings(30)
@given(data=st.data())
def test_avg_pool_shapes_match_openvino(version, data):
    case = data.draw(pool_case(version != 1, version == 16))
    try:
        node = _avg_pool(version, case, parameter(case["data"], name="x"))
    except Exception:
        assume(False)
    check_shapes(node)


def _case(**given):
    spatial = len(given["kernel"])
    base = dict(
        strides=[1] * spatial,
        dilations=[1] * spatial,
        pads_begin=[0] * spatial,
        pads_end=[0] * spatial,
        rounding="floor",
        auto_pad="explicit",
        exclude_pad=False,
    )
    base.update(given)
    return base


MAX_CASES = [
    _case(shape=[2, 3, 9, 9], kernel=[3, 3], strides=[2, 2], pads_begin=[1, 1], pads_end=[1, 1]),
    _case(shape=[1, 4, 10, 7], kernel=[2, 3], strides=[2, 2], rounding="ceil"),
    _case(shape=[1, 2, 11, 8], kernel=[3, 2], strides=[3, 2], dilations=[2, 1], pads_begin=[1, 0]),
    _case(shape=[1, 2, 11, 8], kernel=[3, 3], strides=[2, 3], auto_pad="same_upper"),
    _case(shape=[1, 2, 11, 8], kernel=[2, 3], strides=[2, 2], auto_pad="same_lower"),
    _case(shape=[2, 3, 13], kernel=[4], strides=[3], pads_end=[2], rounding="ceil", axis=2),
    _case(
        shape=[1, 2, 5, 6, 7],
        kernel=[2, 3, 2],
        strides=[2, 1, 2],
        pads_begin=[1, 0, 1],
        axis=1,
        index="i32",
    ),
    _case(
        shape=[1, 3, 7, 7], kernel=[3, 3], strides=[2, 2], pads_end=[2, 2], rounding="ceil", axis=-1
    ),
]


@pytest.mark.parametrize("special", [True, False])
@pytest.mark.parametrize("version", [1, 8, 14])
@pytest.mark.parametrize("case", MAX_CASES)
def test_max_pool_matches_cpu_plugin_bit_for_bit(version, case, special):
    """MaxPool-1 takes the values-only path (a max over the kernel taps), 8 and 14 also find
    the first tap holding it; with and without NaN (which the kernel hides only when there is
    one), and many ties."""
    if version == 1 and (case["dilations"] != [1] * len(case["kernel"]) or "axis" in case):
        pytest.skip("MaxPool-1 has no dilations and no axis")
    rng = np.random.default_rng(11)
    x = rng.integers(-50, 50, case["shape"]).astype(np.float32)  # many ties
    if special:
        x.flat[::7] = np.nan
        x.flat[::11] = -np.inf
    model = model_of(_max_pool(version, case, parameter(case["shape"], name="x")))
    expected = run_openvino(model, {"x": x})
    got = run_irrun(model, {"x": x})
    for mine, theirs in zip(got, expected):
        assert mine.dtype == theirs.dtype
        np.testing.assert_array_equal(mine, theirs)


def test_max_pool_14_ceil_torch_matches_cpu_plugin():
    case = _case(
        shape=[1, 2, 7, 8],
        kernel=[3, 2],
        strides=[2, 3],
        pads_begin=[1, 1],
        pads_end=[1, 1],
        rounding="ceil_torch",
    )
    x = np.random.default_rng(2).standard_normal(case["shape"]).astype(np.float32)
    model = model_of(_max_pool(14, case, parameter(case["shape"], name="x")))
    for mine, theirs in zip(run_irrun(model, {"x": x}), run_openvino(model, {"x": x})):
        np.testing.assert_array_equal(mine, theirs)


@pytest.mark.parametrize("etype", ["i32", "u8", "f16"])
def test_max_pool_1_other_types_match_cpu_plugin(etype):
    case = _case(shape=[1, 3, 8, 8], kernel=[3, 3], strides=[2, 2], pads_begin=[1, 1])
    dtype = {"i32": np.int32, "u8": np.uint8, "f16": np.float16}[etype]
    x = np.random.default_rng(4).integers(0, 200, case["shape"]).astype(dtype)
    model = model_of(_max_pool(1, case, parameter(case["shape"], etype, name="x")))
    got = run_irrun(model, {"x": x})[0]
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, run_openvino(model, {"x": x})[0])


def test_max_pool_spec_example_4_indices_count_channels():
    x = np.array(
        [[[[-1, 2, 3], [4, 5, -6], [-7, 8, 9]], [[2, -1, 5], [6, -7, 1], [8, 2, -3]]]], np.float32
    )
    case = _case(shape=[1, 2, 3, 3], kernel=[2, 2], auto_pad="same_upper")
    values, indices = run_irrun(
        model_of(_max_pool(8, case, parameter([1, 2, 3, 3], name="x"))), {"x": x}
    )
    assert values.tolist() == [
        [[[5, 5, 3], [8, 9, 9], [8, 9, 9]], [[6, 5, 5], [8, 2, 1], [8, 2, -3]]]
    ]
    assert indices.tolist() == [
        [[[4, 4, 2], [7, 8, 8], [7, 8, 8]], [[12, 11, 11], [15, 16, 14], [15, 16, 17]]]
    ]


AVG_CASES = [
    _case(shape=[2, 3, 9, 9], kernel=[3, 3], strides=[2, 2], pads_begin=[1, 1], pads_end=[1, 1]),
    _case(shape=[1, 4, 10, 7], kernel=[2, 3], strides=[2, 2], rounding="ceil"),
    _case(shape=[1, 2, 11, 8], kernel=[3, 2], strides=[3, 2], pads_begin=[1, 0], rounding="ceil"),
    _case(shape=[1, 2, 11, 8], kernel=[3, 3], strides=[2, 3], auto_pad="same_upper"),
    _case(shape=[1, 2, 11, 8], kernel=[2, 3], strides=[2, 2], auto_pad="same_lower"),
    _case(shape=[2, 3, 13], kernel=[4], strides=[3], pads_end=[2], rounding="ceil"),
    _case(shape=[1, 2, 5, 6, 7], kernel=[2, 3, 2], strides=[2, 1, 2], pads_begin=[1, 0, 1]),
    _case(shape=[1, 3, 7, 7], kernel=[7, 7]),
]


@pytest.mark.parametrize("exclude_pad", [True, False])
@pytest.mark.parametrize("case", AVG_CASES)
def test_avg_pool_matches_cpu_plugin(case, exclude_pad):
    case = dict(case, exclude_pad=exclude_pad)
    x = np.random.default_rng(12).standard_normal(case["shape"]).astype(np.float32)
    for version in (1, 14):
        model = model_of(_avg_pool(version, case, parameter(case["shape"], name="x")))
        got, expected = run_irrun(model, {"x": x})[0], run_openvino(model, {"x": x})[0]
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, expected, rtol=2e-6, atol=1e-6)


def test_avg_pool_14_ceil_torch_matches_cpu_plugin():
    case = _case(
        shape=[1, 2, 7, 8],
        kernel=[3, 2],
        strides=[2, 3],
        pads_begin=[1, 1],
        pads_end=[1, 1],
        rounding="ceil_torch",
        exclude_pad=True,
    )
    x = np.random.default_rng(2).standard_normal(case["shape"]).astype(np.float32)
    model = model_of(_avg_pool(14, case, parameter(case["shape"], name="x")))
    got, expected = run_irrun(model, {"x": x})[0], run_openvino(model, {"x": x})[0]
    np.testing.assert_allclose(got, expected, rtol=2e-6, atol=1e-6)


def test_avg_pool_f16_matches_cpu_plugin():
    case = _case(
        shape=[1, 3, 8, 8], kernel=[3, 3], strides=[2, 2], pads_begin=[1, 1], exclude_pad=True
    )
    x = np.random.default_rng(4).standard_normal(case["shape"]).astype(np.float16)
    model = model_of(_avg_pool(1, case, parameter(case["shape"], "f16", name="x")))
    got, expected = run_irrun(model, {"x": x})[0], run_openvino(model, {"x": x})[0]
    assert got.dtype == np.float16
    np.testing.assert_allclose(
        got.astype(np.float32), expected.astype(np.float32), rtol=1e-3, atol=1e-3
    )


def _spec_avg_pool(x, kernel, strides, dilations, begin, end, out_sizes, exclude_pad):
    """AvgPool by the spec, one output element at a time (small inputs only)."""
    n, c, *sizes = x.shape
    out = np.zeros((n, c, *out_sizes), np.float64)
    padded_any = any(begin) or any(end)
    for position in itertools.product(*(range(o) for o in out_sizes)):
        total, count = np.zeros((n, c)), 0
        for offset in itertools.product(*(range(k) for k in kernel)):
            where = [
                p * s + o * d - b
                for p, s, o, d, b in zip(position, strides, offset, dilations, begin)
            ]
            if all(0 <= w < size for w, size in zip(where, sizes)):
                total += x[(slice(None), slice(None), *where)]
                count += 1
        divisor = count if exclude_pad or not padded_any else np.prod(kernel)
        out[(slice(None), slice(None), *position)] = total / divisor if divisor else 0
    return out


@pytest.mark.parametrize("exclude_pad", [True, False])
def test_avg_pool_16_dilations_match_the_spec(exclude_pad):
    case = _case(
        shape=[1, 2, 9, 10],
        kernel=[3, 2],
        strides=[2, 3],
        dilations=[2, 3],
        pads_begin=[1, 1],
        pads_end=[2, 1],
        rounding="ceil",
        exclude_pad=exclude_pad,
    )
    x = np.random.default_rng(8).standard_normal(case["shape"]).astype(np.float32)
    node = _avg_pool(16, case, parameter(case["shape"], name="x"))
    out_sizes = list(node.get_output_partial_shape(0).to_shape())[2:]
    got = run_irrun(model_of(node), {"x": x})[0]
    expected = _spec_avg_pool(
        x,
        case["kernel"],
        case["strides"],
        case["dilations"],
        case["pads_begin"],
        case["pads_end"],
        out_sizes,
        exclude_pad,
    )
    np.testing.assert_allclose(got, expected, rtol=2e-6, atol=1e-6)


def test_pool_kernel_larger_than_padded_data_is_reported():
    case = _case(shape=[1, 1, 2, 5], kernel=[3, 3])
    check_rejected(lambda: _max_pool(8, case, parameter([1, 1, 2, 5])))
    model = model_of(_max_pool(8, _case(kernel=[2, 3]), parameter([1, 1, 2, 5], name="x")))
    report, _ = edited_report(model, lambda t: t.replace('kernel="2, 3"', 'kernel="3, 3"'))
    error = diagnostic(report, "input-dims")
    assert "(3 - 1) * 1 + 1 = 3 is larger than the padded data 2 + 0 + 0 = 2" in error.message


def test_avg_pool_exclude_pad_with_pads_as_large_as_the_kernel_is_reported():
    case = _case(kernel=[2, 2], pads_begin=[2, 0], exclude_pad=True)
    check_rejected(lambda: _avg_pool(1, case, parameter([1, 1, 5, 5])))
    model = model_of(_avg_pool(1, dict(case, pads_begin=[1, 0]), parameter([1, 1, 5, 5], name="x")))
    report, _ = edited_report(model, lambda t: t.replace('pads_begin="1, 0"', 'pads_begin="2, 0"'))
    codes = [d.code for d in report if d.severity == "error"]
    assert "attribute-value" in codes, report.to_text()
    assert any("exclude-pad some windows hold only padding" in d.message for d in report)


def test_ceil_torch_before_version_14_is_reported():
    check_rejected(
        lambda: _max_pool(8, _case(kernel=[2, 2], rounding="ceil_torch"), parameter([1, 1, 5, 5]))
    )
    model = model_of(
        _max_pool(8, _case(kernel=[2, 2], rounding="ceil"), parameter([1, 1, 5, 5], name="x"))
    )
    report, _ = edited_report(model, lambda t: t.replace('"ceil"', '"ceil_torch"'))
    error = diagnostic(report, "attribute-value")
    assert "ceil_torch" in error.message, report.to_text()


def test_max_pool_axis_out_of_range_is_reported():
    check_rejected(lambda: _max_pool(8, _case(kernel=[2, 2], axis=4), parameter([1, 1, 5, 5])))
    model = model_of(_max_pool(8, _case(kernel=[2, 2], axis=3), parameter([1, 1, 5, 5], name="x")))
    report, _ = edited_report(model, lambda t: t.replace('axis="3"', 'axis="4"'))
    assert [d.code for d in report if d.severity == "error"] == ["axis-range"], report.to_text()


def test_avg_pool_misspelt_attribute_is_warned():
    model = model_of(_avg_pool(1, _case(kernel=[2, 2]), parameter([1, 1, 5, 5], name="x")))
    report, _ = edited_report(model, lambda t: t.replace("exclude-pad=", "exclude_pad="))
    warning = next(d for d in report if d.code == "unknown-attribute")
    assert warning.hint == "did you mean exclude-pad?"
    assert any(d.code == "missing-attribute" for d in report)


@pytest.mark.parametrize(
    "name, good, bad, fragment",
    [
        ("kernel", [1, 3], [0, 3], "kernel 0,3 has a value below 1 (0)"),
        ("strides", [1, 1], [0, 1], "strides 0,1 has a value below 1 (0)"),
        ("dilations", [1, 1], [1, 0], "dilations 1,0 has a value below 1 (0)"),
        (
            "pads_begin",
            [0, 1],
            [0, -1],
            "pads_begin 0,-1 has a negative value (-1); the "
            "specification allows pads from 0 and OpenVINO's CPU plugin cannot compile it",
        ),
        (
            "pads_end",
            [1, 0],
            [-1, 0],
            "pads_end -1,0 has a negative value (-1); with "
            "pads_begin 0,0 the pads of spatial axis 0 add up to -1, which OpenVINO's shape rule "
            "cannot use",
        ),
    ],
)
@pytest.mark.parametrize("op", ["MaxPool-8", "AvgPool-16"])
def test_window_values_openvino_refuses_are_reported_with_the_values(op, name, good, bad,
                                                                     fragment):  # fmt: skip
    def build(values, x):
        case = dict(_case(kernel=[1, 3]), **{name: values})
        return _max_pool(8, case, x) if op == "MaxPool-8" else _avg_pool(16, case, x)

    check_rejected(lambda: build(bad, parameter([1, 1, 4, 4])))
    model = model_of(build(good, parameter([1, 1, 4, 4], name="x")))
    written = ", ".join(map(str, good))
    report, _ = edited_report(
        model, lambda t: t.replace(f'{name}="{written}"', f'{name}="{",".join(map(str, bad))}"')
    )
    errors = [d for d in report if d.severity == "error"]
    assert [d.code for d in errors] == ["attribute-value"], report.to_text()
    assert fragment in errors[0].message
    assert "OpenVINO" in errors[0].message


# OpenVINO's pooling shape rule adds pads_begin + pads_end (as size_t) into a Dimension: a sum
# of -1 is dynamic (a static data dim then fails), a sum below -1 counts as 0. Its CPU plugin
# runs negative end pads and cannot compile negative begin pads; with exclude-pad its check
# ``kernel > pad_end`` fails on any negative pad. Under auto_pad same_*/valid the written pads
# are ignored.
NEGATIVE_END_PADS = [
    _case(shape=[1, 2, 6, 6], kernel=[2, 2], pads_end=[-2, 0]),
    _case(shape=[1, 2, 6, 6], kernel=[2, 2], pads_end=[-3, -5]),
    _case(shape=[1, 2, 6, 6], kernel=[2, 2], pads_begin=[1, 0], pads_end=[-3, 0]),
    _case(shape=[1, 2, 5, 5], kernel=[2, 2], strides=[2, 2], pads_end=[-2, 0], rounding="ceil"),
]


@pytest.mark.parametrize("case", NEGATIVE_END_PADS)
@pytest.mark.parametrize("op", ["MaxPool-8", "AvgPool-1"])
def test_negative_end_pads_openvino_runs_are_a_warning_and_run_as_openvino(op, case):
    x = np.random.default_rng(7).standard_normal(case["shape"]).astype(np.float32)
    data = parameter(case["shape"], name="x")
    node = _max_pool(8, case, data) if op == "MaxPool-8" else _avg_pool(1, case, data)
    model = model_of(node)
    report, _ = edited_report(model, lambda t: t)
    assert report.errors == [], report.to_text()
    warning = diagnostic(report, "negative-pad")
    ends = ",".join(map(str, case["pads_end"]))
    assert f"pads_end {ends} has a negative value" in warning.message
    assert warning.severity == "warning"
    check_shapes(model, allow_warnings=True)
    got, expected = run_irrun(model, {"x": x})[0], run_openvino(model, {"x": x})[0]
    assert got.shape == expected.shape == tuple(node.output(0).get_shape())
    if op == "MaxPool-8":
        np.testing.assert_array_equal(got, expected)
    else:  # the documented AvgPool tolerance (as test_avg_pool_matches_cpu_plugin)
        np.testing.assert_allclose(got, expected, rtol=2e-6, atol=1e-6)


@pytest.mark.parametrize(
    "pads_begin, pads_end, exclude_pad, fragment",
    [
        ([-2, 0], [0, 0], False, "pads_begin -2,0 has a negative value (-2)"),
        ([-1, 0], [-1, 0], False, "pads_begin -1,0 has a negative value (-1)"),
        (
            [0, 0],
            [-2, 0],
            True,
            "pads_end -2,0 has a negative value (-2); with exclude-pad "
            "OpenVINO refuses it (its check 'kernel > pad_end' fails)",
        ),
    ],
)
def test_negative_pads_openvino_cannot_use_are_errors(pads_begin, pads_end, exclude_pad,
                                                      fragment):  # fmt: skip
    written = _case(shape=[1, 1, 6, 6], kernel=[2, 2], exclude_pad=exclude_pad)
    model = model_of(_avg_pool(1, written, parameter([1, 1, 6, 6], name="x")))

    def edit(text):
        return text.replace('pads_begin="0, 0"', f'pads_begin="{", ".join(map(str, pads_begin))}"'
                            ).replace('pads_end="0, 0"',
                                      f'pads_end="{", ".join(map(str, pads_end))}"')  # fmt: skip

    report, text = edited_report(model, edit)
    assert f'pads_end="{", ".join(map(str, pads_end))}"' in text
    error = diagnostic(report.errors, "attribute-value")
    assert fragment in error.message


@pytest.mark.parametrize("auto_pad", ["same_upper", "same_lower", "valid"])
def test_written_pads_are_ignored_under_auto_pad(auto_pad):
    case = _case(shape=[1, 2, 6, 6], kernel=[2, 2], auto_pad=auto_pad)
    model = model_of(_max_pool(8, case, parameter([1, 2, 6, 6], name="x")))
    report, text = edited_report(
        model, lambda t: t.replace('pads_begin="0, 0"', 'pads_begin="-3, -1"')
    )
    assert 'pads_begin="-3, -1"' in text
    assert list(report) == [], report.to_text()
    x = np.random.default_rng(8).standard_normal([1, 2, 6, 6]).astype(np.float32)
    np.testing.assert_array_equal(run_irrun(model, {"x": x})[0], run_openvino(model, {"x": x})[0])
