"""BinaryConvolution-1: shapes against OpenVINO's op constructor, errors, values against a
direct transcription of the specification and of OpenVINO's reference implementation (every
attribute, data type, pad value and non-binary value), values against OpenVINO's CPU plugin
where its reading agrees with the specification, and a model that holds one (run, and compared
with the CPU plugin's deviation labelled)."""

from __future__ import annotations

import numpy as np
import openvino as ov
import openvino.opset1 as ops
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import irrun
from irrun.compare import compare
from irrun.compare.deviations import binary_convolution_cpu_reading
from tests.helpers.cli import invoke
from tests.helpers.conv_strategies import convolution_geometry
from tests.helpers.openvino_oracle import (
    check_rejected,
    check_shapes,
    model_of,
    parameter,
    run_irrun,
    run_openvino,
)
from tests.helpers.strategies import diagnostic, edited_report, first_line_with, op_settings

MODE = "xnor-popcount"


def _binary(data="[1,16,8,8]", filters="[4,16,3,3]", data_type="f32", filter_type="u1",
            strides=(1, 1), pads=(1, 1), dilations=(1, 1), auto_pad="explicit",
            pad_value=-1.0):  # fmt: skip
    return ops.binary_convolution(
        parameter(data, data_type, name="x"),
        parameter(filters, filter_type, name="w"),
        list(strides),
        list(pads),
        list(pads),
        list(dilations),
        MODE,
        pad_value,
        auto_pad,
        name="binary",
    )


@op_settings(40, rejects_many=True)  # (two cases in three are 1-D or 3-D: refused)
@given(
    convolution_geometry(False, transposed=False, max_size=7, pads=st.just((0, 2))),
    st.sampled_from(["f32", "f16", "i32", "u1"]),
    st.sampled_from(["u1", "f32"]),
)
def test_shapes_match_openvino(case, data_type, filter_type):
    data, filters, strides, pads_begin, pads_end, dilations, auto_pad = case
    try:
        node = ops.binary_convolution(
            parameter(data, data_type, name="x"),
            parameter(filters, filter_type, name="w"),
            strides, pads_begin, pads_end, dilations, MODE, 0.0, auto_pad,
        )  # fmt: skip
    except Exception:
        assume(False)  # (OpenVINO's refusals are tested one by one below)
    check_shapes(node)


@pytest.mark.parametrize(
    "data, filters, expected",
    [
        ("[...]", "[4,16,3,3]", "[?,4,1..,1..]"),
        ("[...]", "[4,16,3,3,3]", "[?,4,1..,1..,1..]"),  # (the 4-D check is on the data only)
        ("[?,16,?,9]", "[4,?,3,3]", "[?,4,1..,4]"),
        ("[...]", "[...]", "[?,?,1..,1..]"),
    ],
)
def test_unknown_ranks_and_dims_match_openvino(data, filters, expected):
    spatial = 3 if filters.count(",") == 4 else 2
    stride = 2 if data == "[?,16,?,9]" else 1
    node = _binary(data, filters, strides=(stride,) * spatial, pads=(0,) * spatial,
                   dilations=(1,) * spatial)  # fmt: skip
    assert str(node.get_output_partial_shape(0)) == expected
    check_shapes(node)


def test_output_takes_the_data_type_whatever_the_filters():
    for data_type in ("f16", "u1", "dynamic"):
        check_shapes(_binary(data_type=data_type, filter_type="i8"))


def test_data_of_another_rank_is_refused():
    check_rejected(lambda: _binary("[1,16,8]", "[4,16,3]", strides=[1], pads=[0], dilations=[1]))
    model = model_of(_binary())

    def edit(text):  # data and filters declared 3-D, attributes with one spatial axis
        for old, new in (("<dim>8</dim>\n\t\t\t\t\t<dim>8</dim>", "<dim>8</dim>"),
                         ("<dim>3</dim>\n\t\t\t\t\t<dim>3</dim>", "<dim>3</dim>"),
                         ('shape="1,16,8,8"', 'shape="1,16,8"'),
                         ('shape="4,16,3,3"', 'shape="4,16,3"')):  # fmt: skip
            text = text.replace(old, new)
        for name in ("strides", "pads_begin", "pads_end", "dilations"):
            text = text.replace(f'{name}="1, 1"', f'{name}="1"')
        return text

    report, _ = edited_report(model, edit)
    error = diagnostic(report, "input-rank")
    assert error.message == (
        "layer 2 'binary' (BinaryConvolution-1): data must be 4-D ([N, C_in, H, W]), but it is "
        "[1,16,8] (rank 3); OpenVINO refuses it"
    ), report.to_text()


