"""MatMul-1: matrix product of two tensors, batched with numpy-style broadcasting.

Spec facts: inputs A and B of one element type (rank >= 1 each; scalars are refused);
``transpose_a``/``transpose_b`` (default false) swap the last two dims of a rank >= 2 input and
are ignored for a 1-D one. A 1-D A is unsqueezed to ``[1, K]`` and a 1-D B to ``[K, 1]``; the
added axis is removed from the output (two 1-D inputs give a scalar). The inner dims (A's
last, B's second last, after transposition) must be able to be equal: OpenVINO refuses only
two static dims that differ (intervals that do not meet pass). Batch dims (all but the last
two) broadcast: a static 1 gives the other dim, otherwise the dims are merged
(``Dimension::broadcast_merge``: two dims that may both be 1 give the hull of both intervals,
``?`` and ``0..1`` give ``?``; one that may be 1 gives the other; else the intersection); two
static dims that differ are refused, and when a merge fails with a dynamic dim the output dim
is ``?``. Dynamic rank on either side gives a dynamic-rank output.

Kernel: ``np.matmul`` (BLAS for f32/f64). f16 and bf16 are computed in f32 and rounded to
the type once, as OpenVINO's CPU plugin does with the f32 precision hint; integer types
multiply and accumulate in their own type (wrapping, as the reference's ``T`` accumulator).

Tolerance (float vs OpenVINO CPU f32, different summation order and blocking): measured
errors stay below ``1e-6 * sqrt(K) * max|A| * max|B|``; the tests assert
``atol = 1e-5 * sqrt(K) * max|A| * max|B|`` with ``rtol = 1e-5``. Integer results are exact.
"""

from __future__ import annotations

import numpy as np

from irrun.ops.base import Attribute, Op, TensorInfo, common_element_type, lazy_text
from irrun.ops.registry import register
from irrun.shape import Dim, Shape, static_dim

_ONE = static_dim(1)


def _broadcast_dim(a: Dim, b: Dim) -> Dim | None:
    """OpenVINO's ``Dimension::broadcast_merge`` (``None``: no merge): when both may be 1, the
    hull of both intervals; when one may be 1, the other; else their intersection."""
    a_one = a.lower <= 1 and (a.upper is None or a.upper >= 1)
    b_one = b.lower <= 1 and (b.upper is None or b.upper >= 1)
    if a_one and b_one:
        upper = None if a.upper is None or b.upper is None else max(a.upper, b.upper)
        return Dim(min(a.lower, b.lower), upper)
    if a_one:
        return b
    if b_one:
        return a
    return a.merge(b)


@register
class MatMul(Op):
    """MatMul-1 (attributes ``transpose_a``, ``transpose_b``)."""

    type, version, inputs = "MatMul", 1, (2, 2)
    attributes = (Attribute("transpose_a", "bool", False), Attribute("transpose_b", "bool", False))

    def infer(self, inputs):
        """Output shape of the spec's four steps, over partial shapes."""
        etype = common_element_type(self, inputs)
        if etype is None:
            return None
        a_shape, b_shape = inputs[0].shape, inputs[1].shape
        if not a_shape.rank_is_static or not b_shape.rank_is_static:
            return [TensorInfo(Shape.dynamic_rank(), etype, why="an input of unknown rank")]
        if a_shape.rank == 0 or b_shape.rank == 0:
            index = 0 if a_shape.rank == 0 else 1
            self.context.error(
                "input-rank",
                f"{self.describe()}: scalars are not supported as MatMul inputs, but input "
                f"{index} has shape {inputs[index].shape}",
                port=self.input_port(index),
                hint="Unsqueeze the scalar to shape [1], or use Multiply",
            )
            return None
        a, b = list(a_shape.dims), list(b_shape.dims)
        if self.transpose_a and len(a) > 1:
            a[-2], a[-1] = a[-1], a[-2]
        if self.transpose_b and len(b) > 1:
            b[-2], b[-1] = b[-1], b[-2]
        if len(a) == 1:
            a.insert(0, _ONE)
        if len(b) == 1:
            b.append(_ONE)
        k_a, k_b = a[-1], b[-2]
        if k_a.is_static and k_b.is_static and k_a != k_b:
            self.context.error(
                "input-dims",
                f"{self.describe()}: the inner dimensions differ: A {a_shape} "
                f"(transpose_a={_flag(self.transpose_a)}) has K = {k_a} and B {b_shape} "
                f"(transpose_b={_flag(self.transpose_b)}) has K = {k_b}",
                port=self.input_port(1),
                hint="A's last dim (second last with transpose_a) must equal B's second last "
                "(last with transpose_b); check the transpose flags or the input shapes",
            )
            return None
        rank = max(len(a), len(b))
        a = [_ONE] * (rank - len(a)) + a
        b = [_ONE] * (rank - len(b)) + b
        out = []
        for i in range(rank - 2):
            merged = _broadcast_dim(a[i], b[i])
            if merged is None:
                if a[i].is_static and b[i].is_static:
                    self.context.error(
                        "input-dims",
                        f"{self.describe()}: batch dimension {i} (after aligning ranks) cannot "
                        f"broadcast: A {a_shape} has {a[i]} and B {b_shape} has {b[i]}",
                        port=self.input_port(1),
                        hint="batch dims must be equal or 1",
                    )
                    return None
                merged = Dim.dynamic()
            out.append(merged)
        if a_shape.rank > 1:
            out.append(a[-2])
        if b_shape.rank > 1:
            out.append(b[-1])
        return [TensorInfo(Shape(out), etype, why=lazy_text("A {} x B {}", a_shape, b_shape))]

    def evaluate(self, inputs):
        """``np.matmul`` of the (transposed) inputs."""
        a, b = self._operands(inputs)
        dtype = a.dtype
        if (dtype.kind == "f" and dtype.itemsize < 4) or dtype.kind == "V":  # f16, bf16, f8
            product = np.matmul(a.astype(np.float32), b.astype(np.float32))
        else:
            product = np.matmul(a, b)
        return [np.asarray(product).astype(dtype, copy=False)]

    def evaluate_into(self, inputs, outputs) -> None:
        """:meth:`evaluate` written into ``outputs[0]`` (an array of the output's shape and
        dtype, overlapping no input), bit for bit: ``np.matmul(..., out=)`` for NumPy's own
        types and a C-contiguous ``out`` of the product's shape (the same BLAS call), else
        computed and copied."""
        (out,) = outputs
        a, b = self._operands(inputs)
        dtype = a.dtype
        if (dtype.kind in "fiu" and dtype.itemsize >= 4 and out.dtype == dtype and a.ndim > 1
                and b.ndim > 1 and out.flags.c_contiguous
                and out.shape == np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
                + (a.shape[-2], b.shape[-1])):  # fmt: skip
            np.matmul(a, b, out=out)
            return
        (result,) = self.evaluate(inputs)
        if result.shape != out.shape:
            raise ValueError(f"the result has shape {list(result.shape)}, not {list(out.shape)}")
        np.copyto(out, result)

    def _operands(self, inputs):
        a, b = inputs
        if self.transpose_a and a.ndim > 1:
            a = np.swapaxes(a, -1, -2)
        if self.transpose_b and b.ndim > 1:
            b = np.swapaxes(b, -1, -2)
        return a, b


def _flag(value: bool) -> str:
    return "true" if value else "false"
