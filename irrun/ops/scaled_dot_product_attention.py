"""ScaledDotProductAttention-13: ``softmax(q @ k^T * scale + mask) @ v``, batched.

Spec facts: inputs query ``[N..., L, E]``, key ``[N..., S, E]``, value ``[N..., S, Ev]`` (each
of rank >= 3), optional attention_mask (numpy-broadcastable to ``[N..., L, S]``; boolean:
true keeps a score, false masks it with -inf; floating-point: added to the scores; a scalar
is allowed), optional scale (a scalar or one element; default ``1 / sqrt(E)``) and optional
sink (a sixth input: one logit per row of scores that joins the softmax and is then dropped;
shape ``[N..., L or 1, 1]`` of the query's rank). Attribute ``causal`` (required): when true
the mask input is ignored (any element type, any shape) and an upper-triangle mask is used: score
``(i, j)`` is kept when ``j <= i``, aligned top-left when ``L != S`` (as OpenVINO's
decomposition, not PyTorch's bottom-right ``tril(diagonal=S-L)``).

Element types, as OpenVINO checks them, in this order: a mask that is used (``causal`` false)
must be floating-point, boolean or dynamic; every other input (a used floating-point mask
included, a boolean or ignored one not) must have the query's element type (``dynamic``
merges with any); the merged type, which is the output's, must be floating-point.

Shape rule (``scaled_dot_product_attention_shape_inference.hpp``): the batch dims ``N...`` of
query, key and value (and of a mask of rank >= 3) broadcast numpy-style
(``Dimension::broadcast_merge``); key's E must merge (interval intersection) with query's,
value's S with key's. A used mask of rank >= 2 (rank 0 is skipped, rank 1 refused)
broadcast-merges its last two dims into L and S: so a mask's L *replaces* a query L of 1
(``[.., 1, E]`` with a ``[.., 4, S]`` mask gives ``[.., 4, Ev]``; the kernel broadcasts the
same way). Output ``[N..., L, Ev]``; dynamic rank when the query (or a mask) makes the batch
dims of dynamic rank. A key or value of dynamic rank gives ``?`` for its dims. The scale's
shape is checked only with exactly five inputs (OpenVINO's own quirk: with a sink it is not):
rank 0, or rank 1 with a dim that can be 1. A sink must have the query's rank (both static),
dims that broadcast with the query's *own* dims (not the merged batch dims nor a mask's L;
measured, the checked-in source predates it) and a last dim that can be 1; it changes no
output dim.

Kernel, as OpenVINO's decomposition (``ScaledDotProductAttentionDecomposition``): the scale
(``1 / sqrt(E)`` in the working type) multiplies the query first, ``np.matmul`` with the key
transposed, the mask added (a boolean one as ``0`` / ``-inf``), a numerically stable softmax
over the last axis (a row that is all ``-inf`` gives NaN, as OpenVINO's CPU plugin does),
``np.matmul`` with the value. f16, bf16 and f8 inputs are computed in f32 and rounded once at
the end (OpenVINO's CPU plugin with the f32 precision hint runs the whole op in f32); f32 in
f32, f64 in f64 (the CPU plugin would compute it in f32).

Tolerance against the CPU plugin (f32 precision; its fused kernel blocks and orders the sums
differently; the error grows with the scores' size): the tests assert ``rtol 1e-5,
atol 1e-5 * max|v|`` in f32 (measured: at most 1.2e-6 * max|v|, on rows of 96 scores of
standard deviation 4) and, for f16, one f16 ulp (``rtol 1e-3, atol 1e-3 *
max|v|``; measured: mostly equal).
"""

from __future__ import annotations

import numpy as np

from irrun.ops._broadcast import broadcast_dims, broadcast_pair
from irrun.ops.base import DYNAMIC_TYPE, Attribute, Op, TensorInfo, lazy_text
from irrun.ops.registry import register
from irrun.shape import Dim, Shape

_NAMES = ("query", "key", "value", "attention_mask", "scale", "sink")


def _batch(shape: Shape) -> Shape:
    return Shape(shape.dims[:-2])


