"""FakeConvert-13: shapes against OpenVINO, the kernel bit-exact against the reference and close
to the CPU plugin, reported errors."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import openvino as ov
import openvino.opset13 as opset13
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irrun.ops.fake_convert import FakeConvert
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
DESTINATIONS = ["f8e4m3", "f8e5m2"]


@op_settings(40)
@given(shape_text(dim_text(SIZES), max_rank=4), shape_text(dim_text(SIZES), max_rank=4),
       st.booleans(), st.sampled_from(DESTINATIONS),
       st.sampled_from(["f32", "f16", "bf16"]))  # fmt: skip
def test_shapes_match_openvino(data_shape, scale_shape, with_shift, destination, etype):
    inputs = [parameter(data_shape, etype, name="x"), parameter(scale_shape, etype, name="s")]
    if with_shift:
        inputs.append(parameter(scale_shape, etype, name="t"))
    check_shapes(built(lambda: opset13.fake_convert(*inputs, destination_type=destination)))


def test_output_takes_the_scale_dims_it_narrows():
    node = opset13.fake_convert(parameter("[2,?,4]", name="x"), parameter("[2..5,1]", name="s"))
    check_shapes(node)
    assert str(node.get_output_partial_shape(0)) == "[2,2..5,4]"


def _values(rng, size):
    special = [0.0, -0.0, 448, 449, 464, 480, 500, 1e5, -1e5, np.inf, -np.inf, np.nan, 57344,
               60000, 61440, 1e-3, 2**-9, 2**-10, 2**-8 * 0.75, 2**-16, 2**-17, 2**-18]  # fmt: skip
    spread = rng.normal(size=size) * np.exp(rng.uniform(-16, 12, size))
    return np.concatenate([spread, special])


def _tensor(array):
    if array.dtype == ml_dtypes.bfloat16:
        return ov.Tensor(array.view(np.uint16), array.shape, ov.Type.bf16)
    return ov.Tensor(array)


DTYPES = {"f32": np.float32, "f16": np.float16, "bf16": ml_dtypes.bfloat16}


@pytest.mark.parametrize("etype", sorted(DTYPES))
@pytest.mark.parametrize("destination", DESTINATIONS)
@pytest.mark.parametrize("with_shift", [False, True])
def test_kernel_is_bit_exact_with_reference(etype, destination, with_shift):
    dtype = DTYPES[etype]
    rng = np.random.default_rng(3)
    with np.errstate(over="ignore"):
        data = _values(rng, 3000).astype(dtype).reshape(-1, 2)
    scale = np.array([[1.7, 0.37]], dtype)
    args = [data, scale] + ([np.array([[0.3, -0.1]], dtype)] if with_shift else [])
    node = opset13.fake_convert(*[parameter(a.shape, etype) for a in args],
                                destination_type=destination)  # fmt: skip
    out = ov.Tensor(node.get_output_element_type(0), data.shape)
    assert node.evaluate([out], [_tensor(a) for a in args])
    expected = np.array(out.data)
    if dtype == ml_dtypes.bfloat16:
        expected = expected.view(dtype)
    (got,) = bare_op(FakeConvert, {"destination_type": destination}).evaluate(args)
    assert got.dtype == dtype
    bits = np.uint16 if dtype != np.float32 else np.uint32
    np.testing.assert_array_equal(got.view(bits), expected.view(bits))


@pytest.mark.parametrize("destination", DESTINATIONS)
def test_kernel_matches_cpu_plugin(destination):
    """The CPU plugin differs by an ulp in the final division and does not flush f8e4m3 values
    below 2**-9: compared with rtol=1e-6 on values whose scaled magnitude is above 2**-8."""
    rng = np.random.default_rng(4)
    data = rng.normal(size=(2, 3, 50)).astype(np.float32) * 20
    scale = np.array([[[1.5], [0.25], [3.0]]], np.float32)
    shift = np.array([[[0.1], [0.0], [-0.2]]], np.float32)
    data = np.where(np.abs(data * scale - shift) < 2**-8, 1.0, data).astype(np.float32)
    names = ["x", "s", "t"]
    params = [parameter(a.shape, name=n) for a, n in zip((data, scale, shift), names)]
    model = model_of(opset13.fake_convert(*params, destination_type=destination))
    feed = dict(zip(names, (data, scale, shift)))
    np.testing.assert_allclose(run_irrun(model, feed)[0], run_openvino(model, feed)[0],
                               rtol=1e-6)  # fmt: skip


def test_known_values():
    op = bare_op(FakeConvert, {"destination_type": "f8e4m3"})
    x = np.array([0.5, 3.1, 3.2, 500.0, np.inf, np.nan, 1e-3, -7.0], np.float32)
    (got,) = op.evaluate([x, np.array([1.0], np.float32)])
    # 3.1 and 3.2 round to f8e4m3's 3.0 and 3.25; above 448 (inf, NaN too) clamps to 448;
    # below 2**-9 flushes to 0
    np.testing.assert_array_equal(got, [0.5, 3.0, 3.25, 448, 448, 448, 0.0, -7.0])
    op = bare_op(FakeConvert, {"destination_type": "f8e5m2"})
    (got,) = op.evaluate([x, np.array([1.0], np.float32)])
    np.testing.assert_array_equal(got, [0.5, 3.0, 3.0, 512, 57344, np.nan, 0.0009765625, -7.0])


def test_scalar_data_stays_a_scalar():
    op = bare_op(FakeConvert, {"destination_type": "f8e5m2"})
    (got,) = op.evaluate([np.array(3.2, np.float32), np.array(1.0, np.float32)])
    assert got.shape == () and got == 3.0


def _net(data_shape, scale_shape, etype="f32", shift_shape=None, data=None):
    net = Net()
    inputs = [net.param("x", data_shape, etype), net.param("s", scale_shape, etype)]
    if shift_shape is not None:
        inputs.append(net.param("t", shift_shape, etype))
    out = [int(d) for d in data_shape.split(",")]
    net.result(net.op("fc", "FakeConvert", "opset13", data or {"destination_type": "f8e4m3"},
                      inputs, out))  # fmt: skip
    return net


def test_scale_that_widens_the_data_is_reported():
    check_rejected(lambda: opset13.fake_convert(parameter([1, 3]), parameter([2, 3])))
    net = _net("1,3", "2,3")
    (error,) = validated(net).errors
    assert error.code == "input-dims"
    assert "the scale [2,3] would widen it to [2,3] into the data [1,3]" in error.message
    assert error.line == line_of(net.text(), '<port id="1"', within="fc")


def test_shift_unlike_the_scale_is_reported():
    check_rejected(lambda: opset13.fake_convert(parameter([2, 3]), parameter([3]), parameter([2])))
    (error,) = validated(_net("2,3", "3", shift_shape="2")).errors
    assert error.code == "input-dims" and "the scale [3] and the shift [2]" in error.message


def test_integer_data_and_bad_destination_are_reported():
    check_rejected(lambda: opset13.fake_convert(parameter([2], "i32"), parameter([1], "i32")))
    (error,) = validated(_net("2", "1", "i32")).errors
    assert error.code == "input-type" and "must be bf16, f16 or f32, but it is i32" in error.message
    check_rejected(lambda: opset13.fake_convert(parameter([2]), parameter([1]),
                                                destination_type="f16"))  # fmt: skip
    net = _net("2", "1", data={"destination_type": "f16"})
    (error,) = validated(net).errors
    assert error.code == "attribute-value" and "f8e4m3, f8e5m2" in error.message
