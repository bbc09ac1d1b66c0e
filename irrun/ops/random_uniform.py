"""RandomUniform-8: a tensor of the given shape filled with uniform random numbers in
``[min_val, max_val)``, drawn exactly as OpenVINO's reference draws them.

Spec facts: inputs out_shape (1-D, i32 or i64), min_val and max_val (scalars or ``[1]``, of
``output_type``); attributes ``output_type`` (required: a float type, i32 or i64),
``global_seed`` and ``op_seed`` (u64, default 0) and ``alignment`` (``tensorflow``, the
default, or ``pytorch``).

Shape rule (``random_uniform_shape_inference.hpp``): out_shape must be of rank 1 and
min_val/max_val compatible with ``[]`` or ``[1]``; both must be of ``output_type`` ("'min_val'
and 'max_val' should have the same type as 'out_type' attribute"); when both are constants,
min < max. The output shape is out_shape's value (a ShapeOf element gives its interval);
otherwise ``[?]*n`` for an out_shape of ``n`` elements, and, **quirk**, an out_shape of an
interval length ``a..b`` gives ``b`` dynamic dims (``get_max_length``), ``[?]`` a dynamic rank.

Kernel (``random_uniform.cpp``, ``phillox_generator``, ``phillox_converter``), see
:mod:`irrun.ops._philox`:

- tensorflow: Philox 4x32-10 with key ``global_seed`` and counter ``[n, op_seed]``. A float
  takes the low mantissa bits of one word (f32: 23 bits as ``1.m - 1``; f16: 10; bf16: 7;
  f64: 52 bits of two words), scaled as ``r * (max - min) + min`` **in the output type's own
  arithmetic** (f16 and bf16 round after each operation). i32: ``word % (max - min) + min``
  in 32-bit unsigned arithmetic; i64: the same on ``word1 << 32 | word0`` in 64-bit.
- pytorch: MT19937 seeded with ``global_seed`` (op_seed unused); a float is
  ``(word & (2^digits - 1)) / 2^digits`` (digits 24 for f32, 11 for f16, 8 for bf16, 53 of
  ``word0 << 32 | word1`` for f64) scaled in f32; i64 takes two words unless min and max both
  fit in u32.
- Both seeds 0: OpenVINO draws a seed from the clock; irrun from the OS's entropy (each
  run differs, as there).
- State: OpenVINO keeps a state per op, so the n-th run of a compiled model gives new numbers:
  a tensorflow run starts its counter 256 per Philox block after the previous run's start (the
  reference's ``get_next_state``); pytorch runs repeat. The state belongs to the compiled
  node, not to the variables: on the CPU plugin (measured, 2026.4) ``InferRequest.reset_state()``
  does not restart it, a second infer request of the compiled model continues it, and only
  compiling the model again starts at the first run's numbers. irrun keeps it per compiled op
  the same way: :meth:`irrun.execution.CompiledModel.reset_state` (``irrun.reset_state``)
  forgets the ReadValue/Assign variables and leaves the counter; a new compiled form
  (``irrun.compile(model, validate=True)``, or loading the file again) starts it afresh. A run
  that fails after this op has run keeps the advance (its variable writes are discarded).

Tolerance: exact (bit for bit) against OpenVINO's reference for f32, f16, bf16, f64, i32 and
i64, both alignments, over several runs. The CPU plugin agrees on the first run in f32 and
i32; it differs by design elsewhere: it computes f16/bf16 through f32 and i64 as i32 (one
word), and moves its counter 256 per *element* between runs, not per block.
"""

from __future__ import annotations

import numpy as np

from irrun.element_types import element_type
from irrun.ops._philox import mersenne_words, next_philox_start, philox_blocks, philox_words
from irrun.ops._values import as_dim, signed_elements
from irrun.ops.base import DYNAMIC_TYPE, Attribute, Op, TensorInfo, lazy_text
from irrun.ops.registry import register
from irrun.shape import Dim, Shape

_OUTPUT_TYPES = ("f16", "bf16", "f32", "f64", "i32", "i64")
_NAMES = ("out_shape", "min_val", "max_val")


