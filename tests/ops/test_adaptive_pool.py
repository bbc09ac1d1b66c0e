"""AdaptiveAvgPool-8 and AdaptiveMaxPool-8: shapes against OpenVINO, kernels against its CPU
plugin, reported errors."""

from __future__ import annotations

import numpy as np
import openvino.opset3 as opset3
import openvino.opset8 as opset8
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irrun.ops.adaptive_pool import bins
from tests.helpers.ir_text import Net, line_of
from tests.helpers.openvino_oracle import (
    check_rejected,
    check_shapes,
    constant,
    model_of,
    parameter,
    run_irrun,
    run_openvino,
)
from tests.helpers.strategies import (
    built,
    diagnostic,
    dim_text,
    op_settings,
    shape_text,
    validated,
)


def _target(sizes, known, dtype=np.int64):
    if known == "param":
        return parameter([len(sizes)], "i64", name="s")
    if known == "partial":
        dims = ",".join(f"{s}..{s + 2}" if i % 2 else str(s) for i, s in enumerate(sizes))
        return opset3.shape_of(parameter(f"[{dims}]", name="s"), "i32")
    return constant(np.array(sizes, dtype))


@op_settings(40)
@given(shape_text(dim_text(st.integers(1, 8)), min_rank=3, max_rank=5),
       st.lists(st.integers(1, 6), min_size=3, max_size=3), st.integers(0, 5),
       st.sampled_from(["const", "const", "float", "param", "partial"]),
       st.sampled_from(["avg", "max_i64", "max_i32"]))  # fmt: skip
def test_shapes_match_openvino(data, sizes, count, known, kind):
    # mostly one size per spatial axis, sometimes a wrong count (OpenVINO refuses those)
    rank = 4 if data == "[...]" else data.count(",") + 1
    sizes = sizes[: rank - 2] if count else sizes[:count] or sizes
    x = parameter(data, name="x")
    target = _target(sizes, known, np.float32 if known == "float" else np.int64)
    if kind == "avg":
        node = built(lambda: opset8.adaptive_avg_pool(x, target))
    else:
        node = built(lambda: opset8.adaptive_max_pool(x, target, kind[4:]))
    check_shapes(node)


def test_negative_and_zero_sizes_match_openvino():
    for sizes, expected in (([-1, 3], "[1,3,?,3]"), ([0, 3], "[1,3,0,3]")):
        node = opset8.adaptive_avg_pool(parameter([1, 3, 5, 5], name="x"), _target(sizes, "const"))
        assert str(node.get_output_partial_shape(0)) == expected
        check_shapes(node)


def test_bins_cover_floor_to_ceil():
    starts, ends = bins(7, 3)
    assert starts.tolist() == [0, 2, 4] and ends.tolist() == [3, 5, 7]
    starts, ends = bins(3, 5)  # more bins than elements: bins overlap
    assert starts.tolist() == [0, 0, 1, 1, 2] and ends.tolist() == [1, 2, 2, 3, 3]


CASES = [
    ((2, 3, 17), [5]),
    ((2, 3, 7), [7]),
    ((1, 4, 9, 11), [4, 3]),
    ((1, 4, 5, 6), [7, 9]),
    ((1, 2, 14, 14), [1, 1]),
    ((1, 2, 5, 6, 7), [2, 3, 4]),
    ((1, 2, 3, 4, 5), [4, 1, 6]),
]


@pytest.mark.parametrize("shape, sizes", CASES)
def test_avg_matches_cpu_plugin(shape, sizes):
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    model = model_of(opset8.adaptive_avg_pool(parameter(shape, name="x"), _target(sizes, "const")))
    expected = run_openvino(model, {"x": x})[0]
    got = run_irrun(model, {"x": x})[0]
    assert got.dtype == np.float32 and got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6 * np.abs(x).max())


