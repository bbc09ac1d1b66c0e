"""DFT-7, IDFT-7, RDFT-9, IRDFT-9: shapes against OpenVINO (constant, unknown and ShapeOf-read
axes and signal sizes), kernels against the CPU plugin in f32, reported errors."""

from __future__ import annotations

import numpy as np
import openvino.opset1 as opset1
import openvino.opset3 as opset3
import openvino.opset7 as opset7
import openvino.opset9 as opset9
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irrun.element_types import element_type
from irrun.errors import IRError
from irrun.ops.base import TensorInfo
from irrun.ops.dft import DFT
from irrun.ops.rdft import RDFT
from irrun.shape import Shape
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
    dim_text,
    edited_report,
    first_line_with,
    op_settings,
    shape_text,
)

DIM = dim_text(st.integers(0, 6))
BUILDERS = {
    "DFT": opset7.dft,
    "IDFT": opset7.idft,
    "RDFT": opset9.rdft,
    "IRDFT": opset9.irdft,
}
COMPLEX = ("DFT", "IDFT", "IRDFT")

# Transforms of up to 64 points of data in [-1, 1]: OpenVINO sums in f32.
RTOL, ATOL = 1e-4, 1e-4


@st.composite
def _fft_case(draw):
    op = draw(st.sampled_from(sorted(BUILDERS)))
    shape = draw(shape_text(DIM, min_rank=1, max_rank=4))
    if op in COMPLEX and shape != "[...]":
        shape = (
            shape[:-1]
            + ("," if shape != "[]" else "")
            + draw(st.sampled_from(["2", "?", "1..3"]))
            + "]"
        )
    rank = None if shape == "[...]" else shape.count(",") + 1
    # at least one axis, even where OpenVINO refuses the rank (the example is then dropped)
    transformable = max(4 if rank is None else (rank - 1 if op in COMPLEX else rank), 1)
    count = draw(st.integers(1, transformable))
    axes = draw(st.lists(st.integers(-transformable, transformable - 1), min_size=count,
                         max_size=count, unique_by=lambda a: a % transformable))  # fmt: skip
    axes_kind = draw(st.sampled_from(["constant"] * 4 + ["unknown"]))
    signal_kind = draw(st.sampled_from(["none", "constant", "constant", "unknown", "shape_of"]))
    sizes = draw(st.lists(st.sampled_from([-1, 0, 1, 2, 3, 5, 8]), min_size=count,
                          max_size=count))  # fmt: skip
    index_type = draw(st.sampled_from(["i32", "i64"]))
    return op, shape, axes, axes_kind, signal_kind, sizes, index_type


@op_settings(40)
@given(_fft_case(), st.sampled_from(["f32", "f16"]))
def test_fft_shapes_match_openvino(case, etype):
    op, shape, axes, axes_kind, signal_kind, sizes, index_type = case
    data = parameter(shape, etype, name="x")
    params = [data]
    if axes_kind == "constant":
        axes_node = constant(np.array(axes), index_type)
    else:
        axes_node = parameter([len(axes)], index_type, name="axes")
        params.append(axes_node)
    if signal_kind == "none":
        signal = None
    elif signal_kind == "constant":
        signal = constant(np.array(sizes), index_type)
    elif signal_kind == "unknown":
        signal = parameter([len(sizes)], index_type, name="signal")
        params.append(signal)
    else:  # the last size read by ShapeOf from a tensor of dynamic dims
        y = parameter("[" + ",".join(["2..7"] * 1) + "]", name="y")
        params.append(y)
        read = opset3.shape_of(y, index_type)
        signal = read if len(sizes) == 1 else opset1.concat(
            [constant(np.array(sizes[:-1]), index_type), read], 0)  # fmt: skip
    builder = BUILDERS[op]
    node = built(lambda: builder(data, axes_node) if signal is None
                 else builder(data, axes_node, signal))  # fmt: skip
    import openvino as ov

    check_shapes(ov.Model(node.outputs(), params, "oracle"))


def test_fft_dims_from_bounds_and_clamped_sizes():
    """DFT reads signal sizes by bounds (a ShapeOf interval), RDFT and IRDFT only constants; a
    negative size other than -1 gives 0 (irrun reports it, see below)."""
    x = parameter([2, 3, 2], name="x")
    read = opset1.concat([constant(np.array([-1])), opset3.shape_of(parameter("[2..5]"))], 0)
    axes = constant(np.array([0, 1]))
    node = opset7.idft(x, axes, read)
    assert str(node.get_output_partial_shape(0)) == "[2,2..5,2]"
    check_shapes(node)
    node = opset9.irdft(x, axes, read)
    assert str(node.get_output_partial_shape(0)) == "[2,?]"
    check_shapes(node)
    node = opset9.irdft(parameter("[0..3,?,2]"), constant(np.array([0])))
    assert str(node.get_output_partial_shape(0)) == "[..4,?]"
    check_shapes(node)
    node = opset9.rdft(parameter("[0..3,?,5..]"), constant(np.array([0, 2])))
    assert str(node.get_output_partial_shape(0)) == "[..3,?,3..,2]"
    check_shapes(node)


