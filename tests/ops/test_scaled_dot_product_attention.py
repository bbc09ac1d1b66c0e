"""ScaledDotProductAttention-13: shapes and types against OpenVINO, the kernel against its CPU
plugin within the documented tolerance, and the diagnostics of inputs OpenVINO refuses."""

from __future__ import annotations

import numpy as np
import openvino.opset13 as ops
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.helpers.ir_text import Net, line_of
from tests.helpers.openvino_oracle import (
    check_rejected,
    check_shapes,
    model_of,
    parameter,
    run_irrun,
    run_openvino,
)
from tests.helpers.strategies import built, diagnostic, dim_around, op_settings, validated

B, H, L, S, E, EV = 2, 3, 4, 5, 8, 6


def _sdpa(q, k, v, mask=None, scale=None, causal=False, sink=None):
    node = ops.scaled_dot_product_attention(q, k, v, attention_mask=mask, scale=scale,
                                            causal=causal)  # fmt: skip
    if sink is not None:  # the Python API has no sink argument; the op takes a sixth input
        node.set_arguments([q, k, v, mask, scale, sink])
        node.validate_and_infer_types()
    return node


# -- shapes -----------------------------------------------------------------------------------
@st.composite
def _shape(draw, sizes, *, may_be_one=()):
    """A shape around ``sizes``; the dims at positions ``may_be_one`` may be drawn as 1 (a
    broadcast batch dim)."""
    if draw(st.integers(0, 9)) == 0:
        return "[...]"
    dims = []
    for i, size in enumerate(sizes):
        if i in may_be_one and draw(st.booleans()):
            size = 1
        dims.append(draw(dim_around(size, max_above=2)))
    return "[" + ",".join(dims) + "]"


_MASKS = [None, [L, S], [1, 1, L, S], [B, 1, 1, S], [1, H, L, 1], [], [3, 1, 1, L, S], [S]]


@op_settings(40)
@given(
    st.integers(1, 2),  # batch dims of the query
    st.sampled_from([L, 1]),  # the query's L (1: a mask's L replaces it)
    st.sampled_from(_MASKS),
    st.sampled_from(["boolean", "f32"]),
    st.sampled_from([None, "[]", "[1]", "[?]", "[...]", "[2]"]),
    st.booleans(),
    st.data(),
)
def test_shapes_match_openvino(batch_rank, q_len, mask, mask_type, scale, causal, data):
    batch = [B, H][-batch_rank:]
    ones = range(batch_rank)
    q = data.draw(_shape([*batch, q_len, E]))
    k = data.draw(_shape([*batch, S, E], may_be_one=ones))
    v = data.draw(_shape([*batch, S, EV], may_be_one=ones))
    nodes = [parameter(q, name="q"), parameter(k, name="k"), parameter(v, name="v")]
    mask_node = scale_node = None
    if mask is not None or scale is not None:
        sizes = [] if mask is None else mask
        m = data.draw(_shape(sizes, may_be_one=range(len(sizes))))
        mask_node = parameter(m, mask_type, name="m")
    if scale is not None:
        scale_node = parameter(scale, name="s")
    node = built(lambda: _sdpa(*nodes, mask_node, scale_node, causal))
    check_shapes(node)


_TYPES = ["f32", "f16", "dynamic"]


@op_settings(40)
@given(
    st.sampled_from(_TYPES),
    st.sampled_from(_TYPES),
    st.sampled_from(_TYPES),
    st.sampled_from([None, "boolean", "f32", "f16", "i32", "dynamic"]),
    st.sampled_from([None, *_TYPES]),
    st.booleans(),
)
def test_element_types_match_openvino(q_type, k_type, v_type, mask_type, scale_type, causal):
    q = parameter([B, H, L, E], q_type, name="q")
    k = parameter([B, H, S, E], k_type, name="k")
    v = parameter([B, H, S, EV], v_type, name="v")
    mask = None if mask_type is None else parameter([L, S], mask_type, name="m")
    if mask is None and scale_type is not None:
        mask = parameter([], "f32", name="m")
    scale = None if scale_type is None else parameter([], scale_type, name="s")
    check_shapes(built(lambda: _sdpa(q, k, v, mask, scale, causal)))


