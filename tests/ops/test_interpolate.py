"""Interpolate-1, -4 and -11: shapes against OpenVINO (constant, partial and unknown sizes,
scales, axes and pads), kernels against the CPU plugin in f32 (the reference evaluator where
the plugin differs), reported errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import openvino as ov
import openvino.opset1 as opset1
import openvino.opset3 as opset3
import openvino.opset10 as opset10
import openvino.opset11 as opset11
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irrun.ops._resize import resize
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
from tests.helpers.strategies import (
    built,
    diagnostic,
    dim_text,
    op_settings,
    shape_text,
    validated,
)

MODES4 = ["nearest", "linear", "linear_onnx", "cubic"]
MODES11 = MODES4 + ["bilinear_pillow", "bicubic_pillow"]
TRANSFORMS = ["half_pixel", "pytorch_half_pixel", "asymmetric", "tf_half_pixel_for_nn",
              "align_corners"]  # fmt: skip
NEAREST = ["round_prefer_floor", "round_prefer_ceil", "floor", "ceil", "simple"]


def _i64(values):
    return constant(np.array(values, np.int64))


def _f32(values):
    return constant(np.array(values, np.float32))


# -- shapes ---------------------------------------------------------------------------------------


@st.composite
def resize_case(draw):
    data = draw(shape_text(dim_text(st.integers(0, 9)), min_rank=1, max_rank=5))
    rank = 4 if data == "[...]" else data.count(",") + 1
    axes = draw(st.none() | st.lists(st.integers(0, rank - 1), min_size=1, max_size=rank))
    count = rank if axes is None else len(axes)
    sizes = draw(st.lists(st.integers(0, 12), min_size=count, max_size=count + 1))
    scales = draw(st.lists(st.sampled_from([0.5, 1.0, 1.5, 2.0, 0.3333, 3.0, 0.25, 1.7]),
                           min_size=count, max_size=count + 1))  # fmt: skip
    pads = [draw(st.lists(st.integers(0, 2), max_size=rank + 1)) for _ in range(2)]
    known = draw(st.sampled_from(["const", "const", "param", "partial"]))
    return data, axes, sizes, scales, pads, known


def _sizes_input(sizes, known, name="s"):
    if known == "param":
        return parameter([len(sizes)], "i64", name=name)
    if known == "partial":  # a ShapeOf of a tensor with interval dims, as converters emit
        dims = ",".join(f"{s}..{s + 3}" if i % 2 else str(s) for i, s in enumerate(sizes))
        return opset3.shape_of(parameter(f"[{dims}]", name=name), "i64")
    return _i64(sizes)


@op_settings(40)
@given(resize_case(), st.sampled_from(["sizes", "scales"]), st.sampled_from([4, 11]))
def test_shapes_match_openvino(case, calculation, version):
    data, axes, sizes, scales, pads, known = case
    x = parameter(data, name="x")
    axes_node = None if axes is None else _i64(axes)
    scales_node = parameter([len(scales)], "f32", name="f") if known == "param" else _f32(scales)
    sizes_node = _sizes_input(sizes, known)
    options = dict(pads_begin=pads[0], pads_end=pads[1], axes=axes_node)
    if version == 11:
        values = scales_node if calculation == "scales" else sizes_node
        node = built(lambda: opset11.interpolate(x, values, "nearest", calculation, **options))
    else:
        node = built(lambda: opset10.interpolate(x, sizes_node, scales_node, "linear_onnx",
                                                 calculation, **options))  # fmt: skip
    check_shapes(node)


@op_settings(30)
@given(shape_text(dim_text(st.integers(0, 9)), min_rank=1, max_rank=5),
       st.lists(st.integers(0, 4), min_size=1, max_size=3, unique=True),
       st.lists(st.integers(0, 12), min_size=3, max_size=4),
       st.sampled_from(["const", "param", "partial"]))  # fmt: skip
def test_interpolate1_shapes_match_openvino(data, axes, sizes, known):
    x = parameter(data, name="x")
    attrs = {"axes": axes, "mode": "nearest"}
    node = built(lambda: opset1.interpolate(x, _sizes_input(sizes, known), attrs))
    check_shapes(node)


@pytest.mark.parametrize(
    "data, scales, expected",
    [
        ("[1,3,2..4,?]", [1.5, 2.0], "[1,3,3..6,?]"),
        ("[1,3,2..,7]", [0.5, 0.3333], "[1,3,1..,2]"),
        ("[1,3,10,10]", [0.1, 1.0], "[1,3,1,10]"),
        ("[1,3,..5,1..3]", [3.0, 0.5], "[1,3,..15,..1]"),
    ],
)
def test_scales_multiply_bounds_in_f32_with_epsilon(data, scales, expected):
    node = opset11.interpolate(parameter(data, name="x"), _f32(scales), "nearest", "scales",
                               axes=_i64([2, 3]))  # fmt: skip
    assert str(node.get_output_partial_shape(0)) == expected
    check_shapes(node)


def test_unknown_axes_give_the_data_rank():
    node = opset11.interpolate(parameter("[1,3,4,4]", name="x"), _i64([5, 6]), "nearest",
                               "sizes", axes=parameter([2], "i64", name="a"))  # fmt: skip
    assert str(node.get_output_partial_shape(0)) == "[?,?,?,?]"
    check_shapes(node)


# -- kernels --------------------------------------------------------------------------------------


def _compare(node, feed, exact=False):
    model = model_of(node)
    expected = run_openvino(model, feed)[0]
    got = run_irrun(model, feed)[0]
    assert got.dtype == expected.dtype and got.shape == expected.shape
    if exact:
        np.testing.assert_array_equal(got, expected)
    else:
        scale = max(float(np.abs(feed["x"]).max()), 1.0)
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5 * scale)


DATA = np.random.default_rng(0).standard_normal((2, 3, 5, 7)).astype(np.float32)
SIZES = [[10, 14], [3, 4], [8, 1]]


@pytest.mark.parametrize("mode", ["nearest", "linear_onnx", "cubic", "linear", "bilinear_pillow"])
@pytest.mark.parametrize("transform", TRANSFORMS)
def test_modes_and_transforms_match_cpu_plugin(mode, transform):
    for sizes in SIZES:
        node = opset11.interpolate(parameter(DATA.shape, name="x"), _i64(sizes), mode, "sizes",
                                   coordinate_transformation_mode=transform,
                                   axes=_i64([2, 3]))  # fmt: skip
        _compare(node, {"x": DATA}, exact=mode == "nearest")


@pytest.mark.parametrize("nearest_mode", NEAREST)
@pytest.mark.parametrize("transform", TRANSFORMS)
def test_nearest_modes_match_cpu_plugin_exactly(nearest_mode, transform):
    for scales in ([2.0, 0.75], [1.3333, 0.6]):
        node = opset11.interpolate(parameter(DATA.shape, name="x"), _f32(scales), "nearest",
                                   "scales", coordinate_transformation_mode=transform,
                                   nearest_mode=nearest_mode, axes=_i64([2, 3]))  # fmt: skip
        _compare(node, {"x": DATA}, exact=True)


@pytest.mark.parametrize("mode", ["linear", "linear_onnx", "cubic", "nearest"])
def test_scales_mode_interpolate4_matches_cpu_plugin(mode):
    for scales in ([2.0, 2.0], [0.5, 0.6], [1.7, 0.4]):
        node = opset10.interpolate(parameter(DATA.shape, name="x"), _i64([1, 1]), _f32(scales),
                                   mode, "scales", axes=_i64([2, 3]))  # fmt: skip
        _compare(node, {"x": DATA}, exact=mode == "nearest")


def test_linear_matches_cpu_plugin_and_antialias_the_reference():
    # The CPU plugin ignores antialias in linear mode; OpenVINO's reference (and the spec)
    # widen the triangle filter by 1/scale when downsampling. irrun follows the reference.
    for sizes in ([2, 3], [3, 14], [10, 2], [4, 6]):
        node = opset11.interpolate(parameter(DATA.shape, name="x"), _i64(sizes), "linear",
                                   "sizes", axes=_i64([2, 3]))  # fmt: skip
        _compare(node, {"x": DATA})
        folded = opset11.interpolate(constant(DATA), _i64(sizes), "linear", "sizes",
                                     antialias=True, axes=_i64([2, 3]))  # fmt: skip
        expected = _reference(folded, [DATA, np.array(sizes, np.int64), np.array([2, 3])])
        scales = [np.float32(s) / np.float32(d) for s, d in zip(sizes, DATA.shape[2:])]
        got = resize(DATA, (2, 3, *sizes), [2, 3], scales, mode="linear",
                     transform="half_pixel", antialias=True)  # fmt: skip
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("mode", ["nearest", "linear_onnx", "cubic", "linear"])
def test_pads_and_default_axes_match_cpu_plugin(mode):
    x = DATA[:1]
    sizes = [1, 3, 11, 6] if mode != "linear_onnx" else [1, 3, 11, 6]
    node = opset11.interpolate(parameter(x.shape, name="x"), _i64(sizes), mode, "sizes",
                               pads_begin=[0, 0, 1, 2], pads_end=[0, 0, 2, 0])  # fmt: skip
    _compare(node, {"x": x}, exact=mode == "nearest")


@pytest.mark.parametrize("shape, axes, sizes", [
    ((2, 9), [1], [4]),
    ((1, 2, 9), [2], [20]),
    ((1, 2, 4, 5, 6), [2, 3, 4], [7, 3, 9]),
    ((3, 4, 5, 6), [3, 2], [9, 3]),
])  # fmt: skip
@pytest.mark.parametrize("mode", ["nearest", "cubic", "linear", "linear_onnx"])
def test_other_ranks_and_axes_match_cpu_plugin(shape, axes, sizes, mode):
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    node = opset11.interpolate(parameter(shape, name="x"), _i64(sizes), mode, "sizes",
                               axes=_i64(axes))  # fmt: skip
    _compare(node, {"x": x}, exact=mode == "nearest")


def test_yolo_upsample_matches_cpu_plugin_exactly():
    # PyTorch's nn.Upsample(scale_factor=2) as the converter writes it: scales on every axis
    x = np.random.default_rng(6).standard_normal((1, 16, 13, 13)).astype(np.float32)
    node = opset11.interpolate(parameter(x.shape, name="x"), _f32([1, 1, 2, 2]), "nearest",
                               "scales", coordinate_transformation_mode="asymmetric",
                               nearest_mode="floor")  # fmt: skip
    _compare(node, {"x": x}, exact=True)
    np.testing.assert_array_equal(run_irrun(model_of(node), {"x": x})[0],
                                  x.repeat(2, axis=2).repeat(2, axis=3))  # fmt: skip


@pytest.mark.parametrize("mode", ["linear_onnx", "cubic"])
def test_segmentation_and_position_embedding_resizes_match_cpu_plugin(mode):
    # F.interpolate(bilinear/bicubic, align_corners=False) to a size (segmentation heads, ViT
    # position embeddings 14x14 -> 24x24 on [1, C, H, W]), sizes given for every axis
    for shape, sizes in (((1, 8, 14, 14), [1, 8, 24, 24]), ((2, 5, 16, 12), [2, 5, 64, 48])):
        x = np.random.default_rng(7).standard_normal(shape).astype(np.float32)
        for transform in ("pytorch_half_pixel", "half_pixel", "align_corners"):
            node = opset11.interpolate(parameter(shape, name="x"), _i64(sizes), mode, "sizes",
                                       coordinate_transformation_mode=transform)  # fmt: skip
            _compare(node, {"x": x})


@pytest.mark.parametrize("mode", ["nearest", "linear", "cubic"])
def test_batch_and_channel_axes_match_the_reference(mode):
    # the CPU plugin resizes spatial axes only ("only supports resize on spatial dimensions");
    # OpenVINO's reference resizes any axis, and so does irrun
    sizes, axes = [3, 2, 4], [0, 1, 3]
    folded = opset11.interpolate(constant(DATA), _i64(sizes), mode, "sizes", axes=_i64(axes))
    expected = _reference(folded, [DATA, np.array(sizes, np.int64), np.array(axes)])
    node = opset11.interpolate(parameter(DATA.shape, name="x"), _i64(sizes), mode, "sizes",
                               axes=_i64(axes))  # fmt: skip
    got = run_irrun(model_of(node), {"x": DATA})[0]
    if mode == "nearest":
        np.testing.assert_array_equal(got, expected)
    else:
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5 * np.abs(DATA).max())


def test_sizes_and_scales_given_at_run_time_match_cpu_plugin():
    # a dynamic model: the output shape comes from an input's values
    x = parameter(DATA.shape, name="x")
    node = opset11.interpolate(x, parameter([2], "i64", name="s"), "linear_onnx", "sizes",
                               axes=_i64([2, 3]))  # fmt: skip
    model = model_of(node)
    for sizes in ([9, 4], [2, 11]):
        feed = {"x": DATA, "s": np.array(sizes, np.int64)}
        expected = run_openvino(model, feed)[0]
        got = run_irrun(model, feed)[0]
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5 * np.abs(DATA).max())
    node = opset11.interpolate(x, parameter([2], "f32", name="f"), "nearest", "scales",
                               axes=_i64([2, 3]))  # fmt: skip
    feed = {"x": DATA, "f": np.array([1.5, 0.5], np.float32)}
    np.testing.assert_array_equal(run_irrun(model_of(node), feed)[0],
                                  run_openvino(model_of(node), feed)[0])  # fmt: skip


def test_too_few_sizes_at_run_time_are_an_execution_error():
    import irrun.errors

    node = opset11.interpolate(parameter(DATA.shape, name="x"), parameter("[?]", "i64", name="s"),
                               "nearest", "sizes", axes=_i64([2, 3]))  # fmt: skip
    with pytest.raises(
        irrun.errors.ExecutionError,
        match=r"sizes \(input 1\) has 1 element\(s\), fewer than the 2 axes \[2, 3\]",
    ):
        run_irrun(model_of(node), {"x": DATA, "s": np.array([5], np.int64)})


def test_decoder_resize_to_a_skip_connection_in_a_dynamic_model():
    # F.interpolate(x, size=skip.shape[2:], mode="bilinear") as converters write it: sizes
    # gathered from ShapeOf(skip), in a model whose spatial dims are dynamic
    import openvino.opset8 as opset8

    x = parameter("[1,4,?,?]", name="x")
    skip = parameter("[1,3,8..64,8..64]", name="skip")
    sizes = opset8.gather(opset3.shape_of(skip, "i64"), _i64([2, 3]), _i64(0))
    up = opset11.interpolate(x, sizes, "linear_onnx", "sizes",
                             coordinate_transformation_mode="pytorch_half_pixel",
                             axes=_i64([2, 3]))  # fmt: skip
    joined = opset1.concat([up, skip], 1)
    assert str(joined.get_output_partial_shape(0)) == "[1,7,8..64,8..64]"
    check_shapes(joined)
    rng = np.random.default_rng(8)
    feed = {"x": rng.standard_normal((1, 4, 5, 7)).astype(np.float32),
            "skip": rng.standard_normal((1, 3, 12, 16)).astype(np.float32)}  # fmt: skip
    model = model_of(joined)
    expected = run_openvino(model, feed)[0]
    got = run_irrun(model, feed)[0]
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5 * np.abs(feed["x"]).max())


def test_cubic_coefficient_is_used():
    node = opset11.interpolate(parameter(DATA.shape, name="x"), _i64([9, 4]), "cubic", "sizes",
                               cube_coeff=-0.5, axes=_i64([2, 3]))  # fmt: skip
    _compare(node, {"x": DATA})


def _reference(node, inputs):
    """OpenVINO's reference evaluator (``Node.evaluate``) on numpy inputs."""
    shape = node.get_output_partial_shape(0).to_shape()
    out = [ov.Tensor(np.zeros(shape, inputs[0].dtype))]
    assert node.evaluate(out, [ov.Tensor(np.ascontiguousarray(v)) for v in inputs])
    return out[0].data


