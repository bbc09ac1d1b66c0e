"""Identity-16: shapes and types against OpenVINO, values against the CPU plugin (exact), and
a constant folded through it."""

from __future__ import annotations

import numpy as np
import openvino.opset1 as opset1
import openvino.opset3 as opset3
import openvino.opset16 as opset16
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.helpers.openvino_oracle import (
    check_shapes,
    constant,
    model_of,
    parameter,
    run_irrun,
    run_openvino,
)
from tests.helpers.strategies import op_settings, shape_text


@op_settings(20)
@given(shape_text(), st.sampled_from(["f32", "i64", "boolean", "u8", "f16", "string"]))
def test_identity_shapes_match_openvino(shape, etype):
    check_shapes(opset16.identity(parameter(shape, etype)))


@pytest.mark.parametrize("etype, dtype", [("f32", np.float32), ("i8", np.int8), ("boolean", bool)])
def test_identity_matches_cpu_plugin(etype, dtype):
    data = (np.arange(24).reshape(2, 3, 4) % 5).astype(dtype)
    model = model_of(opset16.identity(parameter([2, 3, 4], etype, name="x")))
    expected = run_openvino(model, {"x": data})[0]
    got = run_irrun(model, {"x": data})[0]
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


def test_identity_passes_no_value_on():
    """OpenVINO does not see through Identity: a Reshape to it has unknown dims."""
    x = parameter("[?,4]", name="x")
    target = opset16.identity(opset3.shape_of(x))
    node = opset1.reshape(parameter("[?,2,2]", name="y"), target, False)
    assert str(node.get_output_partial_shape(0)) == "[?,?]"
    check_shapes(node)
    folded = opset1.reshape(parameter([2, 6]), opset16.identity(constant(np.array([3, 4]))), False)
    loaded = check_shapes(folded, narrower=("Reshape",))  # irrun folds the constant
    assert str(loaded.layers[-2].outputs[0].inferred_shape) == "[3,4]"
