"""ScatterNDUpdate-3 (opset4) and -15: shapes against OpenVINO, kernel (every reduction)
against the CPU plugin and OpenVINO's reference, reported errors."""

from __future__ import annotations

import numpy as np
import openvino as ov
import openvino.opset4 as opset4
import openvino.opset15 as opset15
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

REDUCTIONS = ["none", "sum", "sub", "prod", "min", "max"]


def reference(model, feed):
    """OpenVINO's reference outputs (``Model.evaluate``) for ``feed`` keyed by Parameter name."""
    outputs = [ov.Tensor(o.get_element_type(), o.get_shape()) for o in model.outputs]
    inputs = [np.array(feed[p.get_friendly_name()], order="C") for p in model.get_parameters()]
    assert model.evaluate(outputs, [ov.Tensor(a) for a in inputs])
    return [t.data.copy() for t in outputs]


def _node(version, x, i, u, reduction="none"):
    if version == 4:
        return opset4.scatter_nd_update(x, i, u)
    return opset15.scatter_nd_update(x, i, u, reduction)


@op_settings(40)
@given(st.data(), st.lists(st.integers(0, 4), min_size=1, max_size=3),
       st.lists(st.integers(0, 3), max_size=2), st.sampled_from([4, 15]),
       st.sampled_from(["f32", "i32", "boolean", "dynamic"]))  # fmt: skip
def test_scatter_nd_update_shapes_match_openvino(data, sizes, batch, version, etype):
    k = data.draw(st.integers(0, len(sizes)))
    update_sizes = batch + sizes[k:]
    if data.draw(st.integers(0, 4)) == 0:  # sometimes shapes that do not fit
        k = data.draw(st.integers(0, 4))
        update_sizes = data.draw(st.lists(st.integers(0, 3), max_size=3))
    x = parameter(data.draw(shape_around(sizes)), etype, name="x")
    i = parameter(data.draw(shape_around([*batch, k])), data.draw(st.sampled_from(["i32", "i64"])),
                  name="i")  # fmt: skip
    u = parameter(data.draw(shape_around(update_sizes)), "i32" if etype == "dynamic" else etype,
                  name="u")  # fmt: skip
    node = built(lambda: _node(version, x, i, u, data.draw(st.sampled_from(REDUCTIONS))))
    check_shapes(node)


def _case(shape, indices, etype, seed=0):
    rng = np.random.default_rng(seed)
    dtype = element_type(etype).numpy_dtype
    indices = np.array(indices, np.int64)
    k = indices.shape[-1]
    update_shape = list(indices.shape[:-1]) + list(shape[k:])
    low = 0 if dtype.kind == "u" else -5
    data, updates = rng.integers(low, 6, shape), rng.integers(low, 6, update_shape)
    if etype == "boolean":
        data, updates = data > 0, updates > 0
    return indices, data.astype(dtype), updates.astype(dtype), update_shape


CASES = [
    ([4, 3], [[1], [3], [1], [-4]]),
    ([2, 3, 4], [[[0, 2], [1, -1]], [[0, 2], [1, 0]]]),
    ([3, 2], [[2, 1], [0, 0], [2, 1]]),
    ([5], [[4], [0], [4], [2], [-1]]),
]


@pytest.mark.parametrize("etype", ["f32", "f16", "i32", "i64", "u8", "boolean"])
@pytest.mark.parametrize("shape, indices", CASES)
def test_scatter_nd_update_3_matches_cpu_plugin(shape, indices, etype):
    indices, data, updates, update_shape = _case(shape, indices, etype)
    x, u = parameter(shape, etype, name="x"), parameter(update_shape, etype, name="u")
    model = model_of(opset4.scatter_nd_update(x, constant(indices), u))
    feed = {"x": data, "u": updates}
    got = run_irrun(model, feed)[0]
    assert got.dtype == data.dtype
    # Repeated index rows: the spec leaves their order undefined; irrun applies the updates in
    # order, as the reference implementation does (the last one wins). The CPU plugin updates
    # in parallel, so only the places written at most once are compared with it.
    np.testing.assert_array_equal(got, _in_order(data, indices, updates))
    k = indices.shape[-1]
    rows = indices.reshape(-1, k) % np.array(shape[:k])
    writes = np.zeros(shape[:k], np.int64)
    np.add.at(writes, tuple(rows.T), 1)
    once = writes <= 1
    np.testing.assert_array_equal(got[once], run_openvino(model, feed)[0][once])


