"""The ``.bin`` weights file: memory-mapped once, decoded per Const on demand.

Byte-sized element types come back as read-only, zero-copy numpy views of the
mapping (copied only when the offset is not aligned for the type). Sub-byte
types are unpacked to one element per byte in OpenVINO's per-type bit order,
and string tensors are decoded from OpenVINO's offset-table layout. Every
offset, size and count is checked against the file before a byte is read, so
a hostile Const cannot make irrun read out of range or allocate without bound.
"""

from __future__ import annotations

import mmap
import os
import stat
import sys
import weakref

import numpy as np

from irrun.element_types import ElementType
from irrun.errors import WeightsError
from irrun.ir.files import regular_file_size

__all__ = [
    "Weights",
    "const_layout_check",
    "const_layout_problem",
    "decode_const",
    "decode_checked_const",
]

_INT32_MAX = 2**31 - 1


class Weights:
    """A read-only memory mapping of a ``.bin`` file.

    The file is kept open for as long as the mapping lives, and its identity (device, inode,
    size, modification time) is recorded when it is mapped: :meth:`check` compares it again
    through the open descriptor, so a file truncated or rewritten in place under a loaded
    model is an error instead of a crash (SIGBUS) or a silent mix of old and new weights.
    A file *replaced* (a new file renamed over the path) does not change the mapping: the
    model keeps computing with the weights it loaded.

    Parameters
    ----------
    path : str
        The weights file. It must be a regular file (see :mod:`irrun.ir.files`).
    """

    _identity = None  # (st_dev, st_ino, st_size, st_mtime_ns) when mapped; None for bytes

    def __init__(self, path: str):
        self.path = path
        self.size = regular_file_size(path, "weights")
        # O_NONBLOCK: a path swapped for a FIFO after the check must not block the open.
        try:
            descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        except OSError as exc:
            raise WeightsError(
                f"cannot open weights file {path!r}: {exc.strerror}", file=path
            ) from None
        try:
            info = os.fstat(descriptor)
            if not stat.S_ISREG(info.st_mode):
                raise WeightsError(f"weights file {path!r} is not a regular file", file=path)
            # What was opened is what is mapped and checked (the path may have changed since
            # regular_file_size looked at it).
            self.size = info.st_size
            self._buffer = mmap.mmap(descriptor, 0, access=mmap.ACCESS_READ) if self.size else b""
        except (OSError, ValueError) as exc:
            os.close(descriptor)
            raise WeightsError(f"cannot map weights file {path!r}: {exc}", file=path) from None
        except BaseException:
            os.close(descriptor)
            raise
        self._descriptor = descriptor
        self._identity = _identity(info)
        self._closer = weakref.finalize(self, os.close, descriptor)

    def check(self) -> None:
        """Raise :class:`~irrun.errors.WeightsError` if the file changed since it was mapped.

        One ``fstat`` of the open file (about a microsecond). Called before every validation,
        run and Const read: reading a mapping whose file was truncated kills the process with
        SIGBUS, and a file rewritten in place would give the new bytes to the old model.
        """
        if self._identity is None:
            return
        try:
            now = _identity(os.fstat(self._descriptor))
        except OSError as exc:  # pragma: no cover - the descriptor is ours and open
            now = exc.strerror
        if now != self._identity:
            raise WeightsError(
                f"the weights file {self.path!r} changed since the model was loaded "
                f"({_change(self._identity, now)}); load the model again",
                file=self.path,
            )

    @classmethod
    def from_bytes(cls, data: bytes, name: str = "<bytes>") -> Weights:
        """Wrap weights already in memory (for tests and generated models)."""
        self = cls.__new__(cls)
        self.path = name
        self.size = len(data)
        self._buffer = data
        return self

    def view(self, offset: int, count: int, dtype) -> np.ndarray:
        """``count`` elements of ``dtype`` starting at byte ``offset`` (bounds already checked);
        a read-only view of the file, never a copy."""
        dtype = np.dtype(dtype)
        try:
            data = self._bytes
        except AttributeError:
            # One array over the whole file: slicing it is several times cheaper than asking
            # the mmap for a new buffer per Const.
            data = self._bytes = np.frombuffer(self._buffer, dtype=np.uint8)
        return data[offset : offset + count * dtype.itemsize].view(dtype)

    def shaped(self, offset: int, dtype: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
        """An array of ``shape`` and ``dtype`` at byte ``offset`` (bounds already checked): a
        read-only view of the file, never a copy (cheaper than :meth:`view` + reshape)."""
        return np.ndarray(shape, dtype, self._buffer, offset)

    def __repr__(self) -> str:
        return f"Weights({os.path.basename(self.path)!r}, {self.size} bytes)"


def _identity(info) -> tuple[int, int, int, int]:
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)


