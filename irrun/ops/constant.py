"""Constant-1 (``Const`` in files): a value stored in the ``.bin``."""

from __future__ import annotations

from functools import partial

from irrun.errors import IRError
from irrun.ir.weights import const_layout_check, decode_checked_const
from irrun.ops.base import Op, TensorInfo
from irrun.ops.registry import register
from irrun.shape import Shape

#: Sub-byte and string Consts above this many elements are not decoded during validation.
FOLD_LIMIT = 1 << 20

#: (element_type, shape) attribute texts -> (element type, shape, bytes needed, direct), or
#: None when the pair needs the careful path (unknown or dynamic type, strings, a non-static
#: or zero-size shape); direct: see _direct_layout.
_PLAIN_TYPES: dict[tuple[str, str], tuple | None] = {}


def _plain_layout(key, weights):
    """``(element type, shape, offset, size, direct)`` when the Const attributes ``key`` are
    plainly right (known fixed-size type, static non-empty shape, decimal offset and size whose
    bytes lie in ``weights`` and suffice); otherwise ``None`` and the careful path decides
    (and explains)."""
    type_text, shape_text, offset_text, size_text = key
    if weights is None or offset_text is None or size_text is None:
        return None
    if type_text is None or shape_text is None:
        return None
    plain = _PLAIN_TYPES.get((type_text, shape_text), False)
    if plain is False:
        plain = _plain_type(type_text, shape_text)
        if len(_PLAIN_TYPES) < 4096:
            _PLAIN_TYPES[type_text, shape_text] = plain
    if plain is None:
        return None
    # (19 digits or more: the careful path checks the 64-bit range)
    if len(offset_text) > 18 or len(size_text) > 18:
        return None
    # (each on its own: an empty one must not pass as part of the other's digits)
    if not (offset_text.isdigit() and size_text.isdigit()):
        return None
    if not (offset_text.isascii() and size_text.isascii()):
        return None
    element_type, shape, needed, direct = plain
    offset, size = int(offset_text), int(size_text)
    if size < needed or offset + size > weights.size:
        return None
    return element_type, shape, offset, size, direct


def _plain_type(type_text, shape_text):
    from irrun.element_types import element_type

    try:
        etype, shape = element_type(type_text), Shape.parse(shape_text)
    except (KeyError, ValueError):
        return None
    if etype.name in ("dynamic", "string") or not shape.is_static or shape.element_count() == 0:
        return None
    return etype, shape, etype.packed_size(shape.element_count()), _direct_layout(etype, shape)


def _direct_layout(element_type, shape):
    """``(numpy dtype, shape tuple)`` when the bytes in the .bin are the values as they are
    (a fixed-size type, not boolean, in the machine's byte order); else ``None``."""
    import sys

    if element_type.is_sub_byte or element_type.name in ("string", "boolean", "dynamic"):
        return None
    dtype = element_type.numpy_dtype
    if sys.byteorder != "little" and dtype.itemsize > 1:
        return None
    return dtype, shape.to_tuple()


#: Unaligned Consts of more elements than this are not copied for validation.
_COPY_LIMIT = 4096


def _value(layer, key, element_type, shape, offset, direct=None):
    """The Const's array, decoded once (``None`` when decoding it is not cheap: a large
    sub-byte or string Const). Consts with the same layout share one read-only array; the
    model keeps them for the executor. ``direct``: see :func:`_direct_layout`."""
    model = layer.graph.model
    cached = model._constants.get(id(layer))
    if cached is None:
        cached = model._const_arrays.get(key)
        if cached is None:
            if (
                direct is not None
                and offset % direct[0].alignment
                and (shape.element_count() > _COPY_LIMIT)
            ):
                # An unaligned weight: checks read the view as it is; the executor makes its
                # aligned copy when it runs (validation alone copies no weights).
                return model.weights.shaped(offset, *direct)
            if direct is not None and not offset % direct[0].alignment:
                # what decode_checked_const gives for these types, in fewer steps
                cached = model.weights.shaped(offset, *direct)
            else:
                cheap = not element_type.is_sub_byte and element_type.name != "string"
                if not cheap and shape.element_count() > FOLD_LIMIT:
                    return None
                cached = decode_checked_const(element_type, shape.to_tuple(), offset,
                                              model.weights)  # fmt: skip
            model._const_arrays[key] = cached
        model._constants[id(layer)] = cached
    return cached


def _deferred_value(layer, key, element_type, shape, offset, direct, index):
    """:func:`_value` of a Const whose layout is checked (for TensorInfo.defer)."""
    return _value(layer, key, element_type, shape, offset, direct)


