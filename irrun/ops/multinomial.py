"""Multinomial-13: class indices sampled from the (log) probabilities of each batch row.

Spec facts: inputs probs (``[batch, classes]``, a float type) and num_samples (an integer
scalar or ``[1]``); attributes ``convert_type`` (i32 or i64, required), ``with_replacement``
and ``log_probs`` (booleans, required), ``global_seed`` and ``op_seed`` (u64, default 0).
Output ``[batch, num_samples]`` of ``convert_type``.

Shape rule (``multinomial_shape_inference.hpp``): probs must be of rank 2 (compatible) and
num_samples compatible with ``[]`` or ``[1]``; probs must be a float type and num_samples an
integer type. The output is ``[probs[0], n]`` with ``n`` num_samples' value (a ShapeOf
element gives its interval; a negative constant is refused), ``?`` when not known; a
probs of dynamic rank gives a dynamic rank.

Kernel (``reference/multinomial.hpp``): ``exp`` of probs when ``log_probs``; the cumulative
sum along classes in probs' type, divided by its last element; one uniform sample in
``[0, 1)`` per output element, drawn by RandomUniform's tensorflow-aligned Philox with the
same seeds and **a fresh state on every run** (so, unlike RandomUniform, every run of a
seeded Multinomial gives the same indices); the class is the first whose cdf is >= the
sample (0 when none is, as OpenVINO leaves it). Without replacement each drawn class is
removed: its probability ``p`` is subtracted from the cdf from that class on, and the whole
cdf divided by ``1 - p``, sample after sample (a loop over samples, vectorised over
batches). Both seeds 0: a seed from the OS's entropy (OpenVINO draws one from the clock).

Tolerance: exact against OpenVINO's reference (same f32/f16/f64 arithmetic, same draws; bf16
probs are summed with IEEE rounding, not ``ov::bfloat16``'s). OpenVINO's core gives the op no
evaluate, and its CPU plugin draws differently (``std::mt19937`` seeded by
``std::seed_seq{global_seed, op_seed}``, ``gen() / gen.max()``), so neither runs as the
oracle: the tests take the draws from OpenVINO's RandomUniform reference and the picking
from a transcription of the reference's loops.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._philox import philox_words
from irrun.ops._values import as_dim, signed_elements
from irrun.ops.base import DYNAMIC_TYPE, Attribute, Op, TensorInfo, lazy_text
from irrun.ops.registry import register
from irrun.shape import Dim, Shape

_NAMES = ("probs", "num_samples")


@register
class Multinomial(Op):
    """Multinomial-13 (convert_type, with_replacement, log_probs, global_seed, op_seed)."""

    type, version, inputs = "Multinomial", 13, (2, 2)
    attributes = (
        Attribute("convert_type", "element_type", DYNAMIC_TYPE, required=True),
        Attribute("with_replacement", "bool", False, required=True),
        Attribute("log_probs", "bool", False, required=True),
        Attribute("global_seed", "int", 0),
        Attribute("op_seed", "int", 0),
    )

    def _refuse(self, index, code, message, hint):
        self.context.error(code, f"{self.describe()}: {_NAMES[index]} {message}",
                           port=self.input_port(index), hint=hint)  # fmt: skip

    def infer(self, inputs):
        """``[batch, num_samples]`` of ``convert_type``."""
        probs, count = inputs
        if probs.shape.rank not in (None, 2):
            self._refuse(0, "input-rank", f"must be 2-D [batch, classes], but its shape is "
                         f"{probs.shape}", "reshape probs to [batch, classes]")  # fmt: skip
            return None
        if not (count.shape.compatible(Shape([])) or count.shape.compatible(Shape.parse("1"))):
            self._refuse(1, "input-rank", f"must be a scalar or [1], but its shape is "
                         f"{count.shape}", "give a single count")  # fmt: skip
            return None
        if probs.element_type.kind not in ("float", "dynamic"):
            self._refuse(0, "input-type", f"must be a floating-point tensor, but it is "
                         f"{probs.element_type}", "Convert the probabilities to f32")  # fmt: skip
            return None
        if not (count.element_type.is_integer or count.element_type.kind == "dynamic"):
            self._refuse(1, "index-type", f"must be an integer tensor, but it is "
                         f"{count.element_type}", "Convert num_samples to i64")  # fmt: skip
            return None
        if probs.shape.rank is None:
            return [TensorInfo(Shape.dynamic_rank(), self.convert_type,
                               why="probs of unknown rank")]  # fmt: skip
        elements = signed_elements(count)
        samples = elements[0] if elements else None
        if isinstance(samples, int) and samples < 0:
            self._refuse(1, "input-value", f"must not be negative, but it is {samples}",
                         "give a count of 0 or more")  # fmt: skip
            return None
        dims = [probs.shape[0], as_dim(samples) if samples is not None else Dim.dynamic()]
        why = lazy_text("batch {} of probs {}, {} samples each", dims[0], probs.shape, dims[1])
        return [TensorInfo(Shape(dims), self.convert_type, why=why)]

    def evaluate(self, inputs):
        """Inverse-cdf sampling with Philox draws, as OpenVINO's reference samples."""
        probs = np.asarray(inputs[0])
        samples = int(np.asarray(inputs[1]).reshape(-1)[0])
        if samples < 0:
            raise ValueError(f"{self.describe()}: num_samples {samples} is negative")
        dtype = probs.dtype
        values = np.exp(probs) if self.log_probs else probs
        cdf = np.cumsum(values, axis=-1, dtype=dtype)
        cdf = (cdf / cdf[:, -1:]).astype(dtype)
        batch, classes = probs.shape
        draws = _uniform(self.global_seed, self.op_seed, batch * samples, dtype)
        draws = draws.reshape(batch, samples)
        if self.with_replacement:
            hits = draws[:, :, None] <= cdf[:, None, :]
            out = np.where(hits.any(axis=2), np.argmax(hits, axis=2), 0)
        else:
            out = _without_replacement(cdf, draws)
        return [out.astype(self.convert_type.numpy_dtype)]