# Most sink shapes drawn are ones OpenVINO refuses (on purpose: the valid ones are few).
@op_settings(30, rejects_many=True)
@given(
    st.sampled_from([[B, H, L, E], [H, L, E], [B, H, 1, E]]),
    st.sampled_from([[1, H, 1, 1], [B, H, L, 1], [B, 1, 1, 1], [H, L, 1], [5, H, 1, 1],
                     [B, H, 7, 1], [B, H, L, 2], [B, H, L, 0], [1, 1, 1, H, L, 1]]),
    st.sampled_from(["[]", "[2]", "[1,1]"]),
    st.data(),
)  # fmt: skip
def test_sink_shapes_match_openvino(q_sizes, sink_sizes, scale, data):
    """With six inputs OpenVINO checks the sink against the query and no scale shape."""
    batch = q_sizes[:-2]
    q = parameter(data.draw(_shape(q_sizes)), name="q")
    k = parameter(data.draw(_shape([*batch, S, E])), name="k")
    v = parameter(data.draw(_shape([*batch, S, EV])), name="v")
    mask = parameter(data.draw(_shape([1, 1, L, S], may_be_one=(0, 1))), name="m")
    sink = parameter(data.draw(_shape(sink_sizes, may_be_one=(0, 1))), name="z")
    node = built(lambda: _sdpa(q, k, v, mask, parameter(scale, name="s"), sink=sink))
    check_shapes(node)


# -- refused inputs -----------------------------------------------------------------------------
def _report(q, k, v, mask=None, scale=None, causal="false", mask_type="f32", sink=None, out=(1,)):
    net = Net()
    refs = [net.param("q", q), net.param("k", k), net.param("v", v)]
    if mask is not None:
        refs.append(net.param("m", mask, mask_type))
    if scale is not None:
        refs.append(net.param("s", scale))
    if sink is not None:
        refs.append(net.param("z", sink))
    net.result(net.op("a", "ScaledDotProductAttention", "opset13", {"causal": causal}, refs,
                      list(out)))  # fmt: skip
    text = net.text()
    return text, validated(net, text)


_REFUSED = [
    # (q, k, v, mask, scale, mask type, code, port, fragment)
    ("4,8", "2,5,8", "2,5,6", None, None, "f32", "input-rank", 0, "rank 3 or more"),
    ("2,4,8", "2,5,7", "2,5,6", None, None, "f32", "input-dims", 1, "its E 7"),
    ("2,4,8", "3,5,8", "3,5,6", None, None, "f32", "input-dims", 1, "batch dims [3]"),
    ("2,4,8", "2,5,8", "2,6,6", None, None, "f32", "input-dims", 2, "its S 6"),
    ("2,4,8", "2,5,8", "2,5,6", "5", None, "f32", "input-rank", 3, "rank 2 or more"),
    ("2,4,8", "2,5,8", "2,5,6", "3,5", None, "boolean", "input-dims", 3, "L 4 by S 5"),
    ("2,4,8", "2,5,8", "2,5,6", "3,4,5", None, "f32", "input-dims", 3, "batch dims [3]"),
    ("2,4,8", "2,5,8", "2,5,6", "4,5", "2", "f32", "input-dims", 4, "shape [2]"),
    ("2,4,8", "2,5,8", "2,5,6", "4,5", "1,1", "f32", "input-rank", 4, "shape [1,1]"),
    ("2,4,8", "2,5,8", "2,5,6", "4,5", None, "i32", "input-type", 3, "floating-point or boolean"),
    ("2,4,8", "2,5,8", "2,5,6", "4,5", "", "f32", "input-rank", 5, "must have the query's rank 3"),
    ("2,4,8", "2,5,8", "2,5,6", "4,5", "", "f32", "input-dims", 5, "dim 1: 7 vs the query's 4"),
    ("2,4,8", "2,5,8", "2,5,6", "4,5", "", "f32", "input-dims", 5, "its last dim 2 is not 1"),
]
_SINKS = {"must have the query's rank 3": "4,1", "dim 1: 7 vs the query's 4": "2,7,1",
          "its last dim 2 is not 1": "2,4,2"}  # fmt: skip


