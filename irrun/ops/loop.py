"""Loop-5: run a body while a condition holds, at most ``trip_count`` times.

Spec facts: input 0 ``trip_count`` (i32/i64 scalar or 1-element; -1: no limit), input 1
``execution_condition`` (boolean), then the inputs mapped into the body by ``<port_map>``
(sliced along an axis, merged through a back edge, or invariant). Special body ports:
``purpose="current_iteration"`` (a Parameter given the iteration number, rank 0 or 1) and
``purpose="execution_condition"`` (the Result deciding whether to run again). Outputs are a
body Result's last value or every iteration's values concatenated along an axis.

Shape rule (``Loop::validate_and_infer_types``): the body is inferred with its Parameters
given the outer inputs (a sliced one with ``part_size`` on its axis). The iteration count is
known when the body's condition is a constant (or a Parameter fed a constant) true and the
trip count is a constant (a constant false condition: one iteration), or zero when the outer
condition is a constant false. A concatenated output has the Result's shape with its axis
multiplied by that count (dynamic when unknown; a scalar counts as ``[1]``; ``[0]`` for zero
iterations); a last-value output is the Result's shape; where a back edge feeds that Result to a
Parameter whose shape does not allow it, the dims it does not allow become dynamic and the
body is inferred again with the Parameter given that shape (outputs are taken in port-map
order, so only later ones see it). A merged input's static zero dims are made dynamic (an
empty state, such as a KV cache, grows along them).

Kernel: the body runs through the executor's ``run_body``, one call per iteration (the loop
over iterations is inherent); exact.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._bodies import body_feeds, iterate, read_port_maps, slice_shape
from irrun.ops.base import Op, TensorInfo
from irrun.ops.registry import register
from irrun.shape import Dim, Shape, static_dim


@register
class Loop(Op):
    """Loop-5: no attributes; a body, its port map and back edges."""

    type, version, inputs = "Loop", 5, (2, None)
    memoizable = False  # (its rule infers its bodies)
    attributes = ()
    runs_bodies = True

    def setup(self):
        self.maps = read_port_maps(self, "port_map", "body")
        if self.maps is None:
            return
        special = {m.purpose: m for m in (*self.maps.inputs, *self.maps.outputs) if m.purpose}
        self.condition_id = getattr(special.get("execution_condition"), "body_id", None)
        self.iteration_id = getattr(special.get("current_iteration"), "body_id", None)
        if any(m.index in (0, 1) for m in self.maps.inputs):
            self.context.error("port-map", f"{self.describe()} maps its trip count or "
                               "condition (input ports 0 and 1) into the body",
                               hint="map ports 2..n; the condition's Result has "
                               'purpose="execution_condition"')  # fmt: skip
            self.incomplete = True

    def infer(self, inputs):
        """The body inferred from the inputs; the outputs as the module docstring says."""
        trip, condition = inputs[0], inputs[1]
        for index, name in ((0, "trip count"), (1, "execution condition")):
            shape = inputs[index].shape
            if shape.rank_is_static and shape.rank > 1:
                self.context.error("input-rank", f"{self.describe()}: the {name} has rank "
                                   f"{shape.rank} {shape}; it must be a scalar or 1-D",
                                   port=self.input_port(index))  # fmt: skip
                return None
        feeds = body_feeds(self.maps, inputs, slice_shape)
        for parameter_id in self.maps.back_edges.values():  # an empty state may grow
            info = feeds.get(parameter_id)
            if (
                info is not None
                and info.shape.rank_is_static
                and any(d.upper == 0 for d in info.shape)
            ):
                dims = [Dim.dynamic() if d.upper == 0 else d for d in info.shape]
                why = "a back edge's zero dims made dynamic"
                feeds[parameter_id] = TensorInfo(Shape(dims), info.element_type, why=why)
        if any(v is None for v in feeds.values()):
            self.context.error("axis-range", f"{self.describe()} slices an input along an "
                               "axis it does not have", hint="fix the port map's axis")  # fmt: skip
            return None
        results = self.context.infer_body("body", feeds)
        if results is None:
            return None
        if not self._special_ports_fit(results):
            return None
        count = self._iterations(trip, condition, inputs, results)
        back = self.maps.back_edges
        outputs = [None] * len(self.layer.outputs)
        for m in self.maps.outputs:  # in port-map order: a relaxation affects later ones
            if m.index is None:
                continue
            info = results.get(m.body_id)
            if info is None:
                return None
            if m.axis is not None:
                outputs[m.index] = self._concatenated(info, m.axis, count)
                continue
            shape = info.shape
            parameter = feeds.get(back.get(m.body_id))
            if parameter is not None and not _relaxes(parameter.shape, shape):
                if not shape.rank_is_static or not parameter.shape.rank_is_static:
                    outputs[m.index] = TensorInfo(Shape.dynamic_rank(), info.element_type)
                    continue
                if parameter.shape.rank != shape.rank:
                    self.context.error("port-map", f"{self.describe()}: the back edge from "
                                       f"body Result {m.body_id} gives {shape} to a Parameter "
                                       f"of rank {parameter.shape.rank} {parameter.shape}",
                                       hint="a back edge must keep the rank")  # fmt: skip
                    return None
                shape = Shape([d if _within(d, p) else Dim.dynamic()
                               for d, p in zip(shape, parameter.shape)])  # fmt: skip
                # OpenVINO infers the body again with the Parameter given the relaxed shape
                feeds = {**feeds, back[m.body_id]: TensorInfo(shape, parameter.element_type)}
                results = self.context.infer_body("body", feeds)
                if results is None:
                    return None
            elif shape.is_static and count == 0:
                shape = Shape([static_dim(0), *list(shape)[1:]])
            outputs[m.index] = TensorInfo(shape, info.element_type,
                                          why="the body Result's last value")  # fmt: skip
        return outputs

    def _special_ports_fit(self, results) -> bool:
        """The current-iteration Parameter and the condition Result have rank 0 or 1."""
        body = self.layer.bodies["body"]
        checks = []
        if self.iteration_id is not None:
            layer = body.layer(self.iteration_id)
            shape = layer.outputs[0].declared_shape if layer.outputs else None
            checks.append(("current_iteration Parameter", self.iteration_id, shape))
        if self.condition_id is not None:
            info = results.get(self.condition_id)
            checks.append(("execution_condition Result", self.condition_id,
                           info.shape if info is not None else None))  # fmt: skip
        for what, body_id, shape in checks:
            if shape is not None and shape.rank_is_static and shape.rank > 1:
                self.context.error("input-rank", f"{self.describe()}: the body's {what} "
                                   f"(body layer {body_id}) has rank {shape.rank} {shape}; it "
                                   "must be a scalar or 1-D",
                                   hint="give it shape [] or [1]")  # fmt: skip
                return False
        return True

    def _iterations(self, trip, condition, inputs, results) -> int:
        """The iteration count when shape inference can know it, else -1."""
        if _flag(condition.value) is False:
            return 0
        body_condition = results.get(self.condition_id) if self.condition_id is not None else None
        always = _flag(body_condition.value) if body_condition is not None else None
        if always is None and self.condition_id is not None:
            # Const(true or false) -> Loop (body: Parameter -> execution_condition Result)
            source = self._parameter_feeding(self.condition_id)
            for m in self.maps.inputs:
                if source is not None and m.body_id == source and m.index is not None:
                    always = _flag(inputs[m.index].value)
        if always is False:
            return 1
        if always and trip.value is not None and np.asarray(trip.value).size == 1:
            return int(np.asarray(trip.value).reshape(-1)[0])
        return -1

    def _parameter_feeding(self, result_id):
        """The body Parameter that feeds Result ``result_id`` directly, if one does."""
        body = self.layer.bodies["body"]
        result = body.layer(result_id)
        producer = body.producer(result.inputs[0]) if result.inputs else None
        if producer is None or producer.layer.type != "Parameter":
            return None
        return producer.layer.id

    def _concatenated(self, info, axis, count):
        shape = info.shape
        if count == 0:
            return TensorInfo(Shape([static_dim(0)]), info.element_type, why="no iteration")
        if not shape.rank_is_static:
            return TensorInfo(shape, info.element_type)
        dims = list(shape) or [static_dim(1)]
        axis = axis + len(dims) if axis < 0 else axis
        dim = dims[axis]
        dims[axis] = (
            static_dim(dim.lower * count) if dim.is_static and count != -1 else Dim.dynamic()
        )
        why = f"{count} iterations of {shape}" if count != -1 else "an unknown iteration count"
        return TensorInfo(Shape(dims), info.element_type, why=why)

    def evaluate(self, inputs, run_body=None):
        """Run the body until the trip count or its condition stops it."""
        if run_body is None:
            raise NotImplementedError("Loop needs the executor's run_body to run its body")
        trip = int(np.asarray(inputs[0]).reshape(-1)[0])
        if not bool(np.asarray(inputs[1]).reshape(-1)[0]):
            raise ValueError(f"{self.describe()}: the execution condition is false, and "
                             "OpenVINO does not run a Loop of zero iterations")  # fmt: skip
        current = None
        if self.iteration_id is not None and self.iteration_id not in self.maps.back_edges.values():
            layer = self.layer.bodies["body"].layer(self.iteration_id)
            port = layer.outputs[0]
            dtype = port.element_type.numpy_dtype if port.element_type else np.int64
            current = (self.iteration_id, dtype, (1,) if port.declared_shape.rank == 1 else ())
        by_index = iterate(self.maps, inputs, lambda feeds: run_body("body", feeds),
                           trip if trip >= 0 else -1, condition_id=self.condition_id,
                           current_iteration=current)  # fmt: skip
        return [by_index[i] for i in range(len(self.layer.outputs))]


def _within(inner: Dim, outer: Dim) -> bool:
    """True when every size ``inner`` allows, ``outer`` allows."""
    return inner.lower >= outer.lower and (
        outer.upper is None or (inner.upper is not None and inner.upper <= outer.upper)
    )


def _relaxes(parameter: Shape, result: Shape) -> bool:
    """True when the Parameter's shape allows every shape the Result may have."""
    if not parameter.rank_is_static:
        return True
    if not result.rank_is_static or result.rank != parameter.rank:
        return False
    return all(_within(r, p) for r, p in zip(result, parameter))


def _flag(value):
    """A constant boolean's one value, or ``None`` when not a one-element constant."""
    if value is None:
        return None
    flat = np.asarray(value).reshape(-1)
    return bool(flat[0]) if flat.size == 1 else None