def test_bicubic_pillow_follows_cube_coeff_like_the_reference():
    # The CPU plugin ignores cube_coeff in bicubic_pillow (it always uses Pillow's -0.5);
    # OpenVINO's reference honours it. irrun follows the reference, which agrees with the
    # plugin at -0.5 (what the PyTorch converter writes for antialiased bicubic).
    for sizes in ([9, 4], [3, 12]):
        node = opset11.interpolate(parameter(DATA.shape, name="x"), _i64(sizes),
                                   "bicubic_pillow", "sizes", cube_coeff=-0.5,
                                   axes=_i64([2, 3]))  # fmt: skip
        _compare(node, {"x": DATA})
        folded = opset11.interpolate(constant(DATA), _i64(sizes), "bicubic_pillow", "sizes",
                                     cube_coeff=-0.75, axes=_i64([2, 3]))  # fmt: skip
        expected = _reference(folded, [DATA, np.array(sizes, np.int64), np.array([2, 3])])
        scales = [np.float32(s) / np.float32(d) for s, d in zip(sizes, DATA.shape[2:])]
        got = resize(DATA, (2, 3, *sizes), [2, 3], scales, mode="bicubic_pillow",
                     transform="half_pixel", cube_coeff=-0.75)  # fmt: skip
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("etype", ["u8", "i8", "i32", "f16"])
def test_nearest_integer_and_f16_data_match_cpu_plugin_exactly(etype):
    dtype = {"u8": np.uint8, "i8": np.int8, "i32": np.int32, "f16": np.float16}[etype]
    x = np.random.default_rng(2).integers(-100 if etype != "u8" else 0, 100, (1, 2, 5, 6))
    x = x.astype(dtype)
    node = opset11.interpolate(parameter(x.shape, etype, name="x"), _i64([9, 4]), "nearest",
                               "sizes", axes=_i64([2, 3]))  # fmt: skip
    _compare(node, {"x": x}, exact=True)


