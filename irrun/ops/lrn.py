"""LRN-1: local response normalisation over a window along ``axes``.

Spec facts: inputs data (rank >= 1) and axes (1-D integer tensor, at most the data rank
elements, in ``[0, rank - 1]``; repeats collapse); attributes ``alpha``, ``beta``,
``bias`` (floats) and ``size`` (the window), all required. For each element, with the window
``[i - (size - 1) // 2, i + (size - 1) // 2]`` clipped to the axis along every axis in
``axes`` (**quirk**: an even ``size`` gives a window of ``size - 1``, as in the reference)::

    out = x / (bias + alpha / size^len(axes) * sum(window x²)) ^ beta

Shape rule (``lrn.cpp``): the axes must be 1-D (a scalar is refused), of at most the data
rank elements (from the axes shape; both checked only when the axes shape is static), and
known axes below the data rank; a float axes constant is refused. **Quirk**: OpenVINO reads
the axes as unsigned and compares them as signed, so a negative axis passes validation; its
reference then indexes out of bounds and the CPU plugin refuses to compile it: irrun accepts it
in validation as OpenVINO does and refuses it when run. Output: the data's shape and type.
``len(axes)`` counts distinct axes.

Kernel: squares in float64 summed over each window axis by shifted slices (one vectorised sum
per window offset), the power in float64, rounded to the data type once; against the CPU plugin
``rtol=1e-5, atol=1e-6``. The CPU plugin runs only the channel axis or all spatial axes (and
OpenVINO's reference has no evaluator): other axes sets are checked against the reference
formula written out element by element. irrun runs floats only.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._values import signed_ints, signed_values
from irrun.ops.base import Attribute, Op, TensorInfo, lazy_text
from irrun.ops.registry import register


@register
class LRN(Op):
    """LRN-1 (alpha, beta, bias, size)."""

    type, version, inputs = "LRN", 1, (2, 2)
    attributes = (
        Attribute("alpha", "float", 0.0, required=True),
        Attribute("beta", "float", 0.0, required=True),
        Attribute("bias", "float", 0.0, required=True),
        Attribute("size", "int", 0, required=True),
    )

    def infer(self, inputs):
        """The data's shape and type once the axes fit the data."""
        data, axes = inputs
        axes_rank = axes.shape.rank
        if axes.shape.is_static and axes_rank != 1:  # OpenVINO checks only a static shape
            self.context.error(
                "input-rank",
                f"{self.describe()}: axes must be 1-D, but its shape is {axes.shape}",
                port=self.input_port(1),
                hint="give the axes as a 1-D tensor (Unsqueeze a scalar)",
            )
            return None
        if axes.element_type.name != "dynamic" and not axes.element_type.is_integer:
            self.context.error(
                "index-type",
                f"{self.describe()}: axes must be an integer tensor, but it is {axes.element_type}",
                port=self.input_port(1),
                hint="give the axes as i64 (or i32)",
            )
            return None
        rank = data.shape.rank
        count = axes.shape[0] if axes_rank == 1 else None
        if rank is not None and count is not None and count.is_static and count.lower > rank:
            self.context.error(
                "input-dims",
                f"{self.describe()}: axes has {count.lower} elements, more than the data rank "
                f"{rank} ({data.shape})",
                port=self.input_port(1),
                hint="list each axis of the data at most once",
            )
            return None
        values = signed_ints(axes)
        beyond = [a for a in values or () if rank is not None and a >= rank]
        if beyond:
            self.context.error(
                "axis-range",
                f"{self.describe()}: axis {beyond[0]} of {values} is out of the range [0, "
                f"{rank - 1}] of the data {data.shape}",
                port=self.input_port(1),
                hint=f"use axes between 0 and {rank - 1}",
            )
            return None
        why = lazy_text("the data's shape {} (size {})", data.shape, self.size)
        return [TensorInfo(data.shape, data.element_type, why=why)]

    def evaluate(self, inputs):
        """Window sums of squares along each axis, then the normalisation."""
        data, axes = inputs
        if data.dtype.kind != "f" and "float" not in data.dtype.name:
            raise NotImplementedError(f"irrun runs {self.label} on floating-point data only, "
                                      f"not {data.dtype}")  # fmt: skip
        values = signed_values(axes)
        if any(not 0 <= a < data.ndim for a in values):
            raise ValueError(f"{self.describe()}: axes {values} must lie in [0, {data.ndim - 1}] "
                             f"for data of rank {data.ndim}")  # fmt: skip
        axes = sorted(set(values))
        wide = data.astype(np.float64)
        total = wide * wide
        half = (self.size - 1) // 2 if self.size > 0 else 0
        for axis in axes:
            total = _window_sum(total, axis, half)
        scale = self.alpha / float(self.size) ** len(axes)
        with np.errstate(divide="ignore", invalid="ignore"):
            out = wide / np.power(self.bias + scale * total, self.beta)
        return [out.astype(data.dtype)]


def _window_sum(values: np.ndarray, axis: int, half: int) -> np.ndarray:
    """The sums over ``[i - half, i + half]`` (clipped) along ``axis``."""
    size = values.shape[axis]
    if half == 0 or size == 0:
        return values
    padding = [(0, 0)] * values.ndim
    padding[axis] = (half, half)
    padded = np.pad(values, padding)
    total = np.zeros_like(values)
    for offset in range(2 * half + 1):  # the window offsets, not the elements
        total += np.take(padded, np.arange(offset, offset + size), axis=axis)
    return total
