"""TopK-1, TopK-3, TopK-11: shapes against OpenVINO (constant, unknown and ShapeOf-computed k),
kernel against the CPU plugin (distinct values) and OpenVINO's reference (ties), reported
errors."""

from __future__ import annotations

import numpy as np
import openvino as ov
import openvino.opset1 as opset1
import openvino.opset3 as opset3
import openvino.opset11 as opset11
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irrun.element_types import element_type
from irrun.errors import IRError
from irrun.ops.base import TensorInfo
from irrun.ops.top_k import TopK11
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
OPSETS = {1: opset1, 3: opset3, 11: opset11}


def _topk(version, data, k, axis, mode, sort, index_type="i32", stable=False):
    if version == 11:
        return opset11.topk(data, k, axis, mode, sort, index_type, stable)
    return OPSETS[version].topk(data, k, axis, mode, sort, index_type)


@op_settings(40)
@given(
    shape_text(DIM, min_rank=1),
    st.integers(-4, 3),
    st.one_of(st.integers(0, 8), st.none()),
    st.sampled_from([1, 3, 11]),
    st.sampled_from(["max", "min"]),
    st.sampled_from(["value", "index", "none"]),
    st.sampled_from(["i32", "i64"]),
    st.sampled_from(["i32", "i64", "i8"]),
)
def test_topk_shapes_match_openvino(shape, axis, k, version, mode, sort, index_type, k_type):
    data = parameter(shape, "f32", name="x")
    k_node = parameter([], k_type, name="k") if k is None else constant(np.array(k), k_type)
    node = built(lambda: _topk(version, data, k_node, axis, mode, sort, index_type))
    check_shapes(node)


@op_settings(40)
@given(shape_text(DIM, min_rank=1, dynamic_rank=None), st.integers(0, 3), DIM)
def test_topk_k_from_shape_of_matches_openvino(shape, axis, k_dim):
    """k read by ShapeOf from a dynamic tensor: a static size, an interval or ``?``."""
    data = parameter(shape, "f32", name="x")
    y = parameter(f"[{k_dim}]", name="y")
    k = opset1.squeeze(opset3.shape_of(y), constant(np.int64(0)))
    node = built(lambda: opset11.topk(data, k, axis, "max", "value", "i64"))
    check_shapes(ov.Model(node.outputs(), [data, y], "oracle"))


def test_topk_with_unknown_k_gives_the_interval_up_to_the_dim():
    x = parameter("[2,5,1..7,?]", name="x")
    k = parameter([], "i64", name="k")
    for axis, expected in [(1, "[2,..5,1..7,?]"), (2, "[2,5,..7,?]"), (3, "[2,5,1..7,?]")]:
        node = opset11.topk(x, k, axis, "max", "value")
        assert str(node.get_output_partial_shape(0)) == expected
        check_shapes(node)


def _distinct(shape, etype, seed=3):
    rng = np.random.default_rng(seed)
    count = int(np.prod(shape))
    values = rng.permutation(count) - count // 2
    if element_type(etype).numpy_dtype.kind == "u":
        values = values + count
    if etype in ("f32", "f16"):
        values = values * 0.25
    return values.reshape(shape).astype(element_type(etype).numpy_dtype)


@pytest.mark.parametrize("etype", ["f32", "f16", "i32", "i64", "u8", "i8"])
@pytest.mark.parametrize("version", [1, 3, 11])
@pytest.mark.parametrize(
    "shape, axis, k, mode, sort",
    [
        ([3, 7, 4], 1, 3, "max", "value"),
        ([3, 7, 4], -1, 2, "min", "index"),
        ([5, 6], 0, 5, "min", "value"),
        ([20], 0, 12, "max", "none"),
        ([2, 9, 2], 1, 9, "max", "index"),
    ],
)
def test_topk_matches_cpu_plugin(shape, axis, k, mode, sort, version, etype):
    data = _distinct(shape, etype)
    node = _topk(version, parameter(shape, etype, name="x"), constant(np.int64(k)), axis, mode,
                 sort, "i64" if version == 3 else "i32")  # fmt: skip
    model = model_of(node)
    expected = run_openvino(model, {"x": data})
    got = run_irrun(model, {"x": data})
    for g, e in zip(got, expected):
        assert g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_array_equal(g, e)


def _reference(model, inputs, outputs):
    tensors = [ov.Tensor(ov.Type(np.dtype(dtype)), shape) for shape, dtype in outputs]
    assert model.evaluate(tensors, [ov.Tensor(np.array(a, order="C")) for a in inputs])
    return [t.data.copy() for t in tensors]


@pytest.mark.parametrize("stable", [False, True])
@pytest.mark.parametrize("mode", ["max", "min"])
@pytest.mark.parametrize("sort", ["value", "index"])
@pytest.mark.parametrize("shape, axis, k", [([2, 20], 1, 12), ([3, 40, 5], 1, 17), ([300], 0, 50)])
def test_topk_ties_follow_the_reference(shape, axis, k, sort, mode, stable):
    """Ties come in ascending index order, as in OpenVINO's reference (the CPU plugin picks
    other tied elements in some of these cases, even with stable=true)."""
    data = np.random.default_rng(0).integers(0, 4, shape).astype(np.float32)
    x = parameter(shape, "f32", name="x")
    model = model_of(opset11.topk(x, constant(np.int64(k)), axis, mode, sort, "i32", stable))
    out_shape = list(shape)
    out_shape[axis] = k
    expected = _reference(model, [data], [(out_shape, np.float32), (out_shape, np.int32)])
    got = run_irrun(model, {"x": data})
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g, e)


