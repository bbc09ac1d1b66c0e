"""GatherElements-6: ``out[i...] = data[..., indices[i...], ...]`` along one axis.

Spec facts (ops.md §4): data and indices of equal rank r >= 1; every dim but
the axis equal; indices i32 or i64; ``axis`` required, in [-r, r-1]; the
output has the indices' shape. Negative indices wrap (as OpenVINO's CPU
plugin does); out of range is an error.
"""

from __future__ import annotations

from irrun.ops._indices import as_signed_indices, check_index_type, first_bad_index
from irrun.ops.base import Attribute, Op, TensorInfo, normalize_axis_or_report
from irrun.ops.registry import register
from irrun.shape import Dim, Shape


@register
class GatherElements(Op):
    """GatherElements-6 (attribute ``axis``, required)."""

    type, version, inputs = "GatherElements", 6, (2, 2)
    rounds = False

    attributes = (Attribute("axis", "int", 0, required=True),)

    def infer(self, inputs):
        """Output: the indices' shape, merged with data on the non-axis dims."""
        data, indices = inputs
        integer_indices = check_index_type(self, indices, 1, allowed=("i32", "i64"))
        if not data.shape.rank_is_static and not indices.shape.rank_is_static:
            return [TensorInfo(Shape.dynamic_rank(), data.element_type, why="unknown ranks")]
        known = data.shape if data.shape.rank_is_static else indices.shape
        r = known.rank
        if (
            data.shape.rank_is_static
            and indices.shape.rank_is_static
            and data.shape.rank != indices.shape.rank
        ):
            self.context.error(
                "input-rank",
                f"{self.describe()}: data {data.shape} and indices {indices.shape} must have the "
                f"same rank, but have {data.shape.rank} and {indices.shape.rank}",
                port=self.input_port(1),
            )
            return None
        if r == 0:
            self.context.error(
                "input-rank", f"{self.describe()}: inputs must have rank >= 1, got scalars"
            )
            return None
        axis = normalize_axis_or_report(self, self.axis, r)
        if axis is None:
            return None
        out = []
        for i in range(r):
            d = data.shape[i] if data.shape.rank_is_static else Dim.dynamic()
            n = indices.shape[i] if indices.shape.rank_is_static else Dim.dynamic()
            if i == axis:
                out.append(n)
                continue
            joined = d.merge(n)
            if joined is None:
                self.context.error(
                    "input-dims",
                    f"{self.describe()}: data {data.shape} and indices {indices.shape} must agree "
                    f"on every dimension except the axis ({self.axis}), but dimension {i} is "
                    f"{d} vs {n}",
                    port=self.input_port(1),
                )
                return None
            out.append(joined)
        shape = Shape(out)
        why = lambda: (  # noqa: E731  (messages are built only when one is shown)
            f"data {data.shape}, indices {indices.shape}, axis {self.axis}: indices' shape {shape}"
        )
        known = data.shape.rank_is_static and data.shape[axis].is_static
        if known and integer_indices and indices.value is not None:
            size = data.shape[axis].value
            found = first_bad_index(as_signed_indices(indices.value), -size, size - 1)
            if found:
                position, value, count = found
                self.context.error(
                    "index-range",
                    f"{self.describe()}: index {value} at {list(position)} is outside "
                    f"[{-size}, {size - 1}] for axis {self.axis} of size {size} ({count} such "
                    "value(s))",
                    port=self.input_port(1),
                )
        return [TensorInfo(shape, data.element_type, why=why)]

    def evaluate(self, inputs):
        """``irrun.kernels.gather_elements`` (out-of-range indices are an error)."""
        from irrun.kernels import gather_elements

        data, indices = inputs
        return [gather_elements(data, indices, self.axis)]

    def evaluate_into(self, inputs, outputs) -> None:
        """:meth:`evaluate` written into ``outputs[0]`` (an array of the output's shape and
        dtype, overlapping no input)."""
        from irrun.kernels import gather_elements

        data, indices = inputs
        gather_elements(data, indices, self.axis, out=outputs[0])
