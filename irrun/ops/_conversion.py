"""Element type conversion as OpenVINO's reference does it: the kernel of Convert and
ConvertLike (and of the decompression patterns of f16- and NNCF-compressed weights).

Spec facts: one input of any element type but string; attribute ``destination_type``
(required; OpenVINO silently takes ``undefined`` when it is missing); the output has the input's
shape and the destination type. Partial values (shapes from ShapeOf) pass through integer to
integer Converts: exact elements convert like the kernel does, size intervals stay when the
destination type holds them.

Conversion rules (OpenVINO's reference ``convert.hpp``, a ``static_cast`` per element, as
compiled for x86-64; checked against ``Node.evaluate`` of OpenVINO 2026.4):

- float → float: round to nearest even (bf16: **quirk**, OpenVINO's ``bfloat16(float)`` adds
  half an ulp only when the kept last bit is odd, so 0x3E78D298 → 0x3E78 where round to nearest
  even gives 0x3E79; the CPU plugin rounds to nearest even); overflow gives inf (f16, bf16,
  f8e5m2) or NaN (f8e4m3, which has no inf); f64 to a type narrower than f32 goes through f32
  first (OpenVINO's 16- and 8-bit float classes are built from a ``float``), as do all integers
  to such types; f8e4m3 and f8e5m2 are rounded to f16 first (a double rounding: f32 3.1255193
  → 3.125 → f8e4m3 3.0, where one rounding gives 3.25).
  f8e8m0 (powers of two) takes zero and negative values to its smallest code 0x00 (ml_dtypes
  makes them NaN) and +inf to its largest 2¹²⁷; f4e2m1 saturates to ±6 and takes NaN to 6
  (code 0x7).
- integer → float: round to nearest even. **Quirk**: i32 → f16 saturates to ±65504 (a clamping
  specialisation of the reference); every other integer type overflows to ±inf.
- float → integer: truncate toward zero. Out of range (undefined in the spec and in C++) the
  reference gives what the x86 instructions give, and irrun reproduces it: for i8, u8, i16,
  u16, i32 and the sub-byte types the value is truncated into int32 (NaN and values outside
  int32 become −2³¹) and the low bits kept (f32 300 → u8 44, −2.7 → u8 254, 1e10 → u8 0);
  i64: NaN and values outside int64 become −2⁶³; u64 and u32: values ≥ 2⁶³ (2³¹) are offset
  by 2⁶³ (2³¹), truncated into int64 (int32) and the top bit flipped back (the f32 loop; from
  f64 u32 goes through int64 and keeps the low 32 bits, and the reference's last few
  elements of an f32 tensor take that path too, as do f16, bf16 and f8 sources: nothing in
  range differs).
- integer → integer: keep the low bits (two's complement wrap: i64 −1 → u8 255, 2³¹ → i32
  −2³¹); sub-byte destinations (u1, u2, u3, u4, u6, i4) keep their low 1 to 6 bits.
- anything → boolean: nonzero is true (NaN too: the CPU plugin gives false there).
- nf4: codes decode through OpenVINO's 16-value codebook; a float quantises to the code whose
  interval (bounded by the midpoints of the codebook) holds it, NaN to code 0. OpenVINO's
  reference has no kernel for nf4 ↔ integer, nor for integers → f8e8m0/f4e2m1: irrun goes
  through f32 there.

The kernels are one ``astype`` (or a few vectorised steps) per conversion; the common ones in
real models (f16 → f32 for f16-compressed weights, u8/i8/u4/i4 → f32/f16 for NNCF-compressed
weights) are a single ``astype``.
"""

from __future__ import annotations

import numpy as np

from irrun.element_types import ELEMENT_TYPES, ElementType, from_numpy_dtype
from irrun.ops.base import Op

__all__ = ["convert_array", "convert_partial", "input_type", "is_low_float"]

#: nf4 quantisation thresholds (OpenVINO's ConvertNF4::quantize): code = how many are below x.
_NF4_THRESHOLDS = np.array(
    [
        -0.8480964004993439, -0.6106329262256622, -0.4599952697753906, -0.33967943489551544,
        -0.23460740596055984, -0.13791173323988914, -0.045525018125772476, 0.03979014977812767,
        0.1202552504837513, 0.2035212516784668, 0.2920137718319893, 0.3893125355243683,
        0.5016634166240692, 0.6427869200706482, 0.8614784181118011,
    ],
    dtype=np.float32,
)  # fmt: skip

