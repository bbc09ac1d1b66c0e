"""If-8: run ``then_body`` or ``else_body`` depending on a boolean condition.

Spec facts: input 0 is ``cond`` (boolean, a scalar or a one-element 1-D tensor); the other
inputs are mapped to Parameters of either body by ``<then_port_map>``/``<else_port_map>``
(an input may feed either body or both). Every output port is mapped to one Result of each body.

Shape rule (``If::validate_and_infer_types``): each body is inferred with its Parameters
given the outer inputs' shapes and types (their own ``shape`` attributes are overwritten).
A constant ``cond`` picks the body whose Results give the outputs. Otherwise each output
merges the two Results: element types must merge (``dynamic`` merges with any), shapes of
different ranks give a dynamic rank (a scalar and a 1-D shape give ``[?]``, a scalar and
``[1]`` give ``[1]``), and dims that
differ become the interval ``min..max`` of the two (a dynamic dim stays dynamic).

Kernel: evaluate the chosen body through the executor's ``run_body``; exact.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._bodies import read_port_maps
from irrun.ops.base import DYNAMIC_TYPE, Op, TensorInfo
from irrun.ops.registry import register
from irrun.shape import Dim, Shape

BODIES = (("then_body", "then_port_map"), ("else_body", "else_port_map"))


@register
class If(Op):
    """If-8: no attributes; two bodies and their port maps."""

    type, version, inputs = "If", 8, (1, None)
    memoizable = False  # (its rule infers its bodies)
    attributes = ()
    runs_bodies = True

    def setup(self):
        self.maps = {}
        for body_tag, map_tag in BODIES:
            maps = read_port_maps(self, map_tag, body_tag)
            if maps is None:
                return
            if any(m.index == 0 for m in maps.inputs):
                self.context.error("port-map", f"{self.describe()} maps its condition (input "
                                   f"port {self.layer.inputs[0].id}) into the {body_tag}",
                                   hint="the condition feeds no body; map ports 1..n")  # fmt: skip
                self.incomplete = True
                return
            self.maps[body_tag] = maps

    def infer(self, inputs):
        """Infer both bodies from the outer inputs; merge (or pick) their Results."""
        cond = inputs[0]
        if cond.shape.rank_is_static and cond.shape.rank > 1:
            self.context.error("input-rank", f"{self.describe()}: the condition has rank "
                               f"{cond.shape.rank} {cond.shape}; it must be a scalar or 1-D",
                               port=self.input_port(0))  # fmt: skip
            return None
        results = {}
        for body_tag, _ in BODIES:
            feeds = {m.body_id: inputs[m.index] for m in self.maps[body_tag].inputs}
            found = self.context.infer_body(body_tag, feeds)
            if found is None:
                return None
            results[body_tag] = found
        picked = None
        if cond.value is not None:
            flat = np.asarray(cond.value).reshape(-1)
            if flat.size != 1:
                self.context.error("input-value", f"{self.describe()}: the constant condition "
                                   f"has {flat.size} values; it must have one",
                                   port=self.input_port(0))  # fmt: skip
                return None
            picked = "then_body" if bool(flat[0]) else "else_body"
        outputs = []
        for index in range(len(self.layer.outputs)):
            then_info, else_info = (self._result(tag, index, results) for tag, _ in BODIES)
            if then_info is None or else_info is None:
                return None
            if picked is not None:
                info = then_info if picked == "then_body" else else_info
                outputs.append(TensorInfo(info.shape, info.element_type, info.value,
                                          why=f"the condition is {picked == 'then_body'}: "
                                          f"{picked}'s Result"))  # fmt: skip
                continue
            etype = _merged_type(then_info.element_type, else_info.element_type)
            if etype is None:
                self.context.error("input-type", f"{self.describe()} output port "
                                   f"{self.layer.outputs[index].id}: then_body gives "
                                   f"{then_info.element_type}, else_body gives "
                                   f"{else_info.element_type}; both bodies must give one type",
                                   port=self.layer.outputs[index])  # fmt: skip
                return None
            shape = resolve_shape(then_info.shape, else_info.shape)
            outputs.append(TensorInfo(shape, etype, why=f"then_body gives {then_info.shape}, "
                                      f"else_body {else_info.shape}"))  # fmt: skip
        return outputs

    def _result(self, body_tag, index, results):
        for m in self.maps[body_tag].outputs:
            if m.index == index:
                return results[body_tag].get(m.body_id)
        return None

    def evaluate(self, inputs, run_body=None):
        """Run the body the condition picks; its Results are the outputs."""
        if run_body is None:
            raise NotImplementedError("If needs the executor's run_body to run its bodies")
        body_tag, feeds = self.chosen_body(inputs)
        produced = run_body(body_tag, feeds)
        by_index = {m.index: m.body_id for m in self.maps[body_tag].outputs}
        return [produced[by_index[i]] for i in range(len(self.layer.outputs))]

    def chosen_body(self, inputs) -> tuple[str, dict]:
        """The body the condition (``inputs[0]``) picks, and its Parameters' feeds by body
        layer id."""
        body_tag = "then_body" if bool(np.asarray(inputs[0]).reshape(-1)[0]) else "else_body"
        return body_tag, {m.body_id: inputs[m.index] for m in self.maps[body_tag].inputs}


def _merged_type(a, b):
    if a.name == "dynamic":
        return b
    if b.name == "dynamic" or a == b:
        return a if a.name != "dynamic" else DYNAMIC_TYPE
    return None


def resolve_shape(then_shape: Shape, else_shape: Shape) -> Shape:
    """OpenVINO's union of two body Results' shapes (see the module docstring)."""
    if not then_shape.rank_is_static or not else_shape.rank_is_static:
        return Shape.dynamic_rank()
    if then_shape.rank != else_shape.rank:
        if then_shape.rank <= 1 and else_shape.rank <= 1:
            vector = then_shape if then_shape.rank == 1 else else_shape
            if vector[0].is_static and vector[0].lower == 1:  # a scalar and [1]: [1]
                return vector
            return Shape([Dim.dynamic()])
        return Shape.dynamic_rank()
    dims = []
    for a, b in zip(then_shape, else_shape):
        if not a.is_static or not b.is_static:
            dims.append(Dim.dynamic())
        elif a == b:
            dims.append(a)
        else:
            dims.append(Dim.interval(min(a.lower, b.lower), max(a.lower, b.lower)))
    return Shape(dims)