@register
class Constant(Op):
    """Constant-1: attributes ``element_type``, ``shape`` (static), ``offset``, ``size``.

    Validation checks that the byte range lies inside the weights file
    (``bin-range``) and holds enough bytes for the shape (``const-size``).
    """

    type, version, inputs = "Constant", 1, (0, 0)
    rounds = False
    from_attributes = True

    def __init__(self, layer, context):
        super().__init__(layer, context)
        attributes = layer.attributes
        # Converted models repeat Const layouts (OpenVINO's serializer stores equal constants
        # once and points every copy at the same bytes): a layout already checked against
        # this model's weights is not parsed and checked again.
        key = self._key = (attributes.get("element_type"), attributes.get("shape"),
                           attributes.get("offset"), attributes.get("size"))  # fmt: skip
        model = layer.graph.model
        checked = model._checked_consts.get(key)
        if checked is None:
            checked = _plain_layout(key, model.weights)
            if checked is not None:
                model._checked_consts[key] = checked
        if checked is not None:
            self.element_type, self.shape, self.offset, self.size, self._direct = checked
            self.ok = True
            return
        self.ok = False
        self._direct = None
        self.element_type = None
        self.shape = None
        missing = [
            n for n in ("element_type", "shape", "offset", "size") if n not in layer.attributes
        ]
        if missing:
            context.error(
                "missing-attribute",
                f"{self.describe()} lacks {', '.join(missing)} in <data>; a Const needs "
                "element_type, shape, offset and size",
                hint="add the missing attributes (offset and size are byte positions in the .bin)",
            )
            return
        try:
            self.element_type = layer.attribute_element_type("element_type")
            self.shape = layer.attribute_shape("shape")
            self.offset = layer.attribute_int("offset")
            self.size = layer.attribute_int("size")
        except IRError as exc:
            context.error("attribute-value", exc.message, line=layer.data_line)
            return
        if not self.shape.is_static:
            context.error(
                "attribute-value",
                f"{self.describe()}: a Const shape must be static, got {self.shape}",
                hint="write every dimension of a Const as a number",
            )
            return
        if self.element_type.name == "dynamic":
            context.error(
                "attribute-value",
                f"{self.describe()}: a Const cannot be dynamic",
                line=layer.data_line,
            )
            return
        self.ok = self._check_bytes()
        if self.ok:
            layer.graph.model._checked_consts[key] = (self.element_type, self.shape,
                                                      self.offset, self.size, None)  # fmt: skip

    def _check_bytes(self) -> bool:
        found = const_layout_check(self.element_type, self.shape.to_tuple(), self.offset,
                                   self.size, self.layer.graph.model.weights)  # fmt: skip
        if found:
            code, message, hint = found
            self.context.error(code, f"{self.describe()} {message}", hint=hint)
            return False
        return True

    def infer(self, inputs):
        """The declared shape and type, with the value when it is cheap to have."""
        if self.element_type is None or self.shape is None or not self.shape.is_static:
            return None
        value = None
        if self.ok:
            try:
                value = _value(self.layer, self._key, self.element_type, self.shape,
                               self.offset, self._direct)  # fmt: skip
            except IRError as exc:
                self.context.error("const-size", f"{self.describe()}: {exc.message}")
        return [TensorInfo(self.shape, self.element_type, value, why="the Const's shape")]

    @staticmethod
    def quick_outputs(layer):
        """What :meth:`infer` gives for a plainly written Const, without building the op (most
        layers of a converted model are Consts); ``None``: build it (it checks and explains)."""
        get = layer.attributes.get
        key = (get("element_type"), get("shape"), get("offset"), get("size"))
        model = layer.graph.model
        checked = model._checked_consts.get(key)
        if checked is None:
            checked = _plain_layout(key, model.weights)
            if checked is None:
                return None
            model._checked_consts[key] = checked
        element_type, shape, offset, _, direct = checked
        if id(layer) not in model._constants:
            # Bytes already checked (decoding them cannot fail: plain layouts have no strings):
            # decoded when first read, as most weights are read by no shape rule (a view for
            # aligned fixed-size types; sub-byte, boolean and unaligned ones are unpacked or
            # copied then).
            info = TensorInfo(shape, element_type, why="the Const's shape")
            info.defer(partial(_deferred_value, layer, key, element_type, shape, offset, direct), 0)
            return [info]
        try:
            value = _value(layer, key, element_type, shape, offset, direct)
        except IRError:
            return None
        return [TensorInfo(shape, element_type, value, why="the Const's shape")]

    def evaluate(self, inputs):
        """The Const's value (a read-only view of the memory-mapped weights)."""
        return [self.layer.graph.model.constant(self.layer)]