#: nf4 code → value, exactly OpenVINO's ConvertNF4::dequantize table (as f32).
_NF4_VALUES = np.array(
    [
        -1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453,
        -0.28444138169288635, -0.18477343022823334, -0.09105003625154495, 0.0,
        0.07958029955625534, 0.16093020141124725, 0.24611230194568634, 0.33791524171829224,
        0.44070982933044434, 0.5626170039176941, 0.7229568362236023, 1.0,
    ],
    dtype=np.float32,
)  # fmt: skip

#: Integer element types by name: (bits, signed).
_INT_BITS = {
    "u1": (1, False), "u2": (2, False), "u3": (3, False), "u4": (4, False), "u6": (6, False),
    "i4": (4, True), "i8": (8, True), "u8": (8, False), "i16": (16, True), "u16": (16, False),
    "i32": (32, True), "u32": (32, False), "i64": (64, True), "u64": (64, False),
}  # fmt: skip
_LOW_FLOATS = ("f16", "bf16", "f8e4m3", "f8e5m2", "f8e8m0", "f4e2m1")


def input_type(op: Op, array, index: int = 0) -> ElementType:
    """The element type of input ``index``: its port's precision (which tells nf4, u3 and u6
    from u8, all held as uint8), else the one the array's dtype holds."""
    port = op.input_port(index)
    declared = getattr(port, "element_type", None)
    if declared is not None and declared.name != "dynamic":
        if declared.numpy_dtype == np.asarray(array).dtype:
            return declared
    return from_numpy_dtype(np.asarray(array).dtype)


def convert_partial(elements, source: ElementType, destination: ElementType):
    """Partial value elements through an integer → integer Convert (``None`` otherwise)."""
    if not (source.is_integer and destination.is_integer and destination.name in _INT_BITS):
        return None
    bits, signed = _INT_BITS[destination.name]
    top = (1 << (bits - 1 if signed else bits)) - 1
    result = []
    for element in elements:
        if isinstance(element, int):
            result.append(_wrap_int(element, bits, signed))
        elif element is not None and (element.upper is None or element.upper <= top):
            result.append(element)  # a size interval the destination holds
        else:
            result.append(None)
    return tuple(result) if any(e is not None for e in result) else None


def _wrap_int(value: int, bits: int, signed: bool) -> int:
    value &= (1 << bits) - 1
    if signed and value >> (bits - 1):
        value -= 1 << bits
    return value


def convert_array(array, source: ElementType, destination: ElementType) -> np.ndarray:
    """Convert ``array`` (held as ``source``'s numpy dtype) to ``destination``'s dtype with
    OpenVINO's reference rules (see the module docstring).

    Examples
    --------
    >>> from irrun.element_types import element_type as t
    >>> convert_array(np.array([300.0, -2.7, 2.7], np.float32), t("f32"), t("u8")).tolist()
    [44, 254, 2]
    >>> convert_array(np.array([-1, 256], np.int64), t("i64"), t("u8")).tolist()
    [255, 0]
    """
    array = np.asarray(array)
    if "string" in (source.name, destination.name):
        raise NotImplementedError("Convert has no kernel for string tensors")
    out_dtype = destination.numpy_dtype
    if source is destination:
        return array
    if source.name == "nf4":
        array, source = _NF4_VALUES[array], ELEMENT_TYPES["f32"]
        if destination.name == "f32":
            return array
    with np.errstate(over="ignore", invalid="ignore"):  # overflow is part of the rules
        return _convert(array, source, destination, out_dtype)


def _convert(array, source: ElementType, destination: ElementType, out_dtype) -> np.ndarray:
    kind = destination.kind
    if kind == "bool":
        return array != 0
    if source.kind == "bool":
        array, source = array.view(np.uint8), ELEMENT_TYPES["u8"]
    elif source.is_integer and array.dtype.kind not in "iu":  # ml_dtypes int4, uint4, ...
        if destination.name in ("f32", "f16"):
            return array.astype(out_dtype)  # exact: the weights decompression path
        array = array.astype(np.int8 if source.kind == "int" else np.uint8)
    if kind == "float":
        return _to_float(array, source, destination)
    if source.kind == "float":
        return _float_to_int(array, source, destination)
    return _int_to_int(array, destination, out_dtype)


