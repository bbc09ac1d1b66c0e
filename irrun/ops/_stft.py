"""What STFT-15 and ISTFT-16 share: the checks of their inputs (signal or spectrum, window,
frame_size, frame_step) and the window padded to the frame size."""

from __future__ import annotations

import numpy as np

from irrun.ops._values import signed_ints
from irrun.ops.base import DYNAMIC_TYPE

__all__ = ["check_stft_inputs", "padded_window"]

_FLOATS = ("f16", "bf16", "f32", "f64")
_NAMES = ("data", "window", "frame_size", "frame_step", "signal_length")


def check_stft_inputs(op, inputs, data_ranks, first="data"):
    """Check the element types and ranks of the inputs and the constant frame size and step
    as OpenVINO does; ``(ok, element_type, frame_size, frame_step)`` with the output element
    type and the frame size and step when constant (else ``None``)."""
    names = (first,) + _NAMES[1:]
    data, window = inputs[0], inputs[1]
    known = [t for t in (data.element_type, window.element_type) if t is not DYNAMIC_TYPE]
    for index in (0, 1):
        etype = inputs[index].element_type
        if etype is not DYNAMIC_TYPE and (etype.name not in _FLOATS or etype is not known[0]):
            matching = "" if known[0] is etype else f" matching the {first}'s ({known[0]})"
            op.context.error(
                "input-type",
                f"{op.describe()}: {names[index]} must be a floating-point tensor{matching}, but "
                f"input {index} is {etype}",
                port=op.input_port(index),
                hint="insert a Convert so that data and window are one floating-point type",
            )
            return False, None, None, None
    for index in range(2, len(inputs)):
        etype = inputs[index].element_type
        if etype.name not in ("i32", "i64", "dynamic"):
            op.context.error(
                "index-type",
                f"{op.describe()}: {names[index]} must be i32 or i64, but input {index} is {etype}",
                port=op.input_port(index),
                hint="insert a Convert to i64 before it",
            )
            return False, None, None, None
    wanted = {0: data_ranks, 1: (1,), 2: (0,), 3: (0,)}
    for index, ranks in wanted.items():
        rank = inputs[index].shape.rank
        if rank is not None and rank not in ranks:
            spelled = " or ".join(f"{r}-D" if r else "a scalar" for r in ranks)
            op.context.error(
                "input-rank",
                f"{op.describe()}: {names[index]} must be {spelled}, but its shape is "
                f"{inputs[index].shape}",
                port=op.input_port(index),
                hint=f"reshape the {names[index]} to {spelled}",
            )
            return False, None, None, None
    frame_size, frame_step = (_scalar(inputs[i]) for i in (2, 3))
    for value, index in ((frame_size, 2), (frame_step, 3)):
        if value is not None and value <= 0:
            op.context.error(
                "input-value",
                f"{op.describe()}: {names[index]} must be > 0, but it is {value}",
                port=op.input_port(index),
                hint=f"give a positive {names[index]}",
            )
            return False, None, None, None
    window_dim = window.shape[0] if window.shape.rank == 1 else None
    if frame_size is not None and window_dim is not None and window_dim.is_static:
        if not 0 < window_dim.value <= frame_size:
            op.context.error(
                "input-dims",
                f"{op.describe()}: the window's size {window_dim} must be from 1 to the "
                f"frame_size {frame_size}",
                port=op.input_port(1),
                hint="give a window no longer than a frame (it is centred in the frame)",
            )
            return False, None, None, None
    return True, known[0] if known else DYNAMIC_TYPE, frame_size, frame_step


def _scalar(info):
    values = signed_ints(info)
    return values[0] if values is not None and len(values) == 1 else None


def padded_window(window: np.ndarray, frame_size: int) -> np.ndarray:
    """The window in float64, centred in ``frame_size`` zeros (``(frame_size - size) // 2``
    before it), as OpenVINO pads it."""
    padded = np.zeros(frame_size, np.float64)
    start = (frame_size - window.shape[0]) // 2
    padded[start : start + window.shape[0]] = window
    return padded
