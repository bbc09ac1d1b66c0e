"""CTCLoss-4: the connectionist temporal classification loss of each sequence.

Spec facts: inputs logits ``[N, T, C]`` (a floating-point type, unnormalised: a log-softmax
over C is taken), logit_length ``[N]``, labels ``[N, T]``, label_length ``[N]`` and an
optional scalar blank_index (default ``C - 1``), all integer. Attributes
``preprocess_collapse_repeated`` (merge repeated labels first), ``ctc_merge_repeated``
(default true: a label held over several steps counts once, so repeated labels need a blank
between them; false: every step emits its own label) and ``unique`` (keep only the first
occurrence of each label; it takes precedence over the collapse). Output ``[N]``, the logits'
type: ``-log`` of the summed probability of every alignment of the labels to the first
logit_length steps (``inf`` when there is none).

Shape rule (``ctc_loss_shape_inference.hpp``): ranks 3, 1, 2, 1 (and a scalar blank); N is the
logits' first dim merged with the first dims of the lengths and labels; the labels' second
dim must be compatible with T.

Kernel: the CTC forward recursion in log space (float64) over the blank-interleaved labels,
vectorised over the batch and the states, one step of time at a time (each sequence stops at
its logit_length); it sums the alignments OpenVINO's reference enumerates. Errors when run: a
length above T, or a label length above the logit length. Tolerance against the CPU plugin in
f32: ``rtol=1e-5, atol=1e-5``. OpenVINO's reference, with preprocess_collapse_repeated and a
label length of 0, reads one label anyway; irrun reads none (the CPU plugin crashes on a label
length of 0). Labels equal to the blank index are outside the spec: OpenVINO's enumeration then
counts alignments differently from the recursion, and the results differ.
"""

from __future__ import annotations

import numpy as np

from irrun.ops.base import Attribute, Op, TensorInfo
from irrun.ops.registry import register
from irrun.shape import Dim, Shape

_NAMES = ("logits", "logit_length", "labels", "label_length", "blank_index")
_RANKS = (3, 1, 2, 1, 0)


def _decoded(labels, lengths, collapse, unique):
    """The labels each row keeps (``unique`` or ``collapse``), packed to the front, and their
    counts."""
    n, t = labels.shape
    valid = np.arange(t)[None, :] < lengths[:, None]
    if unique:
        same = labels[:, :, None] == labels[:, None, :]  # [N, t, t']
        earlier = np.tril(np.ones((t, t), bool), -1)[None] & valid[:, None, :]
        keep = valid & ~(same & earlier).any(axis=2)
    elif collapse:
        keep = valid & np.concatenate([np.ones((n, 1), bool), labels[:, 1:] != labels[:, :-1]], 1)
    else:
        keep = valid
    counts = keep.sum(axis=1)
    packed = np.zeros_like(labels)
    rows, steps = np.nonzero(keep)
    packed[rows, (np.cumsum(keep, axis=1) - 1)[rows, steps]] = labels[rows, steps]
    return packed, counts


