"""NNCF weight compression: u8/i8/u4/i4/nf4 Consts decompressed by Convert → Subtract(zero
point) → Multiply(scale), group-wise through a Reshape, as NNCF writes them. The decompressed
weights are bit-exact with OpenVINO's reference evaluation (``Model.evaluate``) and, for f32
decompression, with the CPU plugin; a MatMul on them is compared with the CPU plugin in f32.

The CPU plugin quantises the activations of a MatMul on compressed weights to 8 bits
(``DYNAMIC_QUANTIZATION_GROUP_SIZE``) even with ``INFERENCE_PRECISION_HINT=f32``, which moves
results by ~0.5 %: the MatMul tests compile with it set to 0. Tolerances of the MatMul:
``rtol=1e-5, atol=1e-5`` (accumulation order) for f32 decompression and against the reference
for f16 decompression; against the CPU plugin an f16 decompression is within 1e-3 of the
largest output (the plugin decompresses f16 weights in f32 inside its MatMul where the graph,
the reference and irrun round each f16 Subtract and Multiply)."""

from __future__ import annotations

import numpy as np
import openvino as ov
import openvino.opset13 as opset13
import pytest

from tests.helpers.openvino_oracle import check_shapes, model_of, parameter, run_irrun

RANGES = {"u8": (0, 256), "i8": (-128, 128), "u4": (0, 16), "i4": (-8, 8), "nf4": (0, 16)}
#: OpenVINO's nf4 codebook (the values a Constant of type nf4 holds).
NF4 = np.array([-1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453,
                -0.28444138169288635, -0.18477343022823334, -0.09105003625154495, 0.0,
                0.07958029955625534, 0.16093020141124725, 0.24611230194568634,
                0.33791524171829224, 0.44070982933044434, 0.5626170039176941,
                0.7229568362236023, 1.0], np.float32)  # fmt: skip


def _codes(rng, etype, shape):
    low, high = RANGES[etype]
    return rng.integers(low, high, shape)


def _const(codes, etype):
    values = NF4[codes] if etype == "nf4" else codes.astype(np.float32)
    return opset13.constant(values, getattr(ov.Type, etype))


def _decompressed(rng, etype, rows, groups, group_size, precision, zero_point, grouped=True):
    """The NNCF pattern: weights [rows, groups, group_size] (or [rows, columns] per channel),
    a zero point and a scale per group, reshaped to [rows, groups * group_size]."""
    shape = [rows, groups, group_size] if grouped else [rows, groups * group_size]
    group_shape = [rows, groups, 1] if grouped else [rows, 1]
    weights = opset13.convert(_const(_codes(rng, etype, shape), etype), precision)
    if zero_point:
        zp = opset13.convert(_const(_codes(rng, etype, group_shape), etype), precision)
        weights = opset13.subtract(weights, zp)
    dtype = np.float16 if precision == "f16" else np.float32
    scale = opset13.constant(rng.uniform(0.005, 0.05, group_shape).astype(dtype))
    weights = opset13.multiply(weights, scale)
    if grouped:
        target = opset13.constant(np.array([rows, groups * group_size], np.int64))
        weights = opset13.reshape(weights, target, False)
    return weights if precision == "f32" else opset13.convert(weights, "f32")


def _cpu(model, feed):
    """The CPU plugin's outputs in f32, activations not quantised."""
    config = {"INFERENCE_PRECISION_HINT": "f32", "DYNAMIC_QUANTIZATION_GROUP_SIZE": "0"}
    compiled = ov.Core().compile_model(model, "CPU", config)
    by_name = {i.get_node().get_friendly_name(): i for i in compiled.inputs}
    result = compiled.create_infer_request().infer({by_name[k]: v for k, v in feed.items()})
    return [np.array(result[output]) for output in compiled.outputs]


def _reference(model, feed, shape):
    """OpenVINO's reference evaluation of a one-output f32 model."""
    out = ov.Tensor(ov.Type.f32, shape)
    inputs = [ov.Tensor(feed[p.get_friendly_name()]) for p in model.get_parameters()]
    assert model.evaluate([out], inputs)
    return np.array(out.data)


PATTERNS = [
    ("u8", True, True), ("i8", False, False), ("u8", True, False),
    ("u4", True, True), ("i4", False, True), ("i4", True, True), ("nf4", False, True),
]  # fmt: skip


@pytest.mark.parametrize("precision", ["f32", "f16"])
@pytest.mark.parametrize("etype, zero_point, grouped", PATTERNS)
def test_decompressed_weights_are_bit_exact(etype, zero_point, grouped, precision):
    rng = np.random.default_rng(len(etype) + zero_point)
    # odd sizes: a sub-byte Const whose last byte holds one element
    weights = _decompressed(rng, etype, 5, 3, 7, precision, zero_point, grouped)
    x = parameter([1], name="x")
    model = model_of(opset13.add(weights, x))
    check_shapes(model)
    feed = {"x": np.zeros(1, np.float32)}
    got = run_irrun(model, feed)[0]
    np.testing.assert_array_equal(got, _reference(model, feed, [5, 21]))
    if precision == "f32":
        np.testing.assert_array_equal(got, _cpu(model, feed)[0])


@pytest.mark.parametrize("precision", ["f32", "f16"])
@pytest.mark.parametrize("etype, zero_point, grouped", PATTERNS)
def test_matmul_on_compressed_weights_matches_cpu_plugin(etype, zero_point, grouped, precision):
    rng = np.random.default_rng(7)
    weights = _decompressed(rng, etype, 16, 4, 32, precision, zero_point, grouped)
    x = parameter([3, 128], name="x")
    model = model_of(opset13.matmul(x, weights, False, True))
    check_shapes(model)
    feed = {"x": rng.normal(size=(3, 128)).astype(np.float32)}
    got, expected = run_irrun(model, feed)[0], _cpu(model, feed)[0]
    if precision == "f32":
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    else:
        np.testing.assert_allclose(got, expected, atol=1e-3 * np.abs(expected).max())
        reference = _reference(model, feed, [3, 16])
        np.testing.assert_allclose(got, reference, rtol=1e-5, atol=1e-5)


def test_nf4_decodes_through_the_codebook():
    """An nf4 Const holds codes; Convert to f32 gives the codebook values, to f16 those
    rounded."""
    codes = np.arange(16).reshape(2, 8)
    x = parameter([1], name="x")
    const = _const(codes, "nf4")
    y = parameter([1], "f16", name="y")
    model = model_of(opset13.add(opset13.convert(const, "f32"), x),
                     opset13.add(opset13.convert(const, "f16"), y))  # fmt: skip
    feed = {"x": np.zeros(1, np.float32), "y": np.zeros(1, np.float16)}
    got = run_irrun(model, feed)
    np.testing.assert_array_equal(got[0], NF4.reshape(2, 8))
    np.testing.assert_array_equal(got[1], NF4.reshape(2, 8).astype(np.float16))
    for mine, theirs in zip(got, _cpu(model, feed)):
        np.testing.assert_array_equal(mine, theirs)
