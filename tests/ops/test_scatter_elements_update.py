"""ScatterElementsUpdate-3 and -12: shapes against OpenVINO, kernel (every reduction, with and
without use_init_val) against the CPU plugin and OpenVINO's reference, reported errors."""

from __future__ import annotations

import numpy as np
import openvino as ov
import openvino.opset3 as opset3
import openvino.opset12 as opset12
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irrun.element_types import element_type
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
    edited_report,
    first_line_with,
    op_settings,
    shape_around,
    validated,
)

#: Element types OpenVINO's reference evaluator has no ScatterElementsUpdate kernel for.
NO_REFERENCE = ("u8", "i8")
REDUCTIONS = ["none", "sum", "prod", "min", "max", "mean"]


def reference(model, feed):
    """OpenVINO's reference outputs (``Model.evaluate``) for ``feed`` keyed by Parameter name."""
    outputs = [ov.Tensor(o.get_element_type(), o.get_shape()) for o in model.outputs]
    inputs = [np.array(feed[p.get_friendly_name()], order="C") for p in model.get_parameters()]
    assert model.evaluate(outputs, [ov.Tensor(a) for a in inputs])
    return [t.data.copy() for t in outputs]


def _node(version, x, i, u, axis, reduction="none", use_init_val=True):
    if version == 3:
        return opset3.scatter_elements_update(x, i, u, axis)
    return opset12.scatter_elements_update(x, i, u, axis, reduction, use_init_val)


@op_settings(40)
@given(st.data(), st.lists(st.integers(0, 4), min_size=1, max_size=3), st.integers(-3, 3),
       st.sampled_from([3, 12]), st.sampled_from(["f32", "i32", "boolean", "dynamic"]),
       st.sampled_from(["const", "param", "vector"]))  # fmt: skip
def test_scatter_elements_update_shapes_match_openvino(data, sizes, axis, version, etype,
                                                       axis_kind):  # fmt: skip
    index_sizes = [data.draw(st.integers(0, s)) for s in sizes]
    if data.draw(st.integers(0, 4)) == 0:  # sometimes ranks or shapes that do not fit
        index_sizes = data.draw(st.lists(st.integers(0, 3), max_size=3))
    x = parameter(data.draw(shape_around(sizes)), etype, name="x")
    i = parameter(data.draw(shape_around(index_sizes)), "i64", name="i")
    u = parameter(data.draw(shape_around(index_sizes)), "f32" if etype == "dynamic" else etype,
                  name="u")  # fmt: skip
    axis_node = {"const": lambda: constant(np.int32(axis)),
                 "param": lambda: parameter([], "i32", name="a"),
                 "vector": lambda: constant(np.array([axis, 7]))}[axis_kind]()  # fmt: skip
    reduction = data.draw(st.sampled_from(REDUCTIONS))
    node = built(lambda: _node(version, x, i, u, axis_node, reduction))
    check_shapes(node)


def _case(shape, index_shape, axis, etype, seed=0):
    rng = np.random.default_rng(seed)
    dtype = element_type(etype).numpy_dtype
    size = shape[axis]
    indices = rng.integers(-size, size, index_shape).astype(np.int32)
    data = rng.integers(-5 if dtype.kind != "u" else 0, 6, shape)
    updates = rng.integers(-5 if dtype.kind != "u" else 0, 6, index_shape)
    if etype == "boolean":
        data, updates = data > 0, updates > 0
    return indices, data.astype(dtype), updates.astype(dtype)


CASES = [([4, 3], [6, 3], 0), ([2, 5, 3], [2, 7, 2], 1), ([3, 4], [2, 9], -1), ([6], [10], 0)]