@pytest.mark.parametrize("mode", ["linear_onnx", "cubic", "linear", "bilinear_pillow",
                                  "bicubic_pillow"])  # fmt: skip
def test_f16_data_matches_cpu_plugin_within_one_ulp(mode):
    # both compute in f32 and round to f16 once (measured: equal but for one Pillow element,
    # one f16 ulp off, where the f32 sums differ in their last bit)
    x = np.random.default_rng(3).standard_normal((1, 2, 5, 6)).astype(np.float16)
    node = opset11.interpolate(parameter(x.shape, "f16", name="x"), _i64([9, 4]), mode, "sizes",
                               cube_coeff=-0.5, axes=_i64([2, 3]))  # fmt: skip
    model = model_of(node)
    expected = run_openvino(model, {"x": x})[0]
    got = run_irrun(model, {"x": x})[0]
    assert got.dtype == np.float16
    np.testing.assert_allclose(got.astype(np.float32), expected.astype(np.float32), rtol=1e-3,
                               atol=1e-3)  # fmt: skip
    assert (got == expected).mean() > 0.95


@pytest.mark.parametrize("etype", ["u8", "i8", "i32"])
@pytest.mark.parametrize("mode", ["linear_onnx", "cubic", "linear", "bilinear_pillow",
                                  "bicubic_pillow"])  # fmt: skip
