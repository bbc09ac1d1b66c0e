"""BinaryConvolution-1: shapes against OpenVINO's op constructor, errors, and a model that holds
one (checked, run with --partial, compared with OpenVINO's tensor bridged in)."""

from __future__ import annotations

import numpy as np
import openvino as ov
import openvino.opset1 as ops
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import irrun
from irrun.compare import compare
from tests.helpers.cli import invoke
from tests.helpers.conv_strategies import convolution_geometry
from tests.helpers.openvino_oracle import check_rejected, check_shapes, model_of, parameter
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


def test_a_model_with_one_is_checked_and_runs_partially(binary_xml):
    model = irrun.load(binary_xml)
    report = model.validate()
    assert report.ok and report.layers_trusted == 0, report.to_text()
    assert model.layer("binary").outputs[0].inferred_shape.dims == (1, 4, 5, 5)
    x = np.random.default_rng(0).standard_normal((1, 8, 5, 5)).astype(np.float32)
    with pytest.raises(irrun.UnsupportedOpError) as refused:
        model.run({"x": x})
    assert refused.value.message.startswith(
        "irrun cannot run 1 layer(s) of this model: BinaryConvolution (opset1): 1 layer(s), "
        "first 'binary' at line "
    )
    runs = ("It runs every op version of OpenVINO's opset1 to opset17 but BinaryConvolution-1 "
            "(see irrun.op_status.op_status()), and no custom op;")  # fmt: skip
    assert runs in refused.value.message
    results = model.run({"x": x}, partial=True)
    assert np.array_equal(results["other"], -x)
    assert [n.layer.name for n in results.not_run][:2] == ["binary", "relu"]
    assert results.not_run[0].reason == "irrun has no kernel for it"
    result = invoke("execute", binary_xml, "--partial")
    assert result.exit_code == 1, result.output
    assert "binary" in result.output and "BinaryConvolution" in result.output


def test_compare_bridges_it_with_openvino_and_compares_the_rest(binary_xml):
    model = irrun.load(binary_xml)
    x = np.random.default_rng(1).standard_normal((1, 8, 5, 5)).astype(np.float32)
    comparison = compare(model, {"x": x})
    tensors = {t.layer_name: t for t in comparison.tensors}
    assert tensors["binary"].status == "not-compared"
    assert tensors["binary"].reason.startswith("bridged: irrun has no kernel for it")
    assert [tensors[name].status for name in ("relu", "other")] == ["match", "match"]
    assert comparison.ok
    assert comparison.bridged == [model.layer("binary").describe()]
