"""STFT-15 and ISTFT-16: shapes against OpenVINO (constant and unknown frame sizes and steps,
interval signal sizes, ShapeOf-read signal lengths), kernels against the CPU plugin in f32,
reported errors."""

from __future__ import annotations

import numpy as np
import openvino as ov
import openvino.opset3 as opset3
import openvino.opset15 as opset15
import openvino.opset16 as opset16
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irrun.element_types import element_type
from irrun.errors import IRError
from irrun.ops.base import TensorInfo
from irrun.ops.istft import ISTFT
from irrun.ops.stft import STFT
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
    bare_op,
    built,
    const_info,
    diagnostic,
    dim_around,
    edited_report,
    first_line_with,
    op_settings,
)

STFT_TOL = {"rtol": 1e-4, "atol": 1e-4}
ISTFT_TOL = {"rtol": 1e-3, "atol": 1e-4}


def _scalar(value, known, etype, name, params):
    if known:
        return constant(np.array(value), etype)
    node = parameter([], etype, name=name)
    params.append(node)
    return node


@op_settings(40)
@given(
    st.data(),
    st.integers(1, 2),
    st.integers(1, 12),
    st.integers(1, 5),
    st.booleans(),
    st.booleans(),
    st.sampled_from(["i32", "i64"]),
    st.booleans(),
)
def test_stft_shapes_match_openvino(
    data, rank, frame_size, step, transpose, known, itype, rank_known
):
    length = data.draw(st.integers(frame_size, frame_size + 20))
    dims = [data.draw(dim_around(3))] * (rank - 1) + [data.draw(dim_around(length))]
    shape = "[" + ",".join(dims) + "]" if rank_known else "[...]"
    window = data.draw(st.sampled_from([str(frame_size), "?", f"1..{frame_size}"]))
    params = [parameter(shape, name="x")]
    w = parameter(f"[{window}]", name="w")
    params.append(w)
    size = _scalar(frame_size, known, itype, "size", params)
    stride = _scalar(step, data.draw(st.booleans()), itype, "step", params)
    node = built(lambda: opset15.stft(params[0], w, size, stride, transpose))
    check_shapes(ov.Model(node.outputs(), params, "oracle"))


@op_settings(40)
@given(
    st.data(),
    st.integers(3, 4),
    st.integers(1, 12),
    st.integers(1, 5),
    st.booleans(),
    st.sampled_from(["none", "constant", "minus_one", "unknown", "shape_of"]),
)
def test_istft_shapes_match_openvino(data, rank, frame_size, step, center, length_kind):
    frames = data.draw(st.integers(1, 8))
    bins = frame_size // 2 + 1
    sizes = [2][: rank - 3] + [bins, frames, 2]
    shape = data.draw(st.sampled_from(["[...]"] + ["[" + ",".join(
        data.draw(dim_around(s)) for s in sizes) + "]"] * 6))  # fmt: skip
    params = [parameter(shape, name="x"), parameter([frame_size], name="w")]
    size = _scalar(frame_size, data.draw(st.booleans()), "i64", "size", params)
    stride = _scalar(step, data.draw(st.booleans()), "i32", "step", params)
    args = [params[0], params[1], size, stride, center, data.draw(st.booleans())]
    if length_kind == "constant":
        args.append(constant(np.array(data.draw(st.integers(1, 30)))))
    elif length_kind == "minus_one":
        args.append(constant(np.array([-1])))
    elif length_kind == "unknown":
        args.append(parameter([], "i64", name="length"))
        params.append(args[-1])
    elif length_kind == "shape_of":
        y = parameter(f"[{data.draw(dim_around(5))}]", name="y")
        params.append(y)
        args.append(opset3.shape_of(y))
    node = built(lambda: opset16.istft(*args))
    check_shapes(ov.Model(node.outputs(), params, "oracle"))


def test_stft_frames_of_an_interval_signal():
    node = opset15.stft(parameter("[2,10..48]"), parameter([16]), constant(np.int64(16)),
                        constant(np.int64(4)), False)  # fmt: skip
    assert str(node.get_output_partial_shape(0)) == "[2,1..9,9,2]"
    check_shapes(node)


def _signal(shape, seed=0):
    return np.random.default_rng(seed).uniform(-1, 1, shape).astype(np.float32)


def _hann(size):
    return (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(size) / size)).astype(np.float32)


@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize(
    "shape, window, frame_size, step",
    [([2, 48], 16, 16, 4), ([37], 10, 12, 5), ([3, 20], 7, 8, 3), ([1, 9], 4, 9, 1)],
)
def test_stft_matches_cpu_plugin(shape, window, frame_size, step, transpose):
    x, w = _signal(shape), _hann(window)
    model = model_of(opset15.stft(parameter(shape, name="x"), parameter([window], name="w"),
                                  constant(np.int64(frame_size)), constant(np.int32(step)),
                                  transpose))  # fmt: skip
    expected = run_openvino(model, {"x": x, "w": w})[0]
    got = run_irrun(model, {"x": x, "w": w})[0]
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_allclose(got, expected, **STFT_TOL)


