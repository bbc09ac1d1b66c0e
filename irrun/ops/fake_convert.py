"""FakeConvert-13: emulate a round trip of scaled data through an 8-bit float type.

Spec facts: inputs data, ``scale`` and optionally ``shift`` (f32, f16 or bf16, all one type;
scale and shift of compatible shapes that broadcast into the data's, numpy style); attribute
``destination_type`` (``f8e4m3`` or ``f8e5m2``, default ``f8e4m3``). Output::

    y = f8(data * scale - shift);   out = (y + shift) / scale

Shape rule (``fake_convert_shape_inference.hpp``): scale and shift shapes must be compatible;
the scale is numpy-broadcast-merged into the data shape, which must stay compatible with the
data's (unidirectional broadcast); the output is that merged shape (data ``[2,?,4]`` with a
scale ``[2..5,1]`` gives ``[2,2..5,4]``). Element types: the data one of bf16, f16, f32; the
scale and shift of the data's type.

Kernel: OpenVINO's reference, which does not convert to a real f8 type but rounds the f16 bits
(the scaled value is first rounded to f16) in place: ``f8e5m2`` rounds the mantissa to 2 bits
to nearest even, except for magnitudes from 57344 up, which are truncated, and saturates to
±57344 (infinities too; NaN stays NaN); ``f8e4m3`` flushes magnitudes below
2⁻⁹ to zero, rounds the mantissa to 3 bits (fewer for subnormals), and clamps everything
above 448 (infinities and NaN included) to ±448. irrun does the same bit arithmetic on whole
arrays and is bit-exact with the reference (tested). The scale and shift arithmetic is in the
data's type (f16 and bf16 through f32, rounded per operation as ``ov::float16`` and
``ov::bfloat16`` do, the latter with its rounding quirk of :mod:`irrun.ops._conversion`). The CPU
plugin differs from the reference by an ulp in the final division and does not flush f8e4m3
values below 2⁻⁹: the kernel is checked against it with ``rtol=1e-6`` away from that range.
"""

from __future__ import annotations

import numpy as np

from irrun.element_types import ELEMENT_TYPES
from irrun.ops._broadcast import broadcast_pair
from irrun.ops._conversion import convert_array
from irrun.ops.base import Attribute, Op, TensorInfo, common_element_type, lazy_text
from irrun.ops.registry import register

_TYPES = ("f32", "f16", "bf16")


@register
class FakeConvert(Op):
    """FakeConvert-13 (destination_type)."""

    type, version, inputs = "FakeConvert", 13, (2, 3)
    attributes = (Attribute("destination_type", "enum", "f8e4m3", choices=("f8e4m3", "f8e5m2")),)

    def infer(self, inputs):
        """The data shape broadcast-merged with the scale's (unidirectionally)."""
        etype = common_element_type(self, inputs)
        if etype is None:
            return None
        if etype.name != "dynamic" and etype.name not in _TYPES:
            self.context.error(
                "input-type",
                f"{self.describe()}: the data must be bf16, f16 or f32, but it is {etype}",
                port=self.input_port(0),
                hint="insert a Convert to f32 before FakeConvert",
            )
            return None
        data, scale = inputs[0].shape, inputs[1].shape
        if len(inputs) == 3 and not scale.compatible(inputs[2].shape):
            self.context.error(
                "input-dims",
                f"{self.describe()}: the scale {scale} and the shift {inputs[2].shape} must "
                "have compatible shapes",
                port=self.input_port(2),
                hint="give the shift the scale's shape",
            )
            return None
        merged = broadcast_pair(data, scale)
        if merged is None or not data.compatible(merged):
            why = "does not broadcast" if merged is None else f"would widen it to {merged}"
            self.context.error(
                "input-dims",
                f"{self.describe()}: the scale {scale} {why} into the data {data} (numpy "
                "broadcast towards the data only)",
                port=self.input_port(1),
                hint="give the scale the data's rank, with 1 in the dims it does not vary",
            )
            return None
        why = lazy_text("data {} with scale {}", data, scale)
        return [TensorInfo(merged, inputs[0].element_type, why=why)]

    def evaluate(self, inputs):
        """Scale and shift, round the f16 bits as the reference does, shift and scale back."""
        data = np.asarray(inputs[0])
        dtype = data.dtype
        scale = np.asarray(inputs[1])
        shift = np.asarray(inputs[2]) if len(inputs) == 3 else np.zeros_like(scale)
        wide = np.float32 if dtype.itemsize < 4 else dtype
        narrow = _narrowing(dtype)
        x, s, o = (a.astype(wide) for a in (data, scale, shift))
        with np.errstate(all="ignore"):
            scaled = narrow(narrow(x * s).astype(wide) - o)
            half = scaled.astype(np.float32).astype(np.float16)
            emulate = _emulate_e4m3 if self.destination_type == "f8e4m3" else _emulate_e5m2
            rounded = emulate(half.reshape(-1)).reshape(half.shape)
            rounded = narrow(rounded.astype(np.float32)).astype(wide)
            out = narrow(narrow(rounded + o).astype(wide) / s)
        shape = np.broadcast_shapes(data.shape, scale.shape)
        return [np.array(np.broadcast_to(out, shape), order="C")]


