"""Swish-4: ``x * sigmoid(beta * x)`` = ``x / (1 + exp(-beta * x))``.

Inputs: ``data`` (floating point only) and an optional scalar ``beta`` (default 1.0) of
exactly the data's element type (OpenVINO compares the types strictly: dynamic does not
match f32) and rank 0. Output: the data's shape and type. Tolerance against the CPU plugin
(f32): rtol 1e-6, atol 1e-7.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._elementwise import UnaryOp, check_category, in_float
from irrun.ops.base import TensorInfo
from irrun.ops.registry import register


@register
class Swish(UnaryOp):
    """Swish-4."""

    type, version, inputs = "Swish", 4, (1, 2)
    category = "float"

    def infer(self, inputs):
        """Output: the data's shape and type; beta checked for type and rank."""
        data = inputs[0]
        if not check_category(self, data.element_type, "float"):
            return None
        if len(inputs) == 2:
            beta = inputs[1]
            if beta.element_type is not data.element_type:
                self.context.error(
                    "input-type",
                    f"{self.describe()}: beta is {beta.element_type} but the data is "
                    f"{data.element_type}; they must be the same type",
                    port=self.input_port(1),
                    hint=f"Convert beta to {data.element_type}",
                )
                return None
            if beta.shape.rank not in (None, 0):
                self.context.error(
                    "input-rank",
                    f"{self.describe()}: beta must be a scalar, but its shape is {beta.shape}",
                    port=self.input_port(1),
                    hint="give beta shape [] (Squeeze it)",
                )
                return None
        return [TensorInfo(data.shape, data.element_type)]

    def evaluate(self, inputs):
        """``x / (1 + exp(-beta * x))``."""
        x = inputs[0]
        beta = inputs[1] if len(inputs) == 2 else np.ones((), x.dtype)
        out = in_float(lambda v, b: v / (1 + np.exp(-v * b)), x.dtype, x, beta)
        return [out.reshape(x.shape)]
