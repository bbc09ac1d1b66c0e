"""Const decoding: the byte dumps OpenVINO writes (ir-format.md §7), decoded exactly."""

import re

import numpy as np
import pytest

from irrun.element_types import element_type
from irrun.errors import WeightsError
from irrun.ir.weights import Weights, decode_const


def decode(type_name, hex_bytes, shape):
    weights = Weights.from_bytes(bytes.fromhex(hex_bytes))
    return decode_const(element_type(type_name), shape, 0, weights.size, weights)


@pytest.mark.parametrize(
    ("type_name", "hex_bytes", "values"),
    [
        ("u4", "21f304", [1, 2, 3, 15, 4]),
        ("u4", "ba0c", [0xA, 0xB, 0xC]),
        ("i4", "e18307", [1, -2, 3, -8, 7]),
        ("u1", "b0c0", [1, 0, 1, 1, 0, 0, 0, 0, 1, 1]),
        ("u1", "8040", [1, 0, 0, 0, 0, 0, 0, 0, 0, 1]),
        ("u2", "3901", [1, 2, 3, 0, 1]),
        ("u2", "0301", [3, 0, 0, 0, 1]),
        ("u3", "6c6c1e400000", [1, 2, 3, 4, 5, 6, 7, 0, 1]),
        ("u3", "c00080", [7, 0, 0, 0, 0, 0, 0, 0]),
        ("u6", "12f40c500000", [1, 2, 63, 4, 5]),
        ("u6", "120090", [0x21, 0x12, 0, 0]),
        ("nf4", "f700", [7, 15, 0]),  # codes of 0.0, 1.0, -1.0
    ],
)
def test_sub_byte_unpacking_matches_openvino_dumps(type_name, hex_bytes, values):
    array = decode(type_name, hex_bytes, (len(values),))
    assert array.astype(np.int64).tolist() == values


def test_f4e2m1_decodes_to_its_values():
    assert decode("f4e2m1", "c305", (3,)).astype(np.float32).tolist() == [1.5, -2.0, 3.0]


def test_u4_shape_2x3():
    assert decode("u4", "214365", (2, 3)).astype(int).tolist() == [[1, 2, 3], [4, 5, 6]]


def test_float_bytes_match_openvino_encodings():
    assert decode("f16", "003e", (1,)).tolist() == [1.5]
    assert decode("bf16", "c03f", (1,)).astype(np.float32).tolist() == [1.5]
    assert decode("f8e4m3", "3cc045", (3,)).astype(np.float32).tolist() == [1.5, -2.0, 3.25]
    assert decode("f8e5m2", "3e", (1,)).astype(np.float32).tolist() == [1.5]
    assert decode("f8e8m0", "7f807e", (3,)).astype(np.float32).tolist() == [1.0, 2.0, 0.5]


def test_string_tensor_layout():
    layout = bytes.fromhex("04000000000000000200000002000000080000000b000000")
    weights = Weights.from_bytes(layout + b"ab" + "héllo".encode() + b"xyz")
    array = decode_const(element_type("string"), (2, 2), 0, 35, weights)
    assert array.tolist() == [["ab", ""], ["héllo", "xyz"]]


def test_byte_types_are_zero_copy_read_only_views():
    weights = Weights.from_bytes(np.arange(4, dtype="<f4").tobytes())
    array = decode_const(element_type("f32"), (2, 2), 0, 16, weights)
    assert array.tolist() == [[0, 1], [2, 3]]
    assert not array.flags.writeable
    assert not array.flags.owndata


def test_empty_const_is_written_with_size_one():
    assert decode("f32", "00", (0,)).shape == (0,)


@pytest.mark.parametrize(
    ("offset", "size", "message"),
    [
        (0, 64, "needs bytes 0..64 of '<bytes>', which is only 16 bytes long"),
        (2**63, 4, "only 16 bytes long"),
        (-4, 4, "must not be negative"),
        (0, 8, "declares size 8, but shape [4] of f32 needs 16 bytes (4 elements x 32 bits)"),
    ],
)
def test_bad_ranges_are_refused_before_reading(offset, size, message):
    weights = Weights.from_bytes(bytes(16))
    with pytest.raises(WeightsError, match=re.escape(message)):
        decode_const(element_type("f32"), (4,), offset, size, weights)
