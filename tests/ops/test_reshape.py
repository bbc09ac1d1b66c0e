"""Reshape-1: shapes against OpenVINO (constant targets, targets from ShapeOf of dynamic
inputs, intervals), the kernel against the CPU plugin, reported errors."""

from __future__ import annotations

import re
import tempfile

import numpy as np
import openvino.opset13 as ops
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from tests.helpers.ir_text import Net, line_of
from tests.helpers.openvino_oracle import (
    check_rejected,
    check_shapes,
    constant,
    load_in_irrun,
    model_of,
    parameter,
    run_irrun,
    run_openvino,
)
from tests.helpers.strategies import built, dim_text, op_settings, shape_text, validated

# static sizes 0 to 6 (three times as likely as each other kind of dim), [...] one time in 10
SHAPE = shape_text(dim_text(st.integers(0, 6), static_weight=3), dynamic_rank=10)


@op_settings(40)
@given(
    SHAPE,
    st.lists(st.sampled_from([-1, 0, 1, 2, 3, 4, 6, 12, 24]), min_size=1, max_size=4),
    st.booleans(),
    st.sampled_from(["i64", "i32"]),
)
def test_reshape_shapes_match_openvino(shape, target, special_zero, index_type):
    x = parameter(shape, "f32", name="x")
    node = built(lambda: ops.reshape(x, constant(np.array(target), index_type), special_zero))
    _check(node)


def _check(node):
    # OpenVINO may give an empty interval (1..0) where no run can succeed; irrun says ? there
    # (test_reshape_empty_interval_is_unknown)
    bounds = re.findall(r"(\d+)\.\.(\d+)", str(node.get_output_partial_shape(0)))
    assume(all(int(low) <= int(high) for low, high in bounds))
    given, out = node.input(0).get_partial_shape(), node.get_output_partial_shape(0)
    if given.is_static and out.is_static:
        count_in, count_out = (int(np.prod([d.get_length() for d in s])) for s in (given, out))
        if count_in != count_out:
            # special_zero copied a dim: OpenVINO's rule skips the count, irrun refuses it
            assert node.get_special_zero()
            _assert_refused_count(node)
            return
    check_shapes(node)


def _assert_refused_count(node):
    with tempfile.TemporaryDirectory() as folder:
        _, report = load_in_irrun(model_of(node), folder)
    (error,) = [d for d in report if d.severity == "error"]
    assert error.code == "input-dims", report.to_text()
    assert "elements cannot be reshaped to" in error.message
    assert "special_zero copies input dimension" in error.message


def test_a_count_that_special_zero_leaves_unchecked_in_openvino_is_an_error():
    """[1,64,1] to [0,64,56,56] (timm's coat_lite at a small input): OpenVINO's shape rule
    gives [1,64,56,56] and its CPU plugin fails (or, [2,6] to [0,4], gives [2,4] from the
    first 8 elements); irrun refuses both, with the arithmetic."""
    for shape, target in (([1, 64, 1], [0, 64, 56, 56]), ([2, 6], [0, 4])):
        x = parameter(shape, "f32", name="x")
        node = ops.reshape(x, constant(np.array(target, np.int64)), True)
        with tempfile.TemporaryDirectory() as folder:
            _, report = load_in_irrun(model_of(node), folder)
        (error,) = list(report)
        assert error.code == "input-dims"
    assert error.message.endswith(
        "(Reshape-1): 2*6 = 12 elements cannot be reshaped to [2,4] (2*4 = 8 elements); "
        "special_zero copies input dimension 0, and OpenVINO's shape rule then skips this "
        "check, but no run can give it"
    )


