"""Split-1 and VariadicSplit-1: shapes against OpenVINO, constant and partial values, kernels
against the CPU plugin, reported errors."""

from __future__ import annotations

import numpy as np
import openvino.opset1 as ops
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from irrun.element_types import element_type
from irrun.ops.base import TensorInfo
from irrun.ops.split import Split
from irrun.ops.variadic_split import VariadicSplit
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
    shape_text,
    validated,
)

# at least one dim, sizes up to 100 and wide intervals (for splits into up to 41 pieces)
SIZES = st.sampled_from([0, 1, 2, 3, 4, 6, 8, 12, 41, 82, 100])
SHAPE = shape_text(dim_text(SIZES, max_width=50), min_rank=1)


@op_settings(40)
@given(SHAPE, st.integers(-4, 3), st.sampled_from([1, 2, 3, 4, 41]), st.booleans())
def test_split_shapes_match_openvino(shape, axis, num_splits, known_axis):
    data = parameter(shape, "f32", name="x")
    axis_input = constant(np.int64(axis)) if known_axis else parameter("[]", "i64", name="a")
    try:
        node = ops.split(data, axis_input, num_splits)
    except Exception:
        assume(False)
    check_shapes(node)


@st.composite
def lengths_for(draw, size):
    """Split lengths that add up to ``size`` (or, now and then, do not), maybe with a -1."""
    count = draw(st.integers(1, 4))
    cuts = sorted(draw(st.lists(st.integers(0, size), min_size=count - 1, max_size=count - 1)))
    lengths = [b - a for a, b in zip([0, *cuts], [*cuts, size])]
    if draw(st.booleans()):
        lengths[draw(st.integers(0, count - 1))] = -1
    if draw(st.integers(0, 5)) == 0:
        lengths[0] += draw(st.integers(1, 3))
    return lengths


@op_settings(40)
@given(SHAPE, st.integers(-4, 3), st.data(), st.sampled_from(["const", "axis", "lengths"]))
def test_variadic_split_shapes_match_openvino(shape, axis, data, unknown):
    parsed = Shape.parse(shape.strip("[]"))
    size = 6
    if parsed.rank_is_static and -parsed.rank <= axis < parsed.rank and parsed[axis].is_static:
        size = parsed[axis].value
    lengths = data.draw(lengths_for(size))
    x = parameter(shape, "f32", name="x")
    axis_input = parameter("[]", "i64", name="a") if unknown == "axis" else constant(np.int64(axis))
    if unknown == "lengths":
        lengths_input = parameter([len(lengths)], "i64", name="l")
    else:
        lengths_input = constant(np.array(lengths, dtype=np.int64))
    try:
        node = ops.variadic_split(x, axis_input, lengths_input)
    except Exception:
        assume(False)
    check_shapes(node, allow_warnings=True)


def _op(op_class, attributes=None):
    return bare_op(op_class, attributes, outputs=[None] * 3)


def test_split_of_constants_gives_every_piece_its_value():
    data = const_info(np.arange(12).reshape(2, 6), "i32")
    outputs = _op(Split, {"num_splits": "3"}).infer([data, const_info(1)])
    assert [o.value.tolist() for o in outputs] == [[[0, 1], [6, 7]], [[2, 3], [8, 9]],
                                                   [[4, 5], [10, 11]]]  # fmt: skip
    outputs = _op(VariadicSplit).infer([data, const_info(-1), const_info([1, -1, 0])])
    assert [o.value.tolist() for o in outputs] == [[[0], [6]], [[1, 2, 3, 4, 5],
                                                   [7, 8, 9, 10, 11]], [[], []]]  # fmt: skip


def test_split_of_a_partial_value_gives_partial_pieces():
    shape_of = TensorInfo(Shape([4]), element_type("i64"),
                          partial=(Dim(0, None), 3, Dim(2, 8), 5))  # fmt: skip
    first, second = _op(Split, {"num_splits": "2"}).infer([shape_of, const_info(0)])
    assert first.partial == (Dim(0, None), 3) and second.partial == (Dim(2, 8), 5)
    pieces = _op(VariadicSplit).infer([shape_of, const_info(0), const_info([1, -1, 1])])
    assert pieces[0].partial == (Dim(0, None),) and pieces[1].partial == (3, Dim(2, 8))
    assert pieces[2].value.tolist() == [5] and str(pieces[2].shape) == "[1]"