@pytest.mark.parametrize("q, k, v, mask, scale, mask_type, code, port, fragment", _REFUSED)
def test_refused_inputs_are_reported(q, k, v, mask, scale, mask_type, code, port, fragment):
    def build():
        nodes = [parameter(f"[{x}]") for x in (q, k, v)]
        m = None if mask is None else parameter(f"[{mask}]", mask_type)
        s = None if scale is None else parameter(f"[{scale}]")
        z = parameter(f"[{sink}]") if sink else None
        return _sdpa(*nodes, m, s, sink=z)

    sink = _SINKS.get(fragment) if port == 5 else None
    check_rejected(build)
    text, report = _report(q, k, v, mask, scale, mask_type=mask_type, sink=sink)
    error = diagnostic(report.errors, code)
    assert len(report.errors) == 1 and fragment in error.message, report.to_text()
    assert error.line == line_of(text, f'<port id="{port}"', within="a")


def test_a_mask_that_widens_the_key_length_is_refused_where_openvino_lets_it_through():
    """A relative position bias made for 14x14 patches meeting a 1-patch image (timm's
    vit_relpos at 16x16): OpenVINO's rule broadcasts the mask's 196 into L and S and gives
    [1,6,196,64], but the weights [..., 196, 196] cannot multiply the value's one row."""
    node = _sdpa(parameter("[1,6,1,64]"), parameter("[1,6,1,64]"), parameter("[1,6,1,64]"),
                 parameter("[1,6,196,196]"))  # fmt: skip
    assert node.get_output_partial_shape(0).to_string() == "[1,6,196,64]"
    text, report = _report("1,6,1,64", "1,6,1,64", "1,6,1,64", "1,6,196,196")
    (error,) = report.errors
    assert error.code == "input-dims" and error.line == line_of(text, '<port id="3"', within="a")
    assert error.message.endswith(
        "its last dim 196 (of [1,6,196,196]) widens the key's S 1 to 196: the attention "
        "weights [..., L, 196] cannot multiply the value's 1 row (OpenVINO's shape rule lets "
        "this through, but no run can give it)"
    )
    # a mask that widens the query's L of 1 is fine: the scores broadcast, as OpenVINO's
    _, report = _report("1,6,1,64", "1,6,5,64", "1,6,5,64", "1,6,4,5", out=(1, 6, 4, 64))
    assert not list(report), report.to_text()


def test_mixed_and_integer_types_are_reported():
    net = Net()
    refs = [net.param("q", "2,4,8"), net.param("k", "2,5,8", "f16"), net.param("v", "2,5,6")]
    net.result(net.op("a", "ScaledDotProductAttention", "opset13", {"causal": "false"}, refs,
                      [2, 4, 6]))  # fmt: skip
    error = diagnostic(validated(net).errors, "input-type")
    assert "the key (input 1) is f16 but the inputs before it are f32" in error.message
    check_rejected(lambda: _sdpa(parameter("[2,4,8]"), parameter("[2,5,8]", "f16"),
                                 parameter("[2,5,6]")))  # fmt: skip
    net = Net()
    refs = [net.param("q", "2,4,8", "i32"), net.param("k", "2,5,8", "i32"),
            net.param("v", "2,5,6", "i32")]  # fmt: skip
    net.result(net.op("a", "ScaledDotProductAttention", "opset13", {"causal": "false"}, refs,
                      [2, 4, 6]))  # fmt: skip
    error = diagnostic(validated(net).errors, "input-type")
    assert "must be floating-point, but they are i32" in error.message


