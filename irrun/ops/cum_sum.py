"""CumSum-3: cumulative sum along an axis.

Spec facts: inputs data (any numeric type; OpenVINO also takes boolean, where a sum is a
logical or) and an optional axis (a scalar of i32 or i64, default 0; negative counts from the
end). Attributes ``exclusive`` (the j-th output excludes the j-th element: the first is 0)
and ``reverse`` (sum from the end). The output has the data's shape and element type.

Shape rule (``cum_sum.cpp``): the data's shape; OpenVINO refuses only an axis type other than
i32/i64. It does not check the axis's rank or range at all (a ``[1,0]`` or out-of-range axis
is accepted when the model is built); irrun does the same, and its kernel refuses them.

Kernel: ``np.cumsum`` in the element type (integers wrap, as in OpenVINO), sequentially; a
flip for ``reverse`` and a shift by one for ``exclusive``. f16/bf16 are summed in f32 and
rounded once, as the CPU plugin does (it computes them in f32). Tolerance against the CPU
plugin: the order of the sums is the same; the tests assert f32 results within
``rtol=1e-6, atol=1e-6`` (the plugin may vectorise the inner sums), f16 bit-exact.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._values import signed_values
from irrun.ops.base import Attribute, Op, TensorInfo
from irrun.ops.registry import register


@register
class CumSum(Op):
    """CumSum-3 (exclusive, reverse)."""

    type, version, inputs = "CumSum", 3, (1, 2)
    attributes = (Attribute("exclusive", "bool", False), Attribute("reverse", "bool", False))

    def infer(self, inputs):
        """The data's shape and element type."""
        if len(inputs) == 2:
            etype = inputs[1].element_type
            if etype.name not in ("i32", "i64", "dynamic"):
                self.context.error(
                    "index-type",
                    f"{self.describe()}: the axis must be i32 or i64, but input 1 is {etype}",
                    port=self.input_port(1),
                    hint="insert a Convert to i64 before it",
                )
                return None
        data = inputs[0]
        return [TensorInfo(data.shape, data.element_type, why="CumSum keeps the data shape")]

    def evaluate(self, inputs):
        """Cumulative sums along the axis (see the module docstring)."""
        data = inputs[0]
        axes = signed_values(inputs[1]) if len(inputs) == 2 else [0]
        rank = data.ndim
        if len(axes) != 1 or not -max(rank, 1) <= axes[0] < max(rank, 1):
            raise ValueError(f"{self.describe()}: axis {axes} is not one axis of rank {rank}")
        if rank == 0:
            return [np.zeros_like(data) if self.exclusive else data.copy()]
        axis = axes[0] % rank
        x = np.flip(data, axis) if self.reverse else data
        if data.dtype == np.bool_:
            sums = np.logical_or.accumulate(x, axis=axis)
        elif data.dtype.itemsize == 2 and data.dtype.kind not in "iu":  # f16, bf16
            sums = np.cumsum(x.astype(np.float32), axis=axis)
        else:
            sums = np.cumsum(x, axis=axis, dtype=data.dtype)
        if self.exclusive:
            shifted = np.zeros_like(sums)
            inner = [slice(None)] * rank
            inner[axis] = slice(1, None)
            outer = [slice(None)] * rank
            outer[axis] = slice(None, -1)
            shifted[tuple(inner)] = sums[tuple(outer)]
            sums = shifted
        if self.reverse:
            sums = np.flip(sums, axis)
        return [np.ascontiguousarray(sums.astype(data.dtype, copy=False))]
