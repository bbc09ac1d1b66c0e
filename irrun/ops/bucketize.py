"""Bucketize-3: the index of the bucket each element falls in.

Spec facts: inputs data and buckets (a 1-D ascending tensor), both of numeric types (they may
differ); attributes ``output_type`` (i32 or i64, default i64) and ``with_right_bound``
(default true: bucket ``i`` is ``(b[i-1], b[i]]``; false: ``[b[i-1], b[i])``). Output: the
data's shape, ``output_type``. Empty buckets put everything in bucket 0.

Shape rule (``bucketize.cpp``): numeric data and buckets, buckets of rank 1, output type i32
or i64. Kernel: ``np.searchsorted`` (``side="left"`` with the right bound, ``"right"``
without) in the two types' common numpy type; exact.
"""

from __future__ import annotations

import numpy as np

from irrun.element_types import element_type
from irrun.ops.base import Attribute, Op, TensorInfo, lazy_text
from irrun.ops.registry import register


@register
class Bucketize(Op):
    """Bucketize-3 (output_type, with_right_bound)."""

    type, version, inputs = "Bucketize", 3, (2, 2)
    attributes = (
        Attribute("output_type", "element_type", element_type("i64")),
        Attribute("with_right_bound", "bool", True),
    )

    def setup(self):
        """Check the output type (i32 or i64)."""
        if self.output_type.name not in ("i32", "i64"):
            self.context.error(
                "attribute-value",
                f"{self.describe()}: output_type {self.output_type} is not i32 or i64",
                hint='write output_type="i64" (or "i32")',
                line=self.layer.data_line,
            )
            self.incomplete = True

    def infer(self, inputs):
        """The data's shape, ``output_type``."""
        data, buckets = inputs
        for index, what in ((0, "data"), (1, "buckets")):
            etype = inputs[index].element_type
            if etype.name != "dynamic" and etype.kind not in ("float", "int", "uint"):
                self.context.error(
                    "input-type",
                    f"{self.describe()}: the {what} must be numeric, but it is {etype}",
                    port=self.input_port(index),
                    hint=f"Convert the {what} to a number type",
                )
                return None
        if buckets.shape.rank not in (None, 1):
            self.context.error(
                "input-rank",
                f"{self.describe()}: the buckets must be 1-D, but their shape is {buckets.shape}",
                port=self.input_port(1),
                hint="Reshape the buckets to 1-D",
            )
            return None
        why = lazy_text("the data's shape {}", data.shape)
        return [TensorInfo(data.shape, self.output_type, why=why)]

    def evaluate(self, inputs):
        """``np.searchsorted`` of the data in the buckets."""
        data, buckets = (np.asarray(a) for a in inputs)
        common = np.result_type(data.dtype, buckets.dtype)
        side = "left" if self.with_right_bound else "right"
        out = np.searchsorted(buckets.astype(common), data.astype(common), side=side)
        return [np.asarray(out, dtype=self.output_type.numpy_dtype).reshape(data.shape)]