def test_causal_ignores_the_mask_whatever_its_type_and_shape():
    node = _sdpa(parameter("[2,4,8]"), parameter("[2,5,8]"), parameter("[2,5,6]"),
                 parameter("[3]", "i32"), causal=True)  # fmt: skip
    assert node.get_output_partial_shape(0).to_string() == "[2,4,6]"
    _, report = _report("2,4,8", "2,5,8", "2,5,6", "3", None, "true", "i32", out=(2, 4, 6))
    assert not list(report), report.to_text()


def test_misspelt_causal_is_warned_and_a_missing_one_reported():
    net = Net()
    refs = [net.param("q", "2,4,8"), net.param("k", "2,5,8"), net.param("v", "2,5,6")]
    net.result(net.op("a", "ScaledDotProductAttention", "opset13",
                      {"causal": "false", "casual": "true"}, refs, [2, 4, 6]))  # fmt: skip
    warning = diagnostic(validated(net), "unknown-attribute")
    assert warning.hint == "did you mean causal?"
    net = Net()
    refs = [net.param("q", "2,4,8"), net.param("k", "2,5,8"), net.param("v", "2,5,6")]
    net.result(net.op("a", "ScaledDotProductAttention", "opset13", {}, refs, [2, 4, 6]))
    diagnostic(validated(net), "missing-attribute")


# -- kernel -----------------------------------------------------------------------------------
def _run(shapes, *, causal=False, mask_type=None, dtype=np.float32, seed=0, mask_value=None):
    """OpenVINO's and irrun's outputs for inputs of ``shapes`` (``q, k, v[, mask[, scale[,
    sink]]]``), and the value input."""
    rng = np.random.default_rng(seed)
    etype = {np.float32: "f32", np.float16: "f16"}[dtype]
    names = ["q", "k", "v", "m", "s", "z"][: len(shapes)]
    feed, nodes = {}, []
    for name, shape in zip(names, shapes):
        if name == "m" and mask_type == "boolean":
            feed[name] = rng.random(shape) > 0.3 if mask_value is None else mask_value
            nodes.append(parameter(shape, "boolean", name=name))
            continue
        if name == "s":
            value = np.full(shape, 0.3)
        elif name == "m" and mask_value is not None:
            value = mask_value
        else:
            value = rng.standard_normal(shape) * (2 if name in "qk" else 1)
        feed[name] = np.asarray(value).astype(dtype)
        nodes.append(parameter(shape, etype, name=name))
    nodes += [None] * (6 - len(nodes))
    model = model_of(_sdpa(*nodes[:5], causal=causal, sink=nodes[5]))
    expected = run_openvino(model, feed)[0]
    got = run_irrun(model, feed)[0]
    assert got.dtype == dtype and got.shape == expected.shape
    return got, expected, feed["v"]


def _assert_f32_close(got, expected, value):
    """The documented f32 tolerance: rtol 1e-5, atol 1e-5 * max|v|."""
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5 * np.abs(value).max())


