"""Helpers shared by the shape ops (Reshape, Squeeze, Unsqueeze, Transpose): constant axes
and patterns read from inputs, OpenVINO's interval arithmetic, and checks of 1-D int inputs."""

from __future__ import annotations

from irrun.ops.base import Op, TensorInfo
from irrun.shape import Dim

#: OpenVINO's Interval::s_max: the upper bound of an unbounded interval, in its arithmetic.
INFINITE = 2**63 - 1


def upper(dim: Dim) -> int:
    """The upper bound of ``dim``, :data:`INFINITE` when unbounded."""
    return INFINITE if dim.upper is None else dim.upper


def make_dim(lower: int, high: int) -> Dim | None:
    """The Dim ``[lower, high]`` (``high`` :data:`INFINITE` = unbounded); ``None`` when empty."""
    if lower > high:
        return None
    return Dim(lower, None if high >= INFINITE else high)


def ceil_div(x: int, y: int) -> int:
    """OpenVINO's ``ceil_div`` of non-negative numbers (``0`` for ``x == 0``)."""
    return 0 if x == 0 else 1 + (x - 1) // y


def check_integer_input(op: Op, info: TensorInfo, index: int, what: str,
                        floats: bool = False) -> bool:  # fmt: skip
    """Report ``index-type`` unless input ``index`` is an integer type (or dynamic).
    ``floats``: the op accepts a float input as OpenVINO does (Squeeze, Unsqueeze, MVN-6 axes:
    it truncates the values toward 0); a float type is then a ``index-type`` *warning* (the
    specification wants integers) and the check passes."""
    etype = info.element_type
    if etype.is_integer or etype.name == "dynamic":
        return True
    if floats and etype.kind == "float":
        op.context.warning(
            "index-type",
            f"{op.describe()}: the {what} input is {etype}, but the specification wants an "
            f"integer tensor; OpenVINO accepts it and truncates the values toward 0",
            port=op.input_port(index),
            hint="insert a Convert to i64 before it (or store the values as i64)",
        )
        return True
    op.context.error(
        "index-type",
        f"{op.describe()}: the {what} input must be an integer tensor, but input {index} is "
        f"{etype}",
        port=op.input_port(index),
        hint="insert a Convert to i64 before it",
    )
    return False


def check_vector_input(op: Op, info: TensorInfo, index: int, what: str, scalar: bool) -> bool:
    """Report ``input-rank`` unless input ``index`` has rank 1 (or 0, when ``scalar``)."""
    rank = info.shape.rank
    if rank is None or rank == 1 or (scalar and rank == 0):
        return True
    allowed = "rank 0 or 1" if scalar else "rank 1"
    op.context.error(
        "input-rank",
        f"{op.describe()}: the {what} input must have {allowed}, but its shape is {info.shape}",
        port=op.input_port(index),
        hint=f"give the {what} as a 1-D tensor",
    )
    return False
