"""MVN-1 (OpenVINO's opset2 op, version ``2`` in its opset tables) and MVN-6: mean-variance
normalisation, ``(x - mean) / sqrt(variance + eps)`` over some axes.

Spec facts: output of the data's shape and element type (OpenVINO builds the op for any data
type, boolean too; irrun runs floating-point data only).

- MVN-1: one input; attributes ``eps`` (double, required), ``normalize_variance`` (required),
  ``across_channels`` (default false) and ``reduction_axes`` (optional). Without
  ``reduction_axes`` the axes are ``[1, r)`` (across channels) or ``[2, r)``; eps is added
  inside the square root. OpenVINO writes both attributes (``reduction_axes`` wins).
- MVN-6: inputs ``data`` and ``axes`` (1-D integer; OpenVINO's reference takes i32 and i64;
  OpenVINO also accepts float axes, truncated toward 0: irrun too, with an ``index-type``
  warning that the specification wants integers; u64 axes are read as int64);
  attributes ``normalize_variance``, ``eps`` (float, required) and ``eps_mode``
  (``inside_sqrt``: ``sqrt(var + eps)``; ``outside_sqrt``: ``sqrt(var) + eps``; required).
  OpenVINO refuses axes that are not 1-D and more axes than the data's rank; it builds
  out-of-range axes (its reference then fails): irrun reports them. Repeated axes count once.

Kernel as OpenVINO's reference (``mvn.hpp``), every step in the element type: ``mean`` =
``sum / count``; ``d = x - mean``; ``var = sum(d * d) / count``; ``d / sqrt(var + eps)`` (or
``d / (sqrt(var) + eps)``). The reference's sums are Kahan-compensated in the element type;
irrun accumulates them in float64 and rounds once (the same value but in rare ties). Against
the CPU plugin in f32 (whose MVN uses its own summation and a fused kernel): rtol 1e-5,
atol 2e-6 (measured: at most 9.5e-7 absolute on data of scale 3; relative error is large only
for outputs near 0). f16 and bf16: OpenVINO's reference evaluator refuses them (it evaluates
MVN in f32 only) and the CPU plugin computes them in f32; irrun too, rounding once.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._reduce import reduction_axes
from irrun.ops._shape_ops import check_integer_input
from irrun.ops._values import signed_ints
from irrun.ops.base import Attribute, Op, TensorInfo, normalize_axes_or_report
from irrun.ops.registry import register


def mvn(data: np.ndarray, axes: tuple, normalize_variance: bool, eps: float,
        inside_sqrt: bool = True) -> np.ndarray:  # fmt: skip
    """Mean-variance normalisation of ``data`` over ``axes`` (normalised, unique), each step
    rounded to the data's dtype as OpenVINO's reference does (f16 and bf16: to f32, rounded
    once at the end).

    Examples
    --------
    >>> mvn(np.array([[1.0, 3.0]], np.float32), (1,), True, 0.0)
    array([[-1.,  1.]], dtype=float32)
    """
    dtype = data.dtype
    if dtype.kind != "f" and "float" not in dtype.name:
        raise NotImplementedError(f"irrun runs MVN on floating-point data only, not {dtype}")
    if dtype.itemsize < 4:  # f16, bf16: in f32, rounded once (OpenVINO's CPU plugin does so)
        wide = data.astype(np.float32)
        return mvn(wide, axes, normalize_variance, eps, inside_sqrt).astype(dtype)
    kept = np.sum(data, axis=axes, keepdims=True, dtype=np.float64)
    count = np.asarray(data.size // max(kept.size, 1) if kept.size else 1, dtype=dtype)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = kept.astype(dtype) / count
        centred = data - mean
        if not normalize_variance:
            return centred
        squares = centred * centred
        variance = np.sum(squares, axis=axes, keepdims=True, dtype=np.float64).astype(dtype)
        variance = variance / count
        epsilon = np.asarray(eps, dtype=dtype)
        centred /= np.sqrt(variance + epsilon) if inside_sqrt else np.sqrt(variance) + epsilon
    return centred


@register
class MVN1(Op):
    """MVN-1 (``reduction_axes`` or ``across_channels``; eps inside the square root)."""

    type, version, inputs = "MVN", 2, (1, 1)
    attributes = (
        Attribute("eps", "float", 0.0, required=True),
        Attribute("normalize_variance", "bool", False, required=True),
        Attribute("across_channels", "bool", False),
        Attribute("reduction_axes", "ints", None),
    )

    @property
    def label(self) -> str:
        return "MVN-1"

    def axes_for(self, rank: int) -> list[int]:
        """The reduction axes for data of ``rank`` (as written, or from across_channels)."""
        if self.reduction_axes:
            return list(self.reduction_axes)
        return list(range(1 if self.across_channels else 2, rank))

    def infer(self, inputs):
        """The data's shape and type, once the axes are checked against its rank."""
        data = inputs[0]
        rank = data.shape.rank
        if rank is not None and self.reduction_axes:
            axes = self.reduction_axes
            line = self.layer.data_line
            if normalize_axes_or_report(self, axes, rank, unique=False, line=line) is None:
                return None
        return [TensorInfo(data.shape, data.element_type, why="the shape of the data")]

    def evaluate(self, inputs):
        """:func:`mvn` with eps inside the square root."""
        data = inputs[0]
        axes = reduction_axes(np.array(self.axes_for(data.ndim), np.int64), data.ndim, self)
        return [mvn(data, axes, self.normalize_variance, self.eps)]


@register
class MVN6(Op):
    """MVN-6 (axes input, eps_mode)."""

    type, version, inputs = "MVN", 6, (2, 2)
    attributes = (
        Attribute("eps", "float", 0.0, required=True),
        Attribute("normalize_variance", "bool", False, required=True),
        Attribute(
            "eps_mode",
            "enum",
            "inside_sqrt",
            required=True,
            choices=("inside_sqrt", "outside_sqrt"),
        ),  # fmt: skip
    )

    def infer(self, inputs):
        """The data's shape and type, once the axes are checked (1-D integer, not more of them
        than the data has dims, each in range)."""
        data, axes = inputs
        if not check_integer_input(self, axes, 1, "axes", floats=True):
            return None
        rank = data.shape.rank
        axes_dims = axes.shape.dims
        if axes_dims is not None and len(axes_dims) != 1:
            self.context.error(
                "input-rank",
                f"{self.describe()}: axes must be 1-D, but its shape is {axes.shape}",
                port=self.input_port(1),
                hint="Reshape the axes to 1-D",
            )
            return None
        if rank is not None and axes_dims is not None and axes_dims[0].lower > rank:
            self.context.error(
                "input-rank",
                f"{self.describe()}: axes {axes.shape} name more axes than data {data.shape} "
                f"has dims ({axes_dims[0]} > {rank})",
                port=self.input_port(0),
                hint="give at most one axis per data dimension",
            )
            return None
        values = signed_ints(axes, floats=True)
        if rank is not None and values is not None:
            if normalize_axes_or_report(self, values, rank, port_index=1, unique=False) is None:
                return None
        return [TensorInfo(data.shape, data.element_type, why="the shape of the data")]

    def evaluate(self, inputs):
        """:func:`mvn` over the axes input."""
        data, axes = inputs
        normalised = reduction_axes(axes, data.ndim, self)
        inside = self.eps_mode == "inside_sqrt"
        return [mvn(data, normalised, self.normalize_variance, np.float32(self.eps), inside)]
