"""SearchSorted-15: shapes against OpenVINO, values against the CPU plugin (exact, ties and
values outside the sequence), the i32 output_type, reported errors."""

from __future__ import annotations

import tempfile

import numpy as np
import openvino as ov
import openvino.opset15 as opset15
import pytest
from hypothesis import given
from hypothesis import strategies as st

import irrun
from tests.helpers.openvino_oracle import (
    check_rejected,
    check_shapes,
    model_of,
    parameter,
    run_irrun,
    run_openvino,
    save,
)
from tests.helpers.strategies import (
    built,
    diagnostic,
    dim_text,
    edited_report,
    first_line_with,
    op_settings,
    shape_text,
)

DIM = dim_text(st.integers(1, 4))


@op_settings(40)
@given(shape_text(DIM, max_rank=3), shape_text(DIM, max_rank=3), st.booleans(),
       st.sampled_from(["f32", "i32", "i64", "f16"]))  # fmt: skip
def test_search_sorted_shapes_match_openvino(sequence, values, right_mode, etype):
    node = built(lambda: opset15.search_sorted(parameter(sequence, etype),
                                               parameter(values, etype), right_mode))  # fmt: skip
    check_shapes(node)


@pytest.mark.parametrize("right_mode", [False, True])
@pytest.mark.parametrize(
    "sequence, values",
    [([7], [3, 5]), ([2, 3, 6], [2, 3, 4]), ([4, 5], [4, 9]), ([9], [])],
)
def test_search_sorted_matches_cpu_plugin(sequence, values, right_mode):
    rng = np.random.default_rng(0)
    seq = np.sort(rng.integers(0, 6, sequence), axis=-1).astype(np.float32)
    vals = rng.integers(-1, 8, values).astype(np.float32)
    model = model_of(opset15.search_sorted(parameter(sequence, name="s"),
                                           parameter(values, name="v"), right_mode))  # fmt: skip
    expected = run_openvino(model, {"s": seq, "v": vals})[0]
    got = run_irrun(model, {"s": seq, "v": vals})[0]
    assert got.dtype == expected.dtype == np.int64 and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)


def _model():
    return model_of(opset15.search_sorted(parameter([2, 5], name="s"), parameter([2, 3], name="v")))


def test_search_sorted_i32_output_runs():
    """``output_type="i32"`` (the Python constructor has no argument for it: the IR is edited)."""
    seq = np.array([[1, 2, 2, 4, 8], [0, 0, 1, 1, 1]], np.float32)
    vals = np.array([[2, 9, 0], [1, -1, 0.5]], np.float32)
    with tempfile.TemporaryDirectory() as tmp:
        path = save(_model(), tmp)
        path.write_text(path.read_text().replace('output_type="i64"', 'output_type="i32"')
                        .replace('precision="I64"', 'precision="I32"'))  # fmt: skip
        expected = ov.Core().compile_model(path, "CPU")({"s": seq, "v": vals})[0]
        (got,) = irrun.load(path).run({"s": seq, "v": vals}).values()
    assert got.dtype == expected.dtype == np.int32
    assert got.tolist() == expected.tolist() == [[1, 5, 0], [2, 0, 2]]


def test_search_sorted_errors_are_reported():
    check_rejected(lambda: opset15.search_sorted(parameter([]), parameter([2])))
    check_rejected(lambda: opset15.search_sorted(parameter([2, 5]), parameter([3])))
    check_rejected(lambda: opset15.search_sorted(parameter([2, 4, 5]), parameter([2, 3, 4])))
    check_rejected(lambda: opset15.search_sorted(parameter([5], "i32"), parameter([3])))
    report, text = edited_report(_model(), lambda t: t.replace("<dim>3</dim>", "<dim>3</dim>")
                                 .replace('shape="2,3"', 'shape="4,3"').replace(
                                     "<dim>2</dim>\n\t\t\t\t\t<dim>3</dim>",
                                     "<dim>4</dim>\n\t\t\t\t\t<dim>3</dim>"))  # fmt: skip
    found = diagnostic(report, "input-dims")
    assert "differ in dim 0 (2 and 4); all dims but the last must match" in found.message
    report, text = edited_report(_model(), lambda t: t.replace('output_type="i64"',
                                                               'output_type="u8"'))  # fmt: skip
    found = diagnostic(report, "attribute-value")
    assert "output_type u8 is not i32 or i64" in found.message
    assert found.line == first_line_with(text, "output_type=")
