"""BitwiseLeftShift-15 and BitwiseRightShift-15: shapes against OpenVINO, values against the
CPU plugin (bit-exact, shift amounts inside the type's width), reported type errors."""

from __future__ import annotations

import numpy as np
import openvino.opset15 as opset15
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.helpers.openvino_oracle import (
    check_rejected,
    check_shapes,
    model_of,
    parameter,
    run_irrun,
    run_openvino,
)
from tests.helpers.strategies import built, diagnostic, edited_report, op_settings, shape_text

SHIFTS = {"left": opset15.bitwise_left_shift, "right": opset15.bitwise_right_shift}


@op_settings(30)
@given(
    shape_text(max_rank=3),
    shape_text(max_rank=3),
    st.sampled_from(sorted(SHIFTS)),
    st.sampled_from(["i8", "u8", "i32", "u32", "i64", "u16"]),
    st.sampled_from(["numpy", "none"]),
)
def test_shift_shapes_match_openvino(a, b, which, etype, broadcast):
    node = built(lambda: SHIFTS[which](parameter(a, etype), parameter(b, etype), broadcast))
    check_shapes(node)


DTYPES = {"i8": "int8", "u8": "uint8", "i16": "int16", "u16": "uint16", "i32": "int32",
          "u32": "uint32", "i64": "int64", "u64": "uint64"}  # fmt: skip


@pytest.mark.parametrize(
    "which, etype",
    [(w, t) for w in sorted(SHIFTS) for t in ("i8", "u8", "i16", "u16", "i32")] + [("left", "u32")],
)
def test_shift_matches_cpu_plugin(which, etype):
    """The types the CPU plugin computes right (it shifts in i32, see the module docstring)."""
    dtype = np.dtype(DTYPES[etype])
    info = np.iinfo(dtype)
    rng = np.random.default_rng(1)
    a = rng.integers(info.min, info.max, (4, 6), dtype=dtype, endpoint=True)
    b = rng.integers(0, info.bits, (6,)).astype(dtype)
    model = model_of(SHIFTS[which](parameter([4, 6], etype, name="a"),
                                   parameter([6], etype, name="b")))  # fmt: skip
    expected = run_openvino(model, {"a": a, "b": b})[0]
    got = run_irrun(model, {"a": a, "b": b})[0]
    assert got.dtype == expected.dtype == dtype
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize(
    "which, etype, a, b, expected",
    [
        ("right", "u32", [2**32 - 1, 2**31, 5], [1, 31, 0], [2**31 - 1, 1, 5]),
        ("right", "u64", [2**64 - 1, 2**63], [1, 63], [2**63 - 1, 1]),
        ("right", "i64", [2**62 + 3, -(2**40)], [1, 8], [2**61 + 1, -(2**32)]),
        ("left", "i64", [3, -1], [40, 63], [3 * 2**40, -(2**63)]),
        ("left", "u64", [1, 2**63 + 1], [63, 1], [2**63, 2]),
    ],
)
def test_wide_and_unsigned_shifts_follow_the_spec(which, etype, a, b, expected):
    """u32/u64 shift right logically, i64 keeps 64 bits (where the CPU plugin does not)."""
    dtype = np.dtype(DTYPES[etype])
    n = len(a)
    model = model_of(SHIFTS[which](parameter([n], etype, name="a"),
                                   parameter([n], etype, name="b")))  # fmt: skip
    got = run_irrun(model, {"a": np.array(a, dtype), "b": np.array(b, dtype)})[0]
    assert got.dtype == dtype and got.tolist() == expected


@pytest.mark.parametrize("etype", ["f32", "boolean"])
def test_shift_of_floats_or_booleans_is_reported(etype):
    check_rejected(lambda: opset15.bitwise_left_shift(parameter([2], etype),
                                                      parameter([2], etype)))  # fmt: skip
    model = model_of(opset15.bitwise_right_shift(parameter([2], "i32", name="a"),
                                                 parameter([2], "i32", name="b")))  # fmt: skip

    def to_f32(text):
        return text.replace('element_type="i32"', 'element_type="f32"').replace(
            'precision="I32"', 'precision="FP32"'
        )

    report, _ = edited_report(model, to_f32)
    found = diagnostic(report, "input-type")
    assert "(BitwiseRightShift-15) takes an integer type, but input 0 is f32" in found.message