@pytest.mark.parametrize("etype", ["f32", "i32", "u8", "i8", "boolean"])
@pytest.mark.parametrize("shape, index_shape, axis", CASES)
def test_scatter_elements_update_3_matches_cpu_plugin(shape, index_shape, axis, etype):
    indices, data, updates = _case(shape, index_shape, axis, etype)
    node = opset3.scatter_elements_update(parameter(shape, etype, name="x"), constant(indices),
                                          parameter(index_shape, etype, name="u"),
                                          constant(np.int64(axis)))  # fmt: skip
    model = model_of(node)
    feed = {"x": data, "u": updates}
    expected = run_openvino(model, feed)[0]
    got = run_irrun(model, feed)[0]
    assert got.dtype == data.dtype
    np.testing.assert_array_equal(got, expected)
    if etype not in NO_REFERENCE:
        np.testing.assert_array_equal(got, reference(model, feed)[0])


@pytest.mark.parametrize("use_init_val", [True, False])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("etype", ["f32", "f16", "i32", "u8", "boolean"])
@pytest.mark.parametrize("shape, index_shape, axis", CASES[:2])
def test_scatter_elements_update_12_matches_the_reference(shape, index_shape, axis, etype,
                                                          reduction, use_init_val):  # fmt: skip
    """Every reduction against OpenVINO's reference (where it has the type) and the CPU
    plugin, except for the integer mean, which the plugin rounds toward 0 and the reference
    (and irrun) toward minus infinity."""
    if etype == "boolean" and reduction == "mean":
        return
    indices, data, updates = _case(shape, index_shape, axis, etype, seed=1)
    node = opset12.scatter_elements_update(parameter(shape, etype, name="x"), constant(indices),
                                           parameter(index_shape, etype, name="u"),
                                           constant(np.int64(axis)), reduction,
                                           use_init_val)  # fmt: skip
    model = model_of(node)
    feed = {"x": data, "u": updates}
    got = run_irrun(model, feed)[0]
    assert got.dtype == data.dtype
    if etype not in NO_REFERENCE:
        np.testing.assert_array_equal(got, reference(model, feed)[0])
    if not (reduction == "mean" and etype in ("i32", "u8")):
        np.testing.assert_array_equal(got, run_openvino(model, feed)[0])


def test_integer_mean_rounds_toward_minus_infinity_as_the_reference():
    """(-1 - 2) / 2 = -1.5: the reference (and irrun) give -2; the CPU plugin gives -1."""
    x, u = parameter([4], "i32", name="x"), parameter([6], "i32", name="u")
    node = opset12.scatter_elements_update(x, constant(np.array([0, 0, 1, 1, 2, 2])), u,
                                           constant(np.int64(0)), "mean", False)  # fmt: skip
    model = model_of(node)
    feed = {"x": np.array([0, 0, 0, 7], np.int32), "u": np.array([-1, -2, 1, 2, -3, -3], np.int32)}
    got = run_irrun(model, feed)[0]
    assert got.tolist() == [-2, 1, -3, 7] == reference(model, feed)[0].tolist()
    assert run_openvino(model, feed)[0].tolist() == [-1, 1, -3, 7]


def _net(version="opset3", indices_shape=(1, 2), updates_shape="1,2", etype="f32", axis=1,
         data=None):  # fmt: skip
    net = Net()
    inputs = [net.param("x", "2,3", etype), net.const("i", np.zeros(indices_shape, np.int64)),
              net.param("u", updates_shape, "f32"), net.const("a", np.int64(axis))]  # fmt: skip
    net.result(net.op("s", "ScatterElementsUpdate", version, data, inputs, [2, 3]))
    return net


@pytest.mark.parametrize(
    "indices_shape, updates_shape, etype, axis, code, fragment, port",
    [
        ((1, 2, 1), "1,2,1", "f32", 1, "input-rank", "indices must have data's rank 2", 1),
        ((1, 2), "1,3", "f32", 1, "input-dims", "updates [1,3] must have the shape of indices", 2),
        ((1, 2), "1,2", "i32", 1, "input-type", "data is i32 and updates are f32", 2),
        ((1, 2), "1,2", "f32", 2, "axis-range", "axis 2 is out of the range [-2, 1]", 3),
    ],
)  # fmt: skip
def test_scatter_elements_update_invalid_inputs_are_reported(
    indices_shape, updates_shape, etype, axis, code, fragment, port
):
    check_rejected(lambda: opset3.scatter_elements_update(
        parameter([2, 3], etype), constant(np.zeros(indices_shape, np.int64)),
        parameter(updates_shape.split(","), "f32"), constant(np.int64(axis))))  # fmt: skip
    net = _net(indices_shape=indices_shape, updates_shape=updates_shape, etype=etype, axis=axis)
    found = diagnostic(validated(net).errors, code)
    assert fragment in found.message, found.message
    assert found.line == line_of(net.text(), f'<port id="{port}"', within="s")


