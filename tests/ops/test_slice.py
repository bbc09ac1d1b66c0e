"""Slice-8: shapes against OpenVINO (constants and bounds), partial values, kernel against the
CPU plugin, reported errors."""

from __future__ import annotations

import numpy as np
import openvino.opset8 as ops
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from irrun.element_types import element_type
from irrun.ops.base import TensorInfo
from irrun.ops.registry import resolve
from irrun.ops.slice import Slice
from irrun.shape import Dim, Shape
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
    bare_op,
    const_info,
    dim_text,
    op_settings,
    shape_of_info,
    validated,
)

BIG = 2**63 - 1
DIM = dim_text(st.integers(0, 7))  # a dim of size 0 to 7
ENDS = [0, 1, 2, 3, 5, 7, -1, -2, -3, -6, -20, 20, BIG, -BIG - 1]


@st.composite
def slice_case(draw):
    rank = draw(st.integers(1, 4))
    dims = [draw(DIM) for _ in range(rank)]
    count = draw(st.integers(1, rank))
    start = [draw(st.sampled_from(ENDS)) for _ in range(count)]
    stop = [draw(st.sampled_from(ENDS)) for _ in range(count)]
    step = [draw(st.sampled_from([1, 2, 3, -1, -2, -3, 5])) for _ in range(count)]
    axes = None
    if draw(st.booleans()):
        axes = draw(st.permutations(range(rank)))[:count]
        axes = [a - rank if draw(st.booleans()) else a for a in axes]
    return "[" + ",".join(dims) + "]", start, stop, step, axes


def _slice(data, start, stop, step, axes, etype="i64"):
    args = [data, constant(np.array(start), etype), constant(np.array(stop), etype),
            constant(np.array(step), etype)]  # fmt: skip
    if axes is not None:
        args.append(constant(np.array(axes), "i64"))
    return ops.slice(*args)


@op_settings(40)
@given(slice_case(), st.sampled_from(["i64", "i32"]))
def test_slice_shapes_match_openvino(case, index_type):
    shape, start, stop, step, axes = case
    if index_type == "i32":
        clip = [max(min(v, 2**31 - 1), -(2**31)) for v in start + stop]
        start, stop = clip[: len(start)], clip[len(start) :]
    try:
        node = _slice(parameter(shape, "f32", name="x"), start, stop, step, axes, index_type)
    except Exception:
        assume(False)
    check_shapes(node)


def test_slice_of_dynamic_rank_and_unknown_inputs():
    x = parameter("[...]", name="x")
    check_shapes(_slice(x, [1], [3], [1], None))
    y = parameter("[4,?,2..9]", name="y")
    start = parameter("[2]", "i64", name="start")
    check_shapes(ops.slice(y, start, constant([5, 5]), constant([1, 1]), constant([0, 2])))
    check_shapes(ops.slice(y, start, constant([5, 5]), constant([1, 1])))
    step = parameter("[1]", "i64", name="step")
    check_shapes(ops.slice(y, constant([1]), constant([3]), step, constant([2])))
    axes = parameter("[1]", "i64", name="axes")
    check_shapes(ops.slice(y, constant([1]), constant([3]), constant([1]), axes))


_HAS_SHAPE_OF = resolve("ShapeOf", 3) is not None


@pytest.mark.skipif(not _HAS_SHAPE_OF, reason="irrun has no ShapeOf yet")
@pytest.mark.parametrize("bounds", ["[2,?]", "[1..4,2]", "[..3,5..]"])
@pytest.mark.parametrize("step", [1, -1, 2])
def test_slice_with_bounds_from_shape_of(bounds, step):
    import openvino.opset3 as opset3

    data = parameter("[10,?,3..12]", name="x")
    y = parameter(bounds, name="y")
    stop = opset3.shape_of(y, "i64")
    check_shapes(ops.slice(data, constant([0, 1]), stop, constant([step, step]),
                           constant([0, 2])))  # fmt: skip
    check_shapes(ops.slice(data, stop, constant([BIG, -BIG - 1]), constant([step, -step]),
                           constant([1, 2])))  # fmt: skip


@op_settings(40)
@given(slice_case(), st.lists(DIM, min_size=4, max_size=4), st.booleans(),
       st.sampled_from(["i64", "i32"]))  # fmt: skip
def test_slice_bounds_from_shape_of_match_openvino(case, bound_dims, as_start, etype):
    """Start (or stop) computed by ShapeOf of a dynamic tensor: irrun's infer given that
    partial value (what ShapeOf and Gather give) against OpenVINO's bound evaluation."""
    import openvino.opset3 as opset3

    shape, start, stop, step, axes = case
    if etype == "i32":
        start, stop = ([max(min(v, 2**31 - 1), -(2**31)) for v in vs] for vs in (start, stop))
    bound_text = "[" + ",".join(bound_dims[: len(start)]) + "]"
    data = parameter(shape, "f32", name="x")
    bounded = opset3.shape_of(parameter(bound_text, name="y"), etype)
    inputs = [bounded, constant(np.array(stop), etype)] if as_start else [
        constant(np.array(start), etype), bounded]  # fmt: skip
    extra = [constant(np.array(axes), "i64")] if axes is not None else []
    try:
        node = ops.slice(data, *inputs, constant(np.array(step), "i64"), *extra)
    except Exception:
        assume(False)
    infos = [TensorInfo(Shape.parse(shape), element_type("f32"))]
    bound_info = shape_of_info(bound_text, etype)
    other = const_info(stop if as_start else start, etype)
    infos += [bound_info, other] if as_start else [other, bound_info]
    infos.append(const_info(step))
    if axes is not None:
        infos.append(const_info(axes))
    (out,) = bare_op(Slice).infer(infos)
    assert str(out.shape) == str(node.get_output_partial_shape(0))


