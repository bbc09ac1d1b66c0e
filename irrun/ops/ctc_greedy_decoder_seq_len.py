"""CTCGreedyDecoderSeqLen-6: greedy decoding of CTC scores up to per-entry sequence lengths.

Spec facts: inputs data ``[N, T, C]``, sequence_length ``[N]`` and optionally blank_index (an
integer scalar or ``[1]``; default ``C - 1``); attributes ``merge_repeated`` (default true),
``classes_index_type`` and ``sequence_length_type`` (default i32; OpenVINO checks neither).
Outputs: the decoded classes ``[N, T]`` packed to the front then -1, and the decoded length of
each entry ``[N]``.

Shape rule (``ctc_greedy_decoder_seq_len_shape_inference.hpp``): data of rank 3, sequence
length of rank 1, blank index of rank 0 or ``[1]`` and an integer type; ``N`` merged from
the data and the lengths (a failed merge is an error), ``T`` the data's.

Kernel: :func:`irrun.ops._ctc.greedy_decode`; a length above ``T`` or negative is an error
when run (the reference reads out of bounds); exact.
"""

from __future__ import annotations

import numpy as np

from irrun.element_types import element_type
from irrun.ops._ctc import greedy_decode
from irrun.ops.base import Attribute, Op, TensorInfo, lazy_text
from irrun.ops.registry import register
from irrun.shape import Dim, Shape

_I32 = element_type("i32")


@register
class CTCGreedyDecoderSeqLen(Op):
    """CTCGreedyDecoderSeqLen-6 (merge_repeated, classes_index_type, sequence_length_type)."""

    type, version, inputs = "CTCGreedyDecoderSeqLen", 6, (2, 3)
    attributes = (
        Attribute("merge_repeated", "bool", True),
        Attribute("classes_index_type", "element_type", _I32),
        Attribute("sequence_length_type", "element_type", _I32),
    )

    def _rank_error(self, index, what, shape, wanted):
        self.context.error(
            "input-rank",
            f"{self.describe()}: {what} must be {wanted}, but its shape is {shape}",
            port=self.input_port(index),
            hint="give data as [N, T, C], sequence_length as [N] and blank_index as a scalar",
        )

    def infer(self, inputs):
        """``[N, T]`` and ``[N]``, ``N`` merged from the data and the lengths."""
        data, lengths = inputs[0], inputs[1]
        if data.shape.rank not in (None, 3):
            self._rank_error(0, "the data", data.shape, "of rank 3")
            return None
        if lengths.shape.rank not in (None, 1):
            self._rank_error(1, "sequence_length", lengths.shape, "of rank 1")
            return None
        if len(inputs) == 3:
            blank = inputs[2]
            if blank.shape.rank is not None and (blank.shape.rank > 1 or (
                    blank.shape.rank == 1 and not blank.shape[0].compatible(Dim(1)))):  # fmt: skip
                self._rank_error(2, "blank_index", blank.shape, "a scalar or [1]")
                return None
            etype = blank.element_type
            if etype.name != "dynamic" and not etype.is_integer:
                self.context.error(
                    "index-type",
                    f"{self.describe()}: blank_index must be an integer, but it is {etype}",
                    port=self.input_port(2),
                    hint="give blank_index as i32",
                )
                return None
        batch, time = Dim.dynamic(), Dim.dynamic()
        if data.shape.rank == 3:
            batch, time = data.shape[0], data.shape[1]
        if lengths.shape.rank == 1:
            merged = batch.merge(lengths.shape[0])
            if merged is None:
                self.context.error(
                    "input-dims",
                    f"{self.describe()}: the batch dims of data {data.shape} and "
                    f"sequence_length {lengths.shape} differ",
                    port=self.input_port(1),
                    hint="give one sequence length per batch entry",
                )
                return None
            batch = merged
        why = lazy_text("data {} and sequence_length {}", data.shape, lengths.shape)
        return [TensorInfo(Shape([batch, time]), self.classes_index_type, why=why),
                TensorInfo(Shape([batch]), self.sequence_length_type, why=why)]  # fmt: skip

    def evaluate(self, inputs):
        """Greedy decoding of each batch entry up to its length."""
        data = np.asarray(inputs[0])
        lengths = np.asarray(inputs[1]).astype(np.int64).reshape(-1)
        steps = data.shape[1]
        if np.any((lengths < 0) | (lengths > steps)):
            raise ValueError(f"{self.describe()}: sequence lengths {lengths.tolist()} must lie in "
                             f"[0, {steps}] (the time dim of data {list(data.shape)})")  # fmt: skip
        blank = data.shape[2] - 1
        if len(inputs) == 3:
            blank = int(np.asarray(inputs[2]).reshape(-1)[0])
        valid = np.arange(steps)[None, :] < lengths[:, None]
        classes, counts = greedy_decode(data, valid, blank, self.merge_repeated)
        return [classes.astype(self.classes_index_type.numpy_dtype),
                counts.astype(self.sequence_length_type.numpy_dtype)]  # fmt: skip
