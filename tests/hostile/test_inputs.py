"""Hostile execution inputs (.npz): not an archive, wrong members, wrong shapes and dtypes,
pickles, zip bombs and lying ``.npy`` headers; and special float values and out-of-range
indices, which must flow through the kernels exactly as the op specifications say.

Inputs that do not fit are "unusable input" (exit 2, README); an execution failure such as an
out-of-range Gather-7 index is exit 1, naming the index and its position.
"""

from __future__ import annotations

import io
import os
import pickle
import struct
import subprocess
import zipfile
import zlib

import numpy as np
import pytest
from numpy.lib import format as npy

import irrun
from irrun.arrays import load_npz

GiB = 1 << 30


def npy_bytes(shape, descr="<f4", payload=b"", fortran=False) -> bytes:
    """An .npy member whose header declares ``shape``/``descr``, followed by ``payload``."""
    stream = io.BytesIO()
    header = {"descr": descr, "fortran_order": fortran, "shape": tuple(shape)}
    npy.write_array_header_1_0(stream, header)
    return stream.getvalue() + payload


def write_npz(path, members: dict[str, bytes]):
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


# -- not an npz, wrong members -----------------------------------------------------------------
def test_npy_empty_text_and_truncated_files_exit_2(tmp_path, tiny, invoke, expect):
    cases = {}
    cases["array.npy"] = tmp_path / "array.npy"
    np.save(cases["array.npy"], np.ones((2, 3), np.float32))
    cases["empty.npz"] = tmp_path / "empty.npz"
    cases["empty.npz"].write_bytes(b"")
    cases["text.npz"] = tmp_path / "text.npz"
    cases["text.npz"].write_text("data = [[1, 2, 3], [4, 5, 6]]\n")
    whole = tiny.with_name("tiny_inputs.npz").read_bytes()
    cases["truncated.npz"] = tmp_path / "truncated.npz"
    cases["truncated.npz"].write_bytes(whole[: len(whole) // 2])
    for path in cases.values():
        expect(invoke("execute", tiny, "--inputs", path), 2, f"irrun: error: {path}", ".npz")


def test_npz_with_an_empty_or_foreign_member_exits_2(tmp_path, tiny, invoke, expect):
    for name, member in {
        "garbage": b"hello world",
        "empty": b"",
        "magic-only": b"\x93NUMPY",
    }.items():
        path = write_npz(tmp_path / f"{name}.npz", {"data.npy": member})
        expect(invoke("execute", tiny, "--inputs", path), 2, str(path), "'data'")


def test_missing_and_unknown_inputs_exit_2_listing_what_is_expected(tmp_path, tiny, invoke, expect):
    data = np.ones((2, 3), np.float32)
    missing = tmp_path / "missing.npz"
    np.savez(missing, other=data)
    expect(
        invoke("execute", tiny, "--inputs", missing),
        2,
        str(tiny),
        "missing: 'data'",
        "unknown: 'other'",
    )
    extra = tmp_path / "extra.npz"
    np.savez(extra, data=data, surplus=data)
    expect(invoke("execute", tiny, "--inputs", extra), 2, str(tiny), "unknown: 'surplus'")
    none = tmp_path / "none.npz"
    np.savez(none)
    expect(invoke("execute", tiny, "--inputs", none), 2, str(tiny), "missing: 'data'")


@pytest.mark.parametrize(
    "array",
    [
        np.zeros((3, 3), np.float32),
        np.zeros((2,), np.float32),
        np.zeros((2, 3, 1), np.float32),
        np.zeros((2, 3), np.float64),
        np.zeros((2, 3), np.int32),
        np.zeros((2, 3), bool),
        np.array([["a", "b", "c"], ["d", "e", "f"]]),
        np.zeros((2, 3), [("a", "<f4")]),
    ],
    ids=["shape", "rank-low", "rank-high", "f64", "i32", "bool", "unicode", "structured"],
)
def test_wrong_shape_or_dtype_exits_2_naming_the_file(tmp_path, tiny, array, invoke, expect):
    """BUG (irrun/arrays.py _check_input): the InputValueError for a wrong shape or dtype is
    raised without ``file=``, so the message is "irrun: error: input 'data' must have shape
    [2,?], but ..." with neither the .npz nor the model named. Expected: the .npz path (or
    the model's) first, as for missing/unknown inputs. Fix: pass ``file=model.file`` (or the
    inputs path) from match_inputs to _check_input."""
    inputs = tmp_path / "in.npz"
    np.savez(inputs, data=array)
    out = expect(invoke("execute", tiny, "--inputs", inputs), 2, "'data'")
    assert out.startswith(f"irrun: error: {tiny}") or out.startswith(f"irrun: error: {inputs}"), out


@pytest.mark.parametrize("layout", ["big-endian", "fortran", "big-endian-fortran"])
def test_big_endian_and_fortran_inputs_give_exactly_the_native_result(
    ov_copy, tmp_path, layout, invoke, expect
):
    model = ov_copy("g8")
    bits = np.array(
        [
            [0x7FC00000, 0x7FA00001, 0xFFC00123, 0x3F800001],
            [0x7F800000, 0xFF800000, 0x80000000, 0x00000001],
        ],
        np.uint32,
    )
    data = bits.view(np.float32)
    idx = np.array([3, 0, -2, 1, -4], np.int64)
    native = tmp_path / "native.npz"
    np.savez(native, data=data, idx=idx)
    converted = {
        "big-endian": lambda a: a.astype(a.dtype.newbyteorder(">")),
        "fortran": np.asfortranarray,
        "big-endian-fortran": lambda a: np.asfortranarray(a.astype(a.dtype.newbyteorder(">"))),
    }[layout]
    other = tmp_path / "other.npz"
    np.savez(other, data=converted(data), idx=converted(idx))
    results = []
    for inputs in (native, other):
        out = tmp_path / f"out-{inputs.stem}.npz"
        expect(invoke("execute", model, "--inputs", inputs, "--output", out), 0)
        results.append(np.load(out)["out"])
    assert results[1].dtype == np.float32 and results[1].dtype.isnative
    assert results[0].view(np.uint32).tolist() == results[1].view(np.uint32).tolist()
    expected = np.concatenate([data[:, [3, 0, 2, 1, 0]], data], axis=1)
    assert results[0].view(np.uint32).tolist() == expected.view(np.uint32).tolist()


# -- pickles -----------------------------------------------------------------------------------
class _Marker:
    """Unpickling this creates ``path`` (proof that something unpickled the data)."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


def test_pickled_object_arrays_are_never_unpickled(tmp_path, tiny, invoke, expect):
    marker = tmp_path / "UNPICKLED"
    evil = np.empty((2, 3), dtype=object)
    evil[...] = [[_Marker(marker)] * 3] * 2
    as_npz = tmp_path / "pickled.npz"
    np.savez(as_npz, data=evil)
    as_member = write_npz(
        tmp_path / "raw.npz",
        {
            "data.npy": npy_bytes((2, 3), descr="|O", payload=pickle.dumps(evil)),
        },
    )
    as_npy = tmp_path / "pickled.npy"
    np.save(as_npy, evil, allow_pickle=True)
    for path in (as_npz, as_member):
        expect(invoke("execute", tiny, "--inputs", path), 2, str(path), "objects")
    expect(invoke("execute", tiny, "--inputs", as_npy), 2, str(as_npy))
    with pytest.raises(irrun.InputValueError):
        load_npz(as_npz)
    assert not marker.exists()


def test_structured_dtype_hiding_an_object_field_is_never_unpickled(tmp_path, tiny, invoke):
    marker = tmp_path / "UNPICKLED"
    evil = np.empty((2, 3), dtype=[("x", "<f4"), ("o", "O")])
    evil["o"] = _Marker(marker)
    path = tmp_path / "structured.npz"
    np.savez(path, data=evil)
    outcome = invoke("execute", tiny, "--inputs", path)
    assert outcome.exit_code == 2 and "Traceback" not in outcome.output, outcome.output
    assert not marker.exists()


# -- lying .npy headers ------------------------------------------------------------------------
def test_header_declaring_more_than_the_limit_is_refused_before_reading(
    tmp_path, tiny, invoke, expect
):
    path = write_npz(tmp_path / "huge.npz", {"data.npy": npy_bytes((100_000, 100_000, 100_000))})
    outcome = invoke("execute", tiny, "--inputs", path)
    expect(outcome, 2, str(path), "'data'", "100000")
    assert outcome.seconds < 2


def test_header_declaring_more_data_than_the_member_holds_exits_2(tmp_path, tiny, invoke, expect):
    path = write_npz(tmp_path / "short.npz", {"data.npy": npy_bytes((2, 3), payload=bytes(8))})
    expect(invoke("execute", tiny, "--inputs", path), 2, str(path), "'data'")


@pytest.mark.parametrize(
    "member",
    [
        npy_bytes((0, 2**62, 2**62)),
        npy_bytes((2**62, 2**62, 0)),
        npy_bytes((2, 3), descr="|V0"),
        npy_bytes((10**12,), descr="<U0"),
        b"\x93NUMPY\x01\x00\x10\x00{'descr': '<f4',",  # header cut inside the dict
        b"\x93NUMPY\x01\x00\x20\x00{'descr': __import__('os')}     \n",
        b"\x93NUMPY\x01\x00\x30\x00{'descr': '<f4', 'fortran_order': 0, 'shape': 5}   \n",
        b"\x93NUMPY\x01\x00\xff\xff" + b" " * 100,
    ],
    ids=[
        "zero-then-2**124",
        "2**124-then-zero",
        "itemsize-0",
        "unicode-0",
        "cut-header",
        "code-in-header",
        "shape-not-tuple",
        "header-longer-than-member",
    ],
)
def test_malformed_npy_headers_exit_2_without_internal_error(
    tmp_path, tiny, member, invoke, expect
):
    """BUG (irrun/arrays.py _read_member / load_npz): several malformed headers escape the
    ``except (ValueError, OSError, EOFError, BadZipFile, RuntimeError)``: a header cut inside
    its dict makes numpy's tokenizer raise ``tokenize.TokenError``; a zero-itemsize dtype
    (``|V0``, ``<U0``) and a zero-size shape whose other dims overflow intp raise ValueError in
    ``np.frombuffer(...).reshape(...)``, which runs *after* the try block. Each is "internal
    error", exit 3. Expected: exit 2 "array 'data' in '...' is not a valid .npy member: ...".
    Fix: catch Exception around header parsing, and refuse itemsize 0 / intp overflow before
    building the array."""
    path = write_npz(tmp_path / "bad.npz", {"data.npy": member})
    outcome = invoke("execute", tiny, "--inputs", path)
    expect(outcome, 2, f"irrun: error: {path}", "'data'")
    assert outcome.seconds < 2


# -- zip bombs ---------------------------------------------------------------------------------
def _crc32_of_zeros(crc: int, count: int, chunk: int = 1 << 20) -> int:
    """``zlib.crc32(bytes(count), crc)`` without hashing ``count`` bytes (count % chunk == 0).

    zlib's CRC over a run of zero bytes is an affine map of the starting value over GF(2);
    compose the map for one chunk with itself (square-and-multiply) instead of hashing GBs.
    """

    def apply(mapping, value):
        constant, images = mapping
        for bit in range(32):
            if value >> bit & 1:
                constant ^= images[bit]
        return constant

    def compose(outer, inner):  # outer(inner(x))
        constant = apply(outer, inner[0])
        return constant, [apply(outer, inner[0] ^ image) ^ constant for image in inner[1]]

    zeros = bytes(chunk)
    base_constant = zlib.crc32(zeros, 0)
    step = (base_constant, [zlib.crc32(zeros, 1 << bit) ^ base_constant for bit in range(32)])
    result = (0, [1 << bit for bit in range(32)])  # identity
    blocks = count // chunk
    assert blocks * chunk == count
    while blocks:
        if blocks & 1:
            result = compose(step, result)
        step = compose(step, step)
        blocks >>= 1
    return apply(result, crc)


def zip_bomb(path, header: bytes, zeros: int = 4 * GiB, name: str = "data.npy"):
    """A one-member zip64 archive: ``header`` then ``zeros`` zero bytes, deflated to a few MB,
    with correct sizes and CRC (so only the declared shape can tell it is a bomb)."""
    chunk = 1 << 24
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    head = compressor.compress(header) + compressor.flush(zlib.Z_FULL_FLUSH)
    block = compressor.compress(bytes(chunk)) + compressor.flush(zlib.Z_FULL_FLUSH)
    again = compressor.compress(bytes(chunk)) + compressor.flush(zlib.Z_FULL_FLUSH)
    assert block == again  # a full flush resets the window: every block is byte-identical
    tail = compressor.flush()
    count = zeros // chunk
    crc = _crc32_of_zeros(zlib.crc32(header), zeros)
    compressed = len(head) + len(block) * count + len(tail)
    size = len(header) + zeros
    filename = name.encode()
    extra = struct.pack("<HHQQ", 1, 16, size, compressed)
    big = 0xFFFFFFFF
    local = (
        struct.pack(
            "<IHHHHHIIIHH", 0x04034B50, 45, 0, 8, 0, 0x21, crc, big, big, len(filename), len(extra)
        )
        + filename
        + extra
    )
    central = (
        struct.pack(
            "<IHHHHHHIIIHHHHHII",
            0x02014B50,
            45,
            45,
            0,
            8,
            0,
            0x21,
            crc,
            big,
            big,
            len(filename),
            len(extra),
            0,
            0,
            0,
            0,
            0,
        )
        + filename
        + extra
    )
    with open(path, "wb") as stream:
        stream.write(local + head)
        for _ in range(count):
            stream.write(block)
        stream.write(tail)
        where = stream.tell()
        stream.write(central)
        stream.write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 1, 1, len(central), where, 0))
    return path


def _bounded(isolated, *args, seconds: float):
    """irrun under a 1 GiB address-space limit; fail (not hang) if it is still inflating."""
    try:
        return isolated(*args, limit_as=1 * GiB, timeout=seconds)
    except subprocess.TimeoutExpired:
        pytest.fail(f"irrun was still inflating the zip bomb after {seconds} s")


def test_zip_bomb_helper_builds_a_valid_archive(tmp_path):
    assert _crc32_of_zeros(zlib.crc32(b"abc"), 3 << 20) == zlib.crc32(
        bytes(3 << 20), zlib.crc32(b"abc")
    )
    path = zip_bomb(tmp_path / "b.npz", npy_bytes((2, 3)), zeros=1 << 25)
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo("data.npy")
        assert info.file_size == len(npy_bytes((2, 3))) + (1 << 25)
        assert len(archive.read(info)) == info.file_size  # CRC checked at the end
    assert os.path.getsize(path) < 200_000


def test_zip_bomb_with_a_small_declared_shape_is_read_only_as_far_as_the_shape(
    tmp_path, tiny, isolated, expect
):
    bomb = zip_bomb(tmp_path / "bomb.npz", npy_bytes((2, 3)))
    outcome = isolated("execute", tiny, "--inputs", bomb, limit_as=1 * GiB, timeout=60)
    assert outcome.seconds < 10
    assert outcome.exit_code in (0, 2), outcome.output
    if outcome.exit_code == 0:
        assert "[[0. 0. 0. 0. 0.]" in outcome.output
    else:
        expect(outcome, 2, str(bomb))


def test_zip_bomb_declaring_4_gib_is_refused_naming_the_file(tmp_path, tiny, isolated, expect):
    """BUG (irrun/arrays.py _read_member): a member declaring shape (2, 2**29) f32 (4 GiB, under
    the 8 GiB default limit) is decompressed into one growing bytes object; under a 1 GiB
    address-space limit that ends in MemoryError, which only the CLI's generic handler catches:
    "irrun: error: not enough memory for this model or its inputs" -- no file, no array, no
    size, after ~4 s of inflating. Expected: the file, the array and its declared size. Fix:
    allocate the destination (np.empty) *before* decompressing, and turn MemoryError into
    InputValueError naming the member; read into it with readinto in chunks."""
    bomb = zip_bomb(tmp_path / "bomb.npz", npy_bytes((2, 2**29)))
    outcome = _bounded(isolated, "execute", tiny, "--inputs", bomb, seconds=5)
    expect(outcome, 2, str(bomb), "'data'")


def test_zip_bomb_with_a_negative_dimension_is_refused_without_inflating(
    tmp_path, tiny, isolated, expect
):
    """BUG (irrun/arrays.py _read_member): numpy accepts a negative dim in an .npy header;
    ``nbytes`` becomes negative, it passes the ``nbytes > max_bytes`` check, and
    ``stream.read(nbytes)`` with a negative count reads *the whole member*: the 4 GB bomb is
    inflated until memory runs out ("not enough memory for this model or its inputs", no file
    named). Without the rlimit it would take 4 GB of RAM. Expected: exit 2 at once, "array
    'data' in '...' declares a negative dimension". Fix: reject any dim < 0 before reading."""
    bomb = zip_bomb(tmp_path / "bomb.npz", npy_bytes((2, -1)))
    outcome = _bounded(isolated, "execute", tiny, "--inputs", bomb, seconds=5)
    expect(outcome, 2, str(bomb), "'data'")


def test_zip_bomb_declaring_a_huge_shape_is_refused_at_once(tmp_path, tiny, isolated, expect):
    bomb = zip_bomb(tmp_path / "bomb.npz", npy_bytes((100_000, 100_000, 100_000)), zeros=1 << 24)
    outcome = isolated("execute", tiny, "--inputs", bomb, limit_as=1 * GiB, timeout=60)
    expect(outcome, 2, str(bomb), "'data'", "bytes")
    assert outcome.seconds < 5


def test_load_npz_limit_is_enforced_through_the_api(tmp_path):
    path = write_npz(
        tmp_path / "x.npz", {"data.npy": npy_bytes((1024, 1024), payload=bytes(4 << 20))}
    )
    with pytest.raises(irrun.InputValueError) as caught:
        load_npz(path, max_bytes=1 << 20)
    assert caught.value.file == str(path) and "'data'" in str(caught.value)
    assert load_npz(path, max_bytes=4 << 20)["data"].shape == (1024, 1024)


# -- values through the kernels ----------------------------------------------------------------
SPECIAL = np.array(
    [
        [0x7FC00000, 0x7FA00001, 0xFFC00123, 0x80000000, 0x00000001],
        [0x7F800000, 0xFF800000, 0x00000000, 0x7F7FFFFF, 0xFFFFFFFF],
    ],
    np.uint32,
).view(np.float32)


@pytest.mark.parametrize("name", ["g8", "g7"])
def test_nan_inf_and_negative_zero_pass_bit_exactly_through_gather_and_concat(
    ov_copy, tmp_path, name, invoke, expect
):
    model = ov_copy(name)
    idx = np.array([4, 0, -1, 3, 1, -5], np.int64)
    inputs = tmp_path / "in.npz"
    np.savez(inputs, data=SPECIAL, idx=idx)
    out = tmp_path / "out.npz"
    expect(invoke("execute", model, "--inputs", inputs, "--output", out), 0, "wrote 1 output")
    got = np.load(out)["out"]
    expected = np.concatenate([SPECIAL[:, [4, 0, 4, 3, 1, 0]], SPECIAL], axis=1)
    assert got.view(np.uint32).tolist() == expected.view(np.uint32).tolist()


def test_gather_8_writes_zeros_for_out_of_range_indices(ov_copy, tmp_path, invoke, expect):
    model = ov_copy("g8")
    inputs = tmp_path / "in.npz"
    np.savez(inputs, data=SPECIAL, idx=np.array([0, 5, -6, 2**62, -(2**63), 4], np.int64))
    out = tmp_path / "out.npz"
    expect(invoke("execute", model, "--inputs", inputs, "--output", out), 0)
    got = np.load(out)["out"][:, :6]
    assert got[:, 1:5].view(np.uint32).tolist() == [[0] * 4, [0] * 4]  # +0.0, not -0.0 or NaN
    assert got[:, [0, 5]].view(np.uint32).tolist() == SPECIAL[:, [0, 4]].view(np.uint32).tolist()


@pytest.mark.parametrize(
    "indices, bad, position",
    [
        ([0, 5], 5, "(1,)"),
        ([-6, 0], -6, "(0,)"),
        ([0, 1, 2, 2**62], 2**62, "(3,)"),
        ([-(2**63)], -(2**63), "(0,)"),
    ],
    ids=["too-big", "too-negative", "huge", "int64-min"],
)
def test_gather_7_out_of_range_index_is_an_execution_error_naming_index_and_position(
    ov_copy, tmp_path, indices, bad, position, invoke, expect
):
    model = ov_copy("g7")
    inputs = tmp_path / "in.npz"
    np.savez(inputs, data=SPECIAL, idx=np.array(indices, np.int64))
    out = tmp_path / "out.npz"
    text = expect(
        invoke("execute", model, "--inputs", inputs, "--output", out),
        1,
        f"{model}:",
        "'g'",
        f"index {bad}",
        position,
    )
    assert "[-5, 4]" in text
    assert not out.exists()


def test_gather_7_out_of_range_through_the_api_is_an_index_out_of_range_error(ov_copy):
    """BUG (irrun/execution.py _evaluate): every IRError an op raises is re-wrapped as a plain
    ``ExecutionError``, so the documented ``IndexOutOfRangeError`` (README "Errors") never
    reaches the caller. Expected: ``except irrun.IndexOutOfRangeError`` works. Fix: re-raise
    with ``type(exc)`` when it is an ExecutionError subclass."""
    model = irrun.load(ov_copy("g7"))
    with pytest.raises(irrun.ExecutionError) as caught:
        model.run({"data": SPECIAL, "idx": np.array([0, 5], np.int64)})
    assert "index 5" in str(caught.value) and caught.value.line is not None
    assert isinstance(caught.value, irrun.IndexOutOfRangeError), type(caught.value)


def test_api_input_problems_are_input_value_errors(ov_copy):
    model = irrun.load(ov_copy("g8"))
    cases = [
        {"data": SPECIAL},
        {"data": SPECIAL, "idx": np.array([0], np.int64), "extra": SPECIAL},
        {"data": np.zeros((2, 5), np.float64), "idx": np.array([0], np.int64)},
        {"data": SPECIAL[0], "idx": np.array([0], np.int64)},
        {"data": np.array([[object()] * 5] * 2), "idx": np.array([0], np.int64)},
    ]
    for inputs in cases:
        with pytest.raises(irrun.InputValueError):
            model.run(inputs)
