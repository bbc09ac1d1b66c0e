"""Unique-10: the unique elements (or slices along ``axis``) of a tensor, with the index of
each one's first occurrence, the index of each input element in the unique ones, and the
counts.

Spec facts: inputs data (any type) and optionally axis (a constant i32/i64 scalar or
``[1]``); attributes ``sorted`` (default true: ascending, slices lexicographically; false: in
order of first occurrence), ``index_element_type`` and ``count_element_type`` (i32 or i64,
default i64). Outputs: unique values (data's type), first indices and reverse indices
(``index_element_type``), counts (``count_element_type``). Data whose every dim is 1 (a scalar
too) has one unique element.

Shape rule (``unique.cpp``, 2024): a constant data is evaluated (exact shapes; irrun folds any
known value, OpenVINO only a Const producer). Otherwise, with ``N`` the element count of a
static data shape: outputs 1 and 3 are ``[1..N]`` and output 2 ``[N]`` (``[?]`` unless
``N > 0``). Without axis output 0 is ``[1..N]`` (``[?]`` for a non-static data). With an axis
(checked: i32/i64, a Const, a scalar or ``[1]``, in the data's range) and a data of known
rank, output 0 is the data shape with the axis dim ``d`` replaced by ``1..max(d)`` (``?``
stays ``?``; a static 0 gives 0, and then outputs 1 and 3 are ``[0]``) and output 2 is
``[d]``; a data of dynamic rank keeps output 0 ``[...]``.

Kernel: ``np.unique`` (stable, so first occurrences) over the flattened data or over the
slices along the axis (lexicographic, as the reference compares them), reordered by first
occurrence when not sorted; exact. NaN and ``-0.0`` follow numpy (the reference's comparisons
leave them unspecified).
"""

from __future__ import annotations

import numpy as np

from irrun.element_types import element_type
from irrun.ops.base import (
    Attribute,
    Op,
    TensorInfo,
    lazy_text,
    normalize_axis_or_report,
)
from irrun.ops.registry import register
from irrun.shape import Dim, Shape, static_dim

_I64 = element_type("i64")
#: Folding of a constant data is done for at most this many elements (as NonZero does).
_FOLD_LIMIT = 4096


@register
class Unique(Op):
    """Unique-10 (sorted, index_element_type, count_element_type)."""

    type, version, inputs = "Unique", 10, (1, 2)
    attributes = (
        Attribute("sorted", "bool", True),
        Attribute("index_element_type", "element_type", _I64),
        Attribute("count_element_type", "element_type", _I64),
    )

    def setup(self):
        """Check the two output index types (i32 or i64)."""
        for name in ("index_element_type", "count_element_type"):
            value = getattr(self, name)
            if value.name not in ("i32", "i64"):
                self.context.error(
                    "attribute-value",
                    f"{self.describe()}: {name} {value} is not i32 or i64",
                    hint=f'write {name}="i64" (or "i32")',
                    line=self.layer.data_line,
                )
                self.incomplete = True

    def _outputs(self, data_type, shapes, why, values=None):
        types = (data_type, self.index_element_type, self.index_element_type,
                 self.count_element_type)  # fmt: skip
        values = values or (None,) * 4
        return [TensorInfo(s, t, value=v, why=why) for s, t, v in zip(shapes, types, values)]

    def infer(self, inputs):
        """Intervals bounded by the element count (exact shapes for a constant)."""
        data = inputs[0]
        axis = None
        if len(inputs) == 2:
            axis = self._axis(inputs[1])
            if axis is False:
                return None
        if data.value is not None and np.asarray(data.value).size <= _FOLD_LIMIT:
            folded = self.evaluate([data.value] + ([np.array(axis)] if axis is not None else []))
            why = "the data is a constant"
            return self._outputs(data.element_type, [Shape(a.shape) for a in folded], why,
                                 folded)  # fmt: skip
        shape = data.shape
        count = shape.element_count() if shape.is_static else -1
        some = Shape([Dim(1, count)]) if count > 0 else Shape([Dim.dynamic()])
        every = Shape([static_dim(count)]) if count > 0 else Shape([Dim.dynamic()])
        shapes = [Shape.dynamic_rank(), some, every, some]
        why = lazy_text("the data {} holds {} elements", shape, count if count >= 0 else "?")
        if axis is None:
            shapes[0] = some if shape.is_static else Shape([Dim.dynamic()])
        elif shape.rank is not None:
            normalised = normalize_axis_or_report(self, axis, shape.rank, port_index=1)
            if normalised is None:
                return None
            dim = shape[normalised]
            if dim == Dim.dynamic():
                out_dim, reverse = dim, dim
            elif dim.is_static and dim.lower == 0:
                out_dim = reverse = static_dim(0)
                shapes[1] = shapes[3] = Shape([out_dim])
            else:
                out_dim = Dim(1, dim.upper)
                reverse = dim if dim.is_dynamic else static_dim(dim.upper)
            dims = list(shape.dims)
            dims[normalised] = out_dim
            shapes[0], shapes[2] = Shape(dims), Shape([reverse])
        return self._outputs(data.element_type, shapes, why)

    def _axis(self, info):
        """The constant axis, or False after reporting why it cannot be used."""
        etype = info.element_type
        port = self.input_port(1)
        if etype.name not in ("i32", "i64", "dynamic"):
            self.context.error("index-type", f"{self.describe()}: the axis must be i32 or i64, "
                               f"but it is {etype}", port=port,
                               hint="Convert the axis to i64")  # fmt: skip
            return False
        if info.value is None:
            self.context.error("input-value", f"{self.describe()}: the axis must be a constant",
                               port=port, hint="give the axis as a Const")  # fmt: skip
            return False
        if info.shape not in (Shape([]), Shape([1])):
            self.context.error("input-rank", f"{self.describe()}: the axis must be a scalar or "
                               f"hold one element ([1]), but its shape is {info.shape}",
                               port=port, hint="give one axis")  # fmt: skip
            return False
        return int(np.asarray(info.value).reshape(-1)[0])

    def evaluate(self, inputs):
        """``np.unique`` over the elements or the slices along the axis."""
        data = np.asarray(inputs[0])
        index_type = self.index_element_type.numpy_dtype
        count_type = self.count_element_type.numpy_dtype
        axis = None
        if len(inputs) == 2 and data.ndim > 1:
            axis = int(np.asarray(inputs[1]).reshape(-1)[0]) % data.ndim
        if data.size == 1:
            one = np.zeros(1, index_type)
            values = data.reshape(-1) if axis is None else data.copy()
            return [values, one, one.copy(), np.ones(1, count_type)]
        if axis is None:
            rows = data.reshape(-1)
        else:
            rows = np.moveaxis(data, axis, 0).reshape(data.shape[axis], -1)
        _, first, inverse, counts = np.unique(rows, return_index=True, return_inverse=True,
                                              return_counts=True, axis=None if axis is None
                                              else 0)  # fmt: skip
        inverse = inverse.reshape(-1)
        if not self.sorted:
            order = np.argsort(first, kind="stable")
            position = np.empty_like(order)
            position[order] = np.arange(order.size)
            first, counts, inverse = first[order], counts[order], position[inverse]
        values = rows[first] if axis is None else np.take(data, first, axis=axis)
        return [values, first.astype(index_type), inverse.astype(index_type),
                counts.astype(count_type)]  # fmt: skip
