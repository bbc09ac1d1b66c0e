"""BatchToSpace-2 and SpaceToBatch-2: shapes against OpenVINO (constants, unknown values,
intervals), kernels against the CPU plugin (exact), reported errors."""

from __future__ import annotations

import numpy as np
import openvino.opset2 as opset2
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.helpers.ir_text import Net, line_of
from tests.helpers.openvino_oracle import (
    check_rejected,
    check_shapes,
    constant,
    model_of,
    parameter,
    run_irrun,
    run_openvino,
)
from tests.helpers.strategies import built, dim_text, op_settings, shape_text, validated

BUILD = {"BatchToSpace": opset2.batch_to_space, "SpaceToBatch": opset2.space_to_batch}


@op_settings(40)
@given(st.sampled_from(sorted(BUILD)),
       shape_text(dim_text(st.sampled_from([1, 2, 3, 4, 6, 8, 12])), min_rank=2, max_rank=4),
       st.data(), st.sampled_from(["const", "const", "param"]), st.booleans())  # fmt: skip
def test_shapes_match_openvino(op_type, shape, data, kind, crops_known):
    rank = 3 if shape == "[...]" else shape.count(",") + 1
    blocks = [1] + data.draw(st.lists(st.integers(1, 3), min_size=rank - 1, max_size=rank - 1))
    begin = [0] + data.draw(st.lists(st.integers(0, 2), min_size=rank - 1, max_size=rank - 1))
    end = [0] + data.draw(st.lists(st.integers(0, 2), min_size=rank - 1, max_size=rank - 1))
    x = parameter(shape, name="x")
    block = constant(blocks, "i64") if kind == "const" else parameter([rank], "i64", name="b")
    crops = [constant(v, "i64") if crops_known else parameter([rank], "i64", name=f"c{i}")
             for i, v in enumerate((begin, end))]  # fmt: skip
    check_shapes(built(lambda: BUILD[op_type](x, block, *crops)))


@pytest.mark.parametrize("shape, blocks, begin, end, expected", [
    ("[4..17,3..5,?]", [1, 2, 2], [0, 1, 0], [0, 0, 2], "[1..4,5..9,?]"),
    ("[8,2..3,4]", [1, 2, 2], [0, 4, 0], [0, 3, 2], "[2,0,6]"),
    ("[4..,3,4]", [1, 2, 2], [0, 1, 0], [0, 0, 2], "[1..2305843009213693952,5,6]"),
    ("[8,3,4]", [2, 2, 2], [0, 0, 0], [0, 0, 0], "[1,6,8]"),
])  # fmt: skip
def test_batch_to_space_partial_shapes(shape, blocks, begin, end, expected):
    node = opset2.batch_to_space(parameter(shape, name="x"), constant(blocks, "i64"),
                                 constant(begin, "i64"), constant(end, "i64"))  # fmt: skip
    check_shapes(node)
    assert str(node.get_output_partial_shape(0)) == expected


@pytest.mark.parametrize("shape, blocks, begin, end, expected", [
    ("[2..3,3..5,?]", [1, 2, 2], [0, 1, 0], [0, 0, 2], "[8..12,2..3,1..]"),
    ("[1..,1..2,2..]", [1, 3, 2], [0, 1, 0], [0, 0, 2], "[6..,1,2..]"),
    ("[2,3,4]", [1, 2, 4], [0, -1, 0], [0, 0, 4], "[16,2..,2]"),  # a pad sum of -1 adds ?
    ("[2,4,4]", [0, 2, 4], [0, 0, 0], [0, 0, 0], "[0,2,1]"),
])  # fmt: skip
def test_space_to_batch_partial_shapes(shape, blocks, begin, end, expected):
    node = opset2.space_to_batch(parameter(shape, name="x"), constant(blocks, "i64"),
                                 constant(begin, "i64"), constant(end, "i64"))  # fmt: skip
    check_shapes(node)
    assert str(node.get_output_partial_shape(0)) == expected


CASES = [
    ([1, 2, 2], [0, 0, 1], [0, 0, 0], [2, 3]),
    ([1, 3], [0, 2], [0, 1], [3]),
    ([1, 2, 1, 2], [0, 1, 0, 0], [0, 0, 0, 1], [3, 2, 3]),
]


