"""ScatterUpdate-3: shapes against OpenVINO (constant and unknown axis), kernel against the CPU
plugin (duplicate indices: the last wins), reported errors."""

from __future__ import annotations

import numpy as np
import openvino as ov
import openvino.opset3 as ops
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


def reference(model, feed):
    """OpenVINO's reference outputs (``Model.evaluate``) for ``feed`` keyed by Parameter name."""
    outputs = [ov.Tensor(o.get_element_type(), o.get_shape()) for o in model.outputs]
    inputs = [np.array(feed[p.get_friendly_name()], order="C") for p in model.get_parameters()]
    assert model.evaluate(outputs, [ov.Tensor(a) for a in inputs])
    return [t.data.copy() for t in outputs]


SIZES = st.lists(st.integers(0, 4), min_size=1, max_size=3)


@op_settings(40)
@given(st.data(), SIZES, st.lists(st.integers(0, 3), max_size=2), st.booleans(),
       st.sampled_from(["f32", "i32", "u8", "boolean"]))  # fmt: skip
def test_scatter_update_shapes_match_openvino(data, sizes, index_sizes, constant_axis, etype):
    axis = data.draw(st.integers(-len(sizes), len(sizes) - 1))
    a = axis % len(sizes)
    update_sizes = sizes[:a] + index_sizes + sizes[a + 1 :]
    if data.draw(st.booleans()):  # sometimes a wrong updates shape (OpenVINO may refuse)
        update_sizes = data.draw(st.lists(st.integers(0, 4), max_size=4))
    x = parameter(data.draw(shape_around(sizes)), etype, name="x")
    indices = parameter(data.draw(shape_around(index_sizes)), "i32", name="i")
    updates = parameter(data.draw(shape_around(update_sizes)), etype, name="u")
    axis_node = constant(np.int64(axis)) if constant_axis else parameter([], "i64", name="a")
    node = built(lambda: ops.scatter_update(x, indices, updates, axis_node))
    check_shapes(node)


def test_scatter_update_with_unknown_data_type_gives_a_dynamic_type():
    x = parameter("[2,?]", "dynamic", name="x")
    i, u = parameter([3], "i64", name="i"), parameter([2, 3], "f32", name="u")
    node = ops.scatter_update(x, i, u, constant(np.int64(1)))
    check_shapes(node)


@pytest.mark.parametrize("etype", ["f32", "f16", "i32", "i64", "u8", "boolean"])
@pytest.mark.parametrize(
    "shape, indices, axis",
    [
        ([5, 3], [1, 3, 1, 0], 0),
        ([2, 6, 3], [[5, 0], [2, 5]], 1),
        ([2, 6, 3], [2], -1),
        ([4, 2], 3, 0),
        ([4, 0], [1, 1], 0),
    ],
)
def test_scatter_update_matches_cpu_plugin(shape, indices, axis, etype):
    dtype = element_type(etype).numpy_dtype
    rng = np.random.default_rng(1)
    indices = np.array(indices, np.int32)
    a = axis % len(shape)
    update_shape = shape[:a] + list(indices.shape) + shape[a + 1 :]
    data = rng.integers(0, 100, shape).astype(dtype)
    updates = rng.integers(0, 100, update_shape).astype(dtype)
    model = model_of(ops.scatter_update(parameter(shape, etype, name="x"), constant(indices),
                                        parameter(update_shape, etype, name="u"),
                                        constant(np.int64(axis))))  # fmt: skip
    feed = {"x": data, "u": updates}
    # the CPU plugin refuses scalar indices: OpenVINO's reference for those
    run = reference if indices.ndim == 0 else run_openvino
    expected = run(model, feed)[0]
    got = run_irrun(model, feed)[0]
    assert got.dtype == dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)


