"""GridSample-9: shapes against OpenVINO, values against the CPU plugin in f32 for every mode,
padding mode and align_corners (the module's tolerance), reported errors."""

from __future__ import annotations

import numpy as np
import openvino.opset9 as opset9
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.helpers.openvino_oracle import (
    check_rejected,
    check_shapes,
    model_of,
    parameter,
    run_irrun,
    run_openvino,
)
from tests.helpers.strategies import (
    built,
    diagnostic,
    dim_text,
    edited_report,
    op_settings,
    shape_text,
)

TOL = {"rtol": 1e-5, "atol": 1e-5}
MODES = ["bilinear", "bicubic", "nearest"]
PADDINGS = ["zeros", "border", "reflection"]


def _attrs(align, mode, padding):
    return {"align_corners": align, "mode": mode, "padding_mode": padding}


@op_settings(40)
@given(shape_text(dim_text(st.integers(1, 4)), min_rank=4, max_rank=4),
       shape_text(dim_text(st.integers(1, 4)), min_rank=4, max_rank=4),
       st.sampled_from([None, "2", "?"]), st.booleans(), st.sampled_from(MODES),
       st.sampled_from(["f32", "f16", "i32"]))  # fmt: skip
def test_grid_sample_shapes_match_openvino(data, grid, last, align, mode, etype):
    if last is not None and grid != "[...]":
        grid = grid.rsplit(",", 1)[0] + f",{last}]"
    node = built(lambda: opset9.grid_sample(parameter(data, etype), parameter(grid),
                                            _attrs(align, mode, "zeros")))  # fmt: skip
    check_shapes(node)


def _grid(shape, seed):
    """Points in [-1.3, 1.3] (some outside the image), kept away from pixel boundaries."""
    rng = np.random.default_rng(seed)
    return rng.uniform(-1.3, 1.3, shape).astype(np.float32)


@pytest.mark.parametrize("padding", PADDINGS)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("align", [False, True])
def test_grid_sample_matches_cpu_plugin(align, mode, padding):
    data = np.random.default_rng(0).uniform(-1, 1, (2, 3, 5, 6)).astype(np.float32)
    grid = _grid([2, 4, 7, 2], 1)
    model = model_of(opset9.grid_sample(parameter([2, 3, 5, 6], name="x"),
                                        parameter([2, 4, 7, 2], name="g"),
                                        _attrs(align, mode, padding)))  # fmt: skip
    feed = {"x": data, "g": grid}
    expected = run_openvino(model, feed)[0]
    got = run_irrun(model, feed)[0]
    assert got.dtype == expected.dtype and got.shape == expected.shape == (2, 3, 4, 7)
    np.testing.assert_allclose(got, expected, **TOL)


def test_grid_sample_of_a_single_pixel_row():
    """H = 1: align_corners maps every y to row 0; reflection's period is 1."""
    data = np.arange(6, dtype=np.float32).reshape(1, 1, 1, 6)
    grid = _grid([1, 3, 3, 2], 2)
    for padding in PADDINGS:
        model = model_of(opset9.grid_sample(parameter([1, 1, 1, 6], name="x"),
                                            parameter([1, 3, 3, 2], name="g"),
                                            _attrs(True, "bilinear", padding)))  # fmt: skip
        feed = {"x": data, "g": grid}
        np.testing.assert_allclose(run_irrun(model, feed)[0], run_openvino(model, feed)[0], **TOL)


def test_grid_sample_errors_are_reported():
    a = _attrs(False, "bilinear", "zeros")
    check_rejected(lambda: opset9.grid_sample(parameter([2, 3, 5, 6]), parameter([3, 4, 7, 2]), a))
    check_rejected(lambda: opset9.grid_sample(parameter([2, 3, 5, 6]), parameter([2, 4, 7, 3]), a))
    check_rejected(lambda: opset9.grid_sample(parameter([2, 3, 5]), parameter([2, 4, 7, 2]), a))
    check_rejected(lambda: opset9.grid_sample(parameter([2, 3, 5, 6]),
                                              parameter([2, 4, 7, 2], "i32"), a))  # fmt: skip
    model = model_of(opset9.grid_sample(parameter([2, 3, 5, 6], name="x"),
                                        parameter([2, 4, 7, 2], name="g"), a))  # fmt: skip
    report, _ = edited_report(model, lambda t: t.replace('mode="bilinear"', 'mode="linear"'))
    found = diagnostic(report, "attribute-value")
    assert "mode='linear' is not one of bilinear, bicubic, nearest" in found.message

    def batch_3(text):
        return text.replace('shape="2,4,7,2"', 'shape="3,4,7,2"').replace(
            "<dim>2</dim>\n\t\t\t\t\t<dim>4</dim>", "<dim>3</dim>\n\t\t\t\t\t<dim>4</dim>"
        )

    report, _ = edited_report(model, batch_3)
    found = diagnostic(report, "input-dims")
    assert "the data's batch 2 and the grid's 3 differ" in found.message
