"""SliceScatter-15: shapes against OpenVINO (constant and unknown bounds, steps, axes),
values against the CPU plugin (exact), reported errors."""

from __future__ import annotations

import numpy as np
import openvino as ov
import openvino.opset15 as opset15
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.helpers.openvino_oracle import (
    check_rejected,
    check_shapes,
    constant,
    model_of,
    parameter,
    run_irrun,
    run_openvino,
)
from tests.helpers.strategies import (
    built,
    diagnostic,
    dim_around,
    edited_report,
    op_settings,
)


def _sliced(size, start, stop, step):
    return len(range(*slice(start, stop, step).indices(size)))


@op_settings(40)
@given(st.data(), st.lists(st.integers(1, 6), min_size=1, max_size=3), st.booleans(),
       st.booleans(), st.booleans())  # fmt: skip
def test_slice_scatter_shapes_match_openvino(data, sizes, bounds_known, axes_given, dynamic):
    rank = len(sizes)
    count = data.draw(st.integers(1, rank))
    axes = data.draw(st.permutations(range(rank)))[:count]
    starts = [data.draw(st.integers(-sizes[a], sizes[a])) for a in axes]
    stops = [data.draw(st.integers(-sizes[a], sizes[a] + 1)) for a in axes]
    steps = [data.draw(st.sampled_from([1, 2, -1, 3])) for _ in axes]
    if not axes_given:
        axes = list(range(count))
        starts = [data.draw(st.integers(-sizes[a], sizes[a])) for a in axes]
        stops = [data.draw(st.integers(-sizes[a], sizes[a] + 1)) for a in axes]
    slice_shape = list(sizes)
    for a, b, e, s in zip(axes, starts, stops, steps):
        slice_shape[a] = _sliced(sizes[a], b, e, s)
    data_shape = "[" + ",".join(data.draw(dim_around(s)) for s in sizes) + "]"
    updates_shape = "[" + ",".join(data.draw(dim_around(s)) for s in slice_shape) + "]"
    if dynamic:
        data_shape = data.draw(st.sampled_from(["[...]", data_shape]))
    x, u = parameter(data_shape, name="x"), parameter(updates_shape, name="u")
    params = [x, u]
    if bounds_known:
        start = constant(np.array(starts))
    else:
        start = parameter([count], "i64", name="start")
        params.append(start)
    args = [x, u, start, constant(np.array(stops)), constant(np.array(steps))]
    if axes_given:
        args.append(constant(np.array(axes)))
    node = built(lambda: opset15.slice_scatter(*args))
    check_shapes(ov.Model(node.outputs(), params, "oracle"))


@pytest.mark.parametrize(
    "shape, start, stop, step, axes",
    [
        ([4, 6], [1], [3], [1], None),
        ([4, 6], [0], [6], [2], [1]),
        ([3, 5, 4], [-1, 4], [-4, 0], [-1, -2], [0, 1]),
        ([5], [-100], [100], [3], [0]),
    ],  # fmt: skip
)
@pytest.mark.parametrize("etype, dtype", [("f32", np.float32), ("i64", np.int64)])
def test_slice_scatter_matches_cpu_plugin(shape, start, stop, step, axes, etype, dtype):
    data = np.arange(int(np.prod(shape))).reshape(shape).astype(dtype)
    index = [slice(None)] * len(shape)
    for i, axis in enumerate(axes or range(len(start))):
        index[axis] = slice(start[i], stop[i], step[i])
    updates_shape = list(data[tuple(index)].shape)
    updates = (-np.arange(int(np.prod(updates_shape))) - 1).reshape(updates_shape).astype(dtype)
    bounds = [constant(np.array(v)) for v in (start, stop, step)]
    args = [parameter(shape, etype, name="x"), parameter(updates_shape, etype, name="u"), *bounds]
    if axes is not None:
        args.append(constant(np.array(axes)))
    model = model_of(opset15.slice_scatter(*args))
    expected = run_openvino(model, {"x": data, "u": updates})[0]
    got = run_irrun(model, {"x": data, "u": updates})[0]
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


def test_slice_scatter_errors_are_reported():
    c = lambda v: constant(np.array(v))  # noqa: E731
    x = parameter([4, 6], name="x")
    check_rejected(lambda: opset15.slice_scatter(x, parameter([3, 6]), c([1]), c([3]), c([1])))
    check_rejected(lambda: opset15.slice_scatter(x, parameter([2]), c([1]), c([3]), c([1])))
    check_rejected(lambda: opset15.slice_scatter(x, parameter([4, 3]), c([0]), c([6]), c([0]),
                                                 c([1])))  # fmt: skip
    check_rejected(lambda: opset15.slice_scatter(parameter([]), parameter([]), c([0]), c([6]),
                                                 c([2])))  # fmt: skip
    model = model_of(opset15.slice_scatter(x, parameter([2, 6], name="u"), c([1]), c([3]), c([1])))

    def three_rows(text):
        return text.replace('shape="2,6"', 'shape="3,6"').replace(
            "<dim>2</dim>\n\t\t\t\t\t<dim>6</dim>", "<dim>3</dim>\n\t\t\t\t\t<dim>6</dim>"
        )

    report, _ = edited_report(model, three_rows)
    found = diagnostic(report, "input-dims")
    assert "updates [3,6] do not fit the slice [2,6] of data [4,6] (dim 0: 3, the slice 2)" in (
        found.message)  # fmt: skip
