"""FakeQuantize-1: shapes against OpenVINO, the kernel bit-exact against the reference and the
CPU plugin, reported errors."""

from __future__ import annotations

import numpy as np
import openvino as ov
import openvino.opset1 as opset1
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irrun.ops.fake_quantize import FakeQuantize
from tests.helpers.ir_text import Net, line_of
from tests.helpers.openvino_oracle import (
    check_rejected,
    check_shapes,
    model_of,
    parameter,
    run_irrun,
    run_openvino,
)
from tests.helpers.strategies import bare_op, built, dim_text, op_settings, shape_text, validated

SIZES = st.sampled_from([1, 1, 2, 3])


@op_settings(40)
@given(shape_text(dim_text(SIZES), min_rank=0, max_rank=4),
       st.lists(shape_text(dim_text(SIZES), max_rank=4, dynamic_rank=12), min_size=4, max_size=4),
       st.sampled_from(["numpy", "none", "pdpd"]), st.sampled_from([256, 255, 16, 2]))  # fmt: skip
def test_shapes_match_openvino(data_shape, limit_shapes, mode, levels):
    data = parameter(data_shape, "f32", name="x")
    limits = [parameter(s, "f32", name=f"l{i}") for i, s in enumerate(limit_shapes)]
    check_shapes(built(lambda: opset1.fake_quantize(data, *limits, levels, mode)))


def test_output_is_the_data_shape_even_when_a_limit_is_larger():
    data = parameter([1, 3, 1, 1], name="x")
    node = opset1.fake_quantize(data, parameter([1, 3, 4, 5]), parameter([]), parameter([]),
                                parameter([]), 256)  # fmt: skip
    check_shapes(node)
    assert str(node.get_output_partial_shape(0)) == "[1,3,1,1]"


def test_mixed_limit_types_are_accepted():
    node = opset1.fake_quantize(parameter([2, 3], name="x"), parameter([], "f16"),
                                parameter([], "f16"), parameter([]), parameter([]), 16)  # fmt: skip
    check_shapes(node)


def _reference(node, arrays, dtype):
    out = ov.Tensor(np.zeros(arrays[0].shape, dtype))
    assert node.evaluate([out], [ov.Tensor(np.ascontiguousarray(a)) for a in arrays])
    return out.data.copy()


LIMIT_SHAPES = [
    ([2, 3, 4, 5], [[], [], [], []]),
    ([2, 3, 4, 5], [[1, 3, 1, 1]] * 4),
    ([2, 3, 4, 5], [[1, 1, 4, 5], [], [4, 5], [1]]),
    ([2, 3, 4, 5], [[3, 1, 1], [1, 3, 4, 5], [1, 1, 1], [2, 1, 1, 5]]),
    ([4, 6], [[4, 1], [4, 1], [1], [1, 6]]),
]


def _arrays(rng, data_shape, limit_shapes, integer=False):
    if integer:
        arrays = [rng.integers(-60, 60, s) for s in [data_shape] + limit_shapes]
        arrays[1], arrays[2] = -np.abs(arrays[1]), np.abs(arrays[2]) + 1
        arrays[3], arrays[4] = arrays[3] * 3, arrays[4] * 7
        return arrays
    arrays = [rng.normal(size=s) * 2 for s in [data_shape] + limit_shapes]
    arrays[1], arrays[2] = -np.abs(arrays[1]) - 0.1, np.abs(arrays[2]) + 0.1
    return arrays


@pytest.mark.parametrize("levels", [256, 255, 16, 3, 2])
@pytest.mark.parametrize("data_shape, limit_shapes", LIMIT_SHAPES)
def test_kernel_is_bit_exact_with_reference_and_cpu_plugin(data_shape, limit_shapes, levels):
    rng = np.random.default_rng(levels)
    arrays = [np.asarray(a, np.float32) for a in _arrays(rng, data_shape, limit_shapes)]
    names = ["x", "il", "ih", "ol", "oh"]
    params = [parameter(a.shape, name=n) for a, n in zip(arrays, names)]
    node = opset1.fake_quantize(*params, levels)
    model = model_of(node)
    feed = dict(zip(names, arrays))
    got = run_irrun(model, feed)[0]
    np.testing.assert_array_equal(got, run_openvino(model, feed)[0])
    np.testing.assert_array_equal(got, _reference(node, arrays, np.float32))