@pytest.mark.parametrize("etype", ["f32", "f16", "i32", "i64", "u8", "boolean"])
@pytest.mark.parametrize(
    "shape, axis, num_splits", [([6], 0, 3), ([2, 6, 4], -2, 2), ([4, 3, 5], 2, 5), ([2, 0], 1, 2)]
)
def test_split_matches_cpu_plugin(shape, axis, num_splits, etype):
    dtype = element_type(etype).numpy_dtype
    data = np.random.default_rng(3).integers(0, 100, shape).astype(dtype)
    model = model_of(ops.split(parameter(shape, etype, name="x"), constant(np.int64(axis)),
                               num_splits))  # fmt: skip
    expected = run_openvino(model, {"x": data})
    got = run_irrun(model, {"x": data})
    assert len(got) == num_splits
    for a, b in zip(got, expected):
        assert a.dtype == dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("etype", ["f32", "f16", "i32", "i64", "u8", "boolean"])
@pytest.mark.parametrize("shape, axis, lengths", [([6], 0, [1, 2, 3]), ([2, 7, 4], 1, [2, -1, 0]),
                                                  ([4, 3, 5], -1, [-1])])  # fmt: skip
def test_variadic_split_matches_cpu_plugin(shape, axis, lengths, etype):
    dtype = element_type(etype).numpy_dtype
    data = np.random.default_rng(4).integers(0, 100, shape).astype(dtype)
    node = ops.variadic_split(parameter(shape, etype, name="x"), constant(np.int64(axis)),
                              constant(np.array(lengths, dtype=np.int64)))  # fmt: skip
    model = model_of(node)
    expected = run_openvino(model, {"x": data})
    got = run_irrun(model, {"x": data})
    assert len(got) == len(lengths)
    for a, b in zip(got, expected):
        assert a.dtype == dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)


def _split_net(op_type, data, extra, outputs):
    net = Net()
    inputs = [net.param("x", "7,4"), *[net.const(name, value) for name, value in extra]]
    ref = net.op("s", op_type, "opset1", data, inputs, outputs[0])
    text = net.layers[-1]
    more = "".join(f'        <port id="{ref[1] + 1 + i}" precision="FP32" names="s{i}">'
                   + "".join(f"<dim>{d}</dim>" for d in dims) + "</port>\n"
                   for i, dims in enumerate(outputs[1:]))  # fmt: skip
    net.layers[-1] = text.replace("      </output>", more + "      </output>")
    for i in range(len(outputs)):
        net.result((ref[0], ref[1] + i, outputs[i], "FP32"))
    return net


def test_split_indivisible_dimension_is_reported():
    check_rejected(lambda: ops.split(parameter([7, 4]), constant(np.int64(0)), 3))
    net = _split_net("Split", {"num_splits": "3"}, [("axis", np.int64(0))], [[2, 4]] * 3)
    report = validated(net)
    (error,) = report.errors
    assert error.code == "input-dims"
    assert "has size 7, which 3 splits cannot divide evenly: 7 = 2 * 3 + 1" in error.message
    assert error.line == line_of(net.text(), "<dim>7</dim>", within="s")


def test_variadic_split_sum_mismatch_is_reported():
    check_rejected(lambda: ops.variadic_split(parameter([7, 4]), constant(np.int64(0)),
                                              constant(np.array([2, 3]))))  # fmt: skip
    net = _split_net("VariadicSplit", None, [("axis", np.int64(0)), ("lengths", np.array([2, 3]))],
                     [[2, 4], [3, 4]])  # fmt: skip
    report = validated(net)
    (error,) = report.errors
    assert error.code == "input-value"
    assert "split_lengths [2, 3] add up to 2 + 3 = 5, but axis 0 of data [7,4] has size 7" in (
        error.message
    )


def test_variadic_split_two_rests_are_reported():
    check_rejected(lambda: ops.variadic_split(parameter([7, 4]), constant(np.int64(0)),
                                              constant(np.array([-1, -1]))))  # fmt: skip
    net = _split_net("VariadicSplit", None, [("axis", np.int64(0)),
                                             ("lengths", np.array([-1, -1]))],
                     [[3, 4], [4, 4]])  # fmt: skip
    report = validated(net)
    (error,) = report.errors
    assert error.code == "input-value" and "has -1 at 0 and at 1" in error.message


def test_split_zero_num_splits_and_misspelt_attribute_are_reported():
    check_rejected(lambda: ops.split(parameter([7, 4]), constant(np.int64(0)), 0))
    net = _split_net("Split", {"num_splits": "0"}, [("axis", np.int64(0))], [[7, 4]])
    (error,) = validated(net).errors
    assert error.code == "attribute-value"
    assert "num_splits is 0; it must be at least 1" in error.message
    net = _split_net("Split", {"num_splits": "1", "num_split": "1"}, [("axis", np.int64(0))],
                     [[7, 4]])  # fmt: skip
    (warning,) = list(validated(net))
    assert warning.code == "unknown-attribute" and warning.hint == "did you mean num_splits?"
