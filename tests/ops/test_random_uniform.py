"""RandomUniform-8: shapes against OpenVINO, values bit for bit against OpenVINO's reference
(every output type, both alignments, several runs of one compiled model) and the CPU plugin
(first run, f32 and i32), the generator's state across reset_state and compiling anew as in
OpenVINO, reported errors."""

from __future__ import annotations

import tempfile

import ml_dtypes
import numpy as np
import openvino as ov
import openvino.opset3 as opset3
import openvino.opset8 as opset8
import pytest
from hypothesis import given
from hypothesis import strategies as st

import irrun
from irrun.element_types import element_type
from irrun.errors import IRError
from irrun.ops.base import TensorInfo
from irrun.ops.random_uniform import RandomUniform
from irrun.shape import Shape
from tests.helpers.openvino_oracle import (
    check_shapes,
    constant,
    model_of,
    parameter,
    run_openvino,
    save,
)
from tests.helpers.strategies import (
    bare_op,
    built,
    const_info,
    diagnostic,
    dim_text,
    edited_report,
    first_line_with,
    op_settings,
)

_DTYPES = {"f32": np.float32, "f16": np.float16, "bf16": ml_dtypes.bfloat16,
           "f64": np.float64, "i32": np.int32, "i64": np.int64}  # fmt: skip


def _bounds(etype):
    return (-3, 1000) if etype[0] == "i" else (-2.5, 3.75)


def _node(shape, etype, seeds=(7, 3), alignment="tensorflow", bounds=None):
    low, high = bounds or _bounds(etype)
    return opset8.random_uniform(constant(np.array(shape, np.int64)), constant(low, etype),
                                 constant(high, etype), etype, *seeds, alignment)  # fmt: skip


def _reference_runs(model, etype, shape, runs):
    """What OpenVINO's reference gives on ``runs`` successive evaluations of one model."""
    out = []
    for _ in range(runs):
        tensor = ov.Tensor(ov.Type.bf16 if etype == "bf16" else ov.Type(np.dtype(_DTYPES[etype])),
                           shape)  # fmt: skip
        assert model.evaluate([tensor], [])
        data = tensor.data.copy()
        out.append(data.view(np.uint16).view(ml_dtypes.bfloat16) if etype == "bf16" else data)
    return out


def _irrun_runs(model, runs):
    with tempfile.TemporaryDirectory() as tmp:
        loaded = irrun.load(save(model, tmp))
        name = loaded.outputs[0].name
        return [loaded.run({})[name] for _ in range(runs)]


@pytest.mark.parametrize("alignment", ["tensorflow", "pytorch"])
@pytest.mark.parametrize("etype", ["f32", "f16", "bf16", "f64", "i32", "i64"])
@pytest.mark.parametrize("shape, seeds", [([7], (7, 3)), ([3, 5, 2], (150, 10)), ([2, 9], (0, 4))])
def test_random_uniform_is_bit_exact_with_the_reference(shape, seeds, etype, alignment):
    model = model_of(_node(shape, etype, seeds, alignment))
    expected = _reference_runs(model, etype, shape, 3)
    got = _irrun_runs(model, 3)
    for g, e in zip(got, expected):
        assert g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_array_equal(g.view(np.uint8), e.view(np.uint8))


def test_random_uniform_pytorch_i64_beyond_u32_takes_two_words():
    bounds = (-(2**40), 2**40)
    model = model_of(_node([9], "i64", (5, 0), "pytorch", bounds))
    np.testing.assert_array_equal(
        _irrun_runs(model, 1)[0], _reference_runs(model, "i64", [9], 1)[0]
    )


