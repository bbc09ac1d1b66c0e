"""Broadcast-1 and Broadcast-3: shapes against OpenVINO for every mode (constant, unknown and
ShapeOf-computed targets), kernels against the CPU plugin, reported errors."""

from __future__ import annotations

import numpy as np
import openvino.opset1 as opset1
import openvino.opset3 as opset3
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from irrun.element_types import element_type
from irrun.ops.base import TensorInfo
from irrun.ops.broadcast import Broadcast3
from irrun.shape import Shape
from tests.helpers.ir_text import Net
from tests.helpers.openvino_oracle import (
    check_rejected,
    check_shapes,
    constant,
    model_of,
    parameter,
    run_irrun,
    run_openvino,
)
from tests.helpers.strategies import bare_op, op_settings, shape_of_info, validated


@st.composite
def case(draw):
    """Data dims (as text), a target near them (sizes), and sorted axes for explicit mode."""
    sizes = draw(st.lists(st.sampled_from([1, 1, 2, 3, 4]), max_size=4))
    texts = []
    for size in sizes:
        kind = draw(st.sampled_from(["static", "static", "?", "interval"]))
        texts.append(str(size) if kind == "static" else "?" if kind == "?" else f"1..{size + 2}")
    data = "[...]" if draw(st.integers(0, 8)) == 0 else "[" + ",".join(texts) + "]"
    lead = draw(st.lists(st.sampled_from([1, 2, 3]), max_size=2))
    target = lead + [draw(st.sampled_from([s, s, 1, 2, 5])) if s != 1 else
                     draw(st.sampled_from([1, 3, 4])) for s in sizes]  # fmt: skip
    if draw(st.integers(0, 5)) == 0 and target:
        target = target[draw(st.integers(0, len(target) - 1)) :]
    if draw(st.integers(0, 8)) == 0 and target:
        target[0] = -1
    positions = sorted(draw(st.permutations(range(len(target))))[: len(sizes)])
    return data, target, positions


@op_settings(40)
@given(case(), st.sampled_from(["numpy", "bidirectional", "explicit", "pdpd"]),
       st.sampled_from(["i64", "i32"]))  # fmt: skip
def test_broadcast3_shapes_match_openvino(case, mode, etype):
    data_text, target, axes = case
    assume(target)
    data = parameter(data_text, "f32", name="x")
    args = [data, constant(np.array(target, dtype=np.int64), etype)]
    try:
        if mode == "explicit":
            args.append(constant(np.array(axes, dtype=np.int64)))
        node = opset3.broadcast(*args, broadcast_spec=mode)
    except Exception:
        assume(False)
    check_shapes(node)


@op_settings(40)
@given(case(), st.sampled_from(["numpy", "explicit"]))
def test_broadcast1_shapes_match_openvino(case, mode):
    data_text, target, axes = case
    assume(target)
    data = parameter(data_text, "f32", name="x")
    args = [data, constant(np.array(target, dtype=np.int64))]
    try:
        if mode == "explicit":
            args.append(constant(np.array(axes, dtype=np.int64)))
        node = opset1.broadcast(*args, mode=mode)
    except Exception:
        assume(False)
    check_shapes(node)


@pytest.mark.parametrize("mode", ["numpy", "bidirectional", "explicit"])
def test_broadcast_with_unknown_targets(mode):
    x = parameter("[3,1]", name="x")
    for target in (parameter([3], "i64", name="t"), parameter("[?]", "i64", name="t")):
        axes = [constant(np.array([0, 2]))] if mode == "explicit" else []
        check_shapes(opset3.broadcast(x, target, *axes, broadcast_spec=mode))
    check_shapes(opset3.broadcast(parameter("[...]", name="y"), parameter([2], "i64", name="t"),
                                  broadcast_spec="bidirectional"))  # fmt: skip


@op_settings(40)
@given(case(), st.sampled_from(["numpy", "bidirectional"]),
       st.lists(st.sampled_from(["1", "3", "?", "2..5", "1..4"]), min_size=1,
                max_size=4))  # fmt: skip
def test_broadcast_target_from_shape_of_matches_openvino(case, mode, target_dims):
    """A target computed by ShapeOf of a dynamic tensor: irrun's infer given that partial value
    against OpenVINO's bound evaluation."""
    data_text = case[0]
    target_text = "[" + ",".join(target_dims) + "]"
    try:
        node = opset3.broadcast(parameter(data_text, name="x"),
                                opset3.shape_of(parameter(target_text, name="y")),
                                broadcast_spec=mode)  # fmt: skip
    except Exception:
        assume(False)
    data = TensorInfo(Shape.parse(data_text.strip("[]")), element_type("f32"))
    target = shape_of_info(Shape.parse(target_text))
    (out,) = bare_op(Broadcast3, {"mode": mode}, name="b").infer([data, target])
    assert str(out.shape) == str(node.get_output_partial_shape(0))


