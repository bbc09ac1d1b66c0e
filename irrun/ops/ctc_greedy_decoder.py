"""CTCGreedyDecoder-1: greedy decoding of CTC scores along a sequence mask.

Spec facts: inputs data ``[T, N, C]`` (scores per time step, batch entry and class) and
sequence_mask ``[T, N]`` (nonzero while the sequence runs; decoding of an entry stops at its
first 0); attribute ``ctc_merge_repeated`` (default true). The blank class is ``C - 1``.
Output ``[N, T, 1, 1]`` of the data's type: the decoded class indices, packed to the front,
then -1.

Shape rule (``ctc_greedy_decoder_shape_inference.hpp``): data of rank 3 and mask of rank 2
(when known); ``T`` and ``N`` are the merged dims of both (a failed merge is an error). No
element type is checked.

Kernel: :func:`irrun.ops._ctc.greedy_decode` (argmax per step, vectorised over the batch and
time); exact.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._ctc import greedy_decode
from irrun.ops.base import Attribute, Op, TensorInfo, lazy_text
from irrun.ops.registry import register
from irrun.shape import Dim, Shape, static_dim

_ONE = static_dim(1)


@register
class CTCGreedyDecoder(Op):
    """CTCGreedyDecoder-1 (ctc_merge_repeated)."""

    type, version, inputs = "CTCGreedyDecoder", 1, (2, 2)
    attributes = (Attribute("ctc_merge_repeated", "bool", True),)

    def infer(self, inputs):
        """``[N, T, 1, 1]`` with ``T`` and ``N`` merged from the data and the mask."""
        data, mask = inputs
        for index, (info, rank, what) in enumerate(((data, 3, "data"), (mask, 2, "mask"))):
            if info.shape.rank not in (None, rank):
                self.context.error(
                    "input-rank",
                    f"{self.describe()}: the {what} must have rank {rank}, but its shape is "
                    f"{info.shape}",
                    port=self.input_port(index),
                    hint="give data as [T, N, C] and sequence_mask as [T, N]",
                )
                return None
        dims = [Dim.dynamic(), Dim.dynamic()]
        for info in (data, mask):
            if info.shape.rank is None:
                continue
            for axis, name in ((0, "time (first)"), (1, "batch (second)")):
                merged = dims[axis].merge(info.shape[axis])
                if merged is None:
                    self.context.error(
                        "input-dims",
                        f"{self.describe()}: the {name} dims of data {data.shape} and "
                        f"sequence_mask {mask.shape} differ",
                        port=self.input_port(1),
                        hint="give the mask the data's [T, N]",
                    )
                    return None
                dims[axis] = merged
        shape = Shape([dims[1], dims[0], _ONE, _ONE])
        why = lazy_text("data {} and sequence_mask {}", data.shape, mask.shape)
        return [TensorInfo(shape, data.element_type, why=why)]

    def evaluate(self, inputs):
        """Greedy decoding of each batch entry up to its mask's first 0."""
        data, mask = (np.asarray(a) for a in inputs)
        scores = data.transpose(1, 0, 2)
        valid = np.cumprod(mask.T != 0, axis=1).astype(bool)
        classes, _ = greedy_decode(scores, valid, data.shape[2] - 1, self.ctc_merge_repeated)
        return [classes.astype(data.dtype).reshape(classes.shape + (1, 1))]