@register
class CTCLoss(Op):
    """CTCLoss-4 (preprocess_collapse_repeated, ctc_merge_repeated, unique)."""

    type, version, inputs = "CTCLoss", 4, (4, 5)
    attributes = (
        Attribute("preprocess_collapse_repeated", "bool", False),
        Attribute("ctc_merge_repeated", "bool", True),
        Attribute("unique", "bool", False),
    )

    def infer(self, inputs):
        """``[N]``, N merged over the logits, lengths and labels."""
        etype = inputs[0].element_type
        if etype.name != "dynamic" and etype.kind != "float":
            self.context.error(
                "input-type",
                f"{self.describe()}: logits must be a floating-point tensor, but input 0 is "
                f"{etype}",
                port=self.input_port(0),
                hint="insert a Convert to f32 before the logits",
            )
            return None
        for index in range(1, len(inputs)):
            other = inputs[index].element_type
            if other.name != "dynamic" and not other.is_integer:
                self.context.error(
                    "index-type",
                    f"{self.describe()}: {_NAMES[index]} must be an integer tensor, but input "
                    f"{index} is {other}",
                    port=self.input_port(index),
                    hint="insert a Convert to i32 before it",
                )
                return None
        for index, info in enumerate(inputs):
            rank = info.shape.rank
            if rank is not None and rank != _RANKS[index]:
                wanted = "a scalar" if _RANKS[index] == 0 else f"{_RANKS[index]}-D"
                self.context.error(
                    "input-rank",
                    f"{self.describe()}: {_NAMES[index]} must be {wanted}, but its shape is "
                    f"{info.shape}",
                    port=self.input_port(index),
                    hint="logits [N, T, C], logit_length [N], labels [N, T], label_length [N]",
                )
                return None
        logits = inputs[0].shape
        batch = logits[0] if logits.rank else None
        batch = batch or Dim.dynamic()
        for index in (1, 2, 3):
            shape = inputs[index].shape
            if shape.rank is None:
                continue
            merged = batch.merge(shape[0])
            if merged is None:
                self.context.error(
                    "input-dims",
                    f"{self.describe()}: {_NAMES[index]} {shape} must have the batch {batch} of "
                    f"the logits {logits} (its first dim)",
                    port=self.input_port(index),
                    hint="give one length and one label row per sequence",
                )
                return None
            batch = merged
        labels = inputs[2].shape
        if labels.rank == 2 and logits.rank == 3 and not labels[1].compatible(logits[1]):
            self.context.error(
                "input-dims",
                f"{self.describe()}: labels {labels} must have the logits' {logits[1]} time "
                f"steps (logits {logits})",
                port=self.input_port(2),
                hint="pad each label row to T",
            )
            return None
        return [TensorInfo(Shape([batch]), etype, why="one loss per sequence")]

    def evaluate(self, inputs):
        """The CTC forward recursion in log space."""
        logits, logit_length, labels, label_length = inputs[:4]
        n, steps, classes = logits.shape
        blank = int(inputs[4]) if len(inputs) > 4 else classes - 1
        logit_length = logit_length.astype(np.int64)
        label_length = label_length.astype(np.int64)
        bad = (logit_length > steps) | (label_length > steps) | (label_length > logit_length)
        if bad.any():
            b = int(np.nonzero(bad)[0][0])
            raise ValueError(
                f"{self.describe()}: sequence {b} has logit length {int(logit_length[b])} and "
                f"label length {int(label_length[b])}; both must be at most T = {steps}, the "
                "label length at most the logit length"
            )
        targets, counts = _decoded(labels.astype(np.int64), label_length,
                                   self.preprocess_collapse_repeated, self.unique)  # fmt: skip
        wide = logits.astype(np.float64)
        log_probs = wide - np.log(np.exp(wide).sum(axis=2, keepdims=True))  # [N, T, C]
        states = 2 * targets.shape[1] + 1
        extended = np.full((n, states), blank, np.int64)
        extended[:, 1::2] = targets
        used = np.arange(states)[None, :] < (2 * counts + 1)[:, None]
        is_label = np.zeros(states, bool)
        is_label[1::2] = True
        # a skip from s - 2 (the label before, past a blank): always without merging; with
        # merging only between different labels
        skip = np.zeros((n, states), bool)
        skip[:, 2:] = is_label[2:]
        if self.ctc_merge_repeated:
            skip[:, 2:] &= extended[:, 2:] != extended[:, :-2]
        stay = ~is_label if not self.ctc_merge_repeated else np.ones(states, bool)
        emit = np.take_along_axis(log_probs, extended[:, None, :].repeat(steps, 1), axis=2)
        alpha = np.full((n, states), -np.inf)
        alpha[:, 0] = emit[:, 0, 0]
        if states > 1:
            alpha[:, 1] = np.where(counts > 0, emit[:, 0, 1], -np.inf)
        alpha = np.where(used, alpha, -np.inf)
        for t in range(1, steps):
            previous = np.where(stay[None, :], alpha, -np.inf)
            from_before = np.full_like(alpha, -np.inf)
            from_before[:, 1:] = alpha[:, :-1]
            from_skip = np.full_like(alpha, -np.inf)
            from_skip[:, 2:] = np.where(skip[:, 2:], alpha[:, :-2], -np.inf)
            summed = np.logaddexp(np.logaddexp(previous, from_before), from_skip)
            updated = np.where(used, summed + emit[:, t], -np.inf)
            alpha = np.where((t < logit_length)[:, None], updated, alpha)
        last = 2 * counts
        ends = np.stack([alpha[np.arange(n), last],
                         np.where(counts > 0, alpha[np.arange(n), np.maximum(last - 1, 0)],
                                  -np.inf)])  # fmt: skip
        loss = -np.logaddexp(ends[0], ends[1])
        # no step at all: the empty alignment of no label (probability 1), or none
        loss = np.where(logit_length == 0, np.where(counts == 0, 0.0, np.inf), loss)
        return [loss.astype(logits.dtype)]