def test_topk_ties_on_small_inputs_match_cpu_plugin():
    data = np.array([[3, 1, 3, 2, 3, 1, 5, 1]], np.float32)
    for mode, sort, indices in [
        ("max", "value", [6, 0, 2, 4]),
        ("max", "index", [0, 2, 4, 6]),
        ("min", "value", [1, 5, 7, 3]),
        ("min", "index", [1, 3, 5, 7]),
        ("min", "none", [1, 5, 7, 3]),
    ]:
        model = model_of(opset11.topk(parameter([1, 8], name="x"), constant(np.int64(4)), 1,
                                      mode, sort))  # fmt: skip
        expected = run_openvino(model, {"x": data})
        got = run_irrun(model, {"x": data})
        assert got[1].tolist() == [indices] == expected[1].tolist()
        np.testing.assert_array_equal(got[0], expected[0])


def test_topk_with_k_from_an_input_runs():
    data = _distinct([4, 6], "f32")
    model = model_of(opset11.topk(parameter([4, 6], name="x"), parameter([], "i32", name="k"),
                                  1, "max", "value"))  # fmt: skip
    k = np.array(4, np.int32)
    expected = run_openvino(model, {"x": data, "k": k})
    got = run_irrun(model, {"x": data, "k": k})
    assert got[0].shape == (4, 4)
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g, e)
    with pytest.raises(Exception, match="k = 7 is out of the range"):
        run_irrun(model, {"x": data, "k": np.array(7, np.int32)})


def _valid_model(version=11, k=2, k_type="i64", index_type="i32", sort="value"):
    x = parameter([3, 5], name="x")
    return model_of(_topk(version, x, constant(np.array(k), k_type), 1, "max", sort,
                          index_type))  # fmt: skip


def _check_reported(model, edit, code, fragment, line_fragment):
    report, text = edited_report(model, edit)
    found = diagnostic(report, code)
    assert fragment in found.message, found.message
    assert found.line == first_line_with(text, line_fragment)


def test_topk_invalid_combinations_are_reported():
    x = parameter([3, 5], name="x")
    check_rejected(lambda: opset11.topk(x, constant(np.int64(-1)), 1, "max", "value"))
    check_rejected(lambda: opset11.topk(x, constant(np.array([2])), 1, "max", "value"))
    check_rejected(lambda: opset11.topk(x, constant(np.int64(2)), 2, "max", "value"))
    check_rejected(lambda: opset11.topk(parameter([]), constant(np.int64(1)), 0, "max", "value"))
    check_rejected(lambda: opset11.topk(x, constant(np.float32(2)), 1, "max", "value"))
    check_rejected(lambda: opset1.topk(x, constant(np.uint8(2)), 1, "max", "value"))
    check_rejected(lambda: opset11.topk(x, constant(np.int64(2)), 1, "max", "value", "u8"))
    check_rejected(lambda: opset11.topk(x, constant(np.int64(2)), 1, "max", "none", "i32", True))
    _check_reported(_valid_model(), lambda t: t.replace('axis="1"', 'axis="2"'), "axis-range",
                    "axis 2 is out of the range [-2, 1]", 'type="TopK"')  # fmt: skip
    _check_reported(
        _valid_model(),
        lambda t: t.replace('index_element_type="i32"', 'index_element_type="u8"'),
        "attribute-value",
        "index_element_type u8 is not i32 or i64",
        "<data axis",
    )
    _check_reported(
        _valid_model(),
        lambda t: t.replace('sort="value"', 'sort="none"').replace('"false"', '"true"'),
        "attribute-value",
        'stable=true needs sort="value" or "index"',
        "<data axis",
    )

    def to_topk_1(text):
        return text.replace('type="TopK" version="opset3"', 'type="TopK" version="opset1"')

    _check_reported(_valid_model(3, k_type="u8"), to_topk_1, "index-type",
                    "k must be i8 or i32 or i64 tensor, but input 1 is u8",
                    '<port id="1" precision="U8"')  # fmt: skip


def test_topk_negative_and_non_scalar_k_are_reported():
    """What OpenVINO refuses above (a negative k, a k of shape [1], scalar data), on irrun's op."""
    op = bare_op(TopK11, {"axis": "1", "mode": "max", "sort": "value"})
    x = TensorInfo(Shape([3, 5]), element_type("f32"))
    with pytest.raises(IRError, match="k must be >= 0, but it is -1"):
        op.infer([x, const_info(-1)])
    with pytest.raises(IRError, match=r"k must be a scalar, but its shape is \[1\]"):
        op.infer([x, const_info([2])])
    with pytest.raises(IRError, match="data must have rank >= 1"):
        op.infer([TensorInfo(Shape([]), element_type("f32")), const_info(1)])


def test_topk_misspelt_attribute_is_warned():
    report, _ = edited_report(
        _valid_model(), lambda t: t.replace('mode="max"', 'mode="max" sortt="value"')
    )
    found = diagnostic(report, "unknown-attribute")
    assert "did you mean sort?" in found.hint
