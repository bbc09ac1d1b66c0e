"""What DFT-7, IDFT-7, RDFT-9 and IRDFT-9 share: the checks of their inputs
(``fft_common_validation.hpp``), the shape rule of the real transforms (RDFT and IRDFT differ
only in their last axis: :func:`halved` output points, :func:`doubled` transform points), and
one kernel around the ``numpy.fft`` n-D transforms.

A complex tensor is a real one whose last dim is 2 (real, imaginary). DFT, IDFT and IRDFT take
such an input of rank ``r`` and count their axes over the ``r - 1`` complex dims (an axis ``a <
0`` is ``r - 1 + a``); RDFT takes a real input and counts its axes over all ``r`` dims.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._values import signed_ints
from irrun.ops.base import TensorInfo, lazy_text, normalize_axes_or_report
from irrun.shape import Dim, Shape, static_dim

__all__ = [
    "check_fft_inputs",
    "signal_dim",
    "halved",
    "doubled",
    "transform_sizes",
    "real_transform_infos",
    "run_transform",
    "as_complex",
    "as_pairs",
]

_FLOATS = ("f32", "f16", "bf16", "dynamic")
_INDICES = ("i32", "i64", "dynamic")
_WHAT = ("data", "axes", "signal_size")


def check_fft_inputs(op, inputs, complex_input: bool) -> tuple[bool, list[int] | None]:
    """Check the data, axes and (optional) signal_size inputs of an FFT op as OpenVINO does;
    ``(ok, axes)`` with the axes normalised when they are constant (else ``None``)."""
    data, axes_info = inputs[0], inputs[1]
    wanted = ("f32, f16 or bf16", "i32 or i64", "i32 or i64")
    for index, info in enumerate(inputs):
        allowed = _FLOATS if index == 0 else _INDICES
        if info.element_type.name not in allowed:
            op.context.error(
                "input-type" if index == 0 else "index-type",
                f"{op.describe()}: {_WHAT[index]} must be {wanted[index]}, but input {index} "
                f"is {info.element_type}",
                port=op.input_port(index),
                hint=f"insert a Convert to {'f32' if index == 0 else 'i64'} before it",
            )
            return False, None
    for index in range(1, len(inputs)):
        rank = inputs[index].shape.rank
        if rank is not None and rank != 1:
            op.context.error(
                "input-rank",
                f"{op.describe()}: {_WHAT[index]} must be a 1-D tensor, but its shape is "
                f"{inputs[index].shape}",
                port=op.input_port(index),
                hint=f"give the {_WHAT[index]} as a 1-D tensor (Unsqueeze a scalar)",
            )
            return False, None
    rank = data.shape.rank
    axes_shape = axes_info.shape
    axes = signed_ints(axes_info)
    if rank is not None:
        minimum = 2 if complex_input else 1
        if rank < minimum:
            op.context.error(
                "input-rank",
                f"{op.describe()}: data must have rank >= {minimum}, but its shape is {data.shape}",
                port=op.input_port(0),
                hint="a complex tensor is a real one with a last dim of 2 (real, imaginary)"
                if complex_input
                else "reshape the data to 1-D",
            )
            return False, None
        if complex_input and not data.shape[rank - 1].compatible(static_dim(2)):
            op.context.error(
                "input-dims",
                f"{op.describe()}: the last dim of the data must be 2 (real, imaginary), but "
                f"the data's shape is {data.shape}",
                port=op.input_port(0),
                hint="a complex tensor is a real one with a last dim of 2 (real, imaginary)",
            )
            return False, None
        transformable = rank - 1 if complex_input else rank
        if axes_shape.rank == 1 and axes_shape[0].is_static:
            count = axes_shape[0].value
            if count > transformable:
                op.context.error(
                    "input-dims",
                    f"{op.describe()}: {count} axes for data {data.shape}, which has "
                    f"{transformable} {'complex ' if complex_input else ''}dims",
                    port=op.input_port(1),
                    hint="give at most one axis per dim"
                    + (" (the last dim of 2 is not an axis)" if complex_input else ""),
                )
                return False, None
        if axes is not None:
            axes = normalize_axes_or_report(op, axes, transformable, port_index=1)
            if axes is None:
                return False, None
    if len(inputs) == 3:
        signal_shape = inputs[2].shape
        if axes_shape.is_static and signal_shape.is_static and axes_shape.rank == 1:
            if axes_shape[0] != signal_shape[0]:
                op.context.error(
                    "input-dims",
                    f"{op.describe()}: signal_size of shape {signal_shape} must have one size "
                    f"per axis, but axes has shape {axes_shape}",
                    port=op.input_port(2),
                    hint="give one signal size per axis (-1 keeps the data's size)",
                )
                return False, None
        sizes = signed_ints(inputs[2])
        bad = [s for s in sizes or () if s < -1]
        if bad:
            op.context.error(
                "input-value",
                f"{op.describe()}: signal_size {sizes} holds {bad[0]}; a signal size is -1 "
                "(the data's size) or a size >= 0",
                port=op.input_port(2),
                hint="use -1 to keep the data's size along an axis",
            )
            return False, None
    return True, axes


def signal_dim(element) -> Dim | None:
    """The output dim a signal_size element gives (``None``: -1, the data's dim is kept);
    ``element`` as :func:`irrun.ops._values.elements_of` gives it."""
    if element is None:
        return Dim.dynamic()
    if isinstance(element, Dim):
        return element
    if element == -1:
        return None
    return static_dim(max(element, 0))


def halved(size: int | None) -> int | None:
    """RDFT's output points along its last axis for a transform of ``size`` points:
    ``size // 2 + 1`` (0 stays 0; ``None``, an unbounded size, stays ``None``)."""
    return size if size is None or size <= 0 else size // 2 + 1


def doubled(size: int | None) -> int | None:
    """IRDFT's transform points along its last axis when no signal size is given, for
    ``size`` complex points: ``2 * (size - 1)``, clamped at 0 (``None`` stays ``None``)."""
    return None if size is None else 2 * max(size - 1, 0)


def _bound_wise(rule, dim: Dim) -> Dim:
    return Dim(rule(dim.lower), rule(dim.upper))


def transform_sizes(op, shape, axes, signal_size) -> list[int]:
    """The size of the transform along each axis: the signal size, or the data's dim for -1
    (or when there is no signal_size)."""
    if signal_size is None:
        return [shape[a] for a in axes]
    sizes = np.asarray(signal_size).reshape(-1).astype(np.int64).tolist()
    if len(sizes) != len(axes) or any(s < -1 for s in sizes):
        raise ValueError(
            f"{op.describe()}: signal_size {sizes} needs one size (-1 or >= 0) for each of "
            f"the axes {axes}"
        )
    return [shape[a] if s == -1 else s for a, s in zip(axes, sizes)]


def real_transform_infos(op, inputs, *, complex_input: bool, holds: str, output_last=None,
                         unsized_last=None) -> list[TensorInfo] | None:  # fmt: skip
    """The shape rule of RDFT and IRDFT (``rdft_shape_inference.hpp``,
    ``irdft_shape_inference.hpp``): the data's dims (its complex dims when ``complex_input``),
    each axis with a constant signal size other than -1 set to it (clamped at 0), then the
    last axis ``n`` given by ``output_last(n)``, or, when its signal size is -1, by
    ``unsized_last(n)`` (both bound-wise, ``None`` keeps ``n``); a last dim of 2 when the input
    is real (the output is complex). Unknown signal sizes make the last axis ``?``, unknown
    axes every dim; ``holds`` says what the last axis holds, for the explanation. ``None`` when
    the inputs were refused (reported)."""
    ok, axes = check_fft_inputs(op, inputs, complex_input=complex_input)
    if not ok:
        return None
    data = inputs[0]
    if data.shape.rank is None:
        return [TensorInfo(data.shape, data.element_type, why="the data rank is not known")]
    dims = list(data.shape)[:-1] if complex_input else list(data.shape)
    pair = [] if complex_input else [static_dim(2)]
    if axes is None:
        dims = [Dim.dynamic()] * len(dims)
        why = "the axes are not known: every dim " + ("is ?" if complex_input else
                                                      "but the last (2) is ?")  # fmt: skip
        return [TensorInfo(Shape(dims + pair), data.element_type, why=why)]
    last = axes[-1]
    sizes = signed_ints(inputs[2]) if len(inputs) == 3 else [-1] * len(axes)
    if sizes is None:
        dims[last] = Dim.dynamic()
        why = f"the signal sizes are not known: axis {last} is ?"
        return [TensorInfo(Shape(dims + pair), data.element_type, why=why)]
    for axis, size in zip(axes, sizes):
        if size != -1:
            dims[axis] = static_dim(max(size, 0))
    if output_last is not None:
        dims[last] = _bound_wise(output_last, dims[last])
    if unsized_last is not None and sizes[-1] == -1:
        dims[last] = _bound_wise(unsized_last, dims[last])
    why = lazy_text("data {}, axes {}, signal sizes {}: axis {} holds {}", data.shape, axes,
                    sizes, last, holds)  # fmt: skip
    return [TensorInfo(Shape(dims + pair), data.element_type, why=why)]


def run_transform(op, inputs, transform, *, complex_input: bool, complex_output: bool,
                  output_last=None, unsized_last=None) -> list[np.ndarray]:  # fmt: skip
    """The kernel of DFT, IDFT, RDFT and IRDFT: ``transform`` (a ``numpy.fft`` n-D function)
    of the data along the axes, with ``s`` the signal sizes (-1: the data's dim; for the last
    axis ``unsized_last(n)`` when given), in complex128 (``complex_input``: the data are
    (real, imaginary) pairs) or float64; the output dims are the transform sizes, the last
    axis ``output_last(n)`` when given, and (real, imaginary) pairs when ``complex_output``.
    An empty output is zeros (``numpy.fft`` refuses a transform of 0 points)."""
    data = inputs[0]
    rank = data.ndim - 1 if complex_input else data.ndim
    axes = [a + rank if a < 0 else a for a in np.asarray(inputs[1]).reshape(-1).tolist()]
    sizes = transform_sizes(op, data.shape, axes, inputs[2] if len(inputs) == 3 else None)
    unsized = len(inputs) == 2 or int(np.asarray(inputs[2]).reshape(-1)[-1]) == -1
    if unsized_last is not None and unsized:
        sizes[-1] = unsized_last(data.shape[axes[-1]])
    out_shape = list(data.shape[:rank])
    for axis, size in zip(axes, sizes):
        out_shape[axis] = size
    if output_last is not None:
        out_shape[axes[-1]] = output_last(sizes[-1])
    pair = [2] if complex_output else []
    if 0 in out_shape:
        return [np.zeros(out_shape + pair, data.dtype)]
    values = transform(as_complex(data) if complex_input else data.astype(np.float64), s=sizes,
                       axes=axes)  # fmt: skip
    return [as_pairs(values, data.dtype) if complex_output else values.astype(data.dtype)]


def as_complex(data: np.ndarray) -> np.ndarray:
    """A ``[..., 2]`` real tensor as complex128."""
    wide = data.astype(np.float64)
    return wide[..., 0] + 1j * wide[..., 1]


def as_pairs(values: np.ndarray, dtype) -> np.ndarray:
    """A complex tensor as ``[..., 2]`` (real, imaginary) of ``dtype``."""
    return np.stack([values.real, values.imag], axis=-1).astype(dtype)
