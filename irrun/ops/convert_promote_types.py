"""ConvertPromoteTypes-14: both inputs converted to their common element type.

Spec facts: two inputs of any supported type (boolean, f16, bf16, f32, f64, f8e4m3, f8e5m2,
i4, i8 ... i64, u1, u4, u8 ... u64); attributes ``promote_unsafe`` (default false),
``pytorch_scalar_promotion`` (default false) and ``u64_integer_promotion_target`` (default
f32). Two outputs: each input's shape in the common type.

The common type (OpenVINO's ``evaluate_common_type``): one type stays; boolean takes the
other's; a float and an integer give the float (safe mode: only when its bit width is at least
twice the integer's); with pytorch_scalar_promotion, a scalar and a non-scalar of one kind give
the non-scalar's type (safe mode: when it holds the scalar's values; a dynamic rank gives a
dynamic type); a signed and an unsigned integer give the signed integer of ``max(2 x unsigned
bits, signed bits)`` bits when the unsigned one has at most 32 bits (safe mode: only when that
is the signed one's width or less), else (unsafe only) ``u64_integer_promotion_target``; one
kind and sign of different widths give the wider; f16 with bf16 (unsafe) gives f32, f8e4m3
with f8e5m2 (unsafe) gives f16. Everything else is refused.

Kernel: Convert's conversion (:mod:`irrun.ops._conversion`), exact as Convert is. The CPU
plugin runs this op as two Converts.
"""

from __future__ import annotations

from irrun.element_types import ELEMENT_TYPES, ElementType, element_type
from irrun.ops._conversion import convert_array, input_type
from irrun.ops.base import DYNAMIC_TYPE, Attribute, Op, TensorInfo
from irrun.ops.registry import register
from irrun.shape import Shape

_SUPPORTED = {"boolean", "f16", "f32", "f64", "i4", "i8", "i16", "i32", "i64", "u1", "u4", "u8",
              "u16", "u32", "u64", "f8e4m3", "f8e5m2", "bf16", "dynamic"}  # fmt: skip


def _signed(etype: ElementType) -> bool:
    return etype.kind in ("int", "float")


def _int_of(bits: int) -> ElementType:
    return ELEMENT_TYPES[{4: "i4", 8: "i8", 16: "i16", 32: "i32"}.get(bits, "i64")]


@register
class ConvertPromoteTypes(Op):
    """ConvertPromoteTypes-14 (promote_unsafe, pytorch_scalar_promotion,
    u64_integer_promotion_target)."""

    type, version, inputs = "ConvertPromoteTypes", 14, (2, 2)
    attributes = (
        Attribute("promote_unsafe", "bool", False),
        Attribute("pytorch_scalar_promotion", "bool", False),
        Attribute("u64_integer_promotion_target", "element_type", None),
    )

    def setup(self):
        if self.u64_integer_promotion_target is None:
            self.u64_integer_promotion_target = element_type("f32")

    def infer(self, inputs):
        """Each input's shape, in the common type."""
        common = self._common(inputs)
        if common is None:
            return None
        why = f"{inputs[0].element_type} and {inputs[1].element_type} promote to {common}"
        return [TensorInfo(info.shape, common, why=why) for info in inputs]

    def _common(self, inputs):
        a, b = inputs[0].element_type, inputs[1].element_type
        for index, etype in enumerate((a, b)):
            if etype.name not in _SUPPORTED:
                return self._refuse(f"input {index} is {etype}, which it does not take")
        if DYNAMIC_TYPE in (a, b):
            return DYNAMIC_TYPE
        if a is b:
            return a
        if a.name == "boolean" or b.name == "boolean":
            return b if a.name == "boolean" else a
        unsafe = self.promote_unsafe
        if (a.kind == "float") != (b.kind == "float"):
            real, integer = (a, b) if a.kind == "float" else (b, a)
            if unsafe or real.bits >= 2 * integer.bits:
                return real
            return self._refuse(f"{integer} cannot be safely promoted to {real} (it needs a "
                                f"float of {2 * integer.bits} bits)", unsafe=True)  # fmt: skip
        if self.pytorch_scalar_promotion:
            ranks = [info.shape.rank for info in inputs]
            if None in ranks:
                return DYNAMIC_TYPE
            if (ranks[0] == 0) != (ranks[1] == 0):
                target, scalar = (b, a) if ranks[0] == 0 else (a, b)
                fits = (_signed(target) == _signed(scalar) and target.bits >= scalar.bits) or (
                    _signed(target) and not _signed(scalar) and 2 * target.bits >= scalar.bits
                )
                if unsafe or fits:
                    return target
                return self._refuse(f"the scalar's {scalar} does not fit the tensor's "
                                    f"{target}", unsafe=True)  # fmt: skip
        if _signed(a) != _signed(b):
            unsigned_bits = a.bits if not _signed(a) else b.bits
            signed_bits = a.bits if _signed(a) else b.bits
            if unsigned_bits <= 32 and (unsafe or 2 * unsigned_bits <= signed_bits):
                return _int_of(max(2 * unsigned_bits, signed_bits))
            if unsafe:
                return self.u64_integer_promotion_target
            return self._refuse(f"no signed integer holds both {a} and {b} safely", unsafe=True)
        if a.bits != b.bits:
            return a if a.bits >= b.bits else b
        if unsafe and {a.name, b.name} == {"f8e4m3", "f8e5m2"}:
            return element_type("f16")
        if unsafe and {a.name, b.name} == {"f16", "bf16"}:
            return element_type("f32")
        return self._refuse(f"{a} and {b} have no common type"
                            + ("" if unsafe else " in safe mode"), unsafe=not unsafe)  # fmt: skip

    def _refuse(self, why, unsafe=False):
        self.context.error(
            "input-type",
            f"{self.describe()}: {why}",
            hint='set promote_unsafe="true" or Convert an input first'
            if unsafe
            else "Convert the input to a supported type",
        )
        return None

    def evaluate(self, inputs):
        """Both inputs converted to the common type."""
        infos = [TensorInfo(Shape(a.shape), input_type(self, a, i)) for i, a in enumerate(inputs)]
        common = self._common(infos)
        return [convert_array(a, info.element_type, common) for a, info in zip(inputs, infos)]