def test_integer_data_rounds_and_saturates_like_cpu_plugin(mode, etype):
    # results rounded to nearest and saturated (u8 cubic overshoots past 255 and below 0);
    # the plugin sums in f32, so a value that is exactly a half may round the other way
    dtype = {"u8": np.uint8, "i8": np.int8, "i32": np.int32}[etype]
    low, high = (0, 256) if etype == "u8" else (-100, 100)
    x = np.random.default_rng(3).integers(low, high, (1, 2, 5, 6)).astype(dtype)
    node = opset11.interpolate(parameter(x.shape, etype, name="x"), _i64([9, 4]), mode, "sizes",
                               cube_coeff=-0.5, axes=_i64([2, 3]))  # fmt: skip
    model = model_of(node)
    expected = run_openvino(model, {"x": x})[0]
    got = run_irrun(model, {"x": x})[0]
    assert got.dtype == dtype
    assert np.abs(got.astype(np.int64) - expected.astype(np.int64)).max() <= 1
    assert (got == expected).mean() > 0.9


@pytest.mark.parametrize(
    "mode, align_corners, axes",
    [("nearest", False, [2, 3]), ("linear", False, [2, 3]), ("linear", True, [2, 3]),
     ("cubic", False, [2, 3]), ("linear", False, [1, 2, 3]), ("nearest", True, [3])],
)  # fmt: skip
def test_interpolate1_runs_as_openvino_converts_it(mode, align_corners, axes):
    sizes = {2: 9, 3: 4, 1: 2}
    node = opset1.interpolate(
        parameter(DATA.shape, name="x"),
        _i64([sizes[a] for a in axes]),
        {"axes": axes, "mode": mode, "align_corners": align_corners},
    )
    _compare(node, {"x": DATA}, exact=mode == "nearest")


