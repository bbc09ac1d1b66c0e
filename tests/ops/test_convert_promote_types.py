"""ConvertPromoteTypes-14: the common type against OpenVINO for pairs of types under every
attribute combination (refusals included), values against the CPU plugin (exact)."""

from __future__ import annotations

import numpy as np
import openvino.opset14 as opset14
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irrun.element_types import element_type
from irrun.errors import IRError
from irrun.ops.base import TensorInfo
from irrun.ops.convert_promote_types import ConvertPromoteTypes
from irrun.shape import Shape
from tests.helpers.openvino_oracle import (
    check_shapes,
    model_of,
    parameter,
    run_irrun,
    run_openvino,
)
from tests.helpers.strategies import bare_op, op_settings, shape_text

TYPES = ["boolean", "f16", "bf16", "f32", "f64", "i8", "i16", "i32", "i64", "u8", "u16", "u32",
         "u64", "f8e4m3", "f8e5m2", "i4", "u4", "u1", "dynamic"]  # fmt: skip


@op_settings(40)
@given(st.sampled_from(TYPES), st.sampled_from(TYPES), shape_text(max_rank=2),
       shape_text(max_rank=2), st.booleans(), st.booleans(),
       st.sampled_from(["f32", "i64", "f64"]))  # fmt: skip
def test_promoted_type_matches_openvino(a, b, a_shape, b_shape, unsafe, pytorch, target):
    """OpenVINO's verdict (a type, or a refusal) is irrun's, on irrun's op directly (an IR
    with a refused pair cannot be saved)."""
    args = (parameter(a_shape, a), parameter(b_shape, b), unsafe, pytorch, target)
    try:
        node = opset14.convert_promote_types(*args)
    except RuntimeError:
        node = None
    attributes = {"promote_unsafe": str(unsafe).lower(),
                  "pytorch_scalar_promotion": str(pytorch).lower(),
                  "u64_integer_promotion_target": target}  # fmt: skip
    op = bare_op(ConvertPromoteTypes, attributes)
    infos = [TensorInfo(Shape.parse(s), element_type(t)) for s, t in ((a_shape, a), (b_shape, b))]
    if node is None:
        with pytest.raises(IRError):
            op.infer(infos)
        return
    outputs = op.infer(infos)
    expected = node.get_output_element_type(0).get_type_name()
    assert [o.element_type.name for o in outputs] == [expected, expected]
    assert [o.shape for o in outputs] == [Shape.parse(a_shape), Shape.parse(b_shape)]


@pytest.mark.parametrize(
    "a, b, unsafe",
    [
        ("f32", "i8", False),
        ("i32", "u8", False),
        ("u16", "u8", False),
        ("f16", "i8", False),
        ("i8", "u32", True),
        ("f16", "i32", True),
        ("boolean", "i16", False),
    ],  # fmt: skip
)
def test_convert_promote_types_shapes_and_values_match_openvino(a, b, unsafe):
    node = opset14.convert_promote_types(parameter([2, 3], a, name="a"), parameter([3], b,
                                                                                   name="b"),
                                         unsafe)  # fmt: skip
    check_shapes(node)
    rng = np.random.default_rng(0)
    feed = {}
    for name, etype, shape in (("a", a, (2, 3)), ("b", b, (3,))):
        dtype = element_type(etype).numpy_dtype
        values = rng.uniform(-100, 200, shape)
        feed[name] = (values > 50) if etype == "boolean" else values.astype(dtype)
    model = model_of(node)
    expected = run_openvino(model, feed)
    got = run_irrun(model, feed)
    for g, e in zip(got, expected):
        assert g.dtype == e.dtype
        np.testing.assert_array_equal(g, e)


def test_f16_with_bf16_promotes_to_f32():
    """Unsafe f16 + bf16 is f32, each value converted exactly (the CPU plugin misreads a bf16
    Parameter fed from NumPy, so the values are checked against the inputs themselves)."""
    node = opset14.convert_promote_types(parameter([3], "f16", name="a"),
                                         parameter([3], "bf16", name="b"), True)  # fmt: skip
    check_shapes(node)
    a = np.array([1.5, -2.25, 65504], np.float16)
    b = np.array([3.0, 0.1, -1e30], np.float32).astype(element_type("bf16").numpy_dtype)
    got = run_irrun(model_of(node), {"a": a, "b": b})
    assert [g.dtype for g in got] == [np.float32, np.float32]
    assert got[0].tolist() == a.astype(np.float32).tolist()
    assert got[1].tolist() == b.astype(np.float32).tolist()


def test_refusals_are_explained():
    op = bare_op(ConvertPromoteTypes)
    infos = [
        TensorInfo(Shape([2]), element_type("f16")),
        TensorInfo(Shape([2]), element_type("i32")),
    ]
    with pytest.raises(
        IRError, match=r"i32 cannot be safely promoted to f16 \(it needs a float of 64"
    ):
        op.infer(infos)
    infos[0] = TensorInfo(Shape([2]), element_type("i32"))
    infos[1] = TensorInfo(Shape([2]), element_type("u64"))
    with pytest.raises(IRError, match="no signed integer holds both i32 and u64 safely"):
        op.infer(infos)
