"""ReduceSum/ReduceMean/ReduceL1 over trailing axes (the global average pool of NCHW): the
float64 row sums (``dgemv`` with ones, per block of rows) match OpenVINO's CPU plugin within
the documented rtol 1e-6 and give the float64 ``np.sum`` rounded once (bit for bit on these
data; the two orders may differ only in rare ties)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import openvino.opset1 as opset1
import openvino.opset4 as opset4
import pytest

from irrun.ops import _reduce
from irrun.ops._reduce import float_sum
from tests.helpers.openvino_oracle import constant, model_of, parameter, run_irrun, run_openvino

OPS = {"ReduceSum": opset1.reduce_sum, "ReduceMean": opset1.reduce_mean,
       "ReduceL1": opset4.reduce_l1}  # fmt: skip

TRAILING = [([1, 72, 28, 28], [2, 3], True), ([2, 960, 7, 7], [-2, -1], False),
            ([3, 5, 4], [2], True), ([4, 6, 5], [1, 2], False), ([5, 300], [1], True),
            ([2, 3, 4, 5], [0, 1, 2, 3], False)]  # fmt: skip


@pytest.mark.parametrize("shape, axes, keep", TRAILING)
@pytest.mark.parametrize("name", sorted(OPS))
def test_trailing_axes_match_openvino_within_the_documented_tolerance(name, shape, axes, keep):
    data = np.random.default_rng(sum(shape)).standard_normal(shape).astype(np.float32) * 3 + 1
    node = OPS[name](parameter(shape, "f32", name="x"), constant(np.array(axes), "i64"), keep)
    model = model_of(node)
    expected = run_openvino(model, {"x": data})[0]
    got = run_irrun(model, {"x": data})[0]
    assert got.dtype == data.dtype and got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("shape, axes, keep", TRAILING)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, ml_dtypes.bfloat16])
@pytest.mark.parametrize("block", [_reduce.SUM_BLOCK_ELEMENTS, 7])
def test_trailing_row_sums_equal_the_float64_sum_rounded_once(shape, axes, keep, dtype, block,
                                                              monkeypatch):  # fmt: skip
    monkeypatch.setattr(_reduce, "SUM_BLOCK_ELEMENTS", block)  # 7: blocks of rows
    data = (np.random.default_rng(len(shape)).standard_normal(shape) * 100).astype(dtype)
    normal = tuple(sorted(a % len(shape) for a in axes))
    got = float_sum(data, normal, keep)
    expected = np.asarray(np.sum(data.astype(np.float64), axis=normal, keepdims=keep)).astype(dtype)
    assert got.dtype == data.dtype and got.shape == expected.shape
    assert got.tobytes() == expected.tobytes()


def test_special_values_and_other_layouts():
    data = np.array([[1.0, np.inf, 2.0], [np.nan, 1.0, 0.0], [np.inf, -np.inf, 1.0],
                     [3e38, 3e38, -3e38]], np.float32)  # fmt: skip
    with np.errstate(invalid="ignore"):  # (inf - inf, as the executor runs kernels)
        got = float_sum(data, (1,), False)
    assert np.isinf(got[0]) and np.isnan(got[1]) and np.isnan(got[2])
    assert got[3] == np.float32(3e38)  # no overflow in float64 before the rounding
    # a non-contiguous view and inner (non-trailing) axes take np.sum: the same values
    wide = np.random.default_rng(2).standard_normal((4, 6, 8)).astype(np.float32)
    for view, axes in ((wide[:, :, ::2], (2,)), (wide, (1,)), (wide, (0, 2))):
        expected = np.sum(view, axis=axes, dtype=np.float64).astype(np.float32)
        assert float_sum(view, axes, False).tobytes() == expected.tobytes()
    empty = np.zeros((3, 0), np.float32)
    assert float_sum(empty, (1,), False).tolist() == [0.0, 0.0, 0.0]
    integers = np.arange(12, dtype=np.int32).reshape(3, 4)
    assert float_sum(integers, (1,), False).tolist() == [6, 22, 38]
