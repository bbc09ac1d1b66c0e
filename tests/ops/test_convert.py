"""Convert-1 and ConvertLike-1: shapes and partial values against OpenVINO, the kernel against
OpenVINO's reference (``Node.evaluate``) for every element type pair it evaluates, and against
the CPU plugin for the pairs real models use (known CPU deviations assert the reference)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import openvino as ov
import openvino.opset1 as ops
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irrun.element_types import element_type
from irrun.ops._conversion import convert_array
from tests.helpers.ir_text import Net
from tests.helpers.openvino_oracle import (
    check_shapes,
    constant,
    model_of,
    parameter,
    run_irrun,
    run_openvino,
)
from tests.helpers.strategies import op_settings, shape_text, validated

TYPES = [
    "boolean", "bf16", "f16", "f32", "f64", "i4", "i8", "i16", "i32", "i64", "u1", "u2", "u3",
    "u4", "u6", "u8", "u16", "u32", "u64", "nf4", "f8e4m3", "f8e5m2", "f8e8m0", "f4e2m1",
]  # fmt: skip
SHAPES = shape_text(st.sampled_from(["1", "3", "?", "2..5", "..4"]), max_rank=3, dynamic_rank=2)


@op_settings(30)
@given(SHAPES, st.sampled_from(TYPES), st.sampled_from(TYPES))
def test_convert_shapes_match_openvino(shape, source, destination):
    x = parameter(shape, source, name="x")
    check_shapes(ops.convert(x, destination))
    like = parameter("[2]", destination, name="like")
    check_shapes(ops.convert_like(x, like))


def test_partial_values_pass_integer_converts():
    """ShapeOf (i64) → Convert i32 → Convert i64 → Reshape keeps the dynamic dim's interval."""
    y = parameter("[2..6,4]", "f32", name="y")
    shape = ops.convert(ops.convert(ops.shape_of(y), "i32"), "i64")
    x = parameter("[?,4]", "f32", name="x")
    node = ops.reshape(x, shape, False)
    assert str(node.get_output_partial_shape(0)) == "[2..6,4]"
    check_shapes(node)


