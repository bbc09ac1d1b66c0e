"""Input and output arrays: reading ``.npz`` safely, matching inputs to a model, writing results.

An ``.npz`` is a zip of ``.npy`` members. Each member's header (dtype and
shape) is read first, object arrays are refused without unpickling, and the
data is then read with exactly the byte count the header declares, so a zip
bomb cannot make irrun decompress more than the array it claims to hold, and
an array larger than ``max_bytes`` is refused before anything is allocated.
"""

from __future__ import annotations

import os
import zipfile

import numpy as np

from irrun.errors import InputFileError, InputValueError
from irrun.text import short_text

__all__ = ["load_npz", "match_inputs", "portable_array", "save_npz", "DEFAULT_MAX_BYTES"]

#: Largest array ``load_npz`` accepts by default (bytes).
DEFAULT_MAX_BYTES = 8 << 30


def load_npz(path, max_bytes: int = DEFAULT_MAX_BYTES) -> dict[str, np.ndarray]:
    """Read every array of an ``.npz`` without unpickling and without trusting its sizes.

    Parameters
    ----------
    path : str or os.PathLike
        The ``.npz`` file (a regular file).
    max_bytes : int
        Refuse any member whose header declares more bytes than this.

    Raises
    ------
    InputFileError
        Not a readable zip / ``.npz``, or a member that is not a valid ``.npy``.
    InputValueError
        An object (pickled) array, or a member larger than ``max_bytes``.
    """
    from irrun.ir.files import regular_file_size

    path = os.fspath(path)
    regular_file_size(path, "inputs")
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise InputFileError(
            f"inputs file {path!r} is not an .npz archive ({exc}); save inputs with numpy.savez",
            file=path,
        ) from None
    arrays = {}
    with archive:
        for info in archive.infolist():
            if info.is_dir():
                continue
            key = info.filename[:-4] if info.filename.endswith(".npy") else info.filename
            arrays[key] = _read_member(archive, info, key, path, max_bytes)
    return arrays


def _read_member(archive, info, key, path, max_bytes) -> np.ndarray:
    from numpy.lib import format as npy

    def refuse(message, error=InputFileError):
        return error(f"array {short_text(key)!r} in {path!r} {message}", file=path)

    try:
        with archive.open(info) as stream:
            version = npy.read_magic(stream)
            reader = {(1, 0): npy.read_array_header_1_0, (2, 0): npy.read_array_header_2_0}
            if version not in reader:
                raise refuse(f"is .npy version {version}, which irrun does not read")
            shape, fortran_order, dtype = reader[version](stream, max_header_size=10000)
            if dtype.hasobject:
                raise refuse(
                    "holds Python objects; irrun never unpickles data. Save plain numeric, "
                    "boolean or string arrays",
                    InputValueError,
                )
            if dtype.itemsize == 0 or any(size < 0 for size in shape):
                raise refuse(f"has an impossible header: shape {list(shape)} of {dtype}")
            count = 1
            for size in shape:
                count *= size
            nbytes = count * dtype.itemsize
            if nbytes > max_bytes:
                raise refuse(
                    f"declares shape {list(shape)} of {dtype} ({nbytes:,} bytes), more than the "
                    f"{max_bytes:,} bytes irrun accepts",
                    InputValueError,
                )
            # Allocate first (a too-large array fails here, before any decompression), then
            # read exactly the declared bytes: a zip bomb cannot inflate past them.
            try:
                array = np.empty(count, dtype=dtype)
            except MemoryError:
                raise refuse(
                    f"needs {nbytes:,} bytes of memory for shape {list(shape)} of {dtype}, "
                    "which are not available",
                    InputValueError,
                ) from None
            view = memoryview(array.view(np.uint8))
            filled = 0
            while filled < nbytes:
                got = stream.readinto(view[filled:])
                if not got:
                    raise refuse(f"stops after {filled:,} of its {nbytes:,} data bytes")
                filled += got
            array = array.reshape(shape, order="F" if fortran_order else "C")
    except (InputValueError, InputFileError):
        raise
    except MemoryError:
        raise refuse("needs more memory than is available", InputValueError) from None
    except Exception as exc:  # malformed headers raise ValueError, SyntaxError, TokenError...
        raise refuse(f"is not a valid .npy member: {type(exc).__name__}: {exc}") from None
    if not array.dtype.isnative:
        array = array.astype(array.dtype.newbyteorder("="))
    return array