# the last class left has probability 1: OpenVINO divides 0 by 0 there too
@np.errstate(divide="ignore", invalid="ignore")
def _without_replacement(cdf, draws):
    """The classes drawn one sample after another, each removed from the cdf once drawn."""
    dtype = cdf.dtype
    batch, classes = cdf.shape
    out = np.zeros(draws.shape, np.int64)
    rows = np.arange(batch)
    columns = np.arange(classes)
    one = dtype.type(1)
    for index in range(draws.shape[1]):  # each draw changes the cdf the next one reads
        hits = draws[:, index, None] <= cdf
        found = hits.any(axis=1)
        chosen = np.where(found, np.argmax(hits, axis=1), classes)
        out[:, index] = np.where(found, chosen, 0)
        # OpenVINO reads past the row when nothing was found; irrun leaves the row be
        safe = np.minimum(chosen, classes - 1)
        previous = np.where(safe > 0, cdf[rows, np.maximum(safe - 1, 0)], dtype.type(0))
        probability = np.where(safe > 0, cdf[rows, safe] - previous, cdf[:, 0]).astype(dtype)
        divisor = (one - probability).astype(dtype)
        lowered = np.where(columns >= chosen[:, None], cdf - probability[:, None], cdf)
        updated = (lowered.astype(dtype) / divisor[:, None]).astype(dtype)
        cdf = np.where(found[:, None], updated, cdf)
    return out


def _uniform(seed: int, seed2: int, count: int, dtype) -> np.ndarray:
    """``count`` RandomUniform draws in ``[0, 1)`` of ``dtype`` (tensorflow alignment, from
    state 0): the mantissa bits of Philox words as ``1.m - 1``."""
    seed, seed2 = seed % 2**64, seed2 % 2**64
    if seed == 0 and seed2 == 0:
        seed = int(np.random.SeedSequence().entropy) % 2**31
    if dtype == np.float64:
        words = philox_words(seed, seed2, 2 * count)
        bits = ((words[0::2] & np.uint64(0xFFFFF)) << np.uint64(32)) | words[1::2]
        return (bits | np.uint64(1023 << 52)).view(np.float64) - 1.0
    words = philox_words(seed, seed2, count)
    if dtype == np.float32:
        bits = (words & np.uint64(0x7FFFFF)) | np.uint64(127 << 23)
        return bits.astype(np.uint32).view(np.float32) - np.float32(1)
    half = dtype == np.float16
    bits = (words & np.uint64(0x3FF if half else 0x7F)) | np.uint64(
        (15 << 10) if half else (127 << 7)
    )
    return bits.astype(np.uint16).view(dtype) - dtype.type(1)