def _narrowing(dtype):
    """Rounding of an f32 result to ``dtype`` as OpenVINO's classes do (bf16 with its own
    rounding quirk, see :mod:`irrun.ops._conversion`)."""
    if dtype.name == "bfloat16":
        f32, bf16 = ELEMENT_TYPES["f32"], ELEMENT_TYPES["bf16"]
        return lambda values: convert_array(values.astype(np.float32), f32, bf16)
    return lambda values: values.astype(dtype)


def _emulate_e5m2(half: np.ndarray) -> np.ndarray:
    """f16 values rounded to f8e5m2 in their f16 bits (the reference's emulation)."""
    bits = np.ascontiguousarray(half).view(np.uint16).astype(np.int32)
    can_round = (bits & 0x7F00) < 0x7B00
    finite = (bits & 0x7C00) != 0x7C00
    up = ((bits & 0xFF) > 0x80) | ((bits & 0x180) == 0x180)
    bits = bits + ((finite & can_round & up).astype(np.int32) << 8)
    result = (bits & 0xFF00).astype(np.uint16).view(np.float16)
    return np.where(np.abs(result) > 57344, np.copysign(np.float16(57344), result), result)


def _emulate_e4m3(half: np.ndarray) -> np.ndarray:
    """f16 values rounded to f8e4m3 in their f16 bits (the reference's emulation: flush below
    2⁻⁹, round to nearest even, clamp to ±448)."""
    half = np.ascontiguousarray(half)
    bits = half.view(np.uint16).astype(np.int32)
    bits = np.where(np.abs(half.astype(np.float32)) < 2.0**-9, 0, bits)
    exponent = ((bits & 0x7C00) >> 10) - 15
    sign = bits & 0x8000
    mantissa = bits & 0x03FF
    can_round = (bits & 0x7FFF) < 0b101111110000000
    special = (bits & 0x7C00) == 0x7C00
    large = exponent > 8
    special |= large
    mantissa = np.where(large, 0x300, mantissa)
    exponent = np.where(large, 8, exponent)
    tiny = ~large & (exponent < -9)
    mantissa = np.where(tiny, 0, mantissa)
    exponent = np.where(tiny, -15, exponent)
    mantissa = np.where((exponent == 8) & (mantissa >= 0x300), 0x300, mantissa)
    up = ((mantissa & 0x7F) > 0x40) | ((mantissa & 0xC0) == 0xC0)
    mantissa = mantissa + ((~special & can_round & up).astype(np.int32) << 7)
    shift = np.where(exponent < -6, -6 - exponent, 0)
    mantissa = ((mantissa >> shift) & 0xFF80) << shift
    mantissa = (mantissa + ((exponent + 15) << 10)) & 0xFFFF
    return (mantissa | sign).astype(np.uint16).view(np.float16)