def match_inputs(model, given: dict) -> dict[int, np.ndarray]:
    """Map given arrays to the model's input ports, checking names, dtypes and shapes.

    Returns ``{id(port): array}``. Keys may be a Parameter's layer name or any of
    its tensor names. No silent casting: the only conversion is bf16 from a
    float32 array holding exactly representable values (``.npz`` has no bf16).
    """
    feeds: dict[int, np.ndarray] = {}
    used = set()
    missing = []
    for model_input in model.inputs:
        # A Parameter is also known by its layer name; a fragment's open port only by its names.
        parameter = model_input.layer.type == "Parameter"
        names = model_input.names
        keys = [k for k in given if (parameter and k == model_input.layer.name) or k in names]
        if model_input.name in given:
            keys = [model_input.name]
        if not keys:
            missing.append(model_input)
            continue
        used.add(keys[0])
        feeds[id(model_input.port)] = _check_input(model_input, keys[0], given[keys[0]], model.file)
    unknown = sorted(set(given) - used)
    if missing or unknown:
        parts = []
        if missing:
            listed = ", ".join(
                f"{short_text(i.name)!r} ({i.element_type} {i.shape})" for i in missing
            )
            parts.append(f"missing: {listed}")
        if unknown:
            parts.append(f"unknown: {', '.join(repr(short_text(k)) for k in unknown)}")
        expected = ", ".join(repr(short_text(i.name)) for i in model.inputs) or "none"
        raise InputValueError(
            f"the inputs do not match the model ({'; '.join(parts)}); it expects {expected}",
            file=model.file,
        )
    return feeds


def _check_input(model_input, key, array, file) -> np.ndarray:
    from irrun.shape import Shape

    array = np.asarray(array)
    if not array.dtype.isnative:  # same values, other byte order: an exact conversion
        array = array.astype(array.dtype.newbyteorder("="))
    etype = model_input.element_type
    if etype is not None and etype.name != "dynamic":
        wanted = etype.numpy_dtype
        if etype.name == "string" and array.dtype.kind in "UT":
            array = array.astype(wanted)
        elif etype.name == "bf16" and array.dtype == np.float32:
            converted = array.astype(wanted)
            if not np.array_equal(converted.astype(np.float32), array, equal_nan=True):
                raise InputValueError(
                    f"input {short_text(key)!r} is bf16: its float32 values must be exactly "
                    "representable in bfloat16 (irrun never rounds silently)",
                    file=file,
                )
            array = converted
        elif array.dtype != wanted:
            raise InputValueError(
                f"input {short_text(key)!r} must be {etype} (numpy {wanted}), but the array is "
                f"{array.dtype}; convert it first, e.g. array.astype({str(wanted)!r})",
                file=file,
            )
    shape = model_input.shape
    if shape.rank_is_static and not shape.compatible(Shape(array.shape)):
        raise InputValueError(
            f"input {short_text(key)!r} must have shape {shape}, but the array has shape "
            f"{list(array.shape)}",
            file=file,
        )
    return array


def portable_array(array: np.ndarray) -> np.ndarray:
    """The array as ``.npz`` can store it without pickling, converted exactly.

    bfloat16, float8 and float4 become float32; 1-, 2- and 4-bit integers become
    int8/uint8; strings become fixed-width unicode. Other arrays are returned as they are.
    """
    dtype = array.dtype
    if dtype.kind == "T":
        return array.astype(str)
    if dtype.type.__module__.startswith("ml_dtypes"):
        import ml_dtypes

        if dtype.name.startswith(("int", "uint")):
            return array.astype(np.int8 if ml_dtypes.iinfo(dtype).min < 0 else np.uint8)
        return array.astype(np.float32)
    return array


def save_npz(path, arrays: dict) -> None:
    """Write arrays to an ``.npz`` (see :func:`portable_array`), leaving no partial file behind.

    Any string is a valid key (``file``, ``allow_pickle``...): members are written one by one,
    not passed to ``numpy.savez`` as keyword arguments. Raises
    :class:`~irrun.errors.InputFileError` when the place cannot be written
    (see :func:`irrun.ir.files.write_output_file`).
    """
    from numpy.lib import format as npy

    from irrun.ir.files import write_output_file

    def write(stream):
        with zipfile.ZipFile(stream, "w", zipfile.ZIP_STORED, allowZip64=True) as archive:
            for key, array in arrays.items():
                with archive.open(f"{key}.npy", "w", force_zip64=True) as member:
                    npy.write_array(member, np.asanyarray(portable_array(array)),
                                    allow_pickle=False)  # fmt: skip

    write_output_file(path, write)
