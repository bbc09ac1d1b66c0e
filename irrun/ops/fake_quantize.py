"""FakeQuantize-1: quantise the data to ``levels`` values between the input limits and map them
to the output limits.

Spec facts: five inputs, data ``X`` and the limits ``input_low``, ``input_high``,
``output_low``, ``output_high`` (any shape that broadcasts into the data's); attributes
``levels`` (required; OpenVINO accepts any value, even 0 and 1) and ``auto_broadcast``
(``none``, ``numpy`` default, ``pdpd`` with ``auto_broadcast.auto_broadcast_axis``). Per
element, with ``lo = min(il, ih)``, ``hi = max(il, ih)`` (C++ ``std::min``/``std::max``)::

    x <= lo: ol;   x > hi: oh;
    else: nearbyint((x - il) / (ih - il) * (levels - 1)) / (levels - 1) * (oh - ol) + ol

Shape rule (``fake_quantize.cpp``): each limit in turn is merged (``none``) or broadcast-merged
(numpy, pdpd) into the data shape; a failure is an error; the output is the data's shape and
element type *as given* (not the merged one: a limit ``[1,3,4,5]`` against data
``[1,3,1,1]`` passes and the output is ``[1,3,1,1]``, OpenVINO's backward-compatible quirk).
OpenVINO checks no element type (limits of another type than the data's are accepted).

Kernel: OpenVINO's reference ``quantize`` formula in the data's type, vectorised over the
numpy-broadcast limits. Floats: f32 and f64 compute in their own type and the rounding is
``np.rint`` (nearbyint in the default round-to-nearest-even mode), which makes the result
bit-exact with the reference and the CPU plugin (tested); f16 and bf16 compute the scaled
value in f32 and round once (the CPU plugin computes in f32). Integers follow the C++
integer arithmetic of the reference: ``(x - il) / (ih - il)`` is a truncating integer
division, then ``* (levels - 1)`` in the integer type, and the rest in double, truncated back.
Limits of another type than the data's are cast to it first. The reference's general
strided path once read ``output_high`` at ``output_low``'s offset; the 2026 reference and
the CPU plugin broadcast every limit by numpy rules, as irrun does (tested on mixed limit
shapes).
"""

from __future__ import annotations

import numpy as np

from irrun.ops._broadcast import broadcast_pair
from irrun.ops._elementwise import AUTO_BROADCAST, AUTO_BROADCAST_AXIS, Broadcasting, align_pdpd
from irrun.ops.base import Attribute, TensorInfo, lazy_text
from irrun.ops.registry import register

_LIMITS = ("input_low", "input_high", "output_low", "output_high")
_NARROW = ("float16", "bfloat16")


@register
class FakeQuantize(Broadcasting):
    """FakeQuantize-1 (levels, auto_broadcast)."""

    type, version, inputs = "FakeQuantize", 1, (5, 5)
    attributes = (Attribute("levels", "int", 0, required=True), AUTO_BROADCAST, AUTO_BROADCAST_AXIS)

    def infer(self, inputs):
        """The data's shape and type, once every limit broadcasts into the data shape."""
        data = inputs[0]
        merged = data.shape
        mode, axis = self.auto_broadcast, self.auto_broadcast_axis
        for index in range(1, 5):
            limit = inputs[index].shape
            if mode == "none":
                result = merged.merge(limit)
            else:
                result = broadcast_pair(merged, limit, mode, axis)
            if result is None:
                where = f" at axis {axis}" if mode == "pdpd" else ""
                self.context.error(
                    "input-dims",
                    f"{self.describe()}: {_LIMITS[index - 1]} (input {index}) {limit} does not "
                    f"broadcast into the data {data.shape} (merged with the limits before it: "
                    f"{merged}; auto_broadcast {mode}{where})",
                    port=self.input_port(index),
                    hint="give each limit the data's shape, or 1 in the dims it does not vary",
                )
                return None
            merged = result
        why = lazy_text("the data's shape {} (levels {})", data.shape, self.levels)
        return [TensorInfo(data.shape, data.element_type, why=why)]

    def _aligned(self, data, limit):
        limit = np.asarray(limit).astype(data.dtype, copy=False)
        if self.auto_broadcast == "pdpd":
            return align_pdpd(data, limit, self.auto_broadcast_axis)
        return limit

    def evaluate(self, inputs):
        """The reference formula on the broadcast limits (module docstring)."""
        data = np.asarray(inputs[0])
        il, ih, ol, oh = (self._aligned(data, limit) for limit in inputs[1:])
        steps = (self.levels - 1) % 2**64  # size_t arithmetic
        low = np.where(ih < il, ih, il)  # std::min(il, ih)
        high = np.where(il < ih, ih, il)  # std::max(il, ih)
        with np.errstate(all="ignore"):
            if data.dtype.kind == "f" and data.dtype.name not in _NARROW:
                levels = data.dtype.type(steps)
                scaled = np.rint((data - il) / (ih - il) * levels) / levels * (oh - ol) + ol
            elif data.dtype.name in _NARROW:
                f32 = [a.astype(np.float32) for a in (data, il, ih, ol, oh)]
                x, l32, h32, ol32, oh32 = f32
                levels = np.float32(steps)
                scaled = np.rint((x - l32) / (h32 - l32) * levels) / levels * (oh32 - ol32) + ol32
                scaled = scaled.astype(data.dtype)
            elif data.dtype.kind in "iu":
                scaled = _integer_quantize(data, il, ih, ol, oh, steps)
            else:
                raise NotImplementedError(f"{self.describe()} has no kernel for {data.dtype}")
        out = np.where(data <= low, ol, np.where(data > high, oh, scaled))
        return [np.array(np.broadcast_to(out, data.shape), dtype=data.dtype, order="C")]


def _integer_quantize(data, il, ih, ol, oh, steps):
    """The reference formula with C++ integer semantics: truncating division and the
    product in the integer type, then double arithmetic truncated back to the type."""
    dtype = data.dtype
    numerator = (data - il).astype(dtype)
    denominator = (ih - il).astype(dtype)
    safe = np.where(denominator == 0, 1, denominator).astype(dtype)  # only where x is clamped
    if dtype.kind == "u":
        quotient = numerator // safe
    else:
        quotient = (np.abs(numerator) // np.abs(safe)) * np.sign(numerator) * np.sign(safe)
    levels = dtype.type(steps & ((1 << (8 * dtype.itemsize)) - 1))
    product = (quotient.astype(dtype) * levels).astype(np.float64)
    span = (oh - ol).astype(dtype).astype(np.float64)
    value = np.trunc(np.rint(product) / float(levels) * span + ol.astype(np.float64))
    info = np.iinfo(dtype)
    return np.clip(np.nan_to_num(value), info.min, info.max).astype(dtype)
