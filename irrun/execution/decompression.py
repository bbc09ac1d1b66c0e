"""Weight decompression folded in one pass: the chain ``Convert(codes -> f16)``, ``Subtract``
of a zero point (optional), ``Multiply`` by a scale, and when they follow alone a ``Reshape``
(groups to rows) and a ``Convert`` to f32, as OpenVINO's converter and nncf write INT8/INT4
weights, computed in f32 and rounded to f16 once (then widened to f32 exactly).

Why it is the same, bit for bit, as running the three f16 ops: codes of at most 8 bits are
integers that f16 holds exactly, and so is a zero point that is an integer of magnitude at most
1024 (checked on its values), and their difference (at most 1279, 11 bits: exact in f16 too).
The difference times an f16 scale (11 significant bits) needs at most 22 bits, which f32 holds
exactly (subnormal scales included: f32's exponent reaches further), so the one rounding to
f16 at the end is the f16 Multiply's own. Infinities and NaNs in the scale give the same as
well: NumPy's f16 loops compute each element in f32 and round it.

The gain is speed at compile time: NumPy's f16 loops convert every element to f32 and back
in each op (about 6 ns an element where measured), this does the arithmetic in f32, block by
block in cache, and converts once: a 1.1B-parameter INT4 LLaMA (nncf, groups of 128) compiled
in 18 s instead of 39 s, most of what is left being the f32 copy of the weights.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from irrun.ops._conversion import input_type

__all__ = ["DecompressionChain", "find_chains", "fold_chain"]


@dataclass(frozen=True)
class DecompressionChain:
    """The nodes of one chain and where its three constant operands come from."""

    convert: object  # Convert: integer codes -> f16
    subtract: object | None  # Subtract of the zero point, or None (symmetric)
    multiply: object  # Multiply by the scale: the chain's result
    convert_first: bool  # the codes are the Subtract's first input (codes - zero point)
    chained_first: bool  # the chained value is the Multiply's first input
    reshape: object | None = None  # a Reshape of the f16 weights (groups to rows), or None
    widen: object | None = None  # a Convert of the f16 weights to f32 after them, or None

    @property
    def members(self) -> list:
        """The chain's nodes in order; the last one gives its result."""
        nodes = (self.convert, self.subtract, self.multiply, self.reshape, self.widen)
        return [node for node in nodes if node is not None]


def find_chains(nodes) -> dict[int, DecompressionChain]:
    """Every decompression chain among ``nodes`` (a schedule, in order), keyed by
    ``id(node)`` of each of its nodes. Only the graph's structure is looked at here (op
    types, f16 outputs, numpy broadcasting, one reader for each link); the operands' values
    are checked when the chain is folded (:func:`fold_chain`)."""
    producers, readers, reader_of = {}, {}, {}
    for node in nodes:
        for slot, _, _ in node.outs:
            producers[slot] = node
        for slot in node.ins:
            readers[slot] = readers.get(slot, 0) + 1
            reader_of.setdefault(slot, node)
    chains = {}
    for node in nodes:
        if not _is_f16_binary(node, "Multiply"):
            continue
        for first in (True, False):
            link = node.ins[0 if first else 1]
            source = producers.get(link)
            if source is None or readers.get(link) != 1:
                continue
            subtract = None
            if _is_f16_binary(source, "Subtract"):
                subtract, codes_link = source, source.ins[0]
                convert = producers.get(codes_link)
                convert_first = True
                if not _is_f16_convert(convert) or readers.get(codes_link) != 1:
                    codes_link = source.ins[1]
                    convert, convert_first = producers.get(codes_link), False
                    if not _is_f16_convert(convert) or readers.get(codes_link) != 1:
                        continue
            elif _is_f16_convert(source):
                convert, convert_first = source, True
            else:
                continue
            reshape, widen = _widening(node, readers, reader_of)
            chain = DecompressionChain(convert, subtract, node, convert_first, first, reshape,
                                       widen)  # fmt: skip
            for member in chain.members:
                chains[id(member)] = chain
            break
    return chains


def _widening(multiply, readers, reader_of) -> tuple:
    """``(reshape or None, convert)`` when the Multiply's result goes, alone, through a
    Reshape of a static shape (optional) into a Convert to f32; else ``(None, None)``."""
    slot = multiply.outs[0][0]
    reader = reader_of.get(slot)
    reshape = None
    if (reader is not None and readers.get(slot) == 1 and reader.layer.type == "Reshape"
            and reader.ins[0] == slot and reader.outs[0][1] is not None
            and readers.get(reader.outs[0][0]) == 1):  # fmt: skip
        reshape, slot = reader, reader.outs[0][0]
        reader = reader_of.get(slot)
    if (reader is None or readers.get(slot) != 1 or reader.layer.type != "Convert"
            or reader.outs[0][2] != np.float32):  # fmt: skip
        return None, None
    return reshape, reader


