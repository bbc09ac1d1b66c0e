"""GRN-1: global response normalisation, the data divided by its L2 norm over the channels.

Spec facts: one input of rank 2, 3 or 4 (``[N, C, ...]``); attribute ``bias`` (float,
required). ``out = x / sqrt(sum(x², axis 1) + bias)`` (the reference is NormalizeL2 over axis 1
with ``eps_mode=add``). Output: the data's shape and type.

Shape rule (``grn.cpp``): a known rank other than 2, 3 or 4 is refused. Kernel: the sum of
squares in float64; against the CPU plugin ``rtol=1e-5, atol=1e-6``. irrun runs floats only.
"""

from __future__ import annotations

import numpy as np

from irrun.ops.base import Attribute, Op, TensorInfo, lazy_text
from irrun.ops.registry import register


@register
class GRN(Op):
    """GRN-1 (bias)."""

    type, version, inputs = "GRN", 1, (1, 1)
    attributes = (Attribute("bias", "float", 0.0, required=True),)

    def infer(self, inputs):
        """The data's shape and type, for data of rank 2 to 4."""
        (data,) = inputs
        rank = data.shape.rank
        if rank is not None and not 2 <= rank <= 4:
            self.context.error(
                "input-rank",
                f"{self.describe()}: the data must have rank 2, 3 or 4, but its shape is "
                f"{data.shape}",
                port=self.input_port(0),
                hint="Reshape the data to [N, C, H, W] (or [N, C], [N, C, H])",
            )
            return None
        why = lazy_text("the data's shape {}", data.shape)
        return [TensorInfo(data.shape, data.element_type, why=why)]

    def evaluate(self, inputs):
        """``x / sqrt(sum(x², axis 1) + bias)``."""
        (data,) = inputs
        if data.dtype.kind != "f" and "float" not in data.dtype.name:
            raise NotImplementedError(f"irrun runs {self.label} on floating-point data only, "
                                      f"not {data.dtype}")  # fmt: skip
        wide = data.astype(np.float64)
        norm = np.sqrt(np.sum(wide * wide, axis=1, keepdims=True) + self.bias)
        with np.errstate(divide="ignore", invalid="ignore"):
            return [(wide / norm).astype(data.dtype)]