@register
class RandomUniform(Op):
    """RandomUniform-8 (output_type, global_seed, op_seed, alignment)."""

    type, version, inputs = "RandomUniform", 8, (3, 3)
    attributes = (
        Attribute("output_type", "element_type", DYNAMIC_TYPE, required=True),
        Attribute("global_seed", "int", 0),
        Attribute("op_seed", "int", 0),
        Attribute("alignment", "enum", "tensorflow", choices=("tensorflow", "pytorch")),
    )

    def setup(self):
        name = self.output_type.name
        if name != "dynamic" and name not in _OUTPUT_TYPES and self.output_type.kind != "float":
            self.context.error(
                "attribute-value",
                f"{self.describe()}: output_type {name} is not a floating-point type, i32 or i64",
                hint='write output_type="f32" (or f16, bf16, f64, i32, i64)',
                line=self.layer.data_line,
            )
            self.incomplete = True
        self._state = (0, self.op_seed)  # (counter start, op seed) of the next run

    def _refuse(self, index, code, message, hint):
        self.context.error(code, f"{self.describe()}: {_NAMES[index]} {message}",
                           port=self.input_port(index), hint=hint)  # fmt: skip

    def infer(self, inputs):
        """The out_shape value as the output shape, of ``output_type``."""
        shape_info, low, high = inputs
        shape_type = shape_info.element_type
        if shape_type.name not in ("i32", "i64", "dynamic"):
            self._refuse(0, "index-type", f"must be i32 or i64, but it is {shape_type}",
                         "Convert the shape to i64")  # fmt: skip
            return None
        if low.element_type is not high.element_type:
            self._refuse(1, "input-type", f"is {low.element_type} but max_val is "
                         f"{high.element_type}; they must be of one type",
                         f"make both {self.output_type}")  # fmt: skip
            return None
        if low.element_type is not self.output_type:
            self._refuse(1, "input-type", f"and max_val are {low.element_type}, but "
                         f"output_type is {self.output_type}; they must be the same",
                         f"make min_val and max_val {self.output_type} constants, or set "
                         f'output_type="{low.element_type}"')  # fmt: skip
            return None
        if shape_info.shape.rank not in (None, 1):
            self._refuse(0, "input-rank", f"must be 1-D, but its shape is {shape_info.shape}",
                         "give the output shape as a 1-D tensor")  # fmt: skip
            return None
        for index, info in ((1, low), (2, high)):
            shape = info.shape
            if not (shape.compatible(Shape([])) or shape.compatible(Shape.parse("1"))):
                self._refuse(index, "input-rank", f"must be a scalar or [1], but its shape is "
                             f"{shape}", "give a single value")  # fmt: skip
                return None
        if low.value is not None and high.value is not None:
            lowest, highest = (float(np.asarray(v).reshape(-1)[0]) for v in (low.value, high.value))
            if not lowest < highest:
                self._refuse(1, "input-value", f"{lowest:g} must be less than max_val "
                             f"{highest:g}", "swap or fix the bounds")  # fmt: skip
                return None
        elements = signed_elements(shape_info)
        if elements is not None:
            dims = [as_dim(e) for e in elements]
            why = lazy_text("the out_shape value {}", dims)
            return [TensorInfo(Shape(dims), self.output_type, why=why)]
        shape = shape_info.shape
        if shape.rank is None or shape[0].upper is None:
            return [TensorInfo(Shape.dynamic_rank(), self.output_type,
                               why="the length of out_shape is not known")]  # fmt: skip
        # OpenVINO takes the largest length an interval allows (get_max_length)
        length = shape[0].upper
        why = f"out_shape {shape} of unknown value: {length} dims of unknown size"
        return [TensorInfo(Shape([Dim.dynamic()] * length), self.output_type, why=why)]

    def evaluate(self, inputs):
        """Philox (tensorflow) or MT19937 (pytorch) words scaled into ``[min, max)``."""
        sizes = np.asarray(inputs[0]).reshape(-1).astype(np.int64).tolist()
        etype = self.output_type
        if etype.name not in _OUTPUT_TYPES:
            raise ValueError(f"{self.describe()}: OpenVINO draws no {etype} numbers (it can "
                             f"draw {', '.join(_OUTPUT_TYPES)})")  # fmt: skip
        dtype = etype.numpy_dtype
        low = np.asarray(inputs[1]).astype(dtype).reshape(-1)[0]
        high = np.asarray(inputs[2]).astype(dtype).reshape(-1)[0]
        if any(s < 0 for s in sizes):
            raise ValueError(f"{self.describe()}: out_shape {sizes} has a negative size")
        if not float(low) < float(high):
            raise ValueError(f"{self.describe()}: min_val {low} must be less than max_val {high}")
        count = int(np.prod(sizes, dtype=np.int64))
        seed, seed2 = self.global_seed % 2**64, self.op_seed % 2**64
        if seed == 0 and seed2 == 0:
            seed = int(np.random.SeedSequence().entropy) % 2**31
        wide = etype.name in ("i64", "f64")
        if self.alignment == "pytorch":
            flat = _pytorch_values(seed, count, etype.name, low, high)
        else:
            start, seed2 = (self._state[0], seed2 if self._state[1] == 0 else self._state[1])
            words = philox_words(seed, seed2, 2 * count if wide else count, start)
            flat = _tensorflow_values(words, etype.name, low, high)
            blocks = philox_blocks(2 * count if wide else count)
            self._state = next_philox_start(start, seed2, blocks)
        return [flat.astype(dtype).reshape(sizes)]