@pytest.mark.parametrize("etype", ["f32", "i32"])
@pytest.mark.parametrize("blocks, begin, end, spatial", CASES)
def test_kernels_match_cpu_plugin(blocks, begin, end, spatial, etype):
    dtype = np.float32 if etype == "f32" else np.int32
    shape = [2] + spatial
    data = np.arange(np.prod(shape)).astype(dtype).reshape(shape)
    consts = [constant(v, "i64") for v in (blocks, begin, end)]
    model = model_of(opset2.space_to_batch(parameter(shape, etype, name="x"), *consts))
    expected = run_openvino(model, {"x": data})[0]
    got = run_irrun(model, {"x": data})[0]
    np.testing.assert_array_equal(got, expected)
    model = model_of(opset2.batch_to_space(parameter(got.shape, etype, name="x"), *consts))
    back = run_irrun(model, {"x": got})[0]
    np.testing.assert_array_equal(back, run_openvino(model, {"x": got})[0])
    np.testing.assert_array_equal(back, data)  # cropping what was padded gives the data back


def _net(op_type, shape, blocks, first, second):
    net = Net()
    x = net.param("x", shape)
    consts = [net.const(n, np.array(v, np.int64)) for n, v in zip("bce", (blocks, first, second))]
    net.result(net.op("s", op_type, "opset2", None, [x, *consts], [1, 1]))
    return net


@pytest.mark.parametrize("op_type, shape, blocks, first, second, code, fragment, port", [
    ("BatchToSpace", "6,3", [1, 4], [0, 0], [0, 0], "input-value",
     "the batch 6 must be a multiple of prod(block_shape [1, 4]) = 4", 0),
    ("BatchToSpace", "8,3", [1, 2], [0, 4], [0, 3], "input-value", "crops 4 + 3 = 7 exceed", 2),
    ("BatchToSpace", "8,3", [1, 0], [0, 0], [0, 0], "input-value", "must be 1 or more", 1),
    ("BatchToSpace", "8,3", [1, 2], [0, -1], [0, 0], "input-value", "must be 0 or more", 2),
    ("BatchToSpace", "8,3,2", [1, 2], [0, 0], [0, 0], "input-dims", "have 2 elements, but", 1),
    ("SpaceToBatch", "2,3", [1, 2], [0, 0], [0, 0], "input-value",
     "the padded dim 3 + 0 + 0 = 3 must be a multiple of its block 2", 0),
    ("SpaceToBatch", "2,4", [1, 0], [0, 0], [0, 0], "input-value", "axis 1 has 0", 1),
    ("SpaceToBatch", "4", [1], [0], [0], "input-rank", "must have rank 2 or more", 0),
])  # fmt: skip
def test_refusals_are_reported(op_type, shape, blocks, first, second, code, fragment, port):
    dims = [int(d) for d in shape.split(",")]
    consts = [constant(v, "i64") for v in (blocks, first, second)]
    check_rejected(lambda: BUILD[op_type](parameter(dims), *consts))
    net = _net(op_type, shape, blocks, first, second)
    (error,) = validated(net).errors
    assert error.code == code and fragment in error.message, error.message
    assert error.line == line_of(net.text(), f'<port id="{port}"', within="s")


def test_float_blocks_are_reported():
    check_rejected(lambda: opset2.batch_to_space(parameter([4, 2]), constant([1.0, 2.0], "f32"),
                                                 constant([0, 0], "f32"),
                                                 constant([0, 0], "f32")))  # fmt: skip
    net = Net()
    x = net.param("x", "4,2")
    consts = [
        net.const(n, np.array(v, np.float32)) for n, v in zip("bce", ([1, 2], [0, 0], [0, 0]))
    ]
    net.result(net.op("s", "BatchToSpace", "opset2", None, [x, *consts], [2, 4]))
    (error,) = validated(net).errors
    assert error.code == "index-type" and "block_shape must be an integer tensor" in error.message


def test_kernels_refuse_inputs_that_do_not_divide():
    from irrun.ops.batch_to_space import BatchToSpace
    from irrun.ops.space_to_batch import SpaceToBatch
    from tests.helpers.strategies import bare_op

    zeros = np.zeros((3, 4), np.float32)
    blocks, none = np.array([1, 2]), np.array([0, 0])
    with pytest.raises(ValueError, match=r"the batch 3 of data \[3, 4\] is no multiple"):
        bare_op(BatchToSpace, {}).evaluate([zeros, blocks, none, none])
    with pytest.raises(ValueError, match=r"the padded dims \[5\] of data \[3, 4\] must divide"):
        bare_op(SpaceToBatch, {}).evaluate([zeros, blocks, np.array([0, 1]), none])
