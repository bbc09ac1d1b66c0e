"""StringTensorUnpack-15 and StringTensorPack-15: shapes against OpenVINO, values against the
CPU plugin (ASCII and multi-byte UTF-8, empty strings), round trips, reported errors."""

from __future__ import annotations

import numpy as np
import openvino.opset15 as opset15
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irrun.element_types import element_type
from irrun.errors import IRError
from irrun.ops.base import TensorInfo
from irrun.ops.string_tensor import StringTensorPack, StringTensorUnpack
from irrun.shape import Shape
from tests.helpers.openvino_oracle import check_shapes, model_of, parameter, run_irrun, run_openvino
from tests.helpers.strategies import bare_op, built, dim_text, op_settings, shape_text

DIM = dim_text(st.integers(0, 5))
_STRINGS = np.array(
    [["ab", "", "héllo"], ["日本", "x" * 20, "tail"]], dtype=np.dtypes.StringDType()
)


@op_settings(30)
@given(shape_text(DIM, max_rank=3))
def test_unpack_shapes_match_openvino(shape):
    check_shapes(opset15.string_tensor_unpack(parameter(shape, "string", name="s")))


@op_settings(30)
@given(
    shape_text(DIM, max_rank=3),
    shape_text(DIM, max_rank=3),
    st.one_of(shape_text(DIM, min_rank=1, max_rank=1), st.just("[?,2]")),
    st.sampled_from(["i32", "i64"]),
    st.booleans(),
)
def test_pack_shapes_match_openvino(begins_shape, ends_shape, symbols_shape, index_type, same):
    """Some ends of the begins' very shape (merging), some of another (mostly refused)."""
    ends_shape = begins_shape if same else ends_shape
    begins = parameter(begins_shape, index_type, name="b")
    ends = parameter(ends_shape, index_type, name="e")
    symbols = parameter(symbols_shape, "u8", name="s")
    node = built(lambda: opset15.string_tensor_pack(begins, ends, symbols))
    check_shapes(node)


def _as_list(array):
    return np.asarray(array).astype(object).tolist()


def test_unpack_matches_cpu_plugin():
    model = model_of(opset15.string_tensor_unpack(parameter([2, 3], "string", name="s")))
    expected = run_openvino(model, {"s": np.array(_STRINGS.tolist())})
    got = run_irrun(model, {"s": _STRINGS})
    for g, e in zip(got, expected):
        assert g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_array_equal(g, e)


@pytest.mark.parametrize("index_type", ["i32", "i64"])
def test_pack_matches_cpu_plugin(index_type):
    dtype = element_type(index_type).numpy_dtype
    symbols = np.frombuffer("héllo wörld 日本".encode(), np.uint8).copy()
    begins = np.array([[0, 3, 3], [7, 0, 13]], dtype)
    ends = np.array([[3, 3, 7], [13, 7, symbols.size]], dtype)
    params = [parameter([2, 3], index_type, name="b"), parameter([2, 3], index_type, name="e"),
              parameter([symbols.size], "u8", name="s")]  # fmt: skip
    model = model_of(opset15.string_tensor_pack(*params))
    feed = {"b": begins, "e": ends, "s": symbols}
    (expected,) = run_openvino(model, feed)
    (got,) = run_irrun(model, feed)
    assert got.shape == expected.shape
    assert _as_list(got) == _as_list(expected)


def test_unpack_then_pack_gives_the_strings_back():
    begins, ends, symbols = bare_op(StringTensorUnpack).evaluate([_STRINGS])
    (packed,) = bare_op(StringTensorPack).evaluate([begins, ends, symbols])
    assert _as_list(packed) == _as_list(_STRINGS)
    assert symbols.size == sum(len(s.encode()) for s in _as_list(_STRINGS.reshape(-1)))


def _info(shape, etype):
    return TensorInfo(Shape.parse(shape), element_type(etype))


def test_unpack_reports_a_numeric_tensor():
    with pytest.raises(IRError, match="data must be a string tensor, but it is u8"):
        bare_op(StringTensorUnpack).infer([_info("2", "u8")])


def test_pack_reports_mixed_index_types():
    with pytest.raises(
        IRError, match="begins and ends must be of one type, i32 or i64, but they are i32 and i64"
    ):
        bare_op(StringTensorPack).infer([_info("2", "i32"), _info("2", "i64"), _info("?", "u8")])


def test_pack_reports_begins_and_ends_of_two_shapes():
    with pytest.raises(IRError, match=r"begins \[2,3\] and ends \[2,4\] must have one shape"):
        bare_op(StringTensorPack).infer(
            [_info("2,3", "i32"), _info("2,4", "i32"), _info("?", "u8")]
        )


def test_pack_reports_a_span_outside_the_symbols():
    op = bare_op(StringTensorPack)
    with pytest.raises(
        ValueError, match=r"string \[1\] spans \[2, 9\), which is not within the 4 symbols"
    ):
        op.evaluate([np.array([0, 2], np.int32), np.array([2, 9], np.int32), np.zeros(4, np.uint8)])