@pytest.mark.parametrize("normalized", [False, True])
@pytest.mark.parametrize("center", [False, True])
@pytest.mark.parametrize(
    "batch, window, frame_size, step, frames, length",
    [
        (2, 16, 16, 4, 9, None),
        (None, 10, 12, 3, 7, None),
        (3, 8, 8, 2, 5, 11),
        (1, 6, 6, 3, 4, 30),
    ],
)
def test_istft_matches_cpu_plugin(batch, window, frame_size, step, frames, length, center,
                                  normalized):  # fmt: skip
    shape = ([batch] if batch else []) + [frame_size // 2 + 1, frames, 2]
    x, w = _signal(shape), _hann(window)
    size, stride = constant(np.int64(frame_size)), constant(np.int64(step))
    args = [parameter(shape, name="x"), parameter([window], name="w"), size, stride, center,
            normalized]  # fmt: skip
    if length is not None:
        args.append(constant(np.int64(length)))
    model = model_of(opset16.istft(*args))
    expected = run_openvino(model, {"x": x, "w": w})[0]
    got = run_irrun(model, {"x": x, "w": w})[0]
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_allclose(got, expected, **ISTFT_TOL)


def test_istft_inverts_stft():
    x, w = _signal([2, 40], 3), _hann(16)
    xs = parameter([2, 40], name="x")
    wp = parameter([16], name="w")
    size, step = constant(np.int64(16)), constant(np.int64(4))
    spectrum = opset15.stft(xs, wp, size, step, True)
    model = model_of(opset16.istft(spectrum, wp, size, step, False, False, constant(np.int64(40))))
    got = run_irrun(model, {"x": x, "w": w})[0]
    # samples 1..36 are covered by a non-zero window sum (Hann is 0 at its first sample)
    np.testing.assert_allclose(got[:, 1:36], x[:, 1:36], rtol=1e-5, atol=1e-5)


def test_stft_and_istft_errors_are_reported():
    x, w = parameter([2, 48], name="x"), parameter([16], name="w")
    c = constant
    check_rejected(
        lambda: opset15.stft(parameter([2, 3, 48]), w, c(np.int64(16)), c(np.int64(4)), False)
    )
    check_rejected(
        lambda: opset15.stft(parameter([2, 15]), w, c(np.int64(16)), c(np.int64(4)), False)
    )
    check_rejected(lambda: opset15.stft(x, parameter([17]), c(np.int64(16)), c(np.int64(4)), False))
    check_rejected(lambda: opset15.stft(x, w, c(np.int64(16)), c(np.int64(0)), False))
    check_rejected(
        lambda: opset15.stft(x, parameter([16], "f16"), c(np.int64(16)), c(np.int64(4)), False)
    )
    check_rejected(lambda: opset15.stft(x, w, c(np.uint8(16)), c(np.int64(4)), False))
    check_rejected(
        lambda: opset16.istft(
            parameter([3, 8, 9, 2]), w, c(np.int64(16)), c(np.int64(4)), False, False
        )
    )
    check_rejected(
        lambda: opset16.istft(parameter([9, 2]), w, c(np.int64(16)), c(np.int64(4)), False, False)
    )
    check_rejected(
        lambda: opset16.istft(
            parameter([9, 9, 2]),
            w,
            c(np.int64(16)),
            c(np.int64(4)),
            False,
            False,
            c(np.array([40, 2])),
        )
    )
    stft = bare_op(STFT, {"transpose_frames": "false"})
    f32 = element_type("f32")
    signal, window = (
        TensorInfo(parameter_shape("[2,15]"), f32),
        TensorInfo(parameter_shape("[16]"), f32),
    )
    with pytest.raises(
        IRError, match=r"frame_size 16 is longer than the signal \(\[2,15\]: at most 15"
    ):
        stft.infer([signal, window, const_info(16), const_info(4)])
    with pytest.raises(IRError, match="frame_step must be > 0, but it is 0"):
        stft.infer([signal, window, const_info(8), const_info(0)])
    with pytest.raises(IRError, match=r"the window's size 16 must be from 1 to the frame_size 8"):
        stft.infer([signal, window, const_info(8), const_info(2)])
    istft = bare_op(ISTFT, {"center": "false", "normalized": "false"})
    data = TensorInfo(parameter_shape("[3,8,9,2]"), f32)
    with pytest.raises(
        IRError,
        match=r"data \[3,8,9,2\] has 8 bins \(dim -3\), but frame_size 16 "
        r"needs 16 // 2 \+ 1 = 9",
    ):
        istft.infer([data, window, const_info(16), const_info(4)])
    data = TensorInfo(parameter_shape("[3,9,9,2]"), f32)
    with pytest.raises(
        IRError, match=r"signal_length must be >= 1 \(or -1: computed\), but it is 0"
    ):
        istft.infer([data, window, const_info(16), const_info(4), const_info(0)])
    with pytest.raises(IRError, match="window must be a floating-point tensor matching the data's"):
        istft.infer(
            [
                data,
                TensorInfo(parameter_shape("[16]"), element_type("f16")),
                const_info(16),
                const_info(4),
            ]
        )


def parameter_shape(text):
    from irrun.shape import Shape

    return Shape.parse(text)


def test_stft_type_error_names_the_line():
    x, w = parameter([2, 48], name="x"), parameter([16], name="w")
    model = model_of(opset15.stft(x, w, constant(np.int64(16)), constant(np.int64(4)), False))

    def edit(text):
        return text.replace('element_type="i64"', 'element_type="u8"', 1).replace(
            'precision="I64"', 'precision="U8"'
        )

    report, text = edited_report(model, edit)
    found = diagnostic(report, "index-type")
    assert "frame_size must be i32 or i64, but input 2 is u8" in found.message
    assert found.line == first_line_with(text, '<port id="2" precision="U8"')