@op_settings(40)
@given(SHAPE, SHAPE, st.data())
def test_reshape_of_shapeof_targets_matches_openvino(shape, other, data):
    """A target from ShapeOf of another (dynamic) input, its dims picked by Gather and joined
    with constants: a partial value."""
    x = parameter(shape, "f32", name="x")
    y = parameter(other, "f32", name="y")
    assume(other != "[...]" and other != "[]")
    rank = len(other.strip("[]").split(","))
    picks = data.draw(st.lists(st.integers(0, rank - 1), min_size=1, max_size=3))
    extra = data.draw(st.lists(st.sampled_from([-1, 0, 2, 3]), max_size=2))
    special_zero = data.draw(st.booleans())
    dims = ops.gather(ops.shape_of(y), constant(np.array(picks), "i64"), constant(0, "i64"))
    target = ops.concat([dims, constant(np.array(extra, dtype=np.int64))], 0) if extra else dims
    node = built(lambda: ops.reshape(x, target, special_zero))
    _check(node)


def test_reshape_empty_interval_is_unknown():
    """[] reshaped to [d, -1] with d in 2..5: OpenVINO says [2..5,1..0] (an empty interval, no
    error); irrun says [2..5,?] and reports nothing either."""
    x = parameter("[]", "f32", name="x")
    y = parameter("[2..5]", "f32", name="y")
    d = ops.gather(ops.shape_of(y), constant(np.array([0])), constant(0))
    node = ops.reshape(x, ops.concat([d, constant(np.array([-1]))], 0), False)
    assert str(node.get_output_partial_shape(0)) == "[2..5,1..0]"
    with tempfile.TemporaryDirectory() as tmp:
        from tests.helpers.openvino_oracle import load_in_irrun

        loaded, report = load_in_irrun(model_of(node), tmp)
    assert not list(report), report.to_text()
    (layer,) = [layer for layer in loaded.layers if layer.type == "Reshape"]
    assert str(layer.outputs[0].inferred_shape) == "[2..5,?]"


@pytest.mark.parametrize(
    "shape, target, special_zero, expected",
    [
        ("[2,3,4]", [0, -1], True, "[2,12]"),
        ("[?,3,4]", [0, -1], True, "[?,12]"),
        ("[1..8,3,4,5]", [-1, 20], False, "[3..24,20]"),
        ("[2..8,6]", [-1, 4], False, "[3..12,4]"),
        ("[0,3]", [0, -1], False, "[0,1]"),
        ("[2,3]", [5], False, None),
    ],
)
def test_reshape_examples(shape, target, special_zero, expected):
    x = parameter(shape, "f32", name="x")
    if expected is None:
        check_rejected(lambda: ops.reshape(x, constant(np.array(target, np.int64)), special_zero))
        return
    node = ops.reshape(x, constant(np.array(target, np.int64)), special_zero)
    assert str(node.get_output_partial_shape(0)) == expected
    check_shapes(node)


def test_reshape_scalar_target_is_reported():
    check_rejected(lambda: ops.reshape(parameter([1, 1]), constant(np.array(1, np.int64)), False))
    net = Net()
    x = net.param("x", "1,1")
    t = net.const("target", np.array(1, np.int64))
    net.result(net.op("r", "Reshape", "opset1", {"special_zero": "false"}, [x, t], []))
    (error,) = validated(net).errors
    assert error.code == "input-rank" and "must have rank 1, but its shape is []" in error.message


@pytest.mark.parametrize("etype", ["f32", "f16", "i32", "i64", "u8", "boolean"])
def test_reshape_kernel_matches_openvino(etype):
    rng = np.random.default_rng(5)
    x = parameter("[2,3,4]", etype, name="x")
    model = model_of(ops.reshape(x, constant(np.array([0, -1, 2], np.int64)), True))
    value = (rng.normal(size=(2, 3, 4)) * 100).astype(np.float32)
    value = value > 0 if etype == "boolean" else value.astype(x.get_element_type().to_dtype())
    expected = run_openvino(model, {"x": value})
    actual = run_irrun(model, {"x": value})
    assert actual[0].dtype == expected[0].dtype
    np.testing.assert_array_equal(actual[0], expected[0])


def test_reshape_kernel_empty_input():
    x = parameter("[0,3]", "f32", name="x")
    model = model_of(ops.reshape(x, constant(np.array([0, -1], np.int64)), False))
    (out,) = run_irrun(model, {"x": np.zeros((0, 3), np.float32)})
    assert out.shape == (0, 1)


