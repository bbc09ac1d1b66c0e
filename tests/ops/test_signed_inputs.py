"""Integer inputs read as int64, as OpenVINO reads axes, repeats, lengths and bounds
(``get_raw_data_as<int64_t>``): a u64 constant of 2**63 or more is negative (2**64 - 1 is
-1). Shapes are checked against OpenVINO's inference, kernels against its CPU plugin."""

from __future__ import annotations

import numpy as np
import openvino.opset6 as opset6
import openvino.opset8 as opset8
import openvino.opset13 as ops
import pytest

import irrun
from irrun.ops._values import as_int64, signed_values
from tests.helpers.ir_text import Net
from tests.helpers.openvino_oracle import (
    check_rejected,
    check_shapes,
    constant,
    model_of,
    parameter,
    run_irrun,
    run_openvino,
)

U64 = np.uint64


def _ints(dtype):
    """Constants of ``dtype`` from values written as u64 (i64: read as OpenVINO reads them)."""

    def make(*values, scalar=False):
        if dtype is np.int64:
            values = [as_int64(v) for v in values]
        array = np.array(values, dtype)
        return constant(array.reshape(()) if scalar else array)

    return make


CASES = {
    "Tile": ([2, 3], lambda x, k: ops.tile(x, k(2**63 + 1, 1)), "[0,3]"),
    "Squeeze": ([2, 1], lambda x, k: ops.squeeze(x, k(2**64 - 1)), "[2]"),
    "Unsqueeze": ([2, 3], lambda x, k: ops.unsqueeze(x, k(2**64 - 1)), "[2,3,1]"),
    "ReduceSum": ([2, 3], lambda x, k: ops.reduce_sum(x, k(2**64 - 1)), "[2]"),
    "MVN-6": (
        [2, 3],
        lambda x, k: opset6.mvn(x, k(2**64 - 1), True, 1e-5, "inside_sqrt"),
        "[2,3]",
    ),  # fmt: skip
    "Split": ([2, 4], lambda x, k: ops.split(x, k(2**64 - 1, scalar=True), 2), "[2,2]"),
    "VariadicSplit": (
        [2, 4],
        lambda x, k: ops.variadic_split(x, k(2**64 - 1, scalar=True), k(2**64 - 1, 1)),
        "[2,3]",
    ),
    "Gather": (
        [2, 3],
        lambda x, k: opset8.gather(
            x, constant(np.array([0, 2], np.int64)), k(2**64 - 1, scalar=True)
        ),  # fmt: skip
        "[2,2]",
    ),
    "Slice": ([10], lambda x, k: opset8.slice(x, k(2**64 - 3), k(2**64 - 1), k(1)), "[2]"),
    "StridedSlice": (
        [10],
        lambda x, k: ops.strided_slice(x, k(2**64 - 3), k(2**64 - 1), k(1), [0], [0]),
        "[2]",
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_u64_values_beyond_int64_are_negative_as_in_openvino(name):
    shape, build, expected = CASES[name]
    node = build(parameter(shape, "f32", "x"), _ints(U64))
    assert str(node.output(0).get_partial_shape()) == expected
    check_shapes(node)


@pytest.mark.parametrize("name", sorted(CASES))
def test_kernels_read_u64_values_as_int64(name):
    """The u64 model runs as the model with the i64 values OpenVINO reads (run by the CPU
    plugin; it crashes on some of the u64 models themselves, and refuses the empty Tile)."""
    shape, build, _ = CASES[name]
    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape) + 1
    got = run_irrun(model_of(build(parameter(shape, "f32", "x"), _ints(U64))), {"x": x})
    signed = model_of(build(parameter(shape, "f32", "x"), _ints(np.int64)))
    tile = [np.zeros((0, 3), np.float32)]  # the spec's [0,3]: the CPU plugin refuses it
    expected = tile if name == "Tile" else run_openvino(signed, {"x": x})
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g.shape == e.shape and g.dtype == e.dtype
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=2e-6)  # MVN's tolerance (mvn.py)


def test_the_int64_reader():
    assert as_int64(2**64 - 1) == -1 and as_int64(2**63) == -(2**63) and as_int64(7) == 7
    assert signed_values(np.array([2**64 - 2, 5], U64)) == [-2, 5]
    assert signed_values(np.array([1.9, -1.9], np.float32)) == [1, -1]


def test_a_u64_broadcast_target_beyond_int64_is_refused_as_in_openvino(tmp_path):
    """Broadcast reads its target as dims and refuses a u64 value beyond int64 (no wrap)."""
    check_rejected(lambda: ops.broadcast(parameter([1, 3]), _ints(U64)(2**63 + 1, 3)))
    net = Net()
    target = net.const("target", np.array([2**63 + 1, 3], U64))
    net.result(net.op("b", "Broadcast", "opset3", {"mode": "numpy"},
                      [net.param("x", "1,3"), target], [2, 3]))  # fmt: skip
    (tmp_path / "m.xml").write_text(net.text())
    (tmp_path / "m.bin").write_bytes(bytes(net.blob))
    (error,) = irrun.load(tmp_path / "m.xml").validate().errors
    assert error.code == "input-value"
    assert "has 9223372036854775809, beyond the int64 range" in error.message