def _float_from_bits(words, name):
    """``1.mantissa - 1`` in the type ``name``, the mantissa being the low bits of a word."""
    if name == "f32":
        bits = (words & np.uint64(0x7FFFFF)) | np.uint64(127 << 23)
        return bits.astype(np.uint32).view(np.float32) - np.float32(1)
    bits = words & np.uint64(0x3FF if name == "f16" else 0x7F)
    bits |= np.uint64(15 << 10) if name == "f16" else np.uint64(127 << 7)
    dtype = element_type(name).numpy_dtype
    return bits.astype(np.uint16).view(dtype) - dtype.type(1)


def _tensorflow_values(words, name, low, high):
    """OpenVINO's tensorflow-aligned conversion of Philox words."""
    if name == "bf16":
        # bf16 arithmetic as ov::bfloat16 does it: in f32, rounded OpenVINO's way each time
        span = _ov_bfloat16(np.float32(high) - np.float32(low))
        fraction = _float_from_bits(words, name).astype(np.float32)
        return _ov_bfloat16(_ov_bfloat16(fraction * span) + np.float32(low))
    if name in ("f32", "f16"):
        # in the type's own arithmetic: f16 rounds after the product and after the sum
        return _float_from_bits(words, name) * (high - low) + low
    if name == "f64":
        first, second = words[0::2], words[1::2]
        bits = ((first & np.uint64(0xFFFFF)) << np.uint64(32)) | second | np.uint64(1023 << 52)
        return (bits.view(np.float64) - 1.0) * (float(high) - float(low)) + float(low)
    return _modulo(words if name == "i32" else words[0::2] | (words[1::2] << np.uint64(32)),
                   int(low), int(high), 32 if name == "i32" else 64)  # fmt: skip


def _pytorch_values(seed, count, name, low, high):
    """OpenVINO's pytorch-aligned conversion of MT19937 words."""
    if name == "i64" and max(int(low), int(high)) <= 0xFFFFFFFF:
        return _modulo(mersenne_words(seed, count), int(low), int(high), 64)
    if name in ("i64", "f64"):
        words = mersenne_words(seed, 2 * count)
        joined = (words[0::2] << np.uint64(32)) | words[1::2]
        if name == "i64":
            return _modulo(joined, int(low), int(high), 64)
        fraction = (joined & np.uint64(2**53 - 1)).astype(np.float64) * 2.0**-53
        return fraction * (float(high) - float(low)) + float(low)
    words = mersenne_words(seed, count)
    if name == "i32":
        return _modulo(words, int(low), int(high), 32)
    digits = {"f32": 24, "f16": 11, "bf16": 8}[name]
    fraction = (words & np.uint64(2**digits - 1)).astype(np.float32) * np.float32(2.0**-digits)
    span = np.float32(high - low)  # a difference in the type's arithmetic, then f32
    if name == "bf16":
        span = _ov_bfloat16(np.float32(high) - np.float32(low))
        return _ov_bfloat16(fraction * span + np.float32(low))
    return fraction * span + np.float32(low)


def _ov_bfloat16(values):
    """f32 values rounded to bf16 as ``ov::bfloat16`` rounds them (returned as f32): 0x8000
    is added only when the kept mantissa is odd, so an even one is truncated (not IEEE
    round-to-nearest-even: 1.7724609 becomes 1.765625, not 1.7734375)."""
    bits = np.asarray(values, np.float32).view(np.uint32)
    rounded = (bits + ((bits & np.uint32(0x10000)) >> np.uint32(1))) & np.uint32(0xFFFF0000)
    return rounded.view(np.float32)


def _modulo(words, low, high, bits):
    """``word % (high - low) + low`` in ``bits``-bit unsigned arithmetic, read as signed."""
    modulus = 2**bits
    span = np.uint64((high - low) % modulus)
    shifted = (words % span + np.uint64(low % modulus)) % np.uint64(modulus) if bits == 32 else (
        words % span + np.uint64(low % modulus))  # fmt: skip
    if bits == 32:
        return shifted.astype(np.uint32).view(np.int32)
    return shifted.view(np.int64)