def test_slice_of_a_partial_value_gives_the_sliced_elements():
    shape_of = TensorInfo(Shape([4]), element_type("i64"),
                          partial=(Dim(0, None), 3, Dim(2, 8), 5))  # fmt: skip
    op = bare_op(Slice)
    (out,) = op.infer([shape_of, const_info([0]), const_info([2]), const_info([1])])
    assert str(out.shape) == "[2]" and out.partial == (Dim(0, None), 3)
    (out,) = op.infer([shape_of, const_info([-1]), const_info([-BIG - 1]), const_info([-2])])
    assert str(out.shape) == "[2]" and out.value.tolist() == [5, 3]  # all known: a constant
    (out,) = op.infer([shape_of, const_info([1]), const_info([2]), const_info([1])])
    assert out.value is not None and out.value.tolist() == [3]
    assert out.value.dtype == np.int64


CASES = [
    ([10], [1], [8], [3], None),
    ([10], [-2], [-100], [-3], None),
    ([10], [8], [2], [1], None),
    ([10], [-20], [-30], [-1], None),
    ([4, 5, 6], [1, -1], [BIG, -BIG - 1], [1, -2], [2, 0]),
    ([4, 5, 6], [0, 4, 1], [3, 0, 5], [2, -1, 1], None),
    ([3, 0, 2], [0], [5], [-1], [1]),
]


@pytest.mark.parametrize("etype", ["f32", "f16", "i32", "i64", "u8", "boolean"])
@pytest.mark.parametrize("case", CASES)
def test_slice_matches_cpu_plugin(case, etype):
    shape, start, stop, step, axes = case
    rng = np.random.default_rng(len(shape))
    dtype = element_type(etype).numpy_dtype
    data = rng.integers(0, 100, shape).astype(dtype)
    model = model_of(_slice(parameter(shape, etype, name="x"), start, stop, step, axes))
    expected = run_openvino(model, {"x": data})[0]
    got = run_irrun(model, {"x": data})[0]
    assert got.dtype == dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)


def _slice_net(step, axes=None, out_dims=(4, 3)):
    net = Net()
    x = net.param("x", "4,6")
    inputs = [x, net.const("start", np.array([0, 0])), net.const("stop", np.array([4, 6])),
              net.const("step", np.array(step))]  # fmt: skip
    if axes is not None:
        inputs.append(net.const("axes", np.array(axes)))
    net.result(net.op("s", "Slice", "opset8", None, inputs, list(out_dims)))
    return net


def test_slice_zero_step_is_reported():
    check_rejected(lambda: _slice(parameter([4, 6]), [0, 0], [4, 6], [1, 0], None))
    net = _slice_net([1, 0])
    text = net.text()
    report = validated(net, text)
    (error,) = report.errors
    assert error.code == "input-value" and "step 1 (for axis 1) is 0 in [1, 0]" in error.message


def test_slice_repeated_axis_is_reported():
    check_rejected(lambda: _slice(parameter([4, 6]), [0, 0], [4, 6], [1, 1], [1, -1]))
    net = _slice_net([1, 2], [1, -1])
    text = net.text()
    report = validated(net, text)
    (error,) = report.errors
    assert error.code == "axis-range" and "axis -1 is given twice" in error.message
    assert error.line == line_of(text, '<port id="4"', within="s")


def test_slice_unknown_attribute_is_warned():
    net = _slice_net([1, 2], out_dims=(4, 3))
    text = net.text().replace('version="opset8">', 'version="opset8">\n      <data axis="1"/>', 1)
    report = validated(net, text)
    (warning,) = list(report)
    assert warning.code == "unknown-attribute" and "axis='1'" in warning.message


@pytest.mark.skipif(not _HAS_SHAPE_OF, reason="irrun has no ShapeOf yet")
def test_shape_of_sliced_feeds_other_shape_ops():
    """``ShapeOf(x)[:2]`` as the target of Broadcast and the repeats of Tile (dynamic model)."""
    import openvino.opset3 as opset3

    x = parameter("[?,3,2..5,7]", name="x")
    head = ops.slice(opset3.shape_of(x), constant([0]), constant([2]), constant([1]))
    y = parameter("[1,1]", name="y")
    check_shapes(opset3.broadcast(y, head), ops.tile(y, head))


def test_an_upper_bound_of_int64_max_is_unbounded_as_in_openvino():
    """OpenVINO's interval infinity is INT64_MAX: a reverse slice of a dynamic dimension to
    INT64_MIN is ``?``, not ``..9223372036854775807`` (found by the generated cases)."""
    import openvino.opset8 as opset8

    node = opset8.slice(parameter("[?,0]", name="x"), constant(np.array([-1, 0])),
                        constant(np.array([-(2**63), 0])), constant(np.array([-1, 1])))  # fmt: skip
    assert str(node.get_output_partial_shape(0)) == "[?,0]"
    check_shapes(node)
