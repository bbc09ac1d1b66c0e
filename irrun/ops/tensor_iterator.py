"""TensorIterator-1: run a body once per part of its sliced inputs.

Spec facts: every input is mapped into the body by ``<port_map>``: sliced along an axis
(``start``, ``end`` both included, negative ones from the end; ``stride``; ``part_size``),
merged through a back edge, or invariant. Outputs are a body Result's last value or every
iteration's values concatenated along an axis (from the end for a negative stride).

Shape rule (``TensorIterator::validate_and_infer_types``): a sliced input's body Parameter
gets the input's shape with ``part_size`` on the axis; the iteration count is
``(|end - start| + 1) // part_size`` when the axis is static (without sliced inputs, a
concatenated output's ``|end - start| // part_size``). A concatenated output has the
Result's shape with ``count * part_size`` on its axis (dynamic when the count is unknown;
a scalar Result counts as ``[1]``, axis 0). A last-value output is the Result's shape.

Kernel: the body runs through the executor's ``run_body``, once per iteration; exact.
"""

from __future__ import annotations

from irrun.ops._bodies import body_feeds, iterate, part_count, read_port_maps, slice_shape
from irrun.ops.base import Op, TensorInfo
from irrun.ops.registry import register
from irrun.shape import Dim, Shape, static_dim


@register
class TensorIterator(Op):
    """TensorIterator-1: no attributes; a body, its port map and back edges."""

    type, version, inputs = "TensorIterator", 1, (0, None)
    memoizable = False  # (its rule infers its bodies)
    attributes = ()
    runs_bodies = True

    def setup(self):
        self.maps = read_port_maps(self, "port_map", "body")

    def infer(self, inputs):
        """The body inferred from the inputs; the outputs as the module docstring says."""
        feeds = body_feeds(self.maps, inputs, slice_shape)
        if any(v is None for v in feeds.values()):
            self.context.error("axis-range", f"{self.describe()} slices an input along an "
                               "axis it does not have", hint="fix the port map's axis")  # fmt: skip
            return None
        results = self.context.infer_body("body", feeds)
        if results is None:
            return None
        count = self._iterations(inputs)
        outputs = [None] * len(self.layer.outputs)
        for m in self.maps.outputs:
            info = results.get(m.body_id)
            if info is None:
                return None
            if m.axis is None:
                outputs[m.index] = TensorInfo(info.shape, info.element_type,
                                              why="the body Result's last value")  # fmt: skip
                continue
            shape = info.shape
            if not shape.rank_is_static:
                outputs[m.index] = TensorInfo(shape, info.element_type)
                continue
            dims = list(shape) or [static_dim(1)]
            axis = m.axis + len(dims) if m.axis < 0 else m.axis
            dims[axis] = static_dim(count * m.part_size) if count != -1 else Dim.dynamic()
            why = f"{count} iterations" if count != -1 else "an unknown iteration count"
            outputs[m.index] = TensorInfo(Shape(dims), info.element_type, why=why)
        return outputs

    def _iterations(self, inputs) -> int:
        count = -1
        sliced = [m for m in self.maps.inputs if m.axis is not None]
        for m in sliced:
            shape = inputs[m.index].shape
            if shape.rank_is_static:
                dim = shape[m.axis]
                if dim.is_static:
                    count = part_count(dim.lower, m.start, m.end, m.stride, m.part_size)
        if count == -1 and not sliced:
            for m in self.maps.outputs:
                if m.axis is not None:
                    return abs(m.end - m.start) // m.part_size
        return count

    def evaluate(self, inputs, run_body=None):
        """Run the body once per part of the sliced inputs."""
        if run_body is None:
            raise NotImplementedError("TensorIterator needs the executor's run_body")
        sliced = [m for m in self.maps.inputs if m.axis is not None]
        if sliced:
            m = sliced[0]
            size = inputs[m.index].shape[m.axis]
            count = part_count(size, m.start, m.end, m.stride, m.part_size)
        else:
            count = self._iterations([TensorInfo(Shape(())) for _ in inputs])
        by_index = iterate(self.maps, inputs, lambda feeds: run_body("body", feeds), count)
        return [by_index[i] for i in range(len(self.layer.outputs))]