def _in_order(data, indices, updates):
    """ScatterNDUpdate with the index rows applied one after the other."""
    out = data.copy()
    k = indices.shape[-1]
    rows = indices.reshape(-1, k)
    for row, update in zip(rows, updates.reshape(len(rows), *data.shape[k:])):
        out[tuple(row)] = update
    return out


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("etype", ["f32", "f16", "i32", "boolean"])
@pytest.mark.parametrize("shape, indices", CASES[:3])
def test_scatter_nd_update_15_matches_cpu_plugin_and_reference(shape, indices, etype, reduction):
    indices, data, updates, update_shape = _case(shape, indices, etype, seed=2)
    model = model_of(opset15.scatter_nd_update(parameter(shape, etype, name="x"),
                                               constant(indices),
                                               parameter(update_shape, etype, name="u"),
                                               reduction))  # fmt: skip
    feed = {"x": data, "u": updates}
    got = run_irrun(model, feed)[0]
    assert got.dtype == data.dtype
    np.testing.assert_array_equal(got, reference(model, feed)[0])
    if not (etype == "boolean" and reduction == "sub"):  # see the next test
        np.testing.assert_array_equal(got, run_openvino(model, feed)[0])


def test_boolean_sub_is_xor_as_in_the_reference():
    """The reference subtracts booleans as xor (1 - 1 - 1 is 1, 0 - 1 - 1 is 0); the CPU plugin
    subtracts integers and tests for nonzero (0 - 1 - 1 = -2 is true)."""
    x, u = parameter([3], "boolean", name="x"), parameter([2], "boolean", name="u")
    model = model_of(opset15.scatter_nd_update(x, constant(np.array([[0], [0]])), u, "sub"))
    feed = {"x": np.array([0, 1, 0], bool), "u": np.array([1, 1], bool)}
    got = run_irrun(model, feed)[0]
    assert got.tolist() == [False, True, False] == reference(model, feed)[0].tolist()
    assert run_openvino(model, feed)[0].tolist() == [True, True, False]


def test_scatter_nd_update_with_a_whole_data_update():
    """indices of last dim 0: every row replaces all of data (the last one wins)."""
    x, u = parameter([2, 2], name="x"), parameter([2, 2, 2], name="u")
    model = model_of(opset4.scatter_nd_update(x, parameter([2, 0], "i64", name="i"), u))
    feed = {"x": np.zeros((2, 2), np.float32), "i": np.zeros((2, 0), np.int64),
            "u": np.arange(8, dtype=np.float32).reshape(2, 2, 2)}  # fmt: skip
    got = run_irrun(model, feed)[0]
    assert got.tolist() == [[4, 5], [6, 7]]
    np.testing.assert_array_equal(got, reference(model, feed)[0])


def _net(version="opset4", data_shape="2,3", indices=((0, 1),), updates_shape="1",
         etype="f32", updates_type="f32", attrs=None):  # fmt: skip
    net = Net()
    inputs = [net.param("x", data_shape, etype), net.const("i", np.array(indices, np.int64)),
              net.param("u", updates_shape, updates_type)]  # fmt: skip
    net.result(net.op("s", "ScatterNDUpdate", version, attrs, inputs, [2, 3]))
    return net


