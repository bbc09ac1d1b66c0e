"""Col2Im-15: shapes against OpenVINO (constant, unknown and ShapeOf-read sizes), values
against the CPU plugin, reported errors."""

from __future__ import annotations

import numpy as np
import openvino as ov
import openvino.opset3 as opset3
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
    first_line_with,
    op_settings,
)

PAIR = st.lists(st.integers(1, 3), min_size=2, max_size=2)


def _blocks(size, kernel, strides, dilations, pads_begin, pads_end):
    count = 1
    for d in range(2):
        padded = size[d] + pads_begin[d] + pads_end[d]
        count *= (padded - dilations[d] * (kernel[d] - 1) - 1) // strides[d] + 1
    return count


@op_settings(40)
@given(st.data(), st.booleans(), st.integers(1, 3), PAIR, PAIR, PAIR,
       st.sampled_from(["constant", "unknown", "shape_of"]), st.booleans(),
       st.sampled_from(["i32", "i64"]))  # fmt: skip
def test_col2im_shapes_match_openvino(data, batched, c, kernel, strides, dilations, size_kind,
                                      kernel_known, itype):  # fmt: skip
    pads_begin = data.draw(st.lists(st.integers(0, 2), min_size=2, max_size=2))
    pads_end = data.draw(st.lists(st.integers(0, 2), min_size=2, max_size=2))
    size = [data.draw(st.integers(8, 12)) for _ in range(2)]
    blocks = _blocks(size, kernel, strides, dilations, pads_begin, pads_end)
    dims = ([data.draw(dim_around(2))] if batched else []) + [
        data.draw(dim_around(c * kernel[0] * kernel[1])),
        data.draw(dim_around(blocks)),
    ]
    x = parameter("[" + ",".join(dims) + "]", name="x")
    params = [x]
    if size_kind == "constant":
        output_size = constant(np.array(size), itype)
    elif size_kind == "unknown":
        output_size = parameter([2], itype, name="size")
        params.append(output_size)
    else:
        y = parameter(f"[{data.draw(dim_around(size[0]))},{size[1]}]", name="y")
        params.append(y)
        output_size = opset3.shape_of(y, itype)
    if kernel_known:
        kernel_node = constant(np.array(kernel), itype)
    else:
        kernel_node = parameter([2], itype, name="kernel")
        params.append(kernel_node)
    node = built(lambda: opset15.col2im(x, output_size, kernel_node, strides, dilations,
                                        pads_begin, pads_end))  # fmt: skip
    check_shapes(ov.Model(node.outputs(), params, "oracle"))


@pytest.mark.parametrize(
    "batch, c, size, kernel, strides, dilations, pads_begin, pads_end",
    [
        (2, 3, [4, 4], [2, 2], [1, 1], [1, 1], [0, 0], [0, 0]),
        (None, 2, [6, 7], [3, 2], [2, 1], [1, 2], [1, 0], [0, 2]),
        (1, 1, [6, 6], [2, 2], [2, 2], [2, 2], [1, 1], [1, 1]),
        (3, 2, [5, 9], [1, 3], [1, 3], [1, 1], [0, 1], [0, 1]),
    ],
)
@pytest.mark.parametrize("etype, dtype", [("f32", np.float32), ("i32", np.int32)])
def test_col2im_matches_cpu_plugin(batch, c, size, kernel, strides, dilations, pads_begin,
                                   pads_end, etype, dtype):  # fmt: skip
    blocks = _blocks(size, kernel, strides, dilations, pads_begin, pads_end)
    shape = ([batch] if batch else []) + [c * kernel[0] * kernel[1], blocks]
    values = np.random.default_rng(0).uniform(-3, 3, shape)
    data = (np.rint(values) if etype == "i32" else values).astype(dtype)
    model = model_of(opset15.col2im(parameter(shape, etype, name="x"), constant(np.array(size)),
                                    constant(np.array(kernel)), strides, dilations, pads_begin,
                                    pads_end))  # fmt: skip
    expected = run_openvino(model, {"x": data})[0]
    got = run_irrun(model, {"x": data})[0]
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)


def test_col2im_errors_are_reported():
    size, kernel = constant(np.array([4, 4])), constant(np.array([2, 2]))
    check_rejected(lambda: opset15.col2im(parameter([12, 8]), size, kernel))
    check_rejected(lambda: opset15.col2im(parameter([13, 9]), size, kernel))
    check_rejected(lambda: opset15.col2im(parameter([12]), size, kernel))
    check_rejected(
        lambda: opset15.col2im(parameter([12, 9]), constant(np.array([4, 4, 1])), kernel)
    )
    check_rejected(
        lambda: opset15.col2im(parameter([12, 9]), size, constant(np.array([2, 2], np.int32)))
    )
    check_rejected(lambda: opset15.col2im(parameter([12, 9]), size, kernel, [0, 1]))
    model = model_of(opset15.col2im(parameter([12, 9], name="x"), size, kernel))

    def eight_blocks(text):
        return text.replace('shape="12,9"', 'shape="12,8"').replace("<dim>9</dim>", "<dim>8</dim>")

    report, text = edited_report(model, eight_blocks)
    found = diagnostic(report, "input-dims")
    assert "make 9 blocks, but the data has 8 (its last dim)" in found.message
    report, text = edited_report(model, lambda t: t.replace('strides="1, 1"', 'strides="0, 1"'))
    found = diagnostic(report, "attribute-value")
    assert "strides=0,1 must be two values >= 1" in found.message
    assert found.line == first_line_with(text, 'strides="0, 1"')
