"""PriorBox-1/8 and PriorBoxClustered-1: shapes against OpenVINO (constant, ShapeOf-read and
unknown sizes), kernels against OpenVINO's reference (its constant folding: the CPU plugin
fails on PriorBox-8 with non-constant inputs), reported errors."""

from __future__ import annotations

import numpy as np
import openvino as ov
import openvino.opset1 as opset1
import openvino.opset3 as opset3
import openvino.opset8 as opset8
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irrun.element_types import element_type
from irrun.errors import IRError
from irrun.ops.base import TensorInfo
from irrun.ops.prior_box import PriorBox1, PriorBox8
from irrun.ops.prior_box_clustered import PriorBoxClustered
from irrun.shape import Shape
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
    bare_op,
    built,
    const_info,
    diagnostic,
    edited_report,
    op_settings,
    shape_around,
)

BOX_CASES = [
    {"min_size": [30.0], "max_size": [60.0], "aspect_ratio": [2.0], "flip": True, "step": 8.0,
     "offset": 0.5, "variance": [0.1, 0.1, 0.2, 0.2]},
    {"min_size": [30.0, 45.0], "max_size": [60.0, 90.0], "aspect_ratio": [2.0, 3.0],
     "flip": True, "clip": True, "offset": 0.5, "variance": [0.1]},
    {"min_size": [0.2, 0.3], "aspect_ratio": [2.0, 0.5], "offset": 0.5,
     "scale_all_sizes": False},
    {"fixed_size": [32.0], "density": [2.0], "aspect_ratio": [2.0], "offset": 0.5,
     "step": 16.0},
    {"fixed_size": [32.0, 20.0], "fixed_ratio": [2.0], "density": [2.0, 3.0], "offset": 0.5,
     "step": 16.0, "clip": True},
    {"min_size": [30.0], "max_size": [60.0], "aspect_ratio": [2.0, 3.0], "flip": True,
     "step": 8.0, "offset": 0.5, "min_max_aspect_ratios_order": False},
]  # fmt: skip
OPS = {1: (opset1, PriorBox1), 8: (opset8, PriorBox8)}
SIZES = np.array([5, 7]), np.array([80, 112])


def _layer_attributes(attributes):
    """The IR spelling of the attributes (lists comma-separated, booleans true/false)."""

    def spelled(value):
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, list):
            return ",".join(str(v) for v in value)
        return str(value)

    return {name: spelled(value) for name, value in attributes.items()}


def _reference(node_of_constants):
    """OpenVINO's reference value of a node on constants (folded when compiled)."""
    x = parameter([1], name="x")
    model = ov.Model([node_of_constants.output(0), opset1.relu(x).output(0)], [x])
    return run_openvino(model, {"x": np.zeros(1, np.float32)})[0]


VERSION_CASES = [(version, attributes) for version in (1, 8) for attributes in BOX_CASES
                 if version == 8 or "min_max_aspect_ratios_order" not in attributes]  # fmt: skip


@pytest.mark.parametrize("version, attributes", VERSION_CASES)
def test_prior_box_matches_the_reference_exactly(version, attributes):
    opset, op_class = OPS[version]
    expected = _reference(opset.prior_box(constant(SIZES[0]), constant(SIZES[1]), attributes))
    op = bare_op(op_class, _layer_attributes(attributes))
    got = op.evaluate(list(SIZES))[0]
    assert got.dtype == np.float32 and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)


def test_prior_box_1_runs_from_an_input_like_the_cpu_plugin():
    attributes = BOX_CASES[0]
    node = opset1.prior_box(parameter([2], "i64", name="s"), constant(SIZES[1]), attributes)
    feed = {"s": SIZES[0]}
    got, expected = run_irrun(model_of(node), feed)[0], run_openvino(model_of(node), feed)[0]
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)


def test_prior_box_with_miscounted_boxes_is_an_error_when_run():
    """Two fixed ratios with densities: 26 boxes a location, OpenVINO counts 24."""
    op = bare_op(PriorBox8, {"fixed_size": "32,20", "fixed_ratio": "1,2", "density": "2,3",
                             "offset": "0.5", "step": "16"})  # fmt: skip
    with pytest.raises(ValueError, match="make 26 boxes per location, but OpenVINO counts 24"):
        op.evaluate(list(SIZES))