def _complex(shape, seed=0):
    return np.random.default_rng(seed).uniform(-1, 1, shape).astype(np.float32)


@pytest.mark.parametrize(
    "op, shape, axes, sizes",
    [
        ("DFT", [2, 5, 2], [1], None),
        ("DFT", [3, 4, 6, 2], [0, 2], None),
        ("DFT", [3, 4, 6, 2], [-1, -3], [5, -1]),
        ("DFT", [2, 7, 2], [1], [3]),
        ("IDFT", [3, 4, 6, 2], [1, 2], None),
        ("IDFT", [2, 6, 2], [-1], [9]),
        ("IDFT", [4, 3, 5, 2], [2, 0, 1], [2, 4, -1]),
        ("RDFT", [3, 8], [1], None),
        ("RDFT", [3, 7], [1], None),
        ("RDFT", [2, 4, 6], [0, 2], [1, 5]),
        ("RDFT", [2, 4, 6], [-1, 1], [5, 3]),
        ("RDFT", [2, 4, 6], [-3, 2], None),
        ("IRDFT", [3, 5, 2], [1], None),
        ("IRDFT", [2, 4, 5, 2], [0, 2], None),
        ("IRDFT", [2, 4, 5, 2], [1, 2], [3, 7]),
        ("IRDFT", [2, 4, 5, 2], [1, 2], [4, 6]),
        ("IRDFT", [2, 4, 5, 2], [-2, -1], [3, 6]),
        ("IRDFT", [2, 4, 5, 2], [1, 2], [2, 8]),
        ("IRDFT", [2, 4, 5, 2], [2, 1], [3, 2]),
    ],
)
def test_fft_matches_cpu_plugin(op, shape, axes, sizes):
    """Signal sizes that cut the data (the CPU plugin's RDFT refuses padding; its IRDFT pads
    other than the spec says, see the module docstring of irrun.ops.rdft). The plugin's RDFT
    and IRDFT fail to compile with a signal size of -1: that one is checked below."""
    data = _complex(shape)
    args = [parameter(shape, name="x"), constant(np.array(axes))]
    if sizes is not None:
        args.append(constant(np.array(sizes)))
    model = model_of(BUILDERS[op](*args))
    expected = run_openvino(model, {"x": data})[0]
    got = run_irrun(model, {"x": data})[0]
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize(
    "op, shape, sizes, padded",
    [("RDFT", [2, 4, 6], [3, 9], [3, 4, 9]), ("IRDFT", [2, 4, 3, 2], [6, 4], [2, 6, 3, 2])],
)
def test_real_fft_padding_is_zeros_at_the_end(op, shape, sizes, padded):
    """A signal size above the data's pads with zeros, as the spec says. The CPU plugin's RDFT
    refuses that and its IRDFT gives other values, and OpenVINO's core has no reference of
    either: irrun's result is compared with the plugin's on data padded by hand."""
    data = _complex(shape)
    axes = constant(np.array([0, 2] if op == "RDFT" else [1, 2]))
    model = model_of(BUILDERS[op](parameter(shape, name="x"), axes, constant(np.array(sizes))))
    got = run_irrun(model, {"x": data})[0]
    by_hand = np.zeros(padded, np.float32)
    by_hand[tuple(slice(0, n) for n in shape)] = data
    if op == "IRDFT":  # IRDFT's last axis of 4 points reads 3 complex ones: the data's
        reference = model_of(BUILDERS[op](parameter(padded, name="x"), axes,
                                          constant(np.array([6, 4]))))  # fmt: skip
    else:
        reference = model_of(BUILDERS[op](parameter(padded, name="x"), axes))
    expected = run_openvino(reference, {"x": by_hand})[0]
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("op", ["RDFT", "IRDFT"])
def test_real_fft_signal_size_minus_one_is_the_data_size(op):
    shape = [2, 4, 5, 2] if op == "IRDFT" else [2, 4, 5]
    data = _complex(shape)
    x = parameter(shape, name="x")
    axes = constant(np.array([1, 2]))
    last = 8 if op == "IRDFT" else 5  # IRDFT: 2 * (5 - 1)
    kept = run_irrun(model_of(BUILDERS[op](x, axes, constant(np.array([-1, -1])))), {"x": data})
    sized = model_of(BUILDERS[op](x, axes, constant(np.array([4, last]))))
    np.testing.assert_array_equal(kept[0], run_irrun(sized, {"x": data})[0])
    np.testing.assert_allclose(kept[0], run_openvino(sized, {"x": data})[0], rtol=RTOL,
                               atol=ATOL)  # fmt: skip


def test_fft_round_trips():
    data = _complex([3, 8, 2], 1)
    x = parameter([3, 8, 2], name="x")
    axes = constant(np.array([1]))
    got = run_irrun(model_of(opset7.idft(opset7.dft(x, axes), axes)), {"x": data})[0]
    np.testing.assert_allclose(got, data, rtol=1e-6, atol=1e-6)
    real = data[..., 0]
    r = parameter([3, 8], name="x")
    got = run_irrun(model_of(opset9.irdft(opset9.rdft(r, axes), axes)), {"x": real})[0]
    np.testing.assert_allclose(got, real, rtol=1e-6, atol=1e-6)


