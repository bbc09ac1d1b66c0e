"""STFT-15: the short-time Fourier transform of a real signal.

Spec facts: inputs signal (``[signal_size]`` or ``[batch, signal_size]``, a floating-point
type), window (1-D, the signal's type, at most frame_size long: it is centred in the frame
with ``(frame_size - size) // 2`` zeros before it), frame_size and frame_step (scalars, i32 or
i64, > 0). Attribute ``transpose_frames`` (required): false gives ``[batch, frames,
frame_size // 2 + 1, 2]``, true ``[batch, frame_size // 2 + 1, frames, 2]`` (no batch dim
for a 1-D signal); ``frames = (signal_size - frame_size) // frame_step + 1``; the last dim
holds real and imaginary parts. The output has the signal's element type.

Shape rule (``stft_shape_inference.hpp``): only constant frame size and step count; without
them the frames and bins are ``?``. The frame size must be at most the signal size's upper
bound; the frames dim is computed bound-wise (``signal - frame_size`` clamped at 0: a signal of
``10..48`` with frames of 16 by 4 has ``1..9`` frames).

Kernel: the frames as a strided view, times the padded window, ``numpy.fft.rfft`` in float64,
cast back. Tolerance against the CPU plugin in f32: ``rtol=1e-4, atol=1e-4`` for signals in
[-1, 1] and frames of up to 64 samples.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._stft import check_stft_inputs, padded_window
from irrun.ops.base import Attribute, Op, TensorInfo, lazy_text
from irrun.ops.registry import register
from irrun.shape import Dim, Shape, static_dim


def _frames_dim(signal: Dim, frame_size: int, frame_step: int) -> Dim:
    """``(signal - frame_size) // frame_step + 1`` bound-wise, the difference clamped at 0."""
    lower = max(signal.lower - frame_size, 0) // frame_step + 1
    upper = None if signal.upper is None else (signal.upper - frame_size) // frame_step + 1
    return Dim(lower, upper)


@register
class STFT(Op):
    """STFT-15 (transpose_frames)."""

    type, version, inputs = "STFT", 15, (4, 4)
    attributes = (Attribute("transpose_frames", "bool", False, required=True),)

    def infer(self, inputs):
        """``[batch, frames, bins, 2]`` (bins and frames swapped with transpose_frames)."""
        ok, etype, frame_size, frame_step = check_stft_inputs(self, inputs, (1, 2), "signal")
        if not ok:
            return None
        signal = inputs[0].shape
        if signal.rank is None:
            return [TensorInfo(signal, etype, why="the signal rank is not known")]
        batch = list(signal)[:-1]
        if frame_size is None or frame_step is None:
            why = "frame_size and frame_step are not known: frames and bins are ?"
            return [TensorInfo(Shape(batch + [Dim.dynamic()] * 2 + [2]), etype, why=why)]
        length = signal[signal.rank - 1]
        if length.upper is not None and frame_size > length.upper:
            self.context.error(
                "input-value",
                f"{self.describe()}: frame_size {frame_size} is longer than the signal "
                f"({signal}: at most {length.upper} samples)",
                port=self.input_port(2),
                hint=f"give a frame_size from 1 to {length.upper}",
            )
            return None
        frames = _frames_dim(length, frame_size, frame_step)
        bins = static_dim(frame_size // 2 + 1)
        dims = [bins, frames] if self.transpose_frames else [frames, bins]
        why = lazy_text("signal {}: ({} - {}) // {} + 1 frames of {} // 2 + 1 bins", signal,
                        length, frame_size, frame_step, frame_size)  # fmt: skip
        return [TensorInfo(Shape(batch + dims + [2]), etype, why=why)]

    def evaluate(self, inputs):
        """``rfft`` of each windowed frame."""
        signal, window, frame_size, frame_step = inputs
        frame_size = int(np.reshape(frame_size, -1)[0])
        frame_step = int(np.reshape(frame_step, -1)[0])
        if not 0 < frame_size <= signal.shape[-1] or frame_step <= 0:
            raise ValueError(
                f"{self.describe()}: frame_size {frame_size} must be from 1 to the signal's "
                f"{signal.shape[-1]} samples and frame_step {frame_step} above 0"
            )
        frames = np.lib.stride_tricks.sliding_window_view(signal, frame_size, axis=-1)
        frames = frames[..., ::frame_step, :].astype(np.float64)
        spectrum = np.fft.rfft(frames * padded_window(window, frame_size), axis=-1)
        if self.transpose_frames:
            spectrum = np.swapaxes(spectrum, -1, -2)
        out = np.stack([spectrum.real, spectrum.imag], axis=-1)
        return [np.ascontiguousarray(out.astype(signal.dtype))]