# -- the kernel against OpenVINO's reference ----------------------------------------------------
def _samples(name, rng, n=48):
    etype = element_type(name)
    if name == "nf4":
        return rng.integers(0, 16, n).astype(np.uint8)
    if etype.kind == "bool":
        return rng.integers(0, 2, n).astype(bool)
    if etype.kind == "float":
        special = [0, -0.0, 0.5, -0.5, 1.5, 2.5, 65504, 65520, 1e10, -1e10, 3e9, 300, -2.7,
                   255.5, 127.9, np.inf, -np.inf, np.nan]  # fmt: skip
        # (the special values first: the reference's f32 → u32 loop treats its last few
        # elements differently from the others when they are out of range)
        values = np.concatenate([special, rng.normal(0, 3, n), rng.normal(0, 1e5, n // 2)])
        return values if name == "f64" else values.astype(np.float32).astype(etype.numpy_dtype)
    if etype.is_sub_byte:
        bits = etype.bits
        low, high = (-(1 << bits - 1), 1 << bits - 1) if etype.kind == "int" else (0, 1 << bits)
        values = rng.integers(low, high, n)
        return values.astype(np.int8 if low else np.uint8).astype(etype.numpy_dtype)
    info = np.iinfo(etype.numpy_dtype)
    wide = rng.integers(info.min, info.max, n, dtype=etype.numpy_dtype, endpoint=True)
    small = rng.integers(-300, 300, n).astype(etype.numpy_dtype)
    return np.concatenate([wide, small, np.array([info.min, info.max, 0, 1], etype.numpy_dtype)])


def _ov_tensor(values, name):
    """An OpenVINO tensor of type ``name`` holding ``values`` (sub-byte, bf16 and f8 types
    packed by OpenVINO's own Convert from f32, whose values they hold exactly)."""
    if name in ("u1", "u2", "u3", "u4", "u6", "i4", "bf16", "f8e4m3", "f8e5m2", "f8e8m0",
                "f4e2m1"):  # fmt: skip
        tensor = ov.Tensor(getattr(ov.Type, name), ov.Shape([values.size]))
        source = ov.Tensor(np.ascontiguousarray(values.astype(np.float32)))
        assert ops.convert(ops.parameter([values.size], ov.Type.f32), name).evaluate(
            [tensor], [source]
        )
        return tensor
    return ov.Tensor(np.ascontiguousarray(values))


def _as_f32(tensor, name):
    """A tensor's values as f32 (through OpenVINO's Convert for the packed types)."""
    out = ov.Tensor(ov.Type.f32, tensor.get_shape())
    assert ops.convert(ops.parameter(list(tensor.get_shape()), getattr(ov.Type, name)),
                       "f32").evaluate([out], [tensor])  # fmt: skip
    return out.data.copy()


_PACKED = ("u1", "u2", "u3", "u4", "u6", "i4", "bf16", "f8e4m3", "f8e5m2", "f8e8m0", "f4e2m1")


@pytest.mark.parametrize("source", [t for t in TYPES if t != "nf4"])
def test_convert_matches_openvino_reference(source):
    """Every destination the reference evaluates from ``source``, on seeded random values and
    the out-of-range, halfway and special values (bit-exact, NaN-aware)."""
    rng = np.random.default_rng(TYPES.index(source))
    values = _samples(source, rng)
    if source in _PACKED:  # only values the type holds (OpenVINO packs them from f32)
        values = convert_array(values.astype(np.float32), element_type("f32"),
                               element_type(source))  # fmt: skip
    tensor = _ov_tensor(values, source)
    checked = 0
    for destination in TYPES:
        if destination in (source, "nf4"):
            continue
        node = ops.convert(ops.parameter([values.size], getattr(ov.Type, source)), destination)
        out = ov.Tensor(getattr(ov.Type, destination), ov.Shape([values.size]))
        if not node.evaluate([out], [tensor]):
            continue  # OpenVINO's reference has no kernel for this pair
        checked += 1
        mine = convert_array(values, element_type(source), element_type(destination))
        assert mine.dtype == element_type(destination).numpy_dtype
        if destination in _PACKED:
            expected, mine = _as_f32(out, destination), mine.astype(np.float32)
        else:
            expected = out.data.copy()
        np.testing.assert_array_equal(mine, expected, err_msg=f"{source} -> {destination}")
    assert checked >= 2


def test_nf4_codes_match_openvino():
    codes = np.arange(16, dtype=np.uint8)
    tensor = ov.Tensor(ov.Type.nf4, ov.Shape([16]))
    tensor.data[:] = (codes[0::2] | (codes[1::2] << 4)).astype(np.uint8)
    for destination in ("f32", "f16"):
        out = ov.Tensor(getattr(ov.Type, destination), ov.Shape([16]))
        assert ops.convert(ops.parameter([16], ov.Type.nf4), destination).evaluate([out], [tensor])
        mine = convert_array(codes, element_type("nf4"), element_type(destination))
        np.testing.assert_array_equal(mine, out.data)
    values = np.linspace(-1.2, 1.2, 97).astype(np.float16)
    out = ov.Tensor(ov.Type.nf4, ov.Shape([97]))
    assert ops.convert(ops.parameter([97], ov.Type.f16), "nf4").evaluate([out], [ov.Tensor(values)])
    mine = convert_array(values, element_type("f16"), element_type("nf4"))
    np.testing.assert_array_equal(convert_array(mine, element_type("nf4"), element_type("f32")),
                                  _as_f32(out, "nf4"))  # fmt: skip


@pytest.mark.parametrize(
    "source, destination, values, expected",
    [
        ("f32", "u8", [300.0, -2.7, 2.7, 1e10, np.nan], [44, 254, 2, 0, 0]),
        ("f32", "i32", [1e10, -2.7, np.nan], [-(2**31), -2, -(2**31)]),
        ("f32", "i64", [1e10, np.inf], [10**10, -(2**63)]),
        ("i64", "u8", [-1, 256, 257], [255, 0, 1]),
        ("i64", "i32", [2**31, -(2**31) - 1], [-(2**31), 2**31 - 1]),
        ("i32", "f16", [65519, 65520, 70000, -70000], [65504, 65504, 65504, -65504]),
        ("i64", "f16", [65519, 65520], [65504, np.inf]),
        ("f32", "boolean", [0.0, -0.0, np.nan, 0.1], [False, False, True, True]),
        ("f32", "u4", [17, -1, 2.7, -2.7], [1, 15, 2, 14]),
        ("f32", "i4", [8, -9, 7.9], [-8, 7, 7]),
    ],
)
def test_convert_rules(source, destination, values, expected):
    array = np.array(values, dtype=element_type(source).numpy_dtype)
    result = convert_array(array, element_type(source), element_type(destination))
    assert result.dtype == element_type(destination).numpy_dtype
    np.testing.assert_array_equal(result.astype(np.float64), np.array(expected, np.float64))


def test_bf16_rounding_is_openvinos():
    """OpenVINO's bfloat16(float) adds half an ulp only when the kept last bit is odd."""
    bits = np.array([0x3E78D298, 0x3F939F0E, 0x3F808000, 0x3F818000], np.uint32)
    result = convert_array(bits.view(np.float32), element_type("f32"), element_type("bf16"))
    assert result.view(np.uint16).tolist() == [0x3E78, 0x3F94, 0x3F80, 0x3F82]


# -- the kernel against the CPU plugin ----------------------------------------------------------
#: Pairs where the CPU plugin deviates from OpenVINO's reference: irrun follows the reference
#: (checked above); here the reference's answer is asserted instead of the CPU's.
CPU_DEVIATIONS = {
    ("f32", "bf16"): "the CPU rounds to nearest even, the reference its own way",
    ("i32", "f16"): "the CPU overflows to inf, the reference saturates to 65504",
}


@pytest.mark.parametrize(
    "source, destination",
    [
        ("f16", "f32"), ("f32", "f16"), ("f32", "i8"), ("f32", "u8"), ("f32", "i32"),
        ("f32", "boolean"), ("boolean", "f32"), ("i64", "i32"), ("i32", "i64"), ("u8", "f32"),
        ("i8", "f32"), ("u8", "f16"), ("f32", "bf16"), ("bf16", "f32"), ("f32", "f8e4m3"),
        ("f16", "i64"), ("i32", "f16"), ("i32", "f32"), ("i32", "u8"),
    ],
)  # fmt: skip
def test_convert_kernel_matches_cpu(source, destination):
    """In-range values (out-of-range float → integer is undefined by the spec; the CPU plugin
    computes i64 in 32 bits and NaN → boolean as false: both avoided)."""
    rng = np.random.default_rng(7)
    x = parameter("[4,64]", source, name="x")
    model = model_of(ops.convert(x, destination))
    if source == "boolean":
        value = rng.integers(0, 2, (4, 64)).astype(bool)
    elif source in ("i64", "i32"):
        value = rng.integers(-(2**31), 2**31 - 1, (4, 64)).astype(np.int64)
        if destination in ("f16",):
            value = np.concatenate([value[:2] % 70000 - 35000, value[2:] % 140000 - 70000])
        value = value.astype(element_type(source).numpy_dtype)
    elif element_type(source).is_integer:
        info = np.iinfo(element_type(source).numpy_dtype)
        value = rng.integers(info.min, info.max, (4, 64), endpoint=True).astype(info.dtype)
    else:
        scale = {"i8": 60, "u8": 120, "i32": 1e6, "i64": 1e4, "boolean": 2}.get(destination, 1e3)
        value = rng.normal(0, scale, (4, 64))
        if destination == "u8":
            value = np.abs(value)
        if destination == "boolean":
            value[0, :8] = 0.0
        value = value.astype(np.float32).astype(element_type(source).numpy_dtype)
    actual = run_irrun(model, {"x": value})[0]
    assert actual.dtype == element_type(destination).numpy_dtype
    feed = {"x": value}
    if source == "bf16":  # OpenVINO takes bf16 input as a tensor of its bits
        feed = {"x": ov.Tensor(ov.Type.bf16, ov.Shape(list(value.shape)))}
        feed["x"].data.view(np.uint16)[:] = value.view(np.uint16)
    if (source, destination) in CPU_DEVIATIONS:
        tensor = ov.Tensor(getattr(ov.Type, destination), ov.Shape([value.size]))
        node = ops.convert(ops.parameter([value.size], getattr(ov.Type, source)), destination)
        assert node.evaluate([tensor], [_ov_tensor(value.reshape(-1), source)])
        expected = tensor.data.reshape(value.shape)
        if destination == "bf16":
            actual, expected = actual.view(np.uint16), expected.view(np.uint16)
        np.testing.assert_array_equal(actual, expected)
        cpu = run_openvino(model, feed)[0]
        assert not np.array_equal(np.asarray(cpu).view(actual.dtype) if destination == "bf16"
                                  else cpu, actual), "the CPU plugin now agrees"  # fmt: skip
        return
    expected = run_openvino(model, feed)[0]
    if destination == "f8e4m3":
        actual, expected = actual.view(np.uint8), np.asarray(expected).view(np.uint8)
    np.testing.assert_array_equal(actual, expected)


@pytest.mark.parametrize("weights", ["u8", "i8", "u4", "i4", "f16"])
def test_compressed_weights_match_cpu(weights):
    """The decompression sub-graphs of compressed models: a u8/i8/u4/i4/f16 Const → Convert f32
    (NNCF and f16 compression)."""
    rng = np.random.default_rng(11)
    low, high = {"u8": (0, 256), "i8": (-128, 128), "u4": (0, 16), "i4": (-8, 8),
                 "f16": (-1000, 1000)}[weights]  # fmt: skip
    values = rng.integers(low, high, (8, 16)).astype(np.float32)
    if weights == "f16":
        values = (values / 7).astype(np.float16)
    c = constant(values.astype(np.float32) if weights != "f16" else values, weights)
    x = parameter("[8,16]", "f32", name="x")
    model = model_of(ops.multiply(ops.convert(c, "f32"), x))
    feed = {"x": np.ones((8, 16), np.float32)}
    expected = run_openvino(model, feed)[0]
    np.testing.assert_array_equal(run_irrun(model, feed)[0], expected)
    np.testing.assert_array_equal(expected, values.astype(np.float32))


def test_convert_missing_and_unknown_attributes():
    net = Net()
    x = net.param("x", "2,3")
    net.result(net.op("c", "Convert", "opset1", {"destination_typ": "f16"}, [x], [2, 3], "FP16"))
    report = validated(net, net.text())
    codes = sorted(d.code for d in report)
    assert codes == ["missing-attribute", "unknown-attribute"]
    (warning,) = [d for d in report if d.code == "unknown-attribute"]
    assert "did you mean destination_type?" in warning.hint


def test_ml_dtypes_used_for_low_floats():
    result = convert_array(np.array([1.0, 448.0], np.float32), element_type("f32"),
                           element_type("f8e4m3"))  # fmt: skip
    assert result.dtype == ml_dtypes.float8_e4m3fn and result.astype(float).tolist() == [1, 448]


def test_convert_like_kernel_matches_cpu():
    rng = np.random.default_rng(13)
    x = parameter("[3,32]", "f32", name="x")
    model = model_of(ops.convert_like(x, constant(np.zeros(2, np.int32))),
                     ops.convert_like(x, constant(np.zeros(2, np.float16))))  # fmt: skip
    feed = {"x": (rng.normal(size=(3, 32)) * 1e3).astype(np.float32)}
    for actual, expected in zip(run_irrun(model, feed), run_openvino(model, feed)):
        assert actual.dtype == expected.dtype
        np.testing.assert_array_equal(actual, expected)
