"""Range-1 and Range-4: shapes against OpenVINO, the kernel against the CPU plugin, errors."""

from __future__ import annotations

import numpy as np
import openvino.opset1 as ops1
import pytest
from hypothesis import given
from hypothesis import strategies as st
from openvino.opset4.ops import range as range4

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
from tests.helpers.strategies import built, diagnostic, op_settings, validated

NUMBERS = st.sampled_from([0, 1, 2, 3, 5, 10, -1, -3, -7, 0.5, 2.5, -2.5, 0.9, 1.1, 7.3])


@op_settings(40)
@given(NUMBERS, NUMBERS, NUMBERS, st.sampled_from(["f32", "i64", "i32", "f16"]),
       st.sampled_from(["f32", "i64", "i32", "u8", "f16"]))  # fmt: skip
def test_range4_shapes_match_openvino(start, stop, step, input_type, output_type):
    values = [constant(np.array(v), input_type) for v in (start, stop, step)]
    node = built(lambda: range4(*values, output_type))
    check_shapes(node)


@op_settings(40)
@given(NUMBERS, NUMBERS, NUMBERS, st.sampled_from(["f32", "i64", "i32"]))
def test_range1_shapes_match_openvino(start, stop, step, etype):
    values = [constant(np.array(v), etype) for v in (start, stop, step)]
    node = built(lambda: ops1.range(*values))
    check_shapes(node)


def test_range_of_unknown_inputs():
    start = parameter("[]", "i64", name="start")
    node = range4(start, constant(np.array(10)), constant(np.array(1)), "i64")
    check_shapes(node)
    check_shapes(ops1.range(start, constant(np.array(10)), constant(np.array(1))))


@pytest.mark.parametrize(
    "start, stop, step, output_type, expected",
    [
        (0, 10, 3, "i64", [0, 3, 6, 9]),
        (10, 0, -3, "i32", [10, 7, 4, 1]),
        (0, 10, -1, "i64", []),
        (-2.5, 1, 1, "i64", [-2, -1, 0]),
        (0.5, 2.0, 0.25, "f32", [0.5, 0.75, 1.0, 1.25, 1.5, 1.75]),
        (1, 2, 0.1, "f16", None),
        (0.3, 740.3, 0.37, "f16", None),
        (0.1, 3, 0.3, "bf16", None),
        (0, 20, 2.5, "f32", None),
    ],
)
def test_range_kernel(start, stop, step, output_type, expected):
    """irrun against the expected values (OpenVINO's reference, ``Model.evaluate``) and the CPU
    plugin where it agrees with the reference; known CPU deviations: a runtime start with a
    step pointing away from stop (CPU gives |stop - start| / |step| elements), float inputs
    to an integer output (CPU: -2.5..1 to i64 gives [-2,-2,0,0]), and f16 outputs (CPU rounds
    some halfway values differently: 512.5 where the reference gives 513)."""
    s = parameter("[]", "f32", name="s")
    node = range4(s, constant(np.float32(stop)), constant(np.float32(step)), output_type)
    model = model_of(node)
    feed = {"s": np.array(start, np.float32)}
    actual = run_irrun(model, feed)[0]
    if expected is not None:
        np.testing.assert_array_equal(actual, np.array(expected, dtype=actual.dtype))
    if start != -2.5 and step > 0 and output_type in ("f32", "i32", "i64"):
        np.testing.assert_array_equal(actual, run_openvino(model, feed)[0])
    if expected is None:
        reference = _reference(model, feed)
        if output_type == "bf16":  # (OpenVINO's Python API shows bf16 data as float16 bits)
            actual, reference = actual.view(np.uint16), reference.view(np.uint16)
        np.testing.assert_array_equal(actual, reference)


def _reference(model, feed):
    import openvino as ov

    outputs = [ov.Tensor(model.output(0).get_element_type(), ov.Shape([0]))]
    assert model.evaluate(outputs, [ov.Tensor(v) for v in feed.values()])
    return outputs[0].data


def _net(op_version, data, values):
    net = Net()
    inputs = [net.const(n, np.array(v)) for n, v in zip(("start", "stop", "step"), values)]
    net.result(net.op("r", "Range", op_version, data, inputs, [-1]))
    return net


@pytest.mark.parametrize("version", ["opset1", "opset4"])
def test_range_zero_step_is_reported(version):
    zero = [constant(np.array(v)) for v in (0, 5, 0)]
    check_rejected(lambda: ops1.range(*zero) if version == "opset1" else range4(*zero, "i64"))
    data = None if version == "opset1" else {"output_type": "i64"}
    (error,) = [d for d in validated(_net(version, data, (0, 5, 0))).errors]
    assert error.code == "input-value" and "step is 0" in error.message


def test_range1_mixed_types_are_reported():
    check_rejected(lambda: ops1.range(constant(np.array(0)), constant(np.array(5.0, np.float32)),
                                      constant(np.array(1))))  # fmt: skip
    (error,) = [d for d in validated(_net("opset1", None, (0, np.float32(5), 1))).errors]
    assert error.code == "input-type"


def test_range4_unknown_attribute_is_warned():
    net = _net("opset4", {"output_type": "i64", "output_typ": "i32"}, (0, 5, 1))
    warning = diagnostic(validated(net), "unknown-attribute")
    assert "did you mean output_type?" in warning.hint


@pytest.mark.parametrize(
    "start, stop, step, dtype, output_type, first",
    [
        (2**53 + 1, 2**53 + 3, 1, np.int64, "i64", 2**53),
        (2**62 + 7, 2**62 + 7 + 3 * 2**40, 2**40 + 1, np.int64, "i64", 2**62),
        (2**63 + 11, 2**63 + 20, 3, np.uint64, "u64", None),
    ],
)
def test_range_beyond_2_to_53_reads_through_double_as_openvino(start, stop, step, dtype,
                                                               output_type, first):  # fmt: skip
    """OpenVINO's reference reads start, stop and step as double, for the count and for the
    values (not the exact integers): irrun gives the same elements."""
    node = range4(constant(dtype(start)), constant(dtype(stop)), constant(dtype(step)),
                  output_type)  # fmt: skip
    model = model_of(node)
    check_shapes(node)
    (actual,) = run_irrun(model, {})
    reference = _reference(model, {})
    assert actual.dtype == reference.dtype
    np.testing.assert_array_equal(actual, reference)
    if first is None:  # 2**63 + 11 and 2**63 + 20 are one double: no elements
        assert actual.size == 0
    else:
        assert int(actual[0]) == first and int(actual[1]) - int(actual[0]) == step
