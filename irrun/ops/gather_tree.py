"""GatherTree-1: the full beams of a beam search, traced back from the last step through the
parent indices.

Spec facts: inputs step_ids ``[T, B, W]`` (max time, batch, beam width), parent_idx (the same
shape), max_seq_len ``[B]`` and end_token (a scalar), all of one numeric element type (not
boolean); no attributes. The output has step_ids' shape (merged with parent_idx's, its batch
dim merged with max_seq_len's) and that element type.

Kernel (OpenVINO's reference, after TensorFlow's): every entry starts as end_token; for each
batch and beam, with ``L = min(T, max_seq_len[b])``, step L-1 copies step_ids there and the
steps before follow the parent chain (``out[t,b,w] = step_ids[t,b,p]``, then
``p = parent_idx[t,b,p]``); after the first end_token of a beam (within its L steps) every
later step is end_token. Values are compared and used as indices after truncation to integers,
as the reference casts them (the CPU plugin compares float values exactly: 2.5 does not end a
beam whose end_token is 2 there; a negative length, which wraps to all T steps in the
reference, gives garbage there). A parent index outside ``[0, W)`` is an error when run. The loop
runs over the T time steps, vectorised over batches and beams.
"""

from __future__ import annotations

import numpy as np

from irrun.ops.base import Op, TensorInfo
from irrun.ops.registry import register
from irrun.shape import Shape

_NAMES = ("step_ids", "parent_idx", "max_seq_len", "end_token")


@register
class GatherTree(Op):
    """GatherTree-1 (no attributes)."""

    type, version, inputs = "GatherTree", 1, (4, 4)
    rounds = False
    attributes = ()

    def infer(self, inputs):
        """step_ids merged with parent_idx (rank 3), batch dim merged with max_seq_len's."""
        step, parent, lengths, end = inputs
        known = [(n, i.element_type) for n, i in zip(_NAMES, inputs)
                 if i.element_type.name != "dynamic"]  # fmt: skip
        if len({t for _, t in known}) > 1:
            listing = ", ".join(f"{n} is {t}" for n, t in known)
            self.context.error(
                "input-type",
                f"{self.describe()}: all inputs must have one element type, but {listing}",
                hint="insert Converts so that every input has step_ids' element type",
            )
            return None
        etype = known[0][1] if known else step.element_type
        if etype.name == "boolean":
            self.context.error(
                "input-type",
                f"{self.describe()}: the inputs must be numeric, not boolean",
                port=self.input_port(0),
                hint="Convert the inputs to i32 or f32",
            )
            return None
        merged = step.shape.merge(parent.shape)
        if merged is None or merged.rank not in (None, 3):
            self.context.error(
                "input-dims" if merged is None else "input-rank",
                f"{self.describe()}: step_ids {step.shape} and parent_idx {parent.shape} must "
                "have one shape of rank 3 ([max_time, batch, beam_width])",
                port=self.input_port(1 if merged is None else 0),
                hint="give both inputs the shape [max_time, batch, beam_width]",
            )
            return None
        if lengths.shape.rank not in (None, 1):
            self.context.error(
                "input-rank",
                f"{self.describe()}: max_seq_len must have rank 1 ([batch]), but its shape is "
                f"{lengths.shape}",
                port=self.input_port(2),
                hint="give one length per batch item in a 1-D tensor",
            )
            return None
        if merged.rank_is_static and lengths.shape.rank_is_static:
            batch = merged[1].merge(lengths.shape[0])
            if batch is None:
                self.context.error(
                    "input-dims",
                    f"{self.describe()}: max_seq_len {lengths.shape} must have one element per "
                    f"batch item, but the batch dim of step_ids/parent_idx is {merged[1]}",
                    port=self.input_port(2),
                    hint="give max_seq_len the shape [batch]",
                )
                return None
            merged = Shape([merged[0], batch, merged[2]])
        if end.shape.rank not in (None, 0):
            self.context.error(
                "input-rank",
                f"{self.describe()}: end_token must be a scalar, but its shape is {end.shape}",
                port=self.input_port(3),
                hint="give end_token as a 0-D tensor",
            )
            return None
        return [TensorInfo(merged, etype, why="the shape of step_ids and parent_idx")]

    def evaluate(self, inputs):
        """Back-tracking over the time steps, vectorised over batches and beams."""
        step, parent_idx, lengths, end_token = inputs
        time, batch, width = step.shape
        end = np.asarray(end_token).reshape(())
        out = np.full(step.shape, end, dtype=step.dtype)
        if out.size == 0:
            return [out]
        # a negative length wraps to a huge size_t in the reference: all T steps
        read = _as_index(lengths)
        limit = np.where(read < 0, time, np.minimum(read, time))[:, None]  # [B, 1]
        beams = np.broadcast_to(np.arange(width), (batch, width))
        rows = np.arange(batch)[:, None]
        parents = beams.copy()
        for t in range(time - 1, -1, -1):
            start = limit - 1 == t
            active = t <= limit - 1
            chosen = np.where(start, beams, parents)
            picked = np.where(active, chosen, 0)
            out[t] = np.where(active, step[t][rows, picked], out[t])
            following = _as_index(parent_idx[t][rows, picked])
            bad = active & ((following < 0) | (following >= width)) & (t > 0)
            if bad.any():
                b, w = np.argwhere(bad)[0]
                raise ValueError(
                    f"{self.describe()}: parent index {int(following[b, w])} at step {t}, batch "
                    f"{b} is outside the beam width {width}"
                )
            parents = np.where(active, following, parents)
        times = np.arange(time)[:, None, None]
        within = times < limit[None]
        is_end = within & (_as_index(out) == _as_index(end))
        ended_before = (np.cumsum(is_end, axis=0) - is_end) > 0
        out[within & ended_before] = end
        return [out]


def _as_index(values) -> np.ndarray:
    """Values as the reference reads indices and lengths: truncated to integers."""
    values = np.asarray(values)
    if values.dtype.kind in "iu":
        return values.astype(np.int64)
    return np.trunc(values.astype(np.float64)).astype(np.int64)