def test_scatter_update_indices_from_an_input_run():
    x, i, u = (
        parameter([5, 2], name="x"),
        parameter([3], "i64", name="i"),
        parameter([3, 2], name="u"),
    )
    model = model_of(ops.scatter_update(x, i, u, constant(np.int64(0))))
    feed = {"x": np.zeros((5, 2), np.float32), "i": np.array([4, 0, 4]),
            "u": np.arange(6, dtype=np.float32).reshape(3, 2)}  # fmt: skip
    got = run_irrun(model, feed)[0]
    assert got.tolist() == [[2, 3], [0, 0], [0, 0], [0, 0], [4, 5]]
    np.testing.assert_array_equal(got, run_openvino(model, feed)[0])
    feed["i"] = np.array([4, -1, 0])
    with pytest.raises(
        Exception,
        match=r"1 index value\(s\) outside \[0, 4\] for axis 0 of size 5, e.g. -1 at \[1\]",
    ):
        run_irrun(model, feed)


def _model(indices=(1, 2), axis=0):
    x = parameter([4, 3], name="x")
    updates = parameter([len(indices), 3], name="u")
    return model_of(ops.scatter_update(x, constant(np.array(indices)), updates,
                                       constant(np.int64(axis))))  # fmt: skip


def _net(updates_shape="2,3", updates_type="f32", axis=0, data=None):
    net = Net()
    inputs = [net.param("x", "4,3"), net.const("i", np.array([1, 2])),
              net.param("u", updates_shape, updates_type),
              net.const("a", np.int64(axis))]  # fmt: skip
    net.result(net.op("s", "ScatterUpdate", "opset3", data, inputs, [4, 3]))
    return net


@pytest.mark.parametrize(
    "updates_shape, updates_type, axis, code, fragment",
    [
        ("2,4", "f32", 0, "input-dims",
         "updates [2,4] must have the shape data[:0] + indices + data[1:] = [] + [2] + [3]"),
        ("2,3,1", "f32", 0, "input-rank", "rank(indices) + rank(data) - 1 = 1 + 2 - 1 = 2"),
        ("2,3", "i32", 0, "input-type", "data is f32 and updates are i32"),
        ("4,2", "f32", 2, "axis-range", "axis 2 is out of the range [-2, 1]"),
    ],
)  # fmt: skip
def test_scatter_update_invalid_inputs_are_reported(updates_shape, updates_type, axis, code,
                                                    fragment):  # fmt: skip
    x = parameter([4, 3], name="x")
    i = constant(np.array([1, 2]))
    check_rejected(lambda: ops.scatter_update(x, i, parameter(updates_shape.split(","),
                                              updates_type), constant(np.int64(axis))))  # fmt: skip
    net = _net(updates_shape, updates_type, axis)
    report = validated(net)
    found = diagnostic(report.errors, code)
    assert fragment in found.message, found.message
    port = '<port id="3"' if code == "axis-range" else '<port id="2"'
    assert found.line == line_of(net.text(), port, within="s")


def test_scatter_update_float_indices_are_reported():
    x = parameter([4, 3], name="x")
    floats = constant(np.array([1.0, 2.0]))
    check_rejected(lambda: ops.scatter_update(x, floats, parameter([2, 3]), constant(np.int64(0))))
    net = Net()
    inputs = [net.param("x", "4,3"), net.const("i", np.array([1.0, 2.0], np.float32)),
              net.param("u", "2,3"), net.const("a", np.int64(0))]  # fmt: skip
    net.result(net.op("s", "ScatterUpdate", "opset3", None, inputs, [4, 3]))
    found = diagnostic(validated(net).errors, "index-type")
    assert "indices must be an integer type" in found.message
    assert found.line == line_of(net.text(), '<port id="1"', within="s")


def test_scatter_update_constant_index_out_of_range_is_reported():
    report, text = edited_report(_model(indices=(1, 4)), lambda t: t)
    found = diagnostic(report, "index-range")
    assert "1 index value(s) outside [0, 3] for axis 0 of size 4, e.g. 4 at [1]" in found.message
    assert found.line == first_line_with(text, 'type="ScatterUpdate"') + 6


def test_scatter_update_unknown_attribute_is_warned():
    net = _net(data={"axis": "0"})
    found = diagnostic(validated(net), "unknown-attribute")
    assert "ScatterUpdate-3 has no attributes" in found.hint