def fold_chain(chain: DecompressionChain, constant: dict) -> np.ndarray | None:
    """The chain's result (f16, or f32 when it ends in a Convert to f32) from the
    ``constant`` values of its operands (slot -> array),
    or ``None`` when they are not all there or not what makes the one pass exact (codes of
    one byte, a zero point and a scale in f16, the zero point integral and small)."""
    convert, subtract, multiply = chain.convert, chain.subtract, chain.multiply
    codes = constant.get(convert.ins[0])
    scale = constant.get(multiply.ins[1 if chain.chained_first else 0])
    if codes is None or scale is None or not _codes(convert, codes) or scale.dtype != np.float16:
        return None
    zero_point = None
    if subtract is not None:
        zero_point = constant.get(subtract.ins[1 if chain.convert_first else 0])
        if zero_point is None or not _integral_f16(zero_point):
            return None
        zero_point = zero_point.astype(np.float32)
    scale = scale.astype(np.float32)
    shape = codes.shape
    operands = [a for a in (zero_point, scale) if a is not None]
    if codes.ndim == 0 or np.broadcast_shapes(shape, *(a.shape for a in operands)) != shape:
        result = _pass(chain, codes, zero_point, scale)  # (a result wider than the codes)
        if chain.reshape is not None:
            result = result.reshape(chain.reshape.outs[0][1])
        return result.astype(np.float32) if chain.widen is not None else result
    # Block by block of rows, in a work buffer that stays in cache: no f32 copy of the
    # whole weights, and no fresh pages to fault in but the result's.
    widen = chain.widen is not None
    result = np.empty(shape, np.float32 if widen else np.float16)
    rounded = None
    row = max(1, math.prod(shape[1:]))
    step = max(1, BLOCK_ELEMENTS // row)
    work = np.empty((min(step, shape[0]), *shape[1:]), np.float32)
    with np.errstate(over="ignore"):  # (beyond 65504 is inf in f16, as the op gives)
        for first in range(0, shape[0], step):
            last = min(shape[0], first + step)
            block = work[: last - first]
            np.copyto(block, codes[first:last], casting="unsafe")
            part = _pass(chain, block, _rows(zero_point, first, last, codes.ndim),
                         _rows(scale, first, last, codes.ndim), into=block)  # fmt: skip
            if widen:  # rounded to f16 (the Multiply's result), then widened exactly
                if rounded is None:
                    rounded = np.empty(work.shape, np.float16)
                np.copyto(rounded[: last - first], part, casting="same_kind")
                np.copyto(result[first:last], rounded[: last - first])
            else:
                np.copyto(result[first:last], part, casting="same_kind")
    if chain.reshape is not None:
        result = result.reshape(chain.reshape.outs[0][1])
    return result


#: Elements of codes decompressed at once (1 MiB of f32 work: in L2).
BLOCK_ELEMENTS = 1 << 18


def _rows(array, first: int, last: int, ndim: int):
    """The rows ``first:last`` of an operand broadcast against codes of ``ndim`` axes."""
    if array is None or array.ndim < ndim or array.shape[0] == 1:
        return array
    return array[first:last]


def _pass(chain, codes, zero_point, scale, into=None) -> np.ndarray:
    """``(codes - zero point) * scale`` in f32 (into ``into``, which may be the f32 codes),
    rounded to f16 when not written into ``into``."""
    values = codes if into is not None else codes.astype(np.float32)
    out = into
    with np.errstate(all="ignore"):
        if zero_point is not None:
            if chain.convert_first:
                values = np.subtract(values, zero_point, out=out)
            else:
                values = np.subtract(zero_point, values, out=out)
        if chain.chained_first:
            values = np.multiply(values, scale, out=out)
        else:
            values = np.multiply(scale, values, out=out)
        return values if into is not None else values.astype(np.float16)


def _is_f16_binary(node, kind: str) -> bool:
    return (node is not None and node.layer.type == kind and len(node.ins) == 2
            and len(node.outs) == 1 and node.outs[0][2] == np.float16
            and getattr(node.op, "auto_broadcast", None) in ("numpy", "none"))  # fmt: skip


def _is_f16_convert(node) -> bool:
    return (node is not None and node.layer.type == "Convert" and len(node.ins) == 1
            and node.outs[0][2] == np.float16)  # fmt: skip


def _codes(convert, array) -> bool:
    """Integer codes of at most 8 bits, by the element type the Convert reads (which tells
    u8 from nf4, a codebook held as uint8 indices)."""
    if not isinstance(array, np.ndarray) or array.itemsize != 1:
        return False
    etype = input_type(convert.op, array)
    return etype.is_integer and etype.name != "boolean"


def _integral_f16(array) -> bool:
    """An f16 array of integers of magnitude at most 1024."""
    if not isinstance(array, np.ndarray) or array.dtype != np.float16:
        return False
    wide = array.astype(np.float32)
    return bool(np.all(np.abs(wide) <= 1024) and np.all(wide == np.round(wide)))