def test_fft_with_axes_and_sizes_from_inputs_runs():
    data = _complex([2, 6, 2])
    x = parameter([2, 6, 2], name="x")
    axes, sizes = parameter([1], "i64", name="axes"), parameter([1], "i32", name="sizes")
    model = model_of(opset7.dft(x, axes, sizes))
    feed = {"x": data, "axes": np.array([1]), "sizes": np.array([4], np.int32)}
    expected = run_openvino(model, feed)[0]
    got = run_irrun(model, feed)[0]
    assert got.shape == (2, 4, 2)
    np.testing.assert_allclose(got, expected, rtol=RTOL, atol=ATOL)
    feed["sizes"] = np.array([-3], np.int32)
    with pytest.raises(
        Exception,
        match=r"signal_size \[-3\] holds -3; a signal size is -1 \(the "
        r"data's size\) or a size >= 0 \(in this run: input shapes \[2, 6, 2\], "
        r"\[1\], \[1\]; a value of this run that the layer refuses\)",
    ):
        run_irrun(model, feed)


def _check_reported(model, edit, code, fragment, line_fragment):
    report, text = edited_report(model, edit)
    found = diagnostic(report, code)
    assert fragment in found.message, found.message
    assert found.line == first_line_with(text, line_fragment)


def test_fft_invalid_inputs_are_reported():
    x = parameter([2, 3, 2], name="x")
    axes = constant(np.array([0]))
    check_rejected(lambda: opset7.dft(parameter([2, 3, 2], "f64"), axes))
    check_rejected(lambda: opset7.dft(x, constant(np.array([0], np.uint8))))
    check_rejected(lambda: opset7.dft(x, constant(np.array([2]))))
    check_rejected(lambda: opset7.dft(x, constant(np.array([0, -2]))))
    check_rejected(lambda: opset7.dft(parameter([2, 3, 3]), axes))
    check_rejected(lambda: opset7.dft(parameter([2]), axes))
    check_rejected(lambda: opset9.rdft(parameter([2, 3]), constant(np.array([0, 1, 1]))))
    check_rejected(lambda: opset9.rdft(parameter([2, 3]), axes, constant(np.array([1, 1]))))
    check_rejected(lambda: opset9.rdft(parameter([2, 3]), constant(np.array([[0]]))))
    check_rejected(lambda: opset9.rdft(parameter([2, 3]), axes, constant(np.array([4.0]))))
    model = model_of(opset7.dft(parameter("[2,3,?]", name="x"), constant(np.array([1]))))
    _check_reported(model, lambda t: t.replace("2,3,?", "2,3,3").replace("-1</dim>", "3</dim>"),
                    "input-dims", "the last dim of the data must be 2 (real, imaginary), but "
                    "the data's shape is [2,3,3]", '<port id="0" precision="FP32">')  # fmt: skip
    model = model_of(opset9.rdft(parameter([2, 3], name="x"), constant(np.array([1]))))
    _check_reported(model, lambda t: t.replace('element_type="f32"', 'element_type="f64"', 1)
                    .replace('precision="FP32"', 'precision="FP64"'), "input-type",
                    "data must be f32, f16 or bf16, but input 0 is f64",
                    '<port id="0" precision="FP64">')  # fmt: skip


def test_fft_bad_axes_and_sizes_are_reported():
    op = bare_op(DFT)
    x = TensorInfo(Shape([2, 3, 2]), element_type("f32"))
    with pytest.raises(IRError, match=r"axis 2 is out of the range \[-2, 1\] allowed for rank 2"):
        op.infer([x, const_info([2])])
    with pytest.raises(IRError, match=r"axis -2 is given twice"):
        op.infer([x, const_info([0, -2])])
    with pytest.raises(IRError, match=r"3 axes for data \[2,3,2\], which has 2 complex dims"):
        op.infer([TensorInfo(Shape([2, 3, 2]), element_type("f32")), const_info([0, 1, 0])])
    with pytest.raises(IRError, match=r"signal_size \[-5\] holds -5; a signal size is -1"):
        op.infer([x, const_info([0]), const_info([-5])])
    with pytest.raises(
        IRError,
        match=r"signal_size of shape \[1\] must have one size per axis, but axes has "
        r"shape \[2\]",
    ):
        op.infer([x, const_info([0, 1]), const_info([1])])
    with pytest.raises(IRError, match=r"data must have rank >= 1, but its shape is \[\]"):
        bare_op(RDFT).infer([TensorInfo(Shape([]), element_type("f32")), const_info([0])])
    with pytest.raises(IRError, match=r"axes must be a 1-D tensor, but its shape is \[\]"):
        bare_op(RDFT).infer([TensorInfo(Shape([3]), element_type("f32")), const_info(0)])
