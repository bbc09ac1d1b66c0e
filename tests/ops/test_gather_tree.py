"""GatherTree-1: shapes against OpenVINO, kernel against the CPU plugin, reported errors."""

from __future__ import annotations

import numpy as np
import openvino.opset1 as ops
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irrun.element_types import element_type
from tests.helpers.ir_text import Net, line_of
from tests.helpers.openvino_oracle import (
    check_rejected,
    check_shapes,
    model_of,
    parameter,
    run_irrun,
    run_openvino,
)
from tests.helpers.strategies import (
    built,
    diagnostic,
    op_settings,
    shape_around,
    validated,
)


@op_settings(40)
@given(st.data(), st.lists(st.integers(0, 4), min_size=3, max_size=3),
       st.sampled_from(["i32", "f32", "dynamic"]))  # fmt: skip
def test_gather_tree_shapes_match_openvino(data, sizes, etype):
    other = sizes if data.draw(st.integers(0, 4)) else data.draw(
        st.lists(st.integers(0, 4), max_size=4))  # fmt: skip
    step = parameter(data.draw(shape_around(sizes)), etype, name="s")
    parent = parameter(data.draw(shape_around(other)), "i32" if etype == "dynamic" else etype,
                       name="p")  # fmt: skip
    batch = [sizes[1]] if data.draw(st.integers(0, 4)) else data.draw(
        st.lists(st.integers(0, 4), max_size=2))  # fmt: skip
    lengths = parameter(data.draw(shape_around(batch)), etype, name="m")
    end = parameter(data.draw(shape_around([] if data.draw(st.integers(0, 4)) else [1])), etype,
                    name="e")  # fmt: skip
    check_shapes(built(lambda: ops.gather_tree(step, parent, lengths, end)))


def _model(shape, etype):
    t, b, w = shape
    return model_of(ops.gather_tree(parameter(shape, etype, name="s"),
                                    parameter(shape, etype, name="p"),
                                    parameter([b], etype, name="m"),
                                    parameter([], etype, name="e")))  # fmt: skip


def _feed(shape, etype, seed, lengths=None):
    t, b, w = shape
    rng = np.random.default_rng(seed)
    dtype = element_type(etype).numpy_dtype
    return {"s": rng.integers(0, 5, shape).astype(dtype),
            "p": rng.integers(0, w, shape).astype(dtype),
            "m": np.array(lengths if lengths is not None else rng.integers(0, t + 2, b), dtype),
            "e": np.array(2, dtype)}  # fmt: skip


@pytest.mark.parametrize("etype", ["i32", "f32"])
@pytest.mark.parametrize("shape, seed", [([5, 3, 4], 0), ([7, 2, 3], 1), ([1, 2, 2], 2),
                                         ([6, 4, 1], 3)])  # fmt: skip
def test_gather_tree_matches_cpu_plugin(shape, seed, etype):
    """(OpenVINO's core has no GatherTree evaluate; the CPU plugin runs the reference's
    algorithm.)"""
    model = _model(shape, etype)
    feed = _feed(shape, etype, seed)
    got = run_irrun(model, feed)[0]
    assert got.dtype == element_type(etype).numpy_dtype
    np.testing.assert_array_equal(got, run_openvino(model, feed)[0])


def test_gather_tree_follows_the_parent_chain():
    """The example of OpenVINO's specification (one batch, beam width 3)."""
    step = np.array([[[1, 2, 3]], [[4, 5, 6]], [[7, 8, 9]], [[10, 11, 12]]], np.float32)
    parent = np.array([[[0, 0, 0]], [[0, 1, 1]], [[2, 1, 2]], [[2, 1, 2]]], np.float32)
    feed = {"s": step, "p": parent, "m": np.array([3], np.float32), "e": np.float32(10)}
    got = run_irrun(_model([4, 1, 3], "f32"), feed)[0]
    assert got[:, 0].tolist() == [[2, 2, 2], [6, 5, 6], [7, 8, 9], [10, 10, 10]]


def _net(shapes=("4,2,3", "4,2,3", "2", ""), types=("i32",) * 4):
    net = Net()
    inputs = [net.param(n, s, t) for n, s, t in zip("spme", shapes, types)]
    net.result(net.op("g", "GatherTree", "opset1", None, inputs, [4, 2, 3]))
    return net


@pytest.mark.parametrize(
    "shapes, types, code, fragment, port",
    [
        (("4,2,3", "4,2,4", "2", ""), ("i32",) * 4, "input-dims",
         "step_ids [4,2,3] and parent_idx [4,2,4] must have one shape of rank 3", 1),
        (("4,2,3", "4,2,3", "3", ""), ("i32",) * 4, "input-dims",
         "max_seq_len [3] must have one element per batch item", 2),
        (("4,2,3", "4,2,3", "2,1", ""), ("i32",) * 4, "input-rank",
         "max_seq_len must have rank 1", 2),
        (("4,2,3", "4,2,3", "2", "1"), ("i32",) * 4, "input-rank",
         "end_token must be a scalar, but its shape is [1]", 3),
        (("4,2", "4,2", "2", ""), ("i32",) * 4, "input-rank", "must have one shape of rank 3", 0),
        (("4,2,3", "4,2,3", "2", ""), ("f32", "i32", "f32", "f32"), "input-type",
         "step_ids is f32, parent_idx is i32", None),
        (("4,2,3", "4,2,3", "2", ""), ("boolean",) * 4, "input-type", "not boolean", 0),
    ],
)  # fmt: skip
def test_gather_tree_invalid_inputs_are_reported(shapes, types, code, fragment, port):
    check_rejected(lambda: ops.gather_tree(*[parameter([int(d) for d in s.split(",") if d], t)
                                             for s, t in zip(shapes, types)]))  # fmt: skip
    net = _net(shapes, types)
    found = diagnostic(validated(net).errors, code)
    assert fragment in found.message, found.message
    needle = 'type="GatherTree"' if port is None else f'<port id="{port}"'
    assert found.line == line_of(net.text(), needle, within="g")


def test_gather_tree_parent_out_of_range_fails_when_run():
    feed = _feed([3, 1, 2], "i32", 0, lengths=[3])
    feed["p"][2, 0, 0] = 5
    with pytest.raises(Exception, match="parent index 5 at step 2, batch 0 is outside"):
        run_irrun(_model([3, 1, 2], "i32"), feed)


def test_gather_tree_unknown_attribute_is_warned():
    net = Net()
    inputs = [net.param(n, s) for n, s in zip("spme", ("4,2,3", "4,2,3", "2", ""))]
    net.result(net.op("g", "GatherTree", "opset1", {"axis": "0"}, inputs, [4, 2, 3]))
    found = diagnostic(validated(net), "unknown-attribute")
    assert "GatherTree-1 has no attributes" in found.hint


def test_gather_tree_compares_float_values_truncated_as_the_reference():
    """The reference reads values as indices (truncated), so 2.5 ends a beam whose end_token
    is 2; the CPU plugin compares the floats themselves (and truncates lengths: 2.9 is 2)."""
    model = _model([3, 1, 2], "f32")
    feed = {"s": np.array([[[2.5, 1]], [[3, 2.7]], [[1, 1]]], np.float32),
            "p": np.zeros((3, 1, 2), np.float32), "m": np.array([2.9], np.float32),
            "e": np.float32(2)}  # fmt: skip
    assert run_irrun(model, feed)[0].ravel().tolist() == [2.5, 2.5, 2, 2, 2, 2]
    expected = np.array([2.5, 2.5, 3, 2.7, 2, 2], np.float32)
    np.testing.assert_array_equal(run_openvino(model, feed)[0].ravel(), expected)
