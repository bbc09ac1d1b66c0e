"""The greedy CTC decoding both CTCGreedyDecoder ops share: per time step the first class of
largest score, repeats merged, blanks dropped, the kept classes packed to the front."""

from __future__ import annotations

import numpy as np


def greedy_decode(scores: np.ndarray, valid: np.ndarray, blank, merge_repeated: bool):
    """``(classes, counts)`` of ``scores`` ``[N, T, C]`` over the steps where ``valid``
    ``[N, T]`` (a prefix of each row) holds: ``classes`` ``[N, T]`` as int64 with -1 after each
    row's decoded classes, ``counts`` ``[N]``. ``blank``: the class index dropped (an int or a
    per-row array). The previous class compared for merging is the previous step's, decoded
    or not, as in OpenVINO's reference.

    >>> s = np.eye(3)[[0, 0, 2, 0, 1, 1]][None]  # classes 0 0 blank 0 1 1
    >>> greedy_decode(s, np.ones((1, 6), bool), 2, True)[0].tolist()
    [[0, 0, 1, -1, -1, -1]]
    """
    best = np.argmax(scores, axis=-1) if scores.shape[-1] else np.zeros(scores.shape[:2], int)
    previous = np.concatenate([np.full((best.shape[0], 1), -1), best[:, :-1]], axis=1)
    keep = valid & (best != blank)
    if merge_repeated:
        keep &= best != previous
    counts = keep.sum(axis=1)
    out = np.full(best.shape, -1, dtype=np.int64)
    rows, steps = np.nonzero(keep)
    positions = (np.cumsum(keep, axis=1) - 1)[rows, steps]
    out[rows, positions] = best[rows, steps]
    return out, counts