def test_scatter_elements_update_boolean_mean_and_bad_axis_shape_are_reported():
    x, i = parameter([2, 3], "boolean"), constant(np.zeros((1, 2), np.int64))
    check_rejected(lambda: opset12.scatter_elements_update(
        x, i, parameter([1, 2], "boolean"), constant(np.int64(1)), "mean"))  # fmt: skip
    check_rejected(lambda: opset3.scatter_elements_update(
        parameter([2, 3]), i, parameter([1, 2]), constant(np.array([[1]]))))  # fmt: skip
    model = model_of(opset12.scatter_elements_update(
        parameter([2, 3], "boolean", name="x"), i, parameter([1, 2], "boolean", name="u"),
        constant(np.int64(1)), "sum"))  # fmt: skip
    report, _ = edited_report(model, lambda t: t.replace('reduction="sum"', 'reduction="mean"'))
    found = diagnostic(report, "input-type")
    assert "reduction mean is not defined for boolean data" in found.message
    net = Net()
    inputs = [net.param("x", "2,3"), net.const("i", np.zeros((1, 2), np.int64)),
              net.param("u", "1,2"), net.const("a", np.array([[1]]))]  # fmt: skip
    net.result(net.op("s", "ScatterElementsUpdate", "opset3", None, inputs, [2, 3]))
    found = diagnostic(validated(net).errors, "input-rank")
    assert "the axis input must be a scalar or 1-D, but its shape is [1,1]" in found.message


def test_scatter_elements_update_constant_index_out_of_range_is_reported():
    indices = constant(np.array([[0, -4]]))
    model = model_of(opset3.scatter_elements_update(parameter([2, 3], name="x"), indices,
                                                    parameter([1, 2], name="u"),
                                                    constant(np.int64(1))))  # fmt: skip
    report, text = edited_report(model, lambda t: t)
    found = diagnostic(report, "index-range")
    assert "outside [-3, 2] for axis 1 of size 3, e.g. -4 at [0, 1]" in found.message
    assert found.line > first_line_with(text, 'type="ScatterElementsUpdate"')


def test_scatter_elements_update_reduction_of_version_3_is_warned():
    found = diagnostic(validated(_net(data={"reduction": "sum"})), "unknown-attribute")
    assert "ScatterElementsUpdate-12 and later" in found.message
    report = validated(_net("opset12", data={"reduktion": "sum"}))
    found = diagnostic(report, "unknown-attribute")
    assert found.hint == "did you mean reduction?"


def test_scatter_elements_update_kernel_refuses_indices_outside_data():
    x, u = parameter([2, 3], name="x"), parameter([1, 2], name="u")
    model = model_of(opset3.scatter_elements_update(x, parameter([1, 2], "i64", name="i"), u,
                                                    constant(np.int64(1))))  # fmt: skip
    feed = {"x": np.zeros((2, 3), np.float32), "u": np.ones((1, 2), np.float32),
            "i": np.array([[0, 3]])}  # fmt: skip
    with pytest.raises(
        Exception,
        match=r"1 index value\(s\) outside \[-3, 2\] for axis 1 of size 3, e.g. 3 at \[0, 1\]",
    ):
        run_irrun(model, feed)
    feed["i"] = np.array([[-1, 0]])
    assert run_irrun(model, feed)[0].tolist() == [[1, 0, 1], [0, 0, 0]]