def test_boolean_data_and_a_channel_mismatch_are_refused():
    check_rejected(lambda: _binary(data_type="boolean"))
    check_rejected(lambda: _binary(filters="[4,8,3,3]"))
    model = model_of(_binary())

    def boolean_data(text):  # the Parameter's type and both ends of its edge
        text = text.replace('element_type="f32"', 'element_type="boolean"', 1)
        return text.replace('precision="FP32"', 'precision="BOOL"', 2)

    report, _ = edited_report(model, boolean_data)
    error = diagnostic(report, "input-type")
    assert "the data must be numeric, not boolean" in error.message, report.to_text()
    report, _ = edited_report(model, lambda t: t.replace('shape="4,16,3,3"', 'shape="4,8,3,3"')
                              .replace("<dim>4</dim>\n\t\t\t\t\t<dim>16</dim>",
                                       "<dim>4</dim>\n\t\t\t\t\t<dim>8</dim>"))  # fmt: skip
    error = diagnostic(report, "input-dims")
    assert "has 16 input channels" in error.message and "expect 8" in error.message


def test_mode_and_pad_value_are_checked():
    check_rejected(lambda: ops.binary_convolution(
        parameter([1, 4, 5, 5]), parameter([2, 4, 3, 3], "u1"), [1, 1], [0, 0], [0, 0], [1, 1],
        "xor", 0.0))  # fmt: skip
    model = model_of(_binary())
    report, text = edited_report(model, lambda t: t.replace(f'mode="{MODE}"', 'mode="xor"'))
    error = diagnostic(report, "attribute-value")
    assert "xor" in error.message and MODE in error.message, report.to_text()
    assert error.line == first_line_with(text, 'mode="xor"')
    report, _ = edited_report(model, lambda t: t.replace(f'mode="{MODE}"', ""))
    error = diagnostic(report, "missing-attribute")
    assert error.message.endswith(
        "has no 'mode' attribute; OpenVINO silently uses xnor-popcount, its only value, but the "
        "specification requires the attribute"
    ), report.to_text()
    assert error.hint == f'add mode="{MODE}" to the layer\'s <data> element'
    report, _ = edited_report(model, lambda t: t.replace('pad_value="-1"', ""))
    error = diagnostic(report, "missing-attribute")
    assert "pad_value" in error.message, report.to_text()


@pytest.fixture(scope="module")
def binary_xml(tmp_path_factory):
    """x -> BinaryConvolution (u1 filters from a Const) -> Relu, and x -> Negative."""
    x = ops.parameter([1, 8, 5, 5], np.float32, name="x")
    bits = np.random.default_rng(3).integers(0, 2, (4, 8, 3, 3)).astype(np.uint8)
    filters = ops.constant(bits, ov.Type.u1)
    binary = ops.binary_convolution(x, filters, [1, 1], [1, 1], [1, 1], [1, 1], MODE, -1.0,
                                    name="binary")  # fmt: skip
    relu = ops.relu(binary, name="relu")
    other = ops.negative(x, name="other")
    for node in (relu, other):
        node.output(0).set_names({node.get_friendly_name()})
    xml = tmp_path_factory.mktemp("binary") / "binary.xml"
    ov.save_model(ov.Model([relu, other], [x], "binary"), xml, compress_to_fp16=False)
    return xml


def test_a_model_with_one_is_checked_and_runs(binary_xml):
    model = irrun.load(binary_xml)
    report = model.validate()
    assert report.ok and report.layers_trusted == 0, report.to_text()
    assert model.layer("binary").outputs[0].inferred_shape.dims == (1, 4, 5, 5)
    x = np.random.default_rng(0).integers(0, 2, (1, 8, 5, 5)).astype(np.float32)
    results = model.run({"x": x})
    bits = np.random.default_rng(3).integers(0, 2, (4, 8, 3, 3)).astype(np.uint8)
    expected = _specification(x, bits, (1, 1), (1, 1), (1, 1), (1, 1), -1.0)
    assert np.array_equal(results["relu"], np.maximum(expected, 0))
    assert np.array_equal(results["other"], -x)
    result = invoke("execute", binary_xml)
    assert result.exit_code == 0, result.output


