"""Reverse-1: no ``openvino.opsetN`` builds it, so the tests write the IR by hand and read it
with OpenVINO's ``read_model`` (which knows Reverse in opset1 only): shapes against what
OpenVINO infers, the kernel against the CPU plugin (exact), reported errors."""

from __future__ import annotations

import tempfile

import numpy as np
import openvino as ov
import pytest

from irrun.ops.reverse import Reverse
from tests.helpers.ir_text import Net, line_of
from tests.helpers.openvino_oracle import check_shapes, run_irrun, run_openvino
from tests.helpers.strategies import bare_op, validated


def _net(shape, axes, mode, opset="opset1", etype="f32"):
    net = Net()
    x = net.param("x", shape, etype)
    a = net.const("a", np.asarray(axes))
    dims = [int(d) if d.isdigit() else -1 for d in shape.split(",")] if shape else []
    net.result(net.op("r", "Reverse", opset, {"mode": mode}, [x, a], dims))
    return net


def _openvino_model(net):
    with tempfile.TemporaryDirectory() as tmp:
        with open(f"{tmp}/m.xml", "w") as f:
            f.write(net.text())
        with open(f"{tmp}/m.bin", "wb") as f:
            f.write(bytes(net.blob))
        return ov.Core().read_model(f"{tmp}/m.xml")


CASES = [
    ("2,3,4", np.array([0, 2], np.int64), "index"),
    ("2,3,4", np.array([-1], np.int32), "index"),  # negative: passes validation, normalised
    ("2,3,4", np.array([1, 1], np.int64), "index"),
    ("2,3,4", np.array([True, False, True]), "mask"),
    ("5", np.array([False]), "mask"),
]


@pytest.mark.parametrize("etype", ["f32", "i32", "u8"])
@pytest.mark.parametrize("shape, axes, mode", CASES)
def test_shapes_and_kernel_match_openvino(shape, axes, mode, etype):
    model = _openvino_model(_net(shape, axes, mode, etype=etype))
    check_shapes(model)
    dims = [int(d) for d in shape.split(",")]
    data = np.arange(np.prod(dims)).reshape(dims).astype(np.dtype(
        {"f32": np.float32, "i32": np.int32, "u8": np.uint8}[etype]))  # fmt: skip
    got, expected = run_irrun(model, {"x": data})[0], run_openvino(model, {"x": data})[0]
    np.testing.assert_array_equal(got, expected)


def test_dynamic_shapes_are_kept():
    for shape in ("2,?,4", "?,?"):
        model = _openvino_model(_net(shape, np.array([1], np.int64), "index"))
        check_shapes(model)


def test_later_opsets_are_refused_as_openvino_refuses_them():
    net = _net("2,3", np.array([1], np.int64), "index", opset="opset8")
    with pytest.raises(RuntimeError, match="doesn't contain"):
        _openvino_model(net)
    (error,) = validated(net).errors
    assert error.code == "not-in-opset" and "only in opset1, not in opset8" in error.message


@pytest.mark.parametrize("shape, axes, mode, code, fragment", [
    ("2,3", np.array([2], np.int64), "index", "axis-range", "axes [2] go beyond the data rank 2"),
    ("2,3", np.array([True]), "mask", "input-dims", "the mask has 1 elements, but the data"),
    ("2,3", np.array([1], np.int64), "mask", "index-type", "must be boolean, but it is i64"),
    ("2,3", np.array([1.0], np.float32), "index", "index-type", "must be integer"),
])  # fmt: skip
def test_refusals_are_reported(shape, axes, mode, code, fragment):
    net = _net(shape, axes, mode)
    with pytest.raises(RuntimeError):
        _openvino_model(net).validate_nodes_and_infer_types()
    (error,) = validated(net).errors
    assert error.code == code and fragment in error.message, error.message
    assert error.line == line_of(net.text(), '<port id="1"', within="r")


def test_no_axes_copy_the_data():
    """(OpenVINO's read_model cannot read the empty Const such a layer needs.)"""
    data = np.arange(6).reshape(2, 3)
    (got,) = bare_op(Reverse, {"mode": "index"}).evaluate([data, np.zeros(0, np.int64)])
    np.testing.assert_array_equal(got, data)


def test_kernel_refuses_an_axis_out_of_range():
    op = bare_op(Reverse, {"mode": "index"})
    with pytest.raises(ValueError, match=r"axes \[-3\] are out of the range \[-2, 1\]"):
        op.evaluate([np.zeros((2, 2)), np.array([-3])])