@pytest.mark.parametrize("mode", ["nearest", "linear", "cubic"])
def test_interpolate1_pads_on_the_axes_match_cpu_plugin(mode):
    attrs = {"axes": [2, 3], "mode": mode, "pads_begin": [0, 0, 1, 2], "pads_end": [0, 0, 1, 0]}
    node = opset1.interpolate(parameter(DATA.shape, name="x"), _i64([9, 4]), attrs)
    _compare(node, {"x": DATA}, exact=mode == "nearest")


def test_interpolate1_rank5_linear():
    x = np.random.default_rng(4).standard_normal((1, 2, 3, 4, 5)).astype(np.float32)
    node = opset1.interpolate(
        parameter(x.shape, name="x"), _i64([5, 2, 7]), {"axes": [2, 3, 4], "mode": "linear"}
    )
    _compare(node, {"x": x})


def test_resize_is_vectorised_for_large_images():
    import time

    x = np.random.default_rng(5).standard_normal((1, 32, 128, 128)).astype(np.float32)
    start = time.perf_counter()
    out = resize(x, (1, 32, 256, 256), [2, 3], [2.0, 2.0], mode="cubic", transform="half_pixel")
    assert out.shape == (1, 32, 256, 256)
    assert time.perf_counter() - start < 2.0