@pytest.mark.parametrize("etype", ["f32", "i32"])
@pytest.mark.parametrize("alignment", ["tensorflow", "pytorch"])
def test_random_uniform_first_run_matches_cpu_plugin(etype, alignment):
    model = model_of(_node([4, 33], etype, (150, 10), alignment))
    (expected,) = run_openvino(model, {})
    got = _irrun_runs(model, 1)[0]
    if etype == "f32":  # the plugin fuses the multiply-add (max - min is 6.25 here)
        np.testing.assert_allclose(got, expected, rtol=0, atol=2e-6)
    else:
        np.testing.assert_array_equal(got, expected)


def _cpu_runs(model, runs, reset_between=False):
    """The CPU plugin's outputs on ``runs`` infers of one compiled model (one request),
    ``reset_state()`` called on the request between them when ``reset_between``."""
    request = ov.Core().compile_model(model, "CPU").create_infer_request()
    out = []
    for index in range(runs):
        if reset_between and index:
            request.reset_state()
        out.append(np.array(request.infer()[0]))
    return out


def test_reset_state_does_not_restart_the_draws_as_in_openvino():
    """reset_state forgets variables (ReadValue/Assign), not the generator: the run after it
    continues the sequence (OpenVINO's reference: its second run), as the CPU plugin's
    ``InferRequest.reset_state()`` does (its run after a reset differs from its first)."""
    model = model_of(_node([2, 3], "f32", (150, 10), bounds=(0.0, 1.0)))
    first_reference, second_reference = _reference_runs(model, "f32", [2, 3], 2)
    with tempfile.TemporaryDirectory() as tmp:
        loaded = irrun.load(save(model, tmp))
        name = loaded.outputs[0].name
        first = loaded.run({})[name]
        irrun.reset_state(loaded)
        after_reset = loaded.run({})[name]
    np.testing.assert_array_equal(first, first_reference)
    np.testing.assert_array_equal(after_reset, second_reference)
    cpu_first, cpu_after_reset = _cpu_runs(model, 2, reset_between=True)
    np.testing.assert_array_equal(cpu_first, first)
    assert not np.array_equal(cpu_after_reset, cpu_first)


def test_compiling_anew_restarts_the_draws_as_in_openvino():
    """A compiled form of its own (``irrun.compile(..., validate=True)``, or loading the file
    again) starts at the first run's numbers, as compiling the model again does on the CPU
    plugin."""
    model = model_of(_node([2, 3], "f32", (150, 10), bounds=(0.0, 1.0)))
    with tempfile.TemporaryDirectory() as tmp:
        loaded = irrun.load(save(model, tmp))
        name = loaded.outputs[0].name
        first, second = loaded.run({})[name], loaded.run({})[name]
        again = irrun.compile(loaded, validate=True).run({})[name]
        reloaded = irrun.load(save(model, tmp)).run({})[name]
    assert not np.array_equal(second, first)
    np.testing.assert_array_equal(again, first)
    np.testing.assert_array_equal(reloaded, first)
    np.testing.assert_array_equal(_cpu_runs(model, 1)[0], _cpu_runs(model, 1)[0])


def test_random_uniform_spec_example():
    """The values of the spec's example (global_seed 150, op_seed 10, f32 in [0, 1))."""
    model = model_of(_node([2, 3], "f32", (150, 10), bounds=(0.0, 1.0)))
    expected = [[0.7011236, 0.30539632, 0.93931055], [0.9456035, 0.11694777, 0.50770056]]
    np.testing.assert_array_equal(_irrun_runs(model, 1)[0], np.array(expected, np.float32))


def test_random_uniform_with_zero_seeds_draws_within_bounds():
    (values,) = _irrun_runs(model_of(_node([1000], "f32", (0, 0), bounds=(2.0, 3.0))), 1)
    assert values.min() >= 2.0 and values.max() < 3.0 and len(np.unique(values)) > 900