def _to_float(array, source: ElementType, destination: ElementType) -> np.ndarray:
    name = destination.name
    if name == "nf4":
        values = array.astype(np.float32)
        codes = np.searchsorted(_NF4_THRESHOLDS, values, side="left").astype(np.uint8)
        codes[np.isnan(values)] = 0
        return codes
    out_dtype = destination.numpy_dtype
    if name in ("f32", "f64"):
        return array.astype(out_dtype)
    if source.name == "i32" and name == "f16":  # the reference's clamping specialisation
        return np.clip(array.astype(np.float32), -65504.0, 65504.0).astype(np.float16)
    if source.is_integer or source.name == "f64":
        array = array.astype(np.float32)  # OpenVINO's narrow float types are built from floats
    if name == "f16":
        return array.astype(np.float16)
    if name == "bf16":  # OpenVINO's bfloat16(float): add half an ulp when the kept lsb is odd
        bits = np.ascontiguousarray(array, dtype=np.float32).view(np.uint32)
        rounded = (bits + ((bits & np.uint32(0x10000)) >> np.uint32(1))) >> np.uint32(16)
        return rounded.astype(np.uint16).view(out_dtype)
    if name == "f8e8m0":
        values = array.astype(np.float32)
        result = values.astype(out_dtype)
        codes = result.view(np.uint8)
        codes[values <= 0] = 0  # OpenVINO: the smallest value 2**-127; ml_dtypes: NaN
        codes[values == np.inf] = 0xFE  # OpenVINO: the largest value 2**127; ml_dtypes: NaN
        return result
    if name == "f4e2m1":
        values = array.astype(np.float32)
        result = values.astype(out_dtype)
        nan = np.isnan(values)
        if nan.any():
            result[nan] = 6.0
        return result
    # f8e4m3, f8e5m2: OpenVINO rounds to f16 first, then to 8 bits (3.1255193 → 3.125 → 3.0
    # where one rounding gives 3.25)
    return array.astype(np.float32).astype(np.float16).astype(out_dtype)


def _float_to_int(array, source: ElementType, destination: ElementType) -> np.ndarray:
    """Truncation, and out of range the x86 results the reference gives (module docstring)."""
    bits, signed = _INT_BITS[destination.name]
    values = np.trunc(array.astype(np.float64))
    with np.errstate(invalid="ignore"):
        if destination.name == "u32" and source.name == "f32":  # the vectorised f32 loop
            high = values >= 2.0**31
            shifted = np.where(high, values - 2.0**31, values)
            valid = (shifted >= -(2.0**31)) & (shifted < 2.0**31)
            ints = np.where(valid, shifted, -(2.0**31)).astype(np.int64).astype(np.uint32)
            return np.where(high, ints ^ np.uint32(1 << 31), ints).astype(np.uint32)
        if bits <= 32 and (signed or bits < 32):  # through int32
            valid = (values >= -(2.0**31)) & (values < 2.0**31)
            ints = np.where(valid, values, -(2.0**31)).astype(np.int64)
        elif destination.name == "u64":
            high = values >= 2.0**63
            shifted = np.where(high, values - 2.0**63, values)
            valid = (shifted >= -(2.0**63)) & (shifted < 2.0**63)
            ints = np.where(valid, shifted, -(2.0**63)).astype(np.int64).view(np.uint64)
            ints = np.where(high, ints ^ np.uint64(1 << 63), ints)
            return ints.astype(np.uint64)
        else:  # i64, and u32 through int64
            valid = (values >= -(2.0**63)) & (values < 2.0**63)
            ints = np.where(valid, values, -(2.0**63)).astype(np.int64)
    return _int_to_int(ints, destination, destination.numpy_dtype)


def _int_to_int(array, destination: ElementType, out_dtype) -> np.ndarray:
    bits, signed = _INT_BITS[destination.name]
    if bits >= 8:
        return array.astype(out_dtype)  # numpy integer casts wrap
    low = array.astype(np.int64) if array.dtype.kind not in "iu" else array
    low = (low & ((1 << bits) - 1)).astype(np.int8 if signed else np.uint8)
    if signed:
        low = ((low ^ (1 << (bits - 1))) - (1 << (bits - 1))).astype(np.int8)
    return low.astype(out_dtype)


def is_low_float(element_type: ElementType) -> bool:
    """True for the float types narrower than f32."""
    return element_type.name in _LOW_FLOATS