@pytest.mark.parametrize("etype", ["f16", "i32", "i64"])
@pytest.mark.parametrize("levels", [256, 17, 5])
def test_other_types_are_bit_exact_with_reference(etype, levels):
    dtype = {"f16": np.float16, "i32": np.int32, "i64": np.int64}[etype]
    rng = np.random.default_rng(levels)
    shapes = [[1, 3, 1], [1, 3, 1], [1], [3, 1]]
    arrays = [np.asarray(a, dtype) for a in _arrays(rng, [2, 3, 8], shapes, etype != "f16")]
    node = opset1.fake_quantize(*[parameter(a.shape, etype) for a in arrays], levels)
    op = bare_op(FakeQuantize, {"levels": str(levels)})
    (got,) = op.evaluate(arrays)
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, _reference(node, arrays, dtype))


def test_inverted_and_empty_input_ranges_match_reference_and_cpu_plugin():
    """il > ih (the min and max of the two bound the data) and il == ih (each side clamps)."""
    x = np.random.default_rng(0).normal(size=(2, 3, 4)).astype(np.float32) * 2
    low = np.array([[[-1], [1], [0.5]]], np.float32)
    high = np.array([[[1], [-1], [0.5]]], np.float32)
    arrays = [x, low, high, np.array(-0.5, np.float32), np.array(3, np.float32)]
    names = ["x", "il", "ih", "ol", "oh"]
    node = opset1.fake_quantize(*[parameter(a.shape, name=n) for a, n in zip(arrays, names)], 16)
    model = model_of(node)
    feed = dict(zip(names, arrays))
    got = run_irrun(model, feed)[0]
    np.testing.assert_array_equal(got, run_openvino(model, feed)[0])
    np.testing.assert_array_equal(got, _reference(node, arrays, np.float32))
    np.testing.assert_array_equal(got[:, 2], np.where(x[:, 2] > 0.5, 3.0, -0.5))


def test_values_at_the_limits_and_ties():
    op = bare_op(FakeQuantize, {"levels": "3"})
    x = np.array([-1.0, 0.0, 0.25, 0.5, 0.75, 1.0, 1.5, np.nan], np.float32)
    one = np.float32(1.0)
    (got,) = op.evaluate([x, np.float32(0.0), one, np.float32(-2.0), np.float32(2.0)])
    # x <= il gives ol; ties round to even (0.25 * 2 = 0.5 -> 0, 0.75 * 2 = 1.5 -> 2);
    # x > ih gives oh; NaN passes both tests and stays NaN
    np.testing.assert_array_equal(got, [-2, -2, -2, 0, 2, 2, 2, np.nan])


def test_scalar_data_stays_a_scalar():
    op = bare_op(FakeQuantize, {"levels": "3"})
    limits = [np.float32(0), np.float32(1), np.float32(0), np.float32(1)]
    (got,) = op.evaluate([np.array(0.8, np.float32), *limits])
    assert got.shape == () and got == 1.0


def test_pdpd_limits_align_at_the_axis():
    op = bare_op(FakeQuantize, {"levels": "2", "auto_broadcast": "pdpd",
                                "auto_broadcast.auto_broadcast_axis": "1"})  # fmt: skip
    x = np.arange(12, dtype=np.float32).reshape(2, 3, 2)
    low, high = np.array([0, 4, 8], np.float32), np.array([2, 6, 10], np.float32)
    (got,) = op.evaluate([x, low, high, np.float32(0), np.float32(1)])
    expected = (x > np.array([0, 4, 8]).reshape(1, 3, 1) + 1).astype(np.float32)
    np.testing.assert_array_equal(got, expected)


def _net(data_shape, limit_shape, data):
    net = Net()
    x = net.param("x", data_shape)
    limits = [net.param(f"l{i}", limit_shape) for i in range(4)]
    out = [int(d) for d in data_shape.split(",")]
    net.result(net.op("fq", "FakeQuantize", "opset1", data, [x, *limits], out))
    return net


def test_limit_that_does_not_broadcast_is_reported():
    check_rejected(lambda: opset1.fake_quantize(parameter([1, 3, 2]), *[parameter([1, 4, 1])] * 4,
                                                256))  # fmt: skip
    net = _net("1,3,2", "1,4,1", {"levels": "256", "auto_broadcast": "numpy"})
    (error,) = validated(net).errors
    assert error.code == "input-dims"
    assert "input_low (input 1) [1,4,1] does not broadcast into the data [1,3,2]" in error.message
    assert error.line == line_of(net.text(), '<port id="1"', within="fq")


def test_limits_must_equal_the_data_without_broadcast():
    net = _net("1,3,2", "1,3,1", {"levels": "256", "auto_broadcast": "none"})
    (error,) = validated(net).errors
    assert error.code == "input-dims" and "auto_broadcast none" in error.message


def test_missing_levels_is_reported():
    net = _net("1,3,2", "1", {"auto_broadcast": "numpy"})
    (error,) = validated(net).errors
    assert error.code == "missing-attribute" and "'levels'" in error.message
    assert error.line == line_of(net.text(), "<data", within="fq")
