"""StringTensorUnpack-15 and StringTensorPack-15: a string tensor as (begins, ends, symbols) and
back.

Spec facts: StringTensorUnpack takes a string tensor of any shape and gives begins and ends
(i32, of its shape: where each string's UTF-8 bytes start and end in symbols) and symbols
(u8, 1-D: every string's bytes one after another, in row-major order). StringTensorPack takes
begins and ends (one type, i32 or i64, of one shape) and symbols (u8, 1-D) and gives the
string tensor of begins' shape whose element is ``symbols[begin:end]``. No attributes.

Shape rules (``string_tensor_unpack_shape_inference.hpp``, ``..._pack_...``): Unpack: data
must be a string tensor; begins and ends have its shape, symbols is ``[?]`` (OpenVINO's
partial-shape inference does not count the bytes, even of a constant; a shape with a dim of 0
gives ``[0]``). Pack: begins and ends
must be i32 or i64 and of one type, symbols u8 of rank 1; the output shape is begins' merged
with ends' (shapes that cannot be equal are an error).

Kernels: irrun holds strings as Python ``str`` (numpy ``StringDType``), so bytes are UTF-8
encoded and decoded; a Pack of bytes that are not UTF-8 keeps them as surrogate escapes, which
Unpack encodes back to the same bytes. The loop over strings is Python's own (``encode``,
``join``, ``decode``): numpy has no vectorised byte slicing of strings. Exact.
"""

from __future__ import annotations

import numpy as np

from irrun.element_types import element_type
from irrun.ops.base import Op, TensorInfo, lazy_text
from irrun.ops.registry import register
from irrun.shape import Dim, Shape, static_dim


@register
class StringTensorUnpack(Op):
    """StringTensorUnpack-15."""

    type, version, inputs = "StringTensorUnpack", 15, (1, 1)
    attributes = ()

    def infer(self, inputs):
        """begins and ends of data's shape (i32), symbols ``[?]`` (u8)."""
        data = inputs[0]
        if data.element_type.name not in ("string", "dynamic"):
            self.context.error(
                "input-type",
                f"{self.describe()}: data must be a string tensor, but it is {data.element_type}",
                port=self.input_port(0),
                hint="unpack a string tensor (StringTensorPack makes one from bytes)",
            )
            return None
        why = lazy_text("one begin and end per string of {}", data.shape)
        index = element_type("i32")
        if data.shape.rank_is_static and any(d.upper == 0 for d in data.shape):
            symbols = TensorInfo(Shape([static_dim(0)]), element_type("u8"), why="no strings")
        else:
            symbols = TensorInfo(Shape([Dim.dynamic()]), element_type("u8"),
                                 why="the bytes of all strings (counted when run)")  # fmt: skip
        return [TensorInfo(data.shape, index, why=why), TensorInfo(data.shape, index, why=why),
                symbols]  # fmt: skip

    def evaluate(self, inputs):
        """UTF-8 bytes of each string, joined; their offsets."""
        data = np.asarray(inputs[0])
        encoded = [str(s).encode("utf-8", "surrogateescape") for s in data.reshape(-1)]
        lengths = np.fromiter(map(len, encoded), np.int64, count=len(encoded))
        ends = np.cumsum(lengths)
        begins = ends - lengths
        symbols = np.frombuffer(b"".join(encoded), np.uint8).copy()
        return [begins.astype(np.int32).reshape(data.shape),
                ends.astype(np.int32).reshape(data.shape), symbols]  # fmt: skip


@register
class StringTensorPack(Op):
    """StringTensorPack-15."""

    type, version, inputs = "StringTensorPack", 15, (3, 3)
    attributes = ()

    def infer(self, inputs):
        """A string tensor of begins' shape (merged with ends')."""
        begins, ends, symbols = inputs
        types = (begins.element_type.name, ends.element_type.name)
        known = [t for t in types if t != "dynamic"]
        if any(t not in ("i32", "i64") for t in known) or len(set(known)) > 1:
            self.context.error(
                "index-type",
                f"{self.describe()}: begins and ends must be of one type, i32 or i64, but they "
                f"are {types[0]} and {types[1]}",
                port=self.input_port(0),
                hint="Convert begins and ends to i32 (or both to i64)",
            )
            return None
        if symbols.element_type.name not in ("u8", "dynamic"):
            self.context.error(
                "input-type",
                f"{self.describe()}: symbols must be u8, but it is {symbols.element_type}",
                port=self.input_port(2),
                hint="give the UTF-8 bytes as a u8 tensor",
            )
            return None
        if symbols.shape.rank not in (None, 1):
            self.context.error(
                "input-rank",
                f"{self.describe()}: symbols must be 1-D, but its shape is {symbols.shape}",
                port=self.input_port(2),
                hint="flatten the bytes to 1-D",
            )
            return None
        shape = begins.shape.merge(ends.shape)
        if shape is None:
            self.context.error(
                "input-shape",
                f"{self.describe()}: begins {begins.shape} and ends {ends.shape} must have one "
                "shape",
                port=self.input_port(1),
                hint="give one begin and one end per string",
            )
            return None
        why = lazy_text("one string per begin/end pair of {}", shape)
        return [TensorInfo(shape, element_type("string"), why=why)]

    def evaluate(self, inputs):
        """``symbols[begin:end]`` decoded as UTF-8, for each pair."""
        begins = np.asarray(inputs[0]).astype(np.int64)
        ends = np.asarray(inputs[1]).astype(np.int64)
        symbols = np.asarray(inputs[2], np.uint8).reshape(-1)
        if begins.shape != ends.shape:
            raise ValueError(f"{self.describe()}: begins {list(begins.shape)} and ends "
                             f"{list(ends.shape)} must have one shape")  # fmt: skip
        bad = (begins < 0) | (ends < begins) | (ends > symbols.size)
        if bad.any():
            where = np.argwhere(bad)[0]
            at = tuple(int(i) for i in where)
            raise ValueError(
                f"{self.describe()}: string {list(at)} spans [{begins[at]}, {ends[at]}), "
                f"which is not within the {symbols.size} symbols"
            )
        raw = symbols.tobytes()
        spans = zip(begins.reshape(-1).tolist(), ends.reshape(-1).tolist())
        texts = [raw[b:e].decode("utf-8", "surrogateescape") for b, e in spans]
        out = np.array(texts, dtype=np.dtypes.StringDType()).reshape(begins.shape)
        return [out]