def _change(before: tuple, now) -> str:
    """What differs between two identities, in words."""
    if not isinstance(now, tuple):
        return f"it cannot be examined: {now}"
    if now[2] != before[2]:
        return f"it was {before[2]} bytes long and is now {now[2]}"
    return "it was rewritten"


def const_layout_problem(
    element_type: ElementType, shape: tuple[int, ...], offset: int, size: int, weights
) -> str | None:
    """Explain why a Const cannot be read, or return ``None`` when it can (see
    :func:`const_layout_check`)."""
    found = const_layout_check(element_type, shape, offset, size, weights)
    return found[1] if found else None


def const_layout_check(
    element_type: ElementType, shape: tuple[int, ...], offset: int, size: int, weights
) -> tuple[str, str, str | None] | None:
    """``(code, message, hint)`` when a Const cannot be read, else ``None``.

    Checks, without reading any weights, that the declared byte range lies in
    the file (code ``bin-range``) and holds enough bytes for ``shape`` elements
    of ``element_type`` (``const-size``). String Consts additionally have their
    header checked (a few bytes read).
    """
    if element_type.name == "dynamic":
        return "const-size", "a Const cannot have element type 'dynamic'", None
    if offset < 0 or size < 0:
        return "bin-range", f"offset {offset} and size {size} must not be negative", None
    end = offset + size
    if weights is None:
        return (
            "bin-range",
            f"needs bytes {offset}..{end} of the weights file, but there is no weights file",
            "put the .bin beside the .xml with the same name, or pass --weights",
        )
    if end > weights.size:
        return (
            "bin-range",
            f"needs bytes {offset}..{end} of {weights.path!r}, which is only {weights.size} "
            "bytes long",
            "the .bin may be truncated or belong to another model",
        )
    count = 1
    for dim in shape:
        count *= dim
    if element_type.name == "string":
        problem = _string_layout_problem(weights, offset, size, count)
        if problem:
            return "const-size", problem, None
    else:
        needed = element_type.packed_size(count)
        if size < needed:
            dims = " x ".join(map(str, shape)) or "1 (scalar)"
            shown = "[" + ",".join(map(str, shape)) + "]"
            return (
                "const-size",
                f"declares size {size}, but shape {shown} of {element_type} needs {needed} "
                f"bytes ({dims} elements x {element_type.bits} bits)",
                f'set size="{needed}" or fix the shape/element_type',
            )
    if count == 0:  # a zero-size shape needs no bytes, but numpy must still describe it
        nonzero = 1
        for dim in shape:
            nonzero *= max(dim, 1)
        if nonzero > 2**62:
            return "const-size", f"shape {list(shape)} is too large for numpy to describe", None
    return None


def _string_layout_problem(weights, offset: int, size: int, count: int) -> str | None:
    header = 4 * (count + 2)
    if size < header:
        return f"a string Const of {count} element(s) needs at least {header} bytes, size is {size}"
    stored = int(weights.view(offset, 1, "<i4")[0])
    if stored != count:
        return f"the string header says {stored} element(s), the shape has {count}"
    offsets = weights.view(offset + 4, count + 1, "<i4")
    if offsets[0] != 0 or np.any(np.diff(offsets) < 0) or header + int(offsets[-1]) > size:
        return "the string offset table is not increasing or points past the Const's size"
    return None


def decode_const(
    element_type: ElementType, shape: tuple[int, ...], offset: int, size: int, weights
) -> np.ndarray:
    """Read a Const's value; raises :class:`~irrun.errors.WeightsError` if its layout is bad.

    Returns a read-only array of shape ``shape`` in ``element_type.numpy_dtype``.
    """
    problem = const_layout_problem(element_type, shape, offset, size, weights)
    if problem:
        raise WeightsError(problem, file=getattr(weights, "path", None))
    return decode_checked_const(element_type, shape, offset, weights)


