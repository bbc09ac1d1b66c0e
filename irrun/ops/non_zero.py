"""NonZero-3: the indices of the non-zero elements of ``data``, one column per element.

Spec facts: input data (any element type, any rank); attribute ``output_type`` (i32 or i64,
default i64). Output ``[rank, count]``: row d holds the coordinates along axis d of every
non-zero element, in row-major order. NaN is non-zero, -0.0 is zero.

Shape rule (``non_zero_shape_inference``), as OpenVINO infers it: ``[r, 0..N]`` with N the
product of the upper bounds of data's dims (``[2,3]`` → ``[2,..6]``; a static 0 in data gives
``[r,0]``; an unbounded dim gives ``[r,?]``); a dynamic rank and, oddly, a scalar give
``[?,?]``. A constant is folded to its exact shape. A scalar runs as ``[1, count]`` (count
0 or 1), as in OpenVINO.

Kernel: ``np.nonzero`` stacked (a scalar as a 1-element vector).
"""

from __future__ import annotations

import numpy as np

from irrun.ops.base import Attribute, Op, TensorInfo
from irrun.ops.registry import register
from irrun.shape import Dim, Shape, static_dim


@register
class NonZero(Op):
    """NonZero-3."""

    type, version, inputs = "NonZero", 3, (1, 1)
    attributes = (Attribute("output_type", "element_type", None),)

    def setup(self):
        if self.output_type is None:
            from irrun.element_types import element_type

            self.output_type = element_type("i64")
        if self.output_type.name not in ("i32", "i64"):
            self.context.error(
                "attribute-value",
                f"{self.describe()}: output_type {self.output_type} is not i32 or i64",
                hint='write output_type="i64" or "i32"',
                line=self.layer.data_line,
            )
            self.incomplete = True

    def infer(self, inputs):
        """``[rank, 0..product of the upper bounds]``; the exact shape and value for a small
        constant (OpenVINO folds it; irrun's walk folds only outputs of static shape)."""
        shape = inputs[0].shape
        value = inputs[0].value
        if value is not None and np.asarray(value).size <= 4096:
            (folded,) = self.evaluate([value])
            return [TensorInfo(Shape(folded.shape), self.output_type, value=folded,
                               why="the non-zero elements of a constant")]  # fmt: skip
        if not shape.rank_is_static or shape.rank == 0:
            out = Shape([Dim.dynamic(), Dim.dynamic()])
            return [TensorInfo(out, self.output_type, why="data of unknown or zero rank")]
        upper = 1
        for dim in shape:
            if dim.upper == 0:
                upper = 0
                break
            upper = None if dim.upper is None or upper is None else upper * dim.upper
        count = static_dim(0) if upper == 0 else Dim(0, upper)
        out = Shape([static_dim(shape.rank), count])
        why = f"data {shape}: rank {shape.rank}, up to {upper if upper is not None else '?'} items"
        return [TensorInfo(out, self.output_type, why=why)]

    def evaluate(self, inputs):
        """The stacked ``np.nonzero`` of data."""
        data = np.asarray(inputs[0])
        if data.ndim == 0:
            data = data.reshape(1)
        if data.dtype.kind not in "biufc":  # bfloat16, f8 and others: compare with zero
            data = data.astype(np.float32)
        coordinates = np.nonzero(data)
        dtype = self.output_type.numpy_dtype
        return [np.stack(coordinates).astype(dtype).reshape(data.ndim, -1)]