def test_compare_labels_the_cpu_plugins_reading_and_compares_the_rest(binary_xml):
    model = irrun.load(binary_xml)
    x = np.random.default_rng(1).standard_normal((1, 8, 5, 5)).astype(np.float32)
    comparison = compare(model, {"x": x})
    tensors = {t.layer_name: t for t in comparison.tensors}
    assert tensors["binary"].status == "known-deviation"
    assert tensors["binary"].deviation.startswith(
        "BinaryConvolution: CPU binarises the data as x > 0, reads the bits of each filter byte "
        "in reverse order"
    ), tensors["binary"].deviation
    assert [tensors[name].status for name in ("relu", "other")] == ["downstream", "match"]
    assert comparison.ok
    assert comparison.bridged == []


# -- values ------------------------------------------------------------------------------------
def _specification(data, bits, strides, pads_begin, pads_end, dilations, pad_value):
    """The output as OpenVINO's reference implementation computes it, position by position:
    +1 where the value (or pad_value in the pad area, cast to the data type) equals the filter
    bit, -1 elsewhere, summed over the window of every input channel."""
    n, c, h, w = data.shape
    k, _, kh, kw = bits.shape
    pad = np.array(np.float32(pad_value)).astype(data.dtype) if data.dtype.kind == "f" else (
        np.array(np.trunc(pad_value)))  # fmt: skip
    out_h = (h + pads_begin[0] + pads_end[0] - (kh - 1) * dilations[0] - 1) // strides[0] + 1
    out_w = (w + pads_begin[1] + pads_end[1] - (kw - 1) * dilations[1] - 1) // strides[1] + 1
    out = np.zeros((n, k, out_h, out_w), np.int64)
    for b, f, y, x in np.ndindex(out.shape):
        total = 0
        for ch, dy, dx in np.ndindex(c, kh, kw):
            row = y * strides[0] - pads_begin[0] + dy * dilations[0]
            col = x * strides[1] - pads_begin[1] + dx * dilations[1]
            inside = 0 <= row < h and 0 <= col < w
            value = data[b, ch, row, col] if inside else pad
            total += 1 if value == bits[f, ch, dy, dx] else -1
        out[b, f, y, x] = total
    return out.astype(data.dtype)


def _binary_model(data_shape, bits, strides, pads_begin, pads_end, dilations, pad_value,
                  auto_pad="explicit", data_type="f32"):  # fmt: skip
    x = parameter(list(data_shape), data_type, name="x")
    filters = ov.op.Constant(ov.Type.u1, ov.Shape(list(bits.shape)), bits.reshape(-1).tolist())
    node = ops.binary_convolution(x, filters, list(strides), list(pads_begin),
                                  list(pads_end), list(dilations), MODE, pad_value, auto_pad,
                                  name="binary")  # fmt: skip
    return model_of(node)


@pytest.mark.parametrize("data_type", ["f32", "f16", "f64", "i32", "u8", "i8"])
@pytest.mark.parametrize(
    ("strides", "pads_begin", "pads_end", "dilations", "pad_value"),
    [
        ((1, 1), (0, 0), (0, 0), (1, 1), 0.0),
        ((1, 1), (1, 1), (1, 1), (1, 1), 0.0),
        ((1, 1), (1, 1), (1, 1), (1, 1), 1.0),
        ((2, 1), (1, 2), (2, 0), (1, 2), -1.0),
        ((1, 2), (2, 1), (0, 1), (2, 1), 0.5),  # integers truncate it to 0; floats match nothing
        ((3, 2), (0, 2), (1, 0), (1, 1), 1.0),
    ],
)
def test_values_are_the_specifications(data_type, strides, pads_begin, pads_end, dilations,
                                       pad_value, tmp_path):  # fmt: skip
    rng = np.random.default_rng(sum(strides) * 10 + sum(pads_begin))
    dtype = np.dtype({"f32": "float32", "f16": "float16", "f64": "float64", "i32": "int32",
                      "u8": "uint8", "i8": "int8"}[data_type])  # fmt: skip
    # mostly 0 and 1, with values that match no bit (2, -1, 0.5 for floats)
    choices = [0, 1, 0, 1, 0, 1, 2] + ([-1, 0.5] if dtype.kind == "f" else [3])
    data = rng.choice(np.array(choices, np.float64), (2, 5, 7, 6)).astype(dtype)
    bits = rng.integers(0, 2, (3, 5, 3, 2)).astype(np.uint8)
    model = _binary_model(data.shape, bits, strides, pads_begin, pads_end, dilations, pad_value,
                          data_type=data_type)  # fmt: skip
    (got,) = run_irrun(model, {"x": data}, tmp_path)
    expected = _specification(data, bits, strides, pads_begin, pads_end, dilations, pad_value)
    assert got.dtype == dtype
    assert np.array_equal(got, expected)