_CASES = {
    "vit: 3 inputs": ([[B, H, 17, 32], [B, H, 17, 32], [B, H, 17, 32]], False, None),
    "3 inputs, L != S, Ev != E": ([[B, H, L, E], [B, H, S, E], [B, H, S, EV]], False, None),
    "bert: boolean mask [B,1,1,S], scale": (
        [[B, H, L, E], [B, H, S, E], [B, H, S, EV], [B, 1, 1, S], []], False, "boolean"),
    "llama: boolean mask [1,1,L,S], scale": (
        [[1, 4, 7, 16], [1, 4, 7, 16], [1, 4, 7, 16], [1, 1, 7, 7], []], False, "boolean"),
    "gpt2: additive mask [1,1,L,S]": (
        [[1, 2, 9, 32], [1, 2, 9, 32], [1, 2, 9, 32], [1, 1, 9, 9]], False, "f32"),
    "additive mask [L,S], scale [1]": (
        [[B, H, L, E], [B, H, S, E], [B, H, S, EV], [L, S], [1]], False, "f32"),
    "scalar mask": ([[B, H, L, E], [B, H, S, E], [B, H, S, EV], []], False, "f32"),
    "causal, L < S": ([[B, H, L, E], [B, H, S, E], [B, H, S, EV]], True, None),
    "causal, L > S": ([[B, H, S, E], [B, H, L, E], [B, H, L, EV]], True, None),
    "causal ignores the mask": (
        [[B, H, L, E], [B, H, S, E], [B, H, S, EV], [1, 1, L, S], []], True, "f32"),
    "broadcast batch dims": ([[B, H, L, E], [1, H, S, E], [B, 1, S, EV]], False, None),
    "a mask's L replaces a query L of 1": (
        [[B, H, 1, E], [B, H, S, E], [B, H, S, EV], [1, 1, L, S]], False, "f32"),
    "a mask of higher rank": (
        [[B, H, L, E], [B, H, S, E], [B, H, S, EV], [3, 1, 1, L, S]], False, "boolean"),
    "rank 3": ([[H, L, E], [H, S, E], [H, S, EV], [L, S], []], False, "boolean"),
    "sink [1,H,1,1]": (
        [[B, H, L, E], [B, H, S, E], [B, H, S, EV], [1, 1, L, S], [], [1, H, 1, 1]], False, "f32"),
    "sink [B,H,L,1], causal": (
        [[B, H, L, E], [B, H, S, E], [B, H, S, EV], [1, 1, L, S], [], [B, H, L, 1]], True, "f32"),
    "long rows": ([[1, 2, 64, 32], [1, 2, 96, 32], [1, 2, 96, 32], [1, 1, 64, 96], []], False,
                  "boolean"),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(_CASES))
def test_f32_kernel_matches_openvino(case):
    shapes, causal, mask_type = _CASES[case]
    got, expected, value = _run(shapes, causal=causal, mask_type=mask_type)
    _assert_f32_close(got, expected, value)


@pytest.mark.parametrize("case", ["bert: boolean mask [B,1,1,S], scale", "causal, L < S",
                                  "gpt2: additive mask [1,1,L,S]"])  # fmt: skip
def test_f16_kernel_matches_openvino_within_one_ulp(case):
    shapes, causal, mask_type = _CASES[case]
    got, expected, value = _run(shapes, causal=causal, mask_type=mask_type, dtype=np.float16)
    np.testing.assert_allclose(got.astype(np.float32), expected, rtol=1e-3,
                               atol=1e-3 * np.abs(value.astype(np.float32)).max())  # fmt: skip


def test_the_lowest_f32_as_an_additive_mask_masks_without_nan():
    """Converters write f32's lowest value (not -inf) into additive masks: the scores it is
    added to get a weight of exactly 0, and the row is not NaN."""
    mask = np.zeros([1, 1, L, S], np.float32)
    mask[..., 1:] = np.finfo(np.float32).min
    shapes = [[1, 1, L, E], [1, 1, S, E], [1, 1, S, EV], [1, 1, L, S], []]
    got, expected, value = _run(shapes, mask_type="f32", mask_value=mask)
    np.testing.assert_array_equal(got, np.broadcast_to(value[..., :1, :], got.shape))
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("mask_type", ["boolean", "f32"])
def test_a_fully_masked_row_gives_nan_as_openvino(mask_type):
    mask = (
        np.zeros([1, 1, L, S], bool) if mask_type == "boolean" else np.full([1, 1, L, S], -np.inf)
    )
    mask[..., 0, :] = True if mask_type == "boolean" else 0  # row 0 attends to everything
    shapes = [[B, H, L, E], [B, H, S, E], [B, H, S, EV], [1, 1, L, S]]
    got, expected, value = _run(shapes, mask_type=mask_type, mask_value=mask)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(expected))
    assert np.isnan(got[:, :, 1:]).all() and not np.isnan(got[:, :, 0]).any()
    _assert_f32_close(got[:, :, 0], expected[:, :, 0], value)