KERNEL_CASES = [
    ("numpy", [3, 1], [2, 3, 4], None),
    ("numpy", [], [2, 3], None),
    ("bidirectional", [3, 1], [2, 1, 5], None),
    ("bidirectional", [2, 3, 4], [3, 1], None),
    ("explicit", [3], [2, 3, 4], [1]),
    ("explicit", [2, 4], [2, 3, 4], [0, 2]),
    ("pdpd", [2, 1, 4], [2, 3, 1], None),
]


@pytest.mark.parametrize("etype", ["f32", "f16", "i32", "i64", "u8", "boolean"])
@pytest.mark.parametrize("mode, shape, target, axes", KERNEL_CASES)
def test_broadcast3_matches_cpu_plugin(mode, shape, target, axes, etype):
    dtype = element_type(etype).numpy_dtype
    data = np.random.default_rng(6).integers(0, 100, shape).astype(dtype)
    args = [parameter(shape, etype, name="x"), constant(np.array(target))]
    if axes is not None:
        args.append(constant(np.array(axes)))
    model = model_of(opset3.broadcast(*args, broadcast_spec=mode))
    expected = run_openvino(model, {"x": data})[0]
    got = run_irrun(model, {"x": data})[0]
    assert got.dtype == dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)


V1_CASES = [k for k in KERNEL_CASES if k[0] in ("numpy", "explicit")]


@pytest.mark.parametrize("mode, shape, target, axes", V1_CASES)
def test_broadcast1_matches_cpu_plugin(mode, shape, target, axes):
    data = np.random.default_rng(7).standard_normal(shape).astype(np.float32)
    args = [parameter(shape, name="x"), constant(np.array(target))]
    if axes is not None:
        args.append(constant(np.array(axes)))
    model = model_of(opset1.broadcast(*args, mode=mode))
    np.testing.assert_array_equal(run_irrun(model, {"x": data})[0],
                                  run_openvino(model, {"x": data})[0])  # fmt: skip


def _net(version, data, target, axes=None, out_dims=(2, 3, 4), shape="3,2"):
    net = Net()
    inputs = [net.param("x", shape), net.const("target", np.array(target))]
    if axes is not None:
        inputs.append(net.const("axes", np.array(axes)))
    net.result(net.op("b", "Broadcast", version, data, inputs, list(out_dims)))
    return net


@pytest.mark.parametrize(
    "version, mode, target, axes, code, fragment",
    [
        ("opset3", "numpy", [2, 3, 4], None, "input-dims",
         "data dimension 1 is 2, target dimension 2 is 4"),
        ("opset3", "numpy", [3], None, "input-rank", "has rank 1, below the rank 2"),
        ("opset3", "bidirectional", [4, 1], None, "input-dims", "dimension 0: 3 vs 4"),
        ("opset3", "explicit", [3, 2, 4], [1, 0], None, "not in increasing order"),
        ("opset3", "explicit", [3, 2, 4], [0, 3], "axis-range", "axes_mapping[1] = 3 is outside"),
        ("opset1", "explicit", [3, 5, 4], [0, 1], "input-dims",
         "data dimension 1 (2) goes to target dimension 1 (5)"),
    ],
)  # fmt: skip
def test_broadcast_invalid_targets_are_reported(version, mode, target, axes, code, fragment):
    module = opset3 if version == "opset3" else opset1
    args = [parameter([3, 2]), constant(np.array(target))]
    if axes is not None:
        args.append(constant(np.array(axes)))
    keyword = "broadcast_spec" if version == "opset3" else "mode"
    check_rejected(lambda: module.broadcast(*args, **{keyword: mode}))
    net = _net(version, {"mode": mode}, target, axes, out_dims=target)
    (error,) = validated(net).errors
    assert error.code == (code or "input-dims") and fragment in error.message


def test_broadcast_misspelt_mode_is_warned():
    net = _net("opset3", {"mode": "numpy", "mod": "numpy"}, [2, 3, 2], out_dims=(2, 3, 2))
    (warning,) = list(validated(net))
    assert warning.code == "unknown-attribute" and warning.hint == "did you mean mode?"