# -- reported errors ------------------------------------------------------------------------------


def _net(version, data_shape, values, axes, attributes, values_type=None, out=(1,)):
    """An Interpolate-``version`` layer named ``i`` over a Parameter, a sizes (or scales) Const
    and an axes Const, written by hand (OpenVINO refuses to build these)."""
    net = Net()
    inputs = [net.param("x", data_shape)]
    array = np.array(values, values_type or (np.float32 if version == 1.5 else np.int64))
    inputs.append(net.const("v", array))
    if version == 4:
        inputs.append(net.const("f", np.ones(len(values), np.float32)))
    if axes is not None:
        inputs.append(net.const("a", np.array(axes, np.int64)))
    net.result(net.op("i", "Interpolate", f"opset{version}", attributes, inputs, list(out)))
    return net


SIZES11 = {"mode": "nearest", "shape_calculation_mode": "sizes"}


def test_pillow_mode_in_interpolate4_is_reported():
    net = _net(4, "1,3,4,4", [5, 6], [2, 3], {**SIZES11, "mode": "bilinear_pillow"})
    error = diagnostic(validated(net), "attribute-value")
    assert "mode 'bilinear_pillow' is not supported by Interpolate-4" in error.message
    assert error.line == line_of(net.text(), "<data", within="i")