def _reshape_net(target, out_dims, special_zero="false", attribute="special_zero"):
    net = Net()
    x = net.param("x", "2,3,4")
    t = net.const("target", np.array(target, np.int64))
    net.result(net.op("r", "Reshape", "opset1", {attribute: special_zero}, [x, t], out_dims))
    return net


def test_reshape_two_minus_ones_are_reported():
    check_rejected(lambda: ops.reshape(parameter([2, 3, 4]), constant(np.array([-1, -1])), False))
    net = _reshape_net([-1, -1], [2, 12])
    (error,) = validated(net).errors
    assert error.code == "input-value" and "-1 at both index 0 and index 1" in error.message
    assert error.line == line_of(net.text(), '<port id="1"', within="r")


def test_reshape_count_mismatch_is_reported():
    check_rejected(lambda: ops.reshape(parameter([2, 3, 4]), constant(np.array([5, -1])), False))
    (error,) = validated(_reshape_net([5, -1], [5, 4])).errors
    assert error.code == "input-dims"
    assert "2*3*4 = 24 elements cannot be reshaped to [5,-1]" in error.message
    check_rejected(lambda: ops.reshape(parameter([2, 3, 4]), constant(np.array([5, 5])), False))
    (error,) = validated(_reshape_net([5, 5], [5, 5])).errors
    assert error.code == "input-dims"
    assert "2*3*4 = 24 elements cannot be reshaped to [5,5] (5*5 = 25 elements)" in error.message


def test_reshape_bad_values_are_reported():
    check_rejected(lambda: ops.reshape(parameter([2, 3, 4]), constant(np.array([-2, 12])), False))
    (error,) = validated(_reshape_net([-2, 12], [2, 12])).errors
    assert error.code == "input-value" and "has -2 at index 0" in error.message
    check_rejected(
        lambda: ops.reshape(parameter([2, 3, 4]), constant(np.array([24, 1, 1, 0])), True)
    )
    (error,) = validated(_reshape_net([24, 1, 1, 0], [24, 1, 1, 0], "true")).errors
    assert error.code == "input-value" and "the input [2,3,4] has rank 3" in error.message


def test_reshape_unknown_attribute_is_warned():
    net = _reshape_net([4, 6], [4, 6])
    text = net.text().replace('special_zero="false"', 'special_zero="false" special_zer="1"')
    (warning,) = list(validated(net, text))
    assert warning.code == "unknown-attribute" and "did you mean special_zero?" in warning.hint


def test_reshape_static_short_path_agrees_with_the_interval_rule(monkeypatch):
    # Every static input of rank <= 3 (sizes 0..4) against every pattern of length <= 3 from
    # {-1, 0, 1, 2, 3, 4, 6}: the int-only short path gives what the interval rule gives
    # (or leaves the case to it).
    import itertools

    import irrun
    from irrun.ops import reshape
    from irrun.ops.base import OpContext, TensorInfo
    from irrun.shape import Shape

    model = irrun.load(_reshape_net([2, 12], [2, 12]).text(), weights=None)
    layer = next(x for x in model.layers if x.type == "Reshape")
    quiet = type("Quiet", (OpContext,), {"error": lambda self, *a, **k: None})()
    op = reshape.Reshape(layer, quiet)
    short_path = reshape._static_output
    compared = 0
    for rank in range(4):
        for sizes in itertools.product(range(5), repeat=rank):
            shape = Shape(list(sizes))
            for length in range(1, 4):
                for pattern in itertools.product([-1, 0, 1, 2, 3, 4, 6], repeat=length):
                    if pattern.count(-1) > 1:
                        continue
                    for special_zero in (False, True):
                        op.special_zero = special_zero
                        dims, minus_one = op._pattern(list(pattern))
                        fast = short_path(sizes, dims, minus_one, special_zero)
                        if fast is None:
                            continue
                        monkeypatch.setattr(reshape, "_static_output", lambda *a: None)
                        target = TensorInfo(Shape([length]))
                        slow = op._output(shape, (dims, minus_one), target)
                        monkeypatch.setattr(reshape, "_static_output", short_path)
                        assert slow is not None and str(fast) == str(slow), (sizes, pattern)
                        compared += 1
    assert compared > 2000