@pytest.mark.parametrize(
    "indices, updates_shape, updates_type, code, fragment, port",
    [
        (((0, 1, 2),), "1", "f32", "input-dims",
         "the last dim of indices [1,3] (3) must be at most the rank of data [2,3] (2)", 1),
        (((0,),), "1,3,1", "f32", "input-rank",
         "= 2 + 2 - 1 - 1 = 2, but their shape is [1,3,1]", 2),
        (((0,),), "1,4", "f32", "input-dims",
         "updates [1,4] must have the shape indices[:-1] + data[1:] = [1] + [3]", 2),
        (((0, 1),), "1", "i32", "input-type", "data is f32 and updates are i32", 2),
    ],
)  # fmt: skip
def test_scatter_nd_update_invalid_inputs_are_reported(indices, updates_shape, updates_type, code,
                                                       fragment, port):  # fmt: skip
    check_rejected(lambda: opset4.scatter_nd_update(
        parameter([2, 3]), constant(np.array(indices, np.int64)),
        parameter(updates_shape.split(","), updates_type)))  # fmt: skip
    net = _net(indices=indices, updates_shape=updates_shape, updates_type=updates_type)
    found = diagnostic(validated(net).errors, code)
    assert fragment in found.message, found.message
    assert found.line == line_of(net.text(), f'<port id="{port}"', within="s")


def test_scatter_nd_update_index_types_and_scalars_are_reported():
    x = parameter([2, 3])
    check_rejected(lambda: opset4.scatter_nd_update(x, constant(np.array([[1]], np.uint8)),
                                                    parameter([1, 3])))  # fmt: skip
    check_rejected(lambda: opset4.scatter_nd_update(x, constant(np.int64(1)), parameter([3])))
    net = Net()
    inputs = [net.param("x", "2,3"), net.const("i", np.array([[1]], np.uint8)),
              net.param("u", "1,3")]  # fmt: skip
    net.result(net.op("s", "ScatterNDUpdate", "opset4", None, inputs, [2, 3]))
    found = diagnostic(validated(net).errors, "index-type")
    assert "indices must be i32 or i64, but input 1 is u8" in found.message
    net = Net()
    inputs = [net.param("x", "2,3"), net.const("i", np.int64(1)), net.param("u", "3")]
    net.result(net.op("s", "ScatterNDUpdate", "opset4", None, inputs, [2, 3]))
    found = diagnostic(validated(net).errors, "input-rank")
    assert "indices must have rank >= 1, but it is a scalar" in found.message


def test_scatter_nd_update_constant_index_out_of_range_is_reported():
    model = model_of(opset4.scatter_nd_update(parameter([2, 3], name="x"),
                                              constant(np.array([[0], [2]])),
                                              parameter([2, 3], name="u")))  # fmt: skip
    report, text = edited_report(model, lambda t: t)
    found = diagnostic(report, "index-range")
    assert "outside [-2, 1] for axis 0 of size 2, e.g. 2 at [1, 0]" in found.message
    assert found.line > first_line_with(text, 'type="ScatterNDUpdate"')
    feed = {"x": np.zeros((2, 3), np.float32), "u": np.ones((2, 3), np.float32)}
    x, u = parameter([2, 3], name="x"), parameter([2, 3], name="u")
    model = model_of(opset4.scatter_nd_update(x, parameter([2, 1], "i64", name="i"), u))
    feed["i"] = np.array([[0], [2]])
    with pytest.raises(
        Exception,
        match=r"1 index value\(s\) outside \[-2, 1\] for axis 0 of size 2, e.g. 2 at \[1, 0\]",
    ):
        run_irrun(model, feed)


def test_scatter_nd_update_reduction_is_warned_before_version_15():
    found = diagnostic(validated(_net(attrs={"reduction": "sum"})), "unknown-attribute")
    assert "ScatterNDUpdate-15 and later" in found.message
    found = diagnostic(validated(_net("opset15", attrs={"reductions": "sum"})), "unknown-attribute")
    assert found.hint == "did you mean reduction?"
