"""Reverse-1: reverse the data along some axes.

Spec facts: inputs data (any type) and reversed_axes (1-D); attribute ``mode`` (``index``:
the axes as integers, negative counting from the end; ``mask``: a boolean per data axis).
Output: the data's shape and type. OpenVINO's IR reader has Reverse-1 in ``opset1`` only (no
``openvino.opsetN`` module builds it; ``read_model`` refuses it in any later opset): irrun
reports a layer of another opset.

Shape rule (``reverse_shape_inference.hpp``): the axes of rank 1; in mask mode a boolean
tensor with as many elements as the data rank; in index mode an integer tensor whose known
values lie below the data rank (**quirk**: negative values are clipped to 0 for this check, so
they pass, and the kernel normalises them).

Kernel: ``np.flip`` over the axes; exact.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._values import signed_ints
from irrun.ops.base import Attribute, Op, TensorInfo, lazy_text
from irrun.ops.registry import register
from irrun.shape import static_dim


@register
class Reverse(Op):
    """Reverse-1 (mode)."""

    type, version, inputs = "Reverse", 1, (2, 2)
    rounds = False
    attributes = (Attribute("mode", "enum", "index", required=True, choices=("index", "mask")),)

    def setup(self):
        """Report a Reverse layer outside opset1 (OpenVINO's reader refuses it)."""
        opset = getattr(self.layer, "opset", None)
        if opset is not None and opset != 1:
            self.context.error(
                "not-in-opset",
                f"{self.describe()}: OpenVINO reads Reverse only in opset1, not in "
                f"opset{opset}; it refuses the model",
                hint='write version="opset1" for the Reverse layer',
            )
            self.incomplete = True

    def infer(self, inputs):
        """The data's shape once the axes fit it."""
        data, axes = inputs
        etype = axes.element_type
        wanted = "boolean" if self.mode == "mask" else "integer"
        fits = etype.name == "boolean" if self.mode == "mask" else etype.is_integer
        if etype.name != "dynamic" and not fits:
            self.context.error(
                "index-type",
                f"{self.describe()}: in {self.mode} mode reversed_axes must be {wanted}, but "
                f"it is {etype}",
                port=self.input_port(1),
                hint=f"give reversed_axes as {'a boolean mask' if wanted == 'boolean' else 'i64'}",
            )
            return None
        if axes.shape.rank not in (None, 1):
            self.context.error(
                "input-rank",
                f"{self.describe()}: reversed_axes must be 1-D, but its shape is {axes.shape}",
                port=self.input_port(1),
                hint="give reversed_axes as a 1-D tensor",
            )
            return None
        rank = data.shape.rank
        if self.mode == "mask" and rank is not None and axes.shape.rank == 1:
            if not axes.shape[0].compatible(static_dim(rank)):
                self.context.error(
                    "input-dims",
                    f"{self.describe()}: the mask has {axes.shape[0]} elements, but the data "
                    f"{data.shape} has rank {rank}",
                    port=self.input_port(1),
                    hint="give one boolean per data axis",
                )
                return None
        values = signed_ints(axes) if self.mode == "index" else None
        if values is not None and rank is not None and any(v >= rank for v in values):
            self.context.error(
                "axis-range",
                f"{self.describe()}: axes {values} go beyond the data rank {rank} ({data.shape})",
                port=self.input_port(1),
                hint=f"use axes below {rank}",
            )
            return None
        why = lazy_text("the data's shape {}", data.shape)
        return [TensorInfo(data.shape, data.element_type, why=why)]

    def evaluate(self, inputs):
        """``np.flip`` over the reversed axes."""
        data, axes = np.asarray(inputs[0]), np.asarray(inputs[1]).reshape(-1)
        if self.mode == "mask":
            chosen = tuple(int(i) for i in np.nonzero(axes)[0])
        else:
            values = axes.astype(np.int64).tolist()
            if any(not -data.ndim <= v < data.ndim for v in values):
                raise ValueError(f"{self.describe()}: axes {values} are out of the range "
                                 f"[{-data.ndim}, {data.ndim - 1}] of data "
                                 f"{list(data.shape)}")  # fmt: skip
            chosen = tuple(sorted({v % data.ndim for v in values}))
        return [np.array(np.flip(data, chosen) if chosen else data, order="C")]