def test_integer_data_wraps_as_the_data_type(tmp_path):
    data = np.zeros((1, 1, 3, 3), np.uint8)  # every value 0: each of the 9 bits 1 gives -1
    bits = np.ones((1, 1, 3, 3), np.uint8)
    model = _binary_model(data.shape, bits, (1, 1), (0, 0), (0, 0), (1, 1), 0.0, data_type="u8")
    (got,) = run_irrun(model, {"x": data}, tmp_path)
    assert got.tolist() == [[[[256 - 9]]]]


#: The bytes whose bits read the same in both orders: filters made of them are read alike by
#: the specification and by the CPU plugin (which reads the bits of a byte in reverse).
_PALINDROMES = np.array([b for b in range(256) if f"{b:08b}" == f"{b:08b}"[::-1]], np.uint8)


@pytest.mark.parametrize(
    ("channels", "strides", "pads", "dilations", "auto_pad"),
    [
        (8, (1, 1), ((0, 0), (0, 0)), (1, 1), "explicit"),
        (8, (2, 1), ((1, 2), (2, 1)), (1, 2), "explicit"),
        (16, (2, 2), ((0, 0), (0, 0)), (1, 1), "same_upper"),
        (16, (1, 1), ((0, 0), (0, 0)), (2, 2), "same_lower"),
        (24, (1, 2), ((0, 0), (0, 0)), (1, 1), "valid"),
    ],
)
def test_values_match_the_cpu_plugin_where_it_reads_as_the_specification(
    channels, strides, pads, dilations, auto_pad, tmp_path
):
    """0/1 data, pad_value 1 and bit-palindromic filter bytes: the cases where the CPU
    plugin's reading (see the deviation below) is the specification's. Bit for bit."""
    rng = np.random.default_rng(channels + sum(strides))
    count = 3 * channels * 3 * 3
    bits = np.unpackbits(rng.choice(_PALINDROMES, count // 8)).reshape(3, channels, 3, 3)
    data = rng.integers(0, 2, (2, channels, 7, 6)).astype(np.float32)
    model = _binary_model(data.shape, bits, strides, *pads, dilations, 1.0, auto_pad)
    (got,) = run_irrun(model, {"x": data}, tmp_path)
    (expected,) = run_openvino(model, {"x": data})
    assert np.array_equal(got, expected)


@pytest.mark.parametrize(("channels", "pad_value"), [(8, 0.0), (16, -1.0), (8, 1.0)])
def test_the_cpu_plugins_reading_is_labelled_only_where_it_is_what_cpu_gives(
    channels, pad_value, tmp_path
):
    rng = np.random.default_rng(channels)
    bits = rng.integers(0, 2, (4, channels, 3, 3)).astype(np.uint8)
    data = rng.standard_normal((1, channels, 5, 6)).astype(np.float32)
    model = _binary_model(data.shape, bits, (1, 1), (1, 1), (1, 2), (1, 1), pad_value)
    (ours,) = run_irrun(model, {"x": data}, tmp_path)
    (theirs,) = run_openvino(model, {"x": data})
    assert not np.array_equal(ours, theirs)  # (random data and filters: the readings differ)
    layer = irrun.load(tmp_path / "model.xml").layer("binary")
    label = binary_convolution_cpu_reading(layer, [data, bits], ours, theirs)
    assert label is not None and label.startswith("BinaryConvolution: CPU binarises")
    assert binary_convolution_cpu_reading(layer, [data, bits], ours, theirs + 1) is None


def test_input_channels_not_a_multiple_of_8_are_labelled(tmp_path):
    rng = np.random.default_rng(3)
    bits = rng.integers(0, 2, (2, 3, 3, 3)).astype(np.uint8)
    data = rng.integers(0, 2, (1, 3, 5, 5)).astype(np.float32)
    model = _binary_model(data.shape, bits, (1, 1), (0, 0), (0, 0), (1, 1), 1.0)
    (ours,) = run_irrun(model, {"x": data}, tmp_path)
    assert np.array_equal(ours, _specification(data, bits, (1, 1), (0, 0), (0, 0), (1, 1), 1.0))
    (theirs,) = run_openvino(model, {"x": data})
    assert not np.array_equal(ours, theirs)
    layer = irrun.load(tmp_path / "model.xml").layer("binary")
    assert binary_convolution_cpu_reading(layer, [data, bits], ours, theirs) == (
        "BinaryConvolution with C_in = 3, not a multiple of 8: CPU leaves some of the inputs out "
        "of the sum"
    )