def test_axes_out_of_range_are_reported():
    check_rejected(lambda: opset11.interpolate(parameter([1, 3, 4, 4]), _i64([5, 6]), "nearest",
                                               "sizes", axes=_i64([2, 4])))  # fmt: skip
    check_rejected(lambda: opset11.interpolate(parameter([1, 3, 4, 4]), _i64([5, 6]), "nearest",
                                               "sizes", axes=_i64([-1, 3])))  # fmt: skip
    for axes, bad in (([2, 4], 4), ([-1, 3], -1)):
        net = _net(11, "1,3,4,4", [5, 6], axes, SIZES11)
        error = diagnostic(validated(net), "axis-range")
        assert f"axes {axes} must all lie in [0, 3] for data of rank 4, but {bad}" in error.message
        assert error.line == line_of(net.text(), '<port id="2"', within="i")


def test_too_few_sizes_are_reported():
    check_rejected(lambda: opset11.interpolate(parameter([1, 3, 4, 4]), _i64([5]), "nearest",
                                               "sizes", axes=_i64([2, 3])))  # fmt: skip
    net = _net(11, "1,3,4,4", [5], [2, 3], SIZES11)
    error = diagnostic(validated(net), "input-dims")
    assert "sizes (input 1) has 1 element(s), fewer than the 2 axes [2, 3]" in error.message


def test_float_sizes_are_reported():
    check_rejected(lambda: opset11.interpolate(parameter([1, 3, 4, 4]), _f32([5, 6]), "nearest",
                                               "sizes", axes=_i64([2, 3])))  # fmt: skip
    net = _net(11, "1,3,4,4", [5, 6], [2, 3], SIZES11, values_type=np.float32)
    error = diagnostic(validated(net), "index-type")
    assert "sizes (input 1) is f32, but must be i32, i64, u32 or u64" in error.message


def test_integer_scales_are_reported():
    check_rejected(lambda: opset11.interpolate(parameter([1, 3, 4, 4]), _i64([2, 2]), "nearest",
                                               "scales", axes=_i64([2, 3])))  # fmt: skip
    net = _net(11, "1,3,4,4", [2, 2], [2, 3], {**SIZES11, "shape_calculation_mode": "scales"})
    error = diagnostic(validated(net), "input-type")
    assert "scales (input 1) is i64, but must be f32, f16 or bf16" in error.message


def test_sizes_of_rank_2_are_reported():
    check_rejected(lambda: opset11.interpolate(parameter([1, 3, 4, 4]), _i64([[5, 6]]),
                                               "nearest", "sizes", axes=_i64([2, 3])))  # fmt: skip
    net = _net(11, "1,3,4,4", [[5, 6]], [2, 3], SIZES11)
    error = diagnostic(validated(net), "input-rank")
    assert "sizes (input 1) must be 1-D, but its shape is [1,2]" in error.message


def test_interpolate1_axes_beyond_the_rank_are_reported():
    check_rejected(
        lambda: opset1.interpolate(
            parameter([1, 3, 4, 4]), _i64([5, 6]), {"axes": [3, 4], "mode": "nearest"}
        )
    )
    net = _net(1, "1,3,4,4", [5, 6], None, {"axes": "3,4", "mode": "nearest"})
    error = diagnostic(validated(net), "axis-range")
    assert "axes [3, 4] must all lie in [0, 3]" in error.message
    assert error.line == line_of(net.text(), "<data", within="i")


def test_interpolate1_area_is_checked_but_not_run():
    net = _net(1, "1,3,4,4", [5, 6], None, {"axes": "2,3", "mode": "area"}, out=(1, 3, 5, 6))
    assert not validated(net).errors
    import tempfile

    import irrun
    import irrun.errors

    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "m.xml").write_text(net.text())
        (Path(tmp) / "m.bin").write_bytes(bytes(net.blob))
        with pytest.raises(irrun.errors.ExecutionError, match="mode 'area' has no kernel"):
            irrun.load(Path(tmp) / "m.xml").run({"x": np.zeros((1, 3, 4, 4), np.float32)})
