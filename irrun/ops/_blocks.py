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


# -- BatchToSpace and SpaceToBatch -------------------------------------------------------------
def dim_of_value(value: int) -> Dim:
    """An int64 made a dimension as OpenVINO's ``Dimension(int64)`` makes it: ``-1`` is ``?``,
    any other negative value 0 (its interval clamps), others the static size.

    >>> [str(dim_of_value(v)) for v in (3, -1, -2)]
    ['3', '?', '0']
    """
    if value == -1:
        return Dim.dynamic()
    return static_dim(max(value, 0))


def subtract_size(dim: Dim, size: int) -> Dim:
    """``dim - size`` as OpenVINO's interval subtraction: both bounds minus ``size``, clamped at
    0 (an unbounded upper bound stays unbounded).

    >>> [str(subtract_size(d, 7)) for d in (Dim(9), Dim(4, 6), Dim(3, None))]
    ['2', '0', '?']
    """
    lower = max(dim.lower - size, 0)
    upper = None if dim.upper is None else max(dim.upper - size, 0)
    return static_dim(lower) if lower == upper else Dim(lower, upper)


def check_block_inputs(op, inputs, names: tuple) -> bool:
    """The checks BatchToSpace and SpaceToBatch share on their three 1-D inputs (block_shape
    and the crops or pads): integer types, one shape between them, rank 1, the data rank >= 2
    and, when known, as many elements as the data rank. ``names``: the three inputs' names."""
    for index in (1, 2, 3):
        etype = inputs[index].element_type
        if etype.name != "dynamic" and not etype.is_integer:
            op.context.error(
                "index-type",
                f"{op.describe()}: {names[index - 1]} must be an integer tensor, but it is {etype}",
                port=op.input_port(index),
                hint=f"give {names[index - 1]} as i64 (or i32)",
            )
            return False
    shared = inputs[2].shape.merge(inputs[3].shape)
    shared = None if shared is None else shared.merge(inputs[1].shape)
    if shared is None:
        shapes = ", ".join(f"{n} {inputs[i + 1].shape}" for i, n in enumerate(names))
        op.context.error(
            "input-dims",
            f"{op.describe()}: {', '.join(names)} must have one shape, but they are {shapes}",
            port=op.input_port(1),
            hint="give each of them one element per data axis",
        )
        return False
    if shared.rank not in (None, 1):
        op.context.error(
            "input-rank",
            f"{op.describe()}: {', '.join(names)} must be 1-D, but their shape is {shared}",
            port=op.input_port(1),
            hint="give them as 1-D tensors",
        )
        return False
    rank = inputs[0].shape.rank
    if rank is not None and rank < 2:
        op.context.error(
            "input-rank",
            f"{op.describe()}: the data must have rank 2 or more, but its shape is "
            f"{inputs[0].shape}",
            port=op.input_port(0),
            hint="give the data a batch and at least one more axis",
        )
        return False
    if rank is not None and shared.rank == 1 and shared[0].is_static and shared[0].lower != rank:
        op.context.error(
            "input-dims",
            f"{op.describe()}: {', '.join(names)} have {shared[0].lower} elements, but the data "
            f"{inputs[0].shape} has rank {rank}",
            port=op.input_port(1),
            hint="give one element per data axis",
        )
        return False
    return True
