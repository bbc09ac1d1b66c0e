"""OpenVINO element types: names, port precisions, bit widths and numpy dtypes.

Every one of the 25 element types OpenVINO writes is an :class:`ElementType`.
Byte-sized types map to a numpy dtype (bfloat16 and the float8 types through
``ml_dtypes``). Sub-byte types are unpacked to one element per byte: ``u1``,
``u2``, ``u4``, ``i4`` and ``f4e2m1`` to their ``ml_dtypes`` dtype, ``u3`` and
``u6`` to ``uint8``, and ``nf4`` to its 4-bit codebook *codes* as ``uint8``
(:func:`nf4_values` turns codes into the float values). Strings become numpy's
variable-width ``StringDType``.

Examples
--------
>>> element_type("f32").numpy_dtype
dtype('float32')
>>> from_precision("BIN").name
'u1'
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, cached_property

__all__ = [
    "ElementType",
    "ELEMENT_TYPES",
    "element_type",
    "from_precision",
    "from_numpy_dtype",
    "nf4_values",
    "NF4_CODEBOOK",
]


@dataclass(frozen=True, eq=False)  # one instance per type: identity is equality
class ElementType:
    """One OpenVINO element type.

    Attributes
    ----------
    name : str
        The ``element_type`` spelling (``f32``, ``boolean``, ``u1`` ...).
    precision : str
        The port ``precision`` spelling OpenVINO writes (``FP32``, ``BOOL``, ``BIN`` ...).
    bits : int
        Bits per element in the ``.bin`` (0 for ``string`` and ``dynamic``).
    kind : str
        ``"float"``, ``"int"``, ``"uint"``, ``"bool"``, ``"string"`` or ``"dynamic"``.
    """

    name: str
    precision: str
    bits: int
    kind: str
    _dtype_name: str

    # numpy_dtype, is_integer and is_sub_byte are cached on the instance (cached_property
    # writes the instance dict, which a frozen dataclass allows): shape rules ask them for
    # nearly every layer.

    @cached_property
    def numpy_dtype(self):
        """The numpy dtype arrays of this type are held in (``None`` for ``dynamic``)."""
        return _numpy_dtype(self._dtype_name)

    @cached_property
    def is_integer(self) -> bool:
        """True for signed and unsigned integer types (not boolean)."""
        return self.kind in ("int", "uint")

    @cached_property
    def is_sub_byte(self) -> bool:
        """True for types packed several to a byte in the ``.bin``."""
        return 0 < self.bits < 8

    def packed_size(self, count: int) -> int:
        """Bytes OpenVINO needs in the ``.bin`` for ``count`` elements (not for strings)."""
        if self.name == "u3":
            return 3 * -(-count // 8)
        if self.name == "u6":
            return 3 * -(-count // 4)
        return -(-count * self.bits // 8)

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"ElementType('{self.name}')"


_TABLE = [
    # name, precision, bits, kind, dtype
    ("f64", "FP64", 64, "float", "float64"),
    ("f32", "FP32", 32, "float", "float32"),
    ("f16", "FP16", 16, "float", "float16"),
    ("bf16", "BF16", 16, "float", "bfloat16"),
    ("f8e4m3", "F8E4M3", 8, "float", "float8_e4m3fn"),
    ("f8e5m2", "F8E5M2", 8, "float", "float8_e5m2"),
    ("f8e8m0", "F8E8M0", 8, "float", "float8_e8m0fnu"),
    ("f4e2m1", "F4E2M1", 4, "float", "float4_e2m1fn"),
    ("nf4", "NF4", 4, "float", "uint8"),
    ("i4", "I4", 4, "int", "int4"),
    ("u4", "U4", 4, "uint", "uint4"),
    ("u1", "BIN", 1, "uint", "uint1"),
    ("u2", "U2", 2, "uint", "uint2"),
    ("u3", "U3", 3, "uint", "uint8"),
    ("u6", "U6", 6, "uint", "uint8"),
    ("i8", "I8", 8, "int", "int8"),
    ("u8", "U8", 8, "uint", "uint8"),
    ("i16", "I16", 16, "int", "int16"),
    ("u16", "U16", 16, "uint", "uint16"),
    ("i32", "I32", 32, "int", "int32"),
    ("u32", "U32", 32, "uint", "uint32"),
    ("i64", "I64", 64, "int", "int64"),
    ("u64", "U64", 64, "uint", "uint64"),
    ("boolean", "BOOL", 8, "bool", "bool"),
    ("string", "STRING", 0, "string", "string"),
    ("dynamic", "UNSPECIFIED", 0, "dynamic", ""),
]

#: Every element type by its ``element_type`` name.
ELEMENT_TYPES: dict[str, ElementType] = {row[0]: ElementType(*row) for row in _TABLE}

_BY_PRECISION = {t.precision: t for t in ELEMENT_TYPES.values()}
_BY_PRECISION.update(ELEMENT_TYPES)  # the reader also takes lowercase element_type names
_BY_PRECISION["undefined"] = ELEMENT_TYPES["dynamic"]

#: nf4 code → value (OpenVINO's 16-entry codebook).
NF4_CODEBOOK = (
    -1.0, -0.6961928, -0.5250731, -0.3949175, -0.2844414, -0.1847734, -0.09105004, 0.0,
    0.0795803, 0.1609302, 0.2461123, 0.3379152, 0.4407098, 0.562617, 0.7229568, 1.0,
)  # fmt: skip


@cache
def _numpy_dtype(name: str):
    import numpy as np

    if not name:
        return None
    if name == "string":
        return np.dtypes.StringDType()
    if hasattr(np, name):
        return np.dtype(name)
    import ml_dtypes

    return np.dtype(getattr(ml_dtypes, name))


def element_type(name: str) -> ElementType:
    """Look up an ``element_type`` attribute value (case-insensitive, like OpenVINO).

    Raises ``KeyError`` with the list of valid names for an unknown type.
    """
    found = ELEMENT_TYPES.get(name.lower())
    if found is None:
        if name.lower() == "undefined":
            return ELEMENT_TYPES["dynamic"]
        shown = name if len(name) <= 40 else name[:40] + "..."
        raise KeyError(f"unknown element type {shown!r}; known: {', '.join(ELEMENT_TYPES)}")
    return found


def from_precision(precision: str) -> ElementType:
    """Look up a port ``precision`` (``FP32``, ``BIN`` ... or a lowercase type name)."""
    found = _BY_PRECISION.get(precision)
    if found is None:
        shown = precision if len(precision) <= 40 else precision[:40] + "..."
        raise KeyError(
            f"unknown precision {shown!r}; use one of "
            + ", ".join(t.precision for t in ELEMENT_TYPES.values())
        )
    return found


def from_numpy_dtype(dtype) -> ElementType:
    """The element type a numpy dtype holds (the inverse of :attr:`ElementType.numpy_dtype`
    for every type with a dtype of its own; ``uint8`` gives ``u8``)."""
    import numpy as np

    dtype = np.dtype(dtype)
    if dtype.kind == "T" or dtype.kind == "U":
        return ELEMENT_TYPES["string"]
    for candidate in ELEMENT_TYPES.values():
        if candidate.name in ("nf4", "u3", "u6", "string", "dynamic"):
            continue
        if candidate.numpy_dtype == dtype:
            return candidate
    raise KeyError(f"numpy dtype {dtype} has no OpenVINO element type")


def nf4_values(codes):
    """Decode nf4 codes (``uint8`` 0..15) into their ``float32`` values."""
    import numpy as np

    return np.asarray(NF4_CODEBOOK, dtype=np.float32)[codes]
