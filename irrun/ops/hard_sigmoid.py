"""HardSigmoid-1: ``max(0, min(1, alpha * x + beta))``.

Inputs: ``data``, ``alpha`` and ``beta``; OpenVINO refuses an ``alpha`` or ``beta`` of static
shape that is not a scalar (rank 0; ``[1]`` is refused too) and element types that are not
all the same (compared exactly: ``dynamic`` data with ``f32`` parameters is refused). Any
type, boolean too; the output has the data's shape and type.

Kernel as OpenVINO's reference (``hard_sigmoid.hpp``), with the first element of ``alpha``
and ``beta``. Floats compute in their type (f16, bf16: in f32, rounded once); integer and
boolean data compute in float64, which is exact for the clamped results 0 and 1 and gives
what the CPU plugin gives (its integer arithmetic). Tolerance against the CPU plugin (f32):
rtol 1e-6, atol 1e-7 (measured: equal but for 1 ulp in a few elements).
"""

from __future__ import annotations

import numpy as np

from irrun.ops._elementwise import in_float
from irrun.ops.base import Op, TensorInfo
from irrun.ops.registry import register

_NAMES = ("data", "alpha", "beta")


@register
class HardSigmoid(Op):
    """HardSigmoid-1."""

    type, version, inputs = "HardSigmoid", 1, (3, 3)
    attributes = ()

    def infer(self, inputs):
        """The data's shape and type, once alpha and beta are scalars of the data's type."""
        for port in (1, 2):
            shape = inputs[port].shape
            if shape.is_static and shape.rank != 0:
                self.context.error(
                    "input-rank",
                    f"{self.describe()}: {_NAMES[port]} must be a scalar (rank 0), but its "
                    f"shape is {shape}",
                    port=self.input_port(port),
                    hint=f"Reshape {_NAMES[port]} to a scalar, shape []",
                )
                return None
        types = [info.element_type for info in inputs]
        if types[1] != types[0] or types[2] != types[0]:
            listing = ", ".join(f"{name} is {t}" for name, t in zip(_NAMES, types))
            self.context.error(
                "input-type",
                f"{self.describe()}: alpha and beta must have the data's element type "
                f"(exactly; dynamic matches only dynamic), but {listing}",
                port=self.input_port(1 if types[1] != types[0] else 2),
                hint="insert a Convert so that alpha and beta have the data's element type",
            )
            return None
        return [TensorInfo(inputs[0].shape, types[0], why="the shape of the data")]

    def evaluate(self, inputs):
        """The reference's formula with alpha's and beta's first elements."""
        x, alpha, beta = inputs
        alpha = alpha.reshape(-1)[:1].astype(x.dtype).reshape(())
        beta = beta.reshape(-1)[:1].astype(x.dtype).reshape(())

        def hard_sigmoid(v, a, b):
            return np.maximum(0, np.minimum(1, a * v + b))

        return [in_float(hard_sigmoid, x.dtype, x, alpha, beta).reshape(x.shape)]