@register
class ScaledDotProductAttention(Op):
    """ScaledDotProductAttention-13 (attribute ``causal``; 3 to 6 inputs)."""

    type, version, inputs = "ScaledDotProductAttention", 13, (3, 6)
    attributes = (Attribute("causal", "bool", False, required=True),)

    # -- element types ------------------------------------------------------------------------
    def _element_type(self, inputs):
        count = len(inputs)
        mask_used = count >= 4 and not self.causal
        if mask_used:
            mask_type = inputs[3].element_type
            if mask_type.kind not in ("float", "bool", "dynamic"):
                self.context.error(
                    "input-type",
                    f"{self.describe()}: the attention_mask must be floating-point or boolean, "
                    f"but it is {mask_type}",
                    port=self.input_port(3),
                    hint="Convert the mask to boolean (true = attend) or to the query's type "
                    "(added to the scores)",
                )
                return None
        etype = inputs[0].element_type
        for i in range(1, count):
            other = inputs[i].element_type
            if i == 3 and (other.name == "boolean" or self.causal):
                continue  # a boolean or ignored mask does not take part in the type
            if etype.name == "dynamic":
                etype = other
            elif other.name != "dynamic" and other != etype:
                self.context.error(
                    "input-type",
                    f"{self.describe()}: the {_NAMES[i]} (input {i}) is {other} but the inputs "
                    f"before it are {etype}; OpenVINO refuses mixed input types",
                    port=self.input_port(i),
                    hint=f"insert a Convert so that the {_NAMES[i]} is {etype}",
                )
                return None
        if etype.kind not in ("float", "dynamic"):
            self.context.error(
                "input-type",
                f"{self.describe()}: the inputs must be floating-point, but they are {etype}",
                port=self.input_port(0),
                hint="Convert query, key and value to f32 (or f16)",
            )
            return None
        return etype

    # -- shapes -----------------------------------------------------------------------------
    def _rank_error(self, index: int, shape: Shape, least: int) -> None:
        self.context.error(
            "input-rank",
            f"{self.describe()}: the {_NAMES[index]} must have rank {least} or more, but it has "
            f"shape {shape} (rank {shape.rank})",
            port=self.input_port(index),
            hint="attention takes [batch..., sequence, features] tensors; Unsqueeze a batch axis",
        )

    def _dims_error(self, index: int, what: str, hint: str) -> None:
        self.context.error(
            "input-dims",
            f"{self.describe()}: the {_NAMES[index]} does not fit the other inputs: {what}",
            port=self.input_port(index),
            hint=hint,
        )

    def _merge_batch(self, batch: Shape, index: int, shape: Shape, before: str):
        merged = broadcast_pair(batch, _batch(shape))
        if merged is None:
            self._dims_error(
                index,
                f"its batch dims {_batch(shape)} (of {shape}) do not broadcast with {batch} "
                f"(of {before})",
                "batch dims must be equal or 1 in every input",
            )
        return merged

    def infer(self, inputs):
        """Output ``[N..., L, Ev]``, checked as OpenVINO's shape inference checks it."""
        etype = self._element_type(inputs)
        if etype is None:
            return None
        count = len(inputs)
        query, key, value = (info.shape for info in inputs[:3])
        unknown = Dim.dynamic()
        l_dim = e_dim = s_dim = ev_dim = unknown
        if query.rank_is_static:
            if query.rank < 3:
                self._rank_error(0, query, 3)
                return None
            batch, l_dim, e_dim = _batch(query), query.dims[-2], query.dims[-1]
        else:
            batch = query
        if key.rank_is_static:
            if key.rank < 3:
                self._rank_error(1, key, 3)
                return None
            batch = self._merge_batch(batch, 1, key, "the query")
            if batch is None:
                return None
            merged = e_dim.merge(key.dims[-1])
            if merged is None:
                self._dims_error(
                    1,
                    f"its E {key.dims[-1]} (last dim of {key}) differs from the query's "
                    f"E {e_dim} (last dim of {query})",
                    "query and key need the same last (feature) dim",
                )
                return None
            e_dim, s_dim = merged, key.dims[-2]
        if value.rank_is_static:
            if value.rank < 3:
                self._rank_error(2, value, 3)
                return None
            batch = self._merge_batch(batch, 2, value, "query and key")
            if batch is None:
                return None
            merged = s_dim.merge(value.dims[-2])
            if merged is None:
                self._dims_error(
                    2,
                    f"its S {value.dims[-2]} (second last dim of {value}) differs from the "
                    f"key's S {s_dim} (second last dim of {key})",
                    "key and value need the same sequence length (second last dim)",
                )
                return None
            s_dim, ev_dim = merged, value.dims[-1]
        if count >= 4 and not self.causal:
            mask = inputs[3].shape
            if mask.rank_is_static and mask.rank != 0:
                if mask.rank < 2:
                    self._rank_error(3, mask, 2)
                    return None
                new_l = broadcast_dims(l_dim, mask.dims[-2])
                new_s = broadcast_dims(s_dim, mask.dims[-1])
                if new_l is None or new_s is None:
                    self._dims_error(
                        3,
                        f"its last two dims {mask.dims[-2]}, {mask.dims[-1]} (of {mask}) do not "
                        f"broadcast to the scores' L {l_dim} by S {s_dim}",
                        "the mask must broadcast to [batch..., L, S] (L: the query's second "
                        "last dim, S: the key's)",
                    )
                    return None
                if s_dim.is_static and new_s.is_static and new_s != s_dim:
                    # OpenVINO's rule lets the mask widen a key S of 1; the weights then have
                    # more columns than the value has rows, and no run can multiply them.
                    self._dims_error(
                        3,
                        f"its last dim {mask.dims[-1]} (of {mask}) widens the key's S {s_dim} to "
                        f"{new_s}: the attention weights [..., L, {new_s}] cannot multiply the "
                        f"value's {s_dim} row{'s' if s_dim != Dim(1) else ''} (OpenVINO's shape "
                        "rule lets this through, but no run can give it)",
                        "the mask's last dim must be the key's sequence length S (or 1)",
                    )
                    return None
                l_dim, s_dim = new_l, new_s
                if mask.rank >= 3:
                    batch = self._merge_batch(batch, 3, mask, "query, key and value")
                    if batch is None:
                        return None
        if count == 5:
            scale = inputs[4].shape
            if scale.rank_is_static and not (
                scale.rank == 0 or (scale.rank == 1 and scale.dims[0].compatible(Dim(1)))
            ):
                self.context.error(
                    "input-rank" if scale.rank > 1 else "input-dims",
                    f"{self.describe()}: the scale must be a scalar or have one element, but it "
                    f"has shape {scale}",
                    port=self.input_port(4),
                    hint="give the scale as a scalar (shape [])",
                )
                return None
        if count == 6 and not self._sink_fits(query, inputs[5].shape):
            return None
        if not batch.rank_is_static:
            shape = Shape.dynamic_rank()
        else:
            shape = Shape((*batch.dims, l_dim, ev_dim))
        return [
            TensorInfo(
                shape,
                etype if etype is not None else DYNAMIC_TYPE,
                why=lazy_text("batch dims {}, L {}, Ev {}", batch, l_dim, ev_dim),
            )
        ]

    def _sink_fits(self, query: Shape, sink: Shape) -> bool:
        """OpenVINO's sink check: the query's rank, dims that broadcast with the query's own
        (before key, value or mask refine them), a last dim that can be 1."""
        if not query.rank_is_static or not sink.rank_is_static:
            return True
        if sink.rank != query.rank:
            self.context.error(
                "input-rank",
                f"{self.describe()}: the sink {sink} must have the query's rank {query.rank} "
                f"(query {query})",
                port=self.input_port(5),
                hint="give the sink as [batch..., L or 1, 1], one logit per row of scores",
            )
            return False
        last = sink.dims[-1]
        bad = [i for i in range(query.rank - 1) if broadcast_dims(query.dims[i], sink.dims[i])
               is None]  # fmt: skip
        if bad or not last.compatible(Dim(1)):
            where = f"dim {bad[0]}: {sink.dims[bad[0]]} vs the query's {query.dims[bad[0]]}" if (
                bad) else f"its last dim {last} is not 1"  # fmt: skip
            self.context.error(
                "input-dims",
                f"{self.describe()}: the sink {sink} does not fit the query {query}: {where}",
                port=self.input_port(5),
                hint="give the sink as [batch..., L or 1, 1], one logit per row of scores",
            )
            return False
        return True

    # -- kernel -----------------------------------------------------------------------------
    def evaluate(self, inputs):
        """The decomposition: ``softmax((q * scale) @ k^T + mask) @ v``."""
        query = inputs[0]
        dtype = query.dtype
        work = np.float64 if dtype == np.float64 else np.float32
        query, key, value = (np.asarray(x, dtype=work) for x in inputs[:3])
        if len(inputs) >= 5:
            scale = np.asarray(inputs[4], dtype=work).reshape(())
        else:
            scale = work(1) / np.sqrt(work(query.shape[-1]))
        scores = np.matmul(query * scale, np.swapaxes(key, -1, -2))
        if self.causal:
            rows = np.arange(query.shape[-2])[:, None]
            columns = np.arange(key.shape[-2])[None, :]
            scores += np.where(columns > rows, -np.inf, 0).astype(work)  # (a [L, S] grid)
        elif len(inputs) >= 4:
            mask = inputs[3]
            if mask.dtype == np.bool_:
                bias = np.where(mask, work(0), work(-np.inf))
            else:
                bias = np.asarray(mask, dtype=work)
            if np.broadcast_shapes(scores.shape, bias.shape) == scores.shape:
                scores += bias  # (in place: the scores are a fresh array, and the largest)
            else:
                scores = scores + bias
        if len(inputs) == 6:
            sink = np.asarray(inputs[5], dtype=work)
            sink = np.broadcast_to(sink, (*scores.shape[:-1], 1))
            scores = np.concatenate([scores, sink], axis=-1)
        peak = np.max(scores, axis=-1, keepdims=True, initial=-np.inf)
        with np.errstate(invalid="ignore"):  # a row of -inf only: NaN, as OpenVINO gives
            # The softmax in place on the scores: the same values as with new arrays, without
            # allocating three more of the largest tensor.
            weights = np.subtract(scores, peak, out=scores)
            np.exp(weights, out=weights)
            weights /= np.sum(weights, axis=-1, keepdims=True)
        if len(inputs) == 6:
            weights = weights[..., :-1]
        result = np.matmul(weights, value)
        return [np.asarray(result).astype(dtype, copy=False)]
