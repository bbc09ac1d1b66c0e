"""ISTFT-16: the inverse short-time Fourier transform, back to a real signal.

Spec facts: inputs data (``[bins, frames, 2]`` or ``[batch, bins, frames, 2]``, a
floating-point type, ``bins = frame_size // 2 + 1``), window (1-D, the data's type, at most
frame_size long, centred in the frame), frame_size and frame_step (scalars, i32 or i64, > 0)
and an optional signal_length (a scalar or a 1-element 1-D tensor, i32 or i64). Attributes
``center`` (the signal was padded by ``frame_size // 2`` on both sides: that is cut off again)
and ``normalized`` (the frames were scaled by ``1 / sqrt(frame_size)``), both required. Output
``[signal_length]`` or ``[batch, signal_length]``, the data's element type; without a
signal_length its length is ``(frames - 1) * frame_step + frame_size``, less ``frame_size``
rounded down to even with ``center``.

Shape rule (``istft_shape_inference.hpp``): a signal_length read as a shape (a constant, or a
ShapeOf element: an interval) is the length, -1 is ``?``; otherwise the length is computed from
the constant frame size and step bound-wise (``frames - 1`` clamped at 0) and is ``?`` without
them. The bins dim is checked only when the whole data shape is static. A constant
signal_length of 0 or below -1 is refused by irrun (OpenVINO infers a length of 0 but runs with
the computed one).

Kernel (OpenVINO's reference): ``numpy.fft.irfft`` of each frame in float64, times the padded
window, overlap-added (``np.add.at``), divided by the overlap-added squared window (0 where
that is 0), times ``sqrt(frame_size)`` when normalized; the ``frame_size // 2`` first samples
are dropped with center, and the result cut or zero-padded to the length. Tolerance against
the CPU plugin in f32: ``rtol=1e-3, atol=1e-4`` for data in [-1, 1] and a Hann window (the
division by small window sums near the ends amplifies f32 rounding).
"""

from __future__ import annotations

import numpy as np

from irrun.ops._stft import check_stft_inputs, padded_window
from irrun.ops._values import signed_elements
from irrun.ops.base import Attribute, Op, TensorInfo, lazy_text
from irrun.ops.registry import register
from irrun.shape import Dim, Shape, static_dim


def _minus(dim: Dim, amount: int) -> Dim:
    """``dim - amount`` bound-wise, clamped at 0."""
    upper = None if dim.upper is None else max(dim.upper - amount, 0)
    return Dim(max(dim.lower - amount, 0), upper)


@register
class ISTFT(Op):
    """ISTFT-16 (center, normalized)."""

    type, version, inputs = "ISTFT", 16, (4, 5)
    attributes = (
        Attribute("center", "bool", False, required=True),
        Attribute("normalized", "bool", False, required=True),
    )

    def infer(self, inputs):
        """``[batch, length]``: the signal_length, or the frames overlapped by frame_step."""
        ok, etype, frame_size, frame_step = check_stft_inputs(self, inputs, (3, 4))
        if not ok:
            return None
        data = inputs[0].shape
        if len(inputs) == 5 and not self._length_shape_ok(inputs[4].shape):
            return None
        if frame_size is not None and data.is_static:
            bins = data[data.rank - 3].value
            if bins != frame_size // 2 + 1:
                self.context.error(
                    "input-dims",
                    f"{self.describe()}: data {data} has {bins} bins (dim -3), but frame_size "
                    f"{frame_size} needs {frame_size} // 2 + 1 = {frame_size // 2 + 1}",
                    port=self.input_port(0),
                    hint="give the frame_size the STFT used",
                )
                return None
        if data.rank is None:
            return [TensorInfo(data, etype, why="the data rank is not known")]
        if len(inputs) == 5:
            length = self._given_length(inputs[4])
            if length is False:
                return None
            why = f"signal_length: {length}"
        elif frame_size is not None and frame_step is not None:
            frames = data[data.rank - 2]
            length = _minus(frames, 1) * static_dim(frame_step) + static_dim(frame_size)
            if self.center:
                length = _minus(length, frame_size & ~1)
            why = lazy_text("({} - 1) * {} + {}{} = {}", frames, frame_step, frame_size,
                            f" - {frame_size & ~1}" if self.center else "", length)  # fmt: skip
        else:
            length, why = Dim.dynamic(), "frame_size and frame_step are not known"
        dims = [data[0], length] if data.rank == 4 else [length]
        return [TensorInfo(Shape(dims), etype, why=why)]

    def _length_shape_ok(self, shape) -> bool:
        if shape.rank in (None, 0) or (shape.rank == 1 and shape[0].compatible(static_dim(1))):
            return True
        self.context.error(
            "input-rank",
            f"{self.describe()}: signal_length must be a scalar or a 1-element 1-D tensor, but "
            f"its shape is {shape}",
            port=self.input_port(4),
            hint="give the signal_length as a scalar",
        )
        return False

    def _given_length(self, info):
        """The length dim a signal_length gives (``False`` after reporting a bad value)."""
        elements = signed_elements(info)
        element = elements[0] if elements and len(elements) == 1 else None
        if isinstance(element, Dim):
            return element
        if element is None or element == -1:
            return Dim.dynamic()
        if element < 1:
            self.context.error(
                "input-value",
                f"{self.describe()}: signal_length must be >= 1 (or -1: computed), but it is "
                f"{element}",
                port=self.input_port(4),
                hint="give the length of the signal the STFT read",
            )
            return False
        return static_dim(element)

    def evaluate(self, inputs):
        """Inverse rfft of each frame, windowed overlap-add, divided by the window sums."""
        data, window, frame_size, frame_step = inputs[:4]
        frame_size = int(np.reshape(frame_size, -1)[0])
        frame_step = int(np.reshape(frame_step, -1)[0])
        batched = data.reshape((-1,) + data.shape[-3:]).astype(np.float64)
        batch, _, count, _ = batched.shape
        spectrum = batched[..., 0] + 1j * batched[..., 1]  # [batch, bins, frames]
        frames = np.fft.irfft(spectrum, n=frame_size, axis=1).transpose(0, 2, 1)
        pad = padded_window(window, frame_size)
        full = (count - 1) * frame_step + frame_size
        where = (np.arange(count)[:, None] * frame_step + np.arange(frame_size)).reshape(-1)
        summed = np.zeros((batch, full))
        np.add.at(summed, (slice(None), where), (frames * pad).reshape(batch, -1))
        window_sum = np.zeros(full)
        np.add.at(window_sum, where, np.tile(pad * pad, count))
        scale = np.sqrt(frame_size) if self.normalized else 1.0
        nonzero = window_sum != 0
        result = np.zeros_like(summed)
        result[:, nonzero] = summed[:, nonzero] * scale / window_sum[nonzero]
        length = int(np.reshape(inputs[4], -1)[0]) if len(inputs) == 5 else -1
        margin = frame_size // 2 if self.center else 0
        if length <= 0:
            length = full - (frame_size & ~1) if self.center else full
        out = np.zeros((batch, length), data.dtype)
        copied = min(length, full - margin)
        out[:, :copied] = result[:, margin : margin + copied]
        return [out.reshape(data.shape[:-3] + (length,))]