def decode_checked_const(
    element_type: ElementType, shape: tuple[int, ...], offset: int, weights
) -> np.ndarray:
    """:func:`decode_const` for a layout :func:`const_layout_problem` already accepted."""
    count = 1
    for dim in shape:
        count *= dim
    if element_type.name == "string":
        array = _decode_strings(weights, offset, count).reshape(shape)
    elif element_type.is_sub_byte:
        packed = weights.view(offset, element_type.packed_size(count), np.uint8)
        unpacked = _UNPACK[element_type.name](packed, count)
        array = unpacked.view(element_type.numpy_dtype).reshape(shape)
    else:
        dtype = element_type.numpy_dtype
        if sys.byteorder != "little" and dtype.itemsize > 1:
            # The .bin is little-endian: read it as such, then convert to native order.
            array = weights.shaped(offset, dtype.newbyteorder("<"), shape).astype(dtype)
        else:
            array = weights.shaped(offset, dtype, shape)
            if offset % dtype.alignment:
                # Unaligned views are legal but slow everywhere they are used: copy once.
                array = array.copy()
        if element_type.name == "boolean" and count and array.view(np.uint8).max() > 1:
            array = array.view(np.uint8) != 0
    if array.flags.writeable:  # (views of the weights are read-only already)
        array.flags.writeable = False
    return array


def _decode_strings(weights, offset: int, count: int) -> np.ndarray:
    offsets = weights.view(offset + 4, count + 1, "<i4")
    start = offset + 4 * (count + 2)
    raw = bytes(weights.view(start, int(offsets[-1]), np.uint8))
    values = []
    for index in range(count):
        chunk = raw[offsets[index] : offsets[index + 1]]
        try:
            values.append(chunk.decode("utf-8"))
        except UnicodeDecodeError:
            raise WeightsError(
                f"string element {index} is not valid UTF-8: {chunk[:40]!r}",
                file=weights.path,
            ) from None
    return np.array(values, dtype=np.dtypes.StringDType())


def _unpack_nibbles(packed: np.ndarray, count: int) -> np.ndarray:
    # Low nibble first: element 2k in bits 3..0, element 2k+1 in bits 7..4 of byte k.
    out = np.empty(packed.size * 2, np.uint8)
    out[0::2] = packed & 0x0F
    out[1::2] = packed >> 4
    return out[:count]


def _unpack_u2(packed: np.ndarray, count: int) -> np.ndarray:
    # LSB first: element 4k+j in bits 2j+1..2j of byte k.
    out = np.stack([(packed >> shift) & 3 for shift in (0, 2, 4, 6)], axis=1)
    return out.reshape(-1)[:count]


def _unpack_u1(packed: np.ndarray, count: int) -> np.ndarray:
    # MSB first: element 8k+j in bit 7-j of byte k.
    return np.unpackbits(packed, count=count, bitorder="big")


def _unpack_u3(packed: np.ndarray, count: int) -> np.ndarray:
    # Blocks of 3 bytes hold 8 elements: two bytes of low 2-bit pairs (MSB first), one of bit 2.
    blocks = packed.reshape(-1, 3)
    low = np.stack([(blocks[:, :2] >> shift) & 3 for shift in (6, 4, 2, 0)], axis=2)
    high = np.unpackbits(blocks[:, 2:3], axis=1, bitorder="big")
    return (low.reshape(-1, 8) | (high << 2)).reshape(-1)[:count]


def _unpack_u6(packed: np.ndarray, count: int) -> np.ndarray:
    # Blocks of 3 bytes hold 4 elements: two bytes of low nibbles (high nibble first), one byte
    # of the high 2-bit pairs, element 0 in bits 7..6.
    blocks = packed.reshape(-1, 3)
    low = np.stack([blocks[:, :2] >> 4, blocks[:, :2] & 0x0F], axis=2).reshape(-1, 4)
    high = np.stack([(blocks[:, 2] >> shift) & 3 for shift in (6, 4, 2, 0)], axis=1)
    return (low | (high << 4)).reshape(-1)[:count]


_UNPACK = {
    "u4": _unpack_nibbles,
    "i4": _unpack_nibbles,
    "nf4": _unpack_nibbles,
    "f4e2m1": _unpack_nibbles,
    "u2": _unpack_u2,
    "u1": _unpack_u1,
    "u3": _unpack_u3,
    "u6": _unpack_u6,
}
