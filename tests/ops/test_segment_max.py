"""SegmentMax-16: shapes against OpenVINO (constant, unknown and ShapeOf-read segment counts),
values against the CPU plugin (exact, both fill modes), reported errors."""

from __future__ import annotations

import numpy as np
import openvino as ov
import openvino.opset1 as opset1
import openvino.opset3 as opset3
import openvino.opset16 as opset16
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
from tests.helpers.strategies import built, diagnostic, dim_around, edited_report, op_settings


@op_settings(40)
@given(st.data(), st.integers(1, 6), st.integers(0, 2),
       st.sampled_from(["none", "constant", "unknown", "shape_of"]), st.booleans(),
       st.sampled_from(["ZERO", "LOWEST"]), st.sampled_from(["i32", "i64"]))  # fmt: skip
def test_segment_max_shapes_match_openvino(data, rows, extra, count_kind, ids_known, fill, itype):
    ids = sorted(data.draw(st.lists(st.integers(0, 5), min_size=rows, max_size=rows)))
    dims = [data.draw(dim_around(rows))] + [data.draw(dim_around(3)) for _ in range(extra)]
    x = parameter("[" + ",".join(dims) + "]", name="x")
    params = [x]
    if ids_known:
        id_node = constant(np.array(ids), itype)
    else:
        id_node = parameter([data.draw(dim_around(rows))], itype, name="ids")
        params.append(id_node)
    if count_kind == "none":
        count = None
    elif count_kind == "constant":
        count = constant(np.array(data.draw(st.integers(0, 8))), itype)
    elif count_kind == "unknown":
        count = parameter([], itype, name="count")
        params.append(count)
    else:
        y = parameter(f"[{data.draw(dim_around(4))}]", name="y")
        params.append(y)
        count = opset1.squeeze(opset3.shape_of(y, itype), constant(np.int64(0)))
    node = built(lambda: opset16.segment_max(x, id_node, count, fill))
    check_shapes(ov.Model(node.outputs(), params, "oracle"))


@pytest.mark.parametrize("fill", ["ZERO", "LOWEST"])
@pytest.mark.parametrize("etype, dtype", [("f32", np.float32), ("i32", np.int32), ("u8", np.uint8)])
@pytest.mark.parametrize(
    "ids, count", [([0, 0, 2, 5, 5], 4), ([0, 1, 1, 3, 3], None), ([1, 1, 1, 1, 1], 7)]
)
def test_segment_max_matches_cpu_plugin(ids, count, etype, dtype, fill):
    data = np.random.default_rng(0).integers(0, 100, (5, 2, 3)).astype(dtype)
    count_node = None if count is None else constant(np.int64(count))
    model = model_of(opset16.segment_max(parameter([5, 2, 3], etype, name="x"),
                                         constant(np.array(ids)), count_node, fill))  # fmt: skip
    expected = run_openvino(model, {"x": data})[0]
    got = run_irrun(model, {"x": data})[0]
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)


def test_segment_max_errors_are_reported():
    x = parameter([5, 3], name="x")
    check_rejected(
        lambda: opset16.segment_max(x, constant(np.array([0, 2, 1, 3, 3])), None, "ZERO")
    )
    check_rejected(lambda: opset16.segment_max(x, parameter([4], "i32"), None, "ZERO"))
    check_rejected(lambda: opset16.segment_max(x, parameter([5], "u8"), None, "ZERO"))
    check_rejected(lambda: opset16.segment_max(parameter([]), parameter([4], "i32"), None, "ZERO"))
    one_element = constant(np.array([3], np.int32))
    check_rejected(lambda: opset16.segment_max(x, parameter([5], "i32"), one_element, "ZERO"))
    model = model_of(opset16.segment_max(x, constant(np.array([0, 0, 1, 3, 3])), None, "ZERO"))
    report, _ = edited_report(model, lambda t: t.replace('fill_mode="zero"', 'fill_mode="max"'))
    found = diagnostic(report, "attribute-value")
    assert "fill_mode='max' is not one of ZERO, LOWEST" in found.message
