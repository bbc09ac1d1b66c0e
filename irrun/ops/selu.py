"""Selu-1: ``lambda * x`` for ``x > 0``, ``lambda * alpha * (exp(x) - 1)`` otherwise.

Inputs: ``data``, ``alpha`` and ``lambda`` (the specification: 1-D tensors of one element;
OpenVINO checks no shape of them). The element types merge into one (``dynamic`` merges with
any), which must be floating point; the output has the data's shape and that type.

Kernel as OpenVINO's reference (``selu.hpp``): element ``i`` of the data takes
``alpha[i % alpha.size]`` and ``lambda[i % lambda.size]`` (the flat parameters repeated over
the flat data). Quirk: the CPU plugin uses only the first element of each, so it agrees with
the reference for one-element parameters only. Tolerance against the CPU plugin (f32): rtol
1e-6, atol 1e-7 (measured: at most 2.4e-7 relative); f16 computes in f32 and rounds once.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._elementwise import check_category, in_float
from irrun.ops.base import Op, TensorInfo, common_element_type
from irrun.ops.registry import register


def _tiled(parameter: np.ndarray, data: np.ndarray) -> np.ndarray:
    """``parameter[i % parameter.size]`` for every flat index ``i`` of ``data``, in its shape."""
    flat = parameter.reshape(-1)
    if flat.size == 1:
        return flat.reshape(())
    return np.resize(flat, data.size).reshape(data.shape)


@register
class Selu(Op):
    """Selu-1."""

    type, version, inputs = "Selu", 1, (3, 3)
    attributes = ()

    def infer(self, inputs):
        """The data's shape; the merged element type of the three inputs (floating point)."""
        etype = common_element_type(self, inputs)
        if etype is None or not check_category(self, etype, "float"):
            return None
        return [TensorInfo(inputs[0].shape, etype, why="the shape of the data")]

    def evaluate(self, inputs):
        """The reference's formula, the parameters repeated over the flat data."""
        x, alpha, lambda_ = inputs
        if x.size == 0:
            return [x.copy()]
        alpha, lambda_ = _tiled(alpha, x), _tiled(lambda_, x)

        def selu(v, a, s):
            return np.where(v > 0, s * v, a * s * np.expm1(v))

        return [in_float(selu, x.dtype, x, alpha.astype(x.dtype), lambda_.astype(x.dtype))]
