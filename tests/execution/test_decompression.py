"""Weight decompression folded in one pass (irrun.execution.decompression): the same bits as
the Convert, Subtract and Multiply kernels one by one, on codes of every integer type, zero
points of every kind and scales with subnormals, overflow, infinities and NaNs."""

from __future__ import annotations

import numpy as np
import openvino as ov
import pytest
from openvino import opset13

import irrun.execution
import irrun.execution.decompression as decompression
from tests.execution.graphs import named, param, save

RANGES = {"u8": (0, 256), "i8": (-128, 128), "u4": (0, 16), "i4": (-8, 8), "u2": (0, 4)}

#: f16 scales that test the rounding: subnormal, the smallest subnormal, near the overflow,
#: the largest, infinities, NaN, zeros of both signs, ordinary ones.
SCALES = np.array([6e-8, 5.96e-8, 3e-5, 6.1e-5, 0.0123, -0.75, 1.0, 300.0, 65504.0, -65504.0,
                   np.inf, -np.inf, np.nan, 0.0, -0.0, 0.3333], np.float16)  # fmt: skip


def _chain(rng, etype, zero_point, codes_first=True, chained_first=True, rows=16):
    """codes [rows, 4, 8] -> f16 (- zero point per group) (* scale per group) -> reshape
    [rows, 32] -> f32."""
    low, high = RANGES[etype]
    codes = opset13.constant(rng.integers(low, high, (rows, 4, 8)).astype(np.float32),
                             getattr(ov.Type, etype))  # fmt: skip
    values = opset13.convert(codes, "f16")
    if zero_point == "codes":  # a Convert of integer codes, as nncf writes it
        zp = opset13.convert(opset13.constant(rng.integers(low, high, (rows, 4, 1))
                                              .astype(np.float32), getattr(ov.Type, etype)),
                             "f16")  # fmt: skip
    elif zero_point == "f16":  # integral f16 values
        zp = opset13.constant(rng.integers(-1000, 1000, (rows, 4, 1)).astype(np.float16))
    elif zero_point == "fraction":  # not integral: the ops one by one
        zp = opset13.constant(rng.uniform(-3, 3, (rows, 4, 1)).astype(np.float16))
    if zero_point:
        values = opset13.subtract(values, zp) if codes_first else opset13.subtract(zp, values)
    scale = opset13.constant(rng.choice(SCALES, (rows, 4, 1)))
    values = opset13.multiply(values, scale) if chained_first else opset13.multiply(scale, values)
    values = opset13.reshape(values, opset13.constant(np.array([rows, 32], np.int64)), False)
    return opset13.convert(values, "f32")


def _bits(array):
    return np.ascontiguousarray(array).view(np.uint32)


def _count_one_pass_folds(monkeypatch) -> list:
    """A list that gets, per chain folded from now on, whether it took the one pass."""
    folded = []
    original = decompression.fold_chain

    def counting(chain, constant):
        result = original(chain, constant)
        folded.append(result is not None)
        return result

    monkeypatch.setattr(irrun.execution.engine, "fold_chain", counting)
    return folded


CASES = [
    (etype, zero_point, codes_first, chained_first)
    for etype in RANGES
    for zero_point in (None, "codes", "f16", "fraction")
    for codes_first in (True, False)
    for chained_first in (True, False)
    if zero_point or codes_first  # (no zero point: nothing to order)
]


@pytest.mark.parametrize("etype, zero_point, codes_first, chained_first", CASES)
def test_one_pass_gives_the_bits_of_the_ops_one_by_one(tmp_path, monkeypatch, etype, zero_point,
                                                       codes_first, chained_first):  # fmt: skip
    rng = np.random.default_rng(len(etype) * 7 + codes_first * 3 + chained_first)
    x = param([1], name="x")
    weights = _chain(rng, etype, zero_point, codes_first, chained_first)
    model = save(tmp_path, [opset13.result(named(opset13.add(weights, x), "y"))], [x])
    folded_in_one_pass = _count_one_pass_folds(monkeypatch)
    feed = {"x": np.zeros(1, np.float32)}
    folded = model.compile().run(feed)["y"]
    one_by_one = irrun.execution.compile(model, fold_constants=False).run(feed)["y"]
    assert np.array_equal(_bits(folded), _bits(one_by_one))
    assert folded_in_one_pass == [zero_point != "fraction"]
    # and OpenVINO's reference evaluation agrees (NaN payloads aside: it makes its own)
    reference = ov.Tensor(ov.Type.f32, [16, 32])
    ov_model = ov.Core().read_model(tmp_path / "m.xml")
    assert ov_model.evaluate([reference], [ov.Tensor(feed["x"])])
    expected = np.array(reference.data)
    nan = np.isnan(expected)
    assert np.array_equal(np.isnan(folded), nan)
    assert np.array_equal(_bits(folded)[~nan], _bits(expected)[~nan])


def test_a_chain_read_elsewhere_on_the_way_is_folded_op_by_op(tmp_path):
    """The f16 codes are also an output: the chain is not taken (its links need one reader)."""
    rng = np.random.default_rng(5)
    x = param([1], name="x")
    numbers = rng.integers(0, 16, (4, 8)).astype(np.float32)
    codes = opset13.constant(numbers, ov.Type.u4)
    values = opset13.convert(codes, "f16")
    scaled = opset13.convert(opset13.multiply(values, opset13.constant(np.float16(0.5))), "f32")
    outputs = [opset13.result(named(opset13.add(scaled, x), "y")),
               opset13.result(named(opset13.convert(values, "f32"), "codes"))]  # fmt: skip
    model = save(tmp_path, outputs, [x])
    compiled = model.compile()
    assert decompression.find_chains(compiled.program.nodes) == {}
    results = compiled.run({"x": np.zeros(1, np.float32)})
    assert np.array_equal(results["codes"], numbers)
    assert np.array_equal(results["y"], numbers * 0.5)


def test_a_scale_wider_than_the_codes_takes_the_whole_pass(tmp_path, monkeypatch):
    """codes [4, 8] times a scale [3, 4, 1]: the result [3, 4, 8] is wider than the codes (no
    blocks of rows), and still the bits of the ops one by one."""
    rng = np.random.default_rng(9)
    x = param([1], name="x")
    codes = opset13.constant(rng.integers(-8, 8, (4, 8)).astype(np.float32), ov.Type.i4)
    values = opset13.subtract(opset13.convert(codes, "f16"),
                              opset13.constant(np.float16(3)))  # fmt: skip
    scaled = opset13.multiply(values, opset13.constant(rng.choice(SCALES, (3, 4, 1))))
    model = save(tmp_path, [opset13.result(named(opset13.add(opset13.convert(scaled, "f32"), x),
                                                 "y"))], [x])  # fmt: skip
    feed = {"x": np.zeros(1, np.float32)}
    folded_in_one_pass = _count_one_pass_folds(monkeypatch)
    compiled = model.compile()
    assert folded_in_one_pass == [True]
    assert len(decompression.find_chains(compiled.program.nodes)) == 4  # Convert ... Convert
    folded = compiled.run(feed)["y"]
    one_by_one = irrun.execution.compile(model, fold_constants=False).run(feed)["y"]
    assert folded.shape == (3, 4, 8)
    assert np.array_equal(_bits(folded), _bits(one_by_one))
