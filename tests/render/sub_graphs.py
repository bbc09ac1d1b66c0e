"""A small model with nested sub-graphs for the graph page tests: an If whose then-branch holds
another If, built with OpenVINO and saved as IR."""

from __future__ import annotations

import numpy as np
import openvino as ov
import openvino.opset8 as o8

from tests.helpers.openvino_oracle import parameter, save


def _if(condition, x, then_build, else_build, name):
    """An If on ``condition`` whose branches are ``then_build(x)`` and ``else_build(x)``."""
    bodies = []
    for build in (then_build, else_build):
        inner = o8.parameter(x.get_partial_shape(), x.get_element_type(), name=f"{name}_x")
        result = o8.result(build(inner))
        bodies.append((inner, result, ov.Model([result], [inner])))
    node = o8.if_op(condition)
    node.set_friendly_name(name)
    node.set_then_body(bodies[0][2])
    node.set_else_body(bodies[1][2])
    node.set_input(x, bodies[0][0], bodies[1][0])
    return node.set_output(bodies[0][1], bodies[1][1])


def nested_if_model(folder):
    """``x f32[2,3]``, ``c boolean`` -> ``outer`` If: its then-branch holds ``inner`` If
    (ReLU / Concat of the input twice), its else-branch a ReLU. Returns the .xml path."""
    x = parameter("[2,3]", "f32", name="x")
    c = parameter("[]", "boolean", name="c")

    def then_branch(t):
        return _if(o8.constant(np.bool_(True)), t.output(0), lambda u: o8.relu(u),
                   lambda u: o8.concat([u, u], 0), "inner")  # fmt: skip

    outer = _if(c.output(0), x.output(0), then_branch, lambda t: o8.relu(t), "outer")
    return save(ov.Model([outer], [c, x], "nested"), folder, "nested")