CLUSTERED_CASES = [
    {"width": [10.0, 20.0, 30.0], "height": [15.0, 25.0, 35.0], "clip": False, "step": 16.0,
     "offset": 0.5, "variance": [0.1, 0.1, 0.2, 0.2]},
    {"width": [10.0, 20.0], "height": [15.0, 25.0], "clip": True, "offset": 0.5},
    {"width": [10.0], "height": [15.0], "step_w": 8.0, "step_h": 12.0, "offset": 0.5,
     "variance": [0.2]},
]  # fmt: skip


@pytest.mark.parametrize("attributes", CLUSTERED_CASES)
def test_prior_box_clustered_matches_the_reference_and_the_cpu_plugin(attributes):
    expected = _reference(opset1.prior_box_clustered(constant(SIZES[0]), constant(SIZES[1]),
                                                     attributes))  # fmt: skip
    names = {"width": "width", "height": "height", "step_w": "step_w", "step_h": "step_h"}
    op = bare_op(
        PriorBoxClustered, _layer_attributes({names.get(k, k): v for k, v in attributes.items()})
    )
    np.testing.assert_array_equal(op.evaluate(list(SIZES))[0], expected)
    node = opset1.prior_box_clustered(
        parameter([2], "i64", name="s"), parameter([2], "i64", name="i"), attributes
    )
    feed = {"s": SIZES[0], "i": SIZES[1]}
    got, cpu = run_irrun(model_of(node), feed)[0], run_openvino(model_of(node), feed)[0]
    np.testing.assert_allclose(got, cpu, rtol=1e-6, atol=1e-6)


@op_settings(30)
@given(st.sampled_from([1, 8, 0]), st.data(), st.sampled_from(["i64", "i32"]))
def test_prior_boxes_shapes_match_openvino(version, data, etype):
    """Sizes read by ShapeOf from a feature map of partial shape, or unknown."""
    feature = parameter(data.draw(shape_around([1, 3, 5, 7])), name="f")
    spatial = opset8.slice(
        opset3.shape_of(feature, etype),
        constant(np.array([2])),
        constant(np.array([4])),
        constant(np.array([1])),
    )
    if data.draw(st.booleans()):
        spatial = parameter([2], etype, name="s")
    image = constant(np.array([80, 112]), etype)
    if version == 0:
        node = built(lambda: opset1.prior_box_clustered(spatial, image, CLUSTERED_CASES[0]))
    else:
        node = built(lambda: OPS[version][0].prior_box(spatial, image, BOX_CASES[1]))
    check_shapes(node)


def test_prior_boxes_invalid_inputs_are_rejected_and_reported():
    image = constant(np.array([80, 112]))
    check_rejected(lambda: opset8.prior_box(parameter([2], "f32"), image, BOX_CASES[0]))
    check_rejected(lambda: opset8.prior_box(constant(np.array([5, 7, 1])), image, BOX_CASES[0]))
    check_rejected(lambda: opset8.prior_box(parameter([2, 1], "i64"), image, BOX_CASES[0]))
    op = bare_op(PriorBox8, {"min_size": "30", "offset": "0.5"})
    with pytest.raises(IRError, match="the output size must have two elements .* it has 3"):
        op.infer([const_info([5, 7, 1]), const_info([80, 112])])
    with pytest.raises(IRError, match="the output size input must be an integer tensor"):
        op.infer([TensorInfo(Shape([2]), element_type("f32")), const_info([80, 112])])
    with pytest.raises(IRError, match=r"must both be 1-D"):
        op.infer([TensorInfo(Shape([2, 1]), element_type("i64")), const_info([80, 112])])
    node = opset1.prior_box_clustered(parameter([2], "i64", name="s"), image,
                                      CLUSTERED_CASES[0])  # fmt: skip
    report, _ = edited_report(model_of(node), lambda t: t.replace('height="15, 25, 35"',
                                                                 'height="15,25"'))  # fmt: skip
    found = diagnostic(report, "attribute-value")
    assert "width has 3 values and height 2" in found.message