@pytest.mark.parametrize("shape, sizes", CASES)
def test_max_and_indices_match_cpu_plugin_exactly(shape, sizes):
    # the CPU plugin computes i32 indices only ("does not support i64 for use with oneDNN") and
    # OpenVINO's core has no evaluator for this op: i64 indices must be the same values
    rng = np.random.default_rng(1)
    x = rng.standard_normal(shape).astype(np.float32)
    x.reshape(-1)[::3] = 0.5  # ties: the first in row-major order wins
    node = opset8.adaptive_max_pool(parameter(shape, name="x"), _target(sizes, "const"), "i32")
    model = model_of(node)
    expected = run_openvino(model, {"x": x})
    got = run_irrun(model, {"x": x})
    assert got[1].dtype == np.int32
    np.testing.assert_array_equal(got[0], expected[0])
    np.testing.assert_array_equal(got[1], expected[1])
    node = opset8.adaptive_max_pool(parameter(shape, name="x"), _target(sizes, "const"), "i64")
    got = run_irrun(model_of(node), {"x": x})
    assert got[1].dtype == np.int64
    np.testing.assert_array_equal(got[0], expected[0])
    np.testing.assert_array_equal(got[1], expected[1].astype(np.int64))


def test_max_of_integer_data_matches_cpu_plugin():
    x = np.random.default_rng(2).integers(-50, 50, (2, 3, 6, 7)).astype(np.int32)
    node = opset8.adaptive_max_pool(parameter(x.shape, "i32", name="x"), _target([3, 2], "const"),
                                    "i32")  # fmt: skip
    model = model_of(node)
    expected = run_openvino(model, {"x": x})
    got = run_irrun(model, {"x": x})
    np.testing.assert_array_equal(got[0], expected[0])
    np.testing.assert_array_equal(got[1], expected[1])


# -- reported errors ------------------------------------------------------------------------------


def _net(op_type, data_shape, sizes, attributes=None, out=(1,)):
    net = Net()
    inputs = [net.param("x", data_shape), net.const("s", np.array(sizes, np.int64))]
    net.result(net.op("p", op_type, "opset8", attributes, inputs, list(out)))
    return net


def test_index_element_type_is_checked():
    check_rejected(lambda: opset8.adaptive_max_pool(parameter([1, 2, 5]), _target([2], "const"),
                                                    "i16"))  # fmt: skip
    net = _net("AdaptiveMaxPool", "1,2,5", [2], {"index_element_type": "i16"})
    error = diagnostic(validated(net), "attribute-value")
    assert "index_element_type must be i32 or i64, not i16" in error.message
    assert error.line == line_of(net.text(), "<data", within="p")


def test_output_shape_of_wrong_length_is_reported():
    check_rejected(lambda: opset8.adaptive_avg_pool(parameter([1, 3, 5, 5]),
                                                    _target([2, 3, 4], "const")))  # fmt: skip
    net = _net("AdaptiveAvgPool", "1,3,5,5", [2, 3, 4])
    error = diagnostic(validated(net), "input-dims")
    assert "output_shape (input 1) [3] must list 2 spatial size(s)" in error.message


def test_output_shape_of_rank_2_is_reported():
    check_rejected(lambda: opset8.adaptive_avg_pool(parameter([1, 3, 5, 5]),
                                                    _target([[2, 3]], "const")))  # fmt: skip
    net = _net("AdaptiveAvgPool", "1,3,5,5", [[2, 3]])
    error = diagnostic(validated(net), "input-dims")
    assert "output_shape (input 1) [1,2] must list 2 spatial size(s)" in error.message


def test_data_of_rank_6_is_reported():
    check_rejected(lambda: opset8.adaptive_avg_pool(parameter([1, 3, 5, 5, 5, 5]),
                                                    _target([1, 1, 1, 1], "const")))  # fmt: skip
    net = _net("AdaptiveAvgPool", "1,3,5,5,5,5", [1, 1, 1, 1])
    error = diagnostic(validated(net), "input-rank")
    assert "data must be 3-D, 4-D or 5-D" in error.message
