"""The element-type table: names, precisions, widths and numpy dtypes."""

import ml_dtypes
import numpy as np
import pytest

from irrun.element_types import ELEMENT_TYPES, element_type, from_numpy_dtype, from_precision


def test_all_openvino_element_types_are_known():
    assert len([t for t in ELEMENT_TYPES if t != "dynamic"]) == 25


@pytest.mark.parametrize(
    ("name", "precision", "dtype"),
    [
        ("f32", "FP32", np.float32),
        ("bf16", "BF16", ml_dtypes.bfloat16),
        ("f8e4m3", "F8E4M3", ml_dtypes.float8_e4m3fn),
        ("f8e5m2", "F8E5M2", ml_dtypes.float8_e5m2),
        ("f8e8m0", "F8E8M0", ml_dtypes.float8_e8m0fnu),
        ("f4e2m1", "F4E2M1", ml_dtypes.float4_e2m1fn),
        ("i4", "I4", ml_dtypes.int4),
        ("u4", "U4", ml_dtypes.uint4),
        ("u1", "BIN", ml_dtypes.uint1),
        ("u2", "U2", ml_dtypes.uint2),
        ("u3", "U3", np.uint8),
        ("u6", "U6", np.uint8),
        ("nf4", "NF4", np.uint8),
        ("boolean", "BOOL", np.bool_),
        ("i64", "I64", np.int64),
    ],
)
def test_type_table(name, precision, dtype):
    etype = element_type(name)
    assert etype.precision == precision
    assert etype.numpy_dtype == np.dtype(dtype)
    assert from_precision(precision) is etype


def test_lookups_follow_openvino_case_rules():
    assert element_type("F32").name == "f32"  # element_type is case-insensitive
    assert from_precision("f32").name == "f32"  # lowercase names work as precisions
    assert from_precision("undefined").name == "dynamic"
    for bad in ("FP128", "bool", "fp32", "DYNAMIC", ""):
        with pytest.raises(KeyError):
            from_precision(bad)
    with pytest.raises(KeyError, match="f128"):
        element_type("f128")


@pytest.mark.parametrize(
    ("name", "count", "size"),
    [("u4", 5, 3), ("u1", 10, 2), ("u2", 5, 2), ("u3", 9, 6), ("u6", 5, 6), ("f32", 3, 12)],
)
def test_packed_size(name, count, size):
    assert element_type(name).packed_size(count) == size


def test_numpy_dtype_back_to_element_type():
    assert from_numpy_dtype(np.uint8).name == "u8"
    assert from_numpy_dtype(ml_dtypes.bfloat16).name == "bf16"
    assert from_numpy_dtype(np.dtypes.StringDType()).name == "string"