@op_settings(30)
@given(
    st.one_of(
        st.lists(st.integers(0, 5), min_size=1, max_size=4).map(lambda v: ("const", v)),
        dim_text(st.integers(0, 5)).map(lambda d: ("param", d)),
        st.lists(dim_text(st.integers(0, 5)), min_size=0, max_size=3).map(
            lambda v: ("shape_of", v)
        ),
    ),
    st.sampled_from(["f32", "f16", "i32", "i64", "bf16", "f64"]),
    st.sampled_from(["i32", "i64"]),
    st.sampled_from([[], [1]]),
    st.sampled_from(["tensorflow", "pytorch"]),
)
def test_random_uniform_shapes_match_openvino(out_shape, etype, shape_type, bound_shape, alignment):
    kind, spec = out_shape
    if kind == "const":
        shape_node = constant(np.array(spec, np.int64), shape_type)
    elif kind == "param":
        shape_node = parameter(f"[{spec}]", shape_type, name="s")
    else:
        y = parameter("[" + ",".join(spec) + "]", name="y")
        shape_node = opset3.shape_of(y, shape_type)
    low, high = _bounds(etype)
    low_node = constant(np.array(low).reshape(bound_shape), etype)
    high_node = constant(np.array(high).reshape(bound_shape), etype)
    node = built(lambda: opset8.random_uniform(shape_node, low_node, high_node, etype, 1, 2,
                                               alignment))  # fmt: skip
    check_shapes(node)


def test_random_uniform_of_unknown_out_shape_length_has_max_length_dims():
    for spec, expected in [("[2..5]", "[?,?,?,?,?]"), ("[?]", "[...]"), ("[0]", "[]")]:
        node = opset8.random_uniform(parameter(spec, "i64", name="s"), constant(0.0, "f32"),
                                     constant(1.0, "f32"), "f32")  # fmt: skip
        assert str(node.get_output_partial_shape(0)) == expected
        check_shapes(node)


def _report(edit):
    model = model_of(_node([2, 3], "f32"))
    return edited_report(model, edit)


def test_random_uniform_reports_bounds_of_another_type():
    report, text = _report(lambda t: t.replace('output_type="f32"', 'output_type="f16"'))
    error = diagnostic(report, "input-type")
    assert "min_val and max_val are f32, but output_type is f16" in error.message
    layer_line = first_line_with(text, 'type="RandomUniform"')
    port_line = layer_line + first_line_with("\n".join(text.splitlines()[layer_line:]), 'id="1"')
    assert error.line == port_line


def _infer(*inputs, attributes=None):
    op = bare_op(RandomUniform, attributes or {"output_type": "f32", "global_seed": "1"})
    return op.infer(list(inputs))


def test_random_uniform_reports_min_not_below_max():
    with pytest.raises(IRError, match="min_val 2 must be less than max_val 2"):
        _infer(const_info([2]), const_info(2.0, "f32"), const_info(2.0, "f32"))


def test_random_uniform_reports_a_2d_out_shape():
    shape = TensorInfo(Shape.parse("2,2"), element_type("i64"))
    with pytest.raises(IRError, match=r"out_shape must be 1-D, but its shape is \[2,2\]"):
        _infer(shape, const_info(0.0, "f32"), const_info(1.0, "f32"))


def test_random_uniform_reports_bounds_of_two_shapes():
    bound = TensorInfo(Shape.parse("2"), element_type("f32"))
    with pytest.raises(IRError, match=r"max_val must be a scalar or \[1\], but its shape is \[2\]"):
        _infer(const_info([3]), const_info(0.0, "f32"), bound)


def test_random_uniform_reports_an_output_type_it_cannot_draw():
    with pytest.raises(IRError, match="output_type u8 is not a floating-point type, i32 or i64"):
        bare_op(RandomUniform, {"output_type": "u8"})


def test_random_uniform_refuses_to_draw_float8():
    op = bare_op(RandomUniform, {"output_type": "f8e4m3"})
    with pytest.raises(ValueError, match="OpenVINO draws no f8e4m3 numbers"):
        op.evaluate([np.array([2]), np.float32(0), np.float32(1)])
