"""Helpers of the block-rearranging ops (DepthToSpace, SpaceToDepth, BatchToSpace,
SpaceToBatch): OpenVINO's exact division of a partial dimension."""

from __future__ import annotations

from irrun.shape import Dim, static_dim

#: OpenVINO's Interval::s_max.
_INT64_MAX = 2**63 - 1


def divide_dim(dim: Dim, divisor: int) -> Dim | None:
    """``dim / divisor`` as OpenVINO's shape inference divides a dimension that must be a
    multiple of ``divisor``: a static dim exactly (``None`` when not a multiple); an interval
    to ``[ceil(lower / divisor), floor(upper / divisor)]`` (``None`` when that holds no
    integer); ``?`` stays ``?``; an unbounded upper bound becomes ``s_max / divisor`` computed
    in double precision, as OpenVINO does (``4..`` / 2 is ``2..4611686018427387904``).

    >>> [str(divide_dim(d, 4)) for d in (Dim(8), Dim(2, 17), Dim(0, None), Dim(0, 7))]
    ['2', '1..4', '?', '..1']
    >>> divide_dim(Dim(5, 7), 4) is None, str(divide_dim(Dim(4, None), 2))
    (True, '2..4611686018427387904')
    """
    if dim.is_static:
        return static_dim(dim.lower // divisor) if dim.lower % divisor == 0 else None
    if dim.lower == 0 and dim.upper is None:
        return Dim.dynamic()
    lower = -(-dim.lower // divisor)
    if dim.upper is None:
        upper = int(float(_INT64_MAX) / divisor)
        upper = None if upper >= _INT64_MAX else upper
    else:
        upper = dim.upper // divisor
    if upper is not None and upper < lower:
        return None
    return Dim(lower, upper)


def not_a_multiple(op, dim: Dim, divisor: int, what: str) -> None:
    """Report ``input-dims``: ``dim`` (of ``what``) is no multiple of ``divisor``."""
    op.context.error(
        "input-dims",
        f"{op.describe()}: the {what} dim {dim} must be a multiple of {divisor}",
        port=op.input_port(0),
        hint=f"give the data a {what} dim divisible by {divisor}",
    )


MODES = ("blocks_first", "depth_first")


def check_block_op(op, data) -> bool:
    """The checks DepthToSpace and SpaceToDepth share: block size >= 1, data rank >= 3."""
    if op.block_size < 1:
        op.context.error(
            "attribute-value",
            f"{op.describe()}: block_size {op.block_size} must be at least 1",
            line=op.layer.data_line,
            hint='use block_size="2" (or another positive size)',
        )
        return False
    rank = data.shape.rank
    if rank is not None and rank < 3:
        op.context.error(
            "input-rank",
            f"{op.describe()}: the data must have rank 3 or more ([N, C, D1, ...]), but its "
            f"shape is {data.shape}",
            port=op.input_port(0),
            hint="give the data a batch, a channel and at least one spatial axis",
        )
        return False
    return True
