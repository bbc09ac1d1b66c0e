"""Multinomial-13: shapes against OpenVINO, indices exactly against OpenVINO's reference (with
and without replacement, probabilities and log probabilities, f32/f16/f64), reported errors."""

from __future__ import annotations

import numpy as np
import openvino as ov
import openvino.opset3 as opset3
import openvino.opset8 as opset8
import openvino.opset13 as opset13
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irrun.errors import IRError
from irrun.ops.multinomial import Multinomial
from tests.helpers.openvino_oracle import (
    check_shapes,
    constant,
    model_of,
    parameter,
    run_irrun,
)
from tests.helpers.strategies import bare_op, built, const_info, dim_text, op_settings, shape_text

DIM = dim_text(st.integers(0, 6))
_DTYPES = {"f32": np.float32, "f16": np.float16, "f64": np.float64}


def _model(probs_shape, etype, samples, convert_type, replacement, log_probs, seeds):
    probs = parameter(probs_shape, etype, name="p")
    node = opset13.multinomial(probs, constant(np.int64(samples)), convert_type, replacement,
                               log_probs, *seeds)  # fmt: skip
    return model_of(node)


def _reference_draws(batch, samples, etype, seeds):
    """OpenVINO's reference RandomUniform in [0, 1) of ``[batch, samples]``, first run: the
    draws OpenVINO's Multinomial reference takes."""
    shape = constant(np.array([batch, samples], np.int64))
    node = opset8.random_uniform(shape, constant(0.0, etype), constant(1.0, etype), etype, *seeds)
    tensor = ov.Tensor(ov.Type(np.dtype(_DTYPES[etype])), [batch, samples])
    assert model_of(node).evaluate([tensor], [])
    return tensor.data.copy()


def _reference_multinomial(probs, draws, replacement, log_probs):
    """A line-by-line transcription of OpenVINO's ``reference/multinomial.hpp`` loops."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return _transcribed(probs, draws, replacement, log_probs)


def _transcribed(probs, draws, replacement, log_probs):
    dtype = probs.dtype.type
    values = np.exp(probs) if log_probs else probs
    out = np.zeros(draws.shape, np.int64)
    for b in range(probs.shape[0]):
        cdf = [dtype(0)] * probs.shape[1]
        total = dtype(0)
        for k, v in enumerate(values[b]):
            total = dtype(total + v)
            cdf[k] = total
        cdf = [dtype(c / total) for c in cdf]
        for j, sample in enumerate(draws[b]):
            selected = len(cdf)
            for k, c in enumerate(cdf):
                if sample <= c:
                    out[b, j], selected = k, k
                    break
            if not replacement and selected < len(cdf):
                p = dtype(cdf[selected] - cdf[selected - 1]) if selected else cdf[0]
                divisor = dtype(1 - p)
                cdf = [dtype(dtype(c - p) if k >= selected else c) for k, c in enumerate(cdf)]
                cdf = [dtype(c / divisor) for c in cdf]
    return out


@pytest.mark.parametrize("etype", ["f32", "f16", "f64"])
@pytest.mark.parametrize("replacement", [True, False])
@pytest.mark.parametrize("log_probs", [False, True])
@pytest.mark.parametrize("batch, classes, samples, seeds", [(3, 5, 4, (7, 3)), (4, 9, 9, (150, 10)),
                                                           (2, 40, 17, (0, 8))])  # fmt: skip
def test_multinomial_follows_the_reference(batch, classes, samples, seeds, log_probs,
                                           replacement, etype):  # fmt: skip
    """Draws from OpenVINO's own RandomUniform reference, picked as the reference's loops
    pick (the installed OpenVINO gives Multinomial no evaluate, and its CPU plugin draws
    with std::mt19937 instead of Philox)."""
    rng = np.random.default_rng(batch * classes)
    probs = rng.uniform(0.05, 1.0, (batch, classes)).astype(_DTYPES[etype])
    if log_probs:
        probs = np.log(probs).astype(_DTYPES[etype])
    draws = _reference_draws(batch, samples, etype, seeds)
    expected = _reference_multinomial(probs, draws, replacement, log_probs)
    convert = "i64" if classes > 8 else "i32"
    model = _model([batch, classes], etype, samples, convert, replacement, log_probs, seeds)
    (got,) = run_irrun(model, {"p": probs})
    assert got.dtype == (np.int64 if convert == "i64" else np.int32)
    np.testing.assert_array_equal(got, expected)


def test_multinomial_gives_the_same_indices_on_every_run():
    import tempfile

    import irrun
    from tests.helpers.openvino_oracle import save

    model = _model([2, 6], "f32", 5, "i32", True, False, (3, 4))
    probs = np.full((2, 6), 1 / 6, np.float32)
    with tempfile.TemporaryDirectory() as tmp:
        loaded = irrun.load(save(model, tmp))
        name = loaded.outputs[0].name
        first, second = loaded.run({"p": probs})[name], loaded.run({"p": probs})[name]
    np.testing.assert_array_equal(first, second)


def test_multinomial_with_zero_probability_classes_never_draws_them():
    probs = np.array([[0.0, 1.0, 0.0, 2.0]] * 3, np.float32)
    model = _model([3, 4], "f32", 50, "i64", True, False, (1, 2))
    (got,) = run_irrun(model, {"p": probs})
    assert set(np.unique(got)) <= {1, 3}


@op_settings(30)
@given(
    shape_text(DIM, min_rank=2, max_rank=2),
    st.one_of(
        st.integers(0, 7).map(lambda n: ("const", n)),
        DIM.map(lambda d: ("shape_of", d)),
        st.just(("param", None)),
    ),  # fmt: skip
    st.sampled_from([[], [1]]),
    st.sampled_from(["i32", "i64"]),
    st.sampled_from(["f32", "f16"]),
    st.booleans(),
    st.booleans(),
)
def test_multinomial_shapes_match_openvino(shape, samples, count_shape, convert, etype, rep, log):
    probs = parameter(shape, etype, name="p")
    kind, value = samples
    if kind == "const":
        count = constant(np.array(value, np.int64).reshape(count_shape))
    elif kind == "shape_of":
        count = opset3.shape_of(parameter(f"[{value}]", name="y"))
    else:
        count = parameter(count_shape, "i32", name="n")
    node = built(lambda: opset13.multinomial(probs, count, convert, rep, log, 1, 2))
    check_shapes(node)


def test_multinomial_of_dynamic_rank_probs_is_of_dynamic_rank():
    node = opset13.multinomial(parameter("[...]", name="p"), constant(np.int64(3)), "i64", True,
                               False)  # fmt: skip
    assert str(node.get_output_partial_shape(0)) == "[...]"
    check_shapes(node)


def _infer(*inputs):
    attributes = {"convert_type": "i64", "with_replacement": "true", "log_probs": "false"}
    return bare_op(Multinomial, attributes).infer(list(inputs))


def test_multinomial_reports_1d_probs():
    with pytest.raises(
        IRError, match=r"probs must be 2-D \[batch, classes\], but its shape is \[5\]"
    ):
        _infer(const_info([0.5] * 5, "f32"), const_info(3))


def test_multinomial_reports_integer_probs():
    with pytest.raises(IRError, match="probs must be a floating-point tensor, but it is i32"):
        _infer(const_info([[1, 2]], "i32"), const_info(3))


def test_multinomial_reports_a_negative_count():
    with pytest.raises(IRError, match="num_samples must not be negative, but it is -2"):
        _infer(const_info([[0.5, 0.5]], "f32"), const_info(-2))
