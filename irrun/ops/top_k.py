"""TopK-1, TopK-3, TopK-11: the k largest (``mode="max"``) or smallest (``"min"``) elements of
``data`` along ``axis``, and their indices.

Spec facts: inputs data (rank >= 1, any element type) and k (a scalar: rank 0; TopK-1 takes
an i8, i32 or i64 k, TopK-3 and TopK-11 any integer type). Attributes ``axis`` (required,
negative counts from the end), ``mode`` (max, min), ``sort`` (value, index, none),
``index_element_type`` (i32 or i64, default i32) and, in TopK-11, ``stable`` (default false;
OpenVINO refuses it with ``sort="none"``). Outputs: values (data's type) and indices
(``index_element_type``), both of data's shape with the axis dim replaced by k.

Shape rule (``topk_shape_inference.hpp``): a known k (a constant, or a static partial value)
is the axis dim, even above the data dim (TopK then fails when run); a negative k is refused.
A k known as an interval ``kmin..kmax`` (a ShapeOf element) gives ``min(dmin, kmin)..``
``min(dmax, kmax)`` (unbounded when the data dim is); an unknown k gives ``0..dmax``.

Kernel: a stable argsort along the axis on the rank of each value (``np.unique``'s inverse),
so that equal values come in ascending index order, as in OpenVINO's reference (its
comparison breaks ties by the smaller index); ``sort="index"`` then sorts the k indices.
``sort="none"`` leaves the order to the implementation: irrun gives the value order, as
the CPU plugin does. The CPU plugin's own sort is not stable for some sizes (k=12 of 20 with
ties picks other tied elements even with ``stable=true``): irrun follows the reference there.
NaN counts as larger than every number (the plugin's NaN handling is undefined). A k larger
than the axis dim is an error when run, as in OpenVINO.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._values import elements_of
from irrun.ops.base import Attribute, Op, TensorInfo, normalize_axis_or_report
from irrun.ops.registry import register
from irrun.shape import Dim, Shape, static_dim

_INT64_MAX = 2**63 - 1


class _TopK(Op):
    inputs = (2, 2)
    attributes = (
        Attribute("axis", "int", 0, required=True),
        Attribute("mode", "enum", "max", required=True, choices=("max", "min")),
        Attribute("sort", "enum", "none", required=True, choices=("value", "index", "none")),
        Attribute("index_element_type", "element_type", None),
        Attribute("stable", "bool", False, since=11),
    )
    stable = False
    #: The k element types this version accepts (``None``: any integer type).
    k_types: tuple | None = None

    def setup(self):
        if self.index_element_type is None:
            from irrun.element_types import element_type

            self.index_element_type = element_type("i32")
        if self.index_element_type.name not in ("i32", "i64"):
            self.context.error(
                "attribute-value",
                f"{self.describe()}: index_element_type {self.index_element_type} is not "
                "i32 or i64",
                hint='write index_element_type="i32" or "i64"',
                line=self.layer.data_line,
            )
            self.incomplete = True
        if self.stable and self.sort == "none":
            self.context.error(
                "attribute-value",
                f'{self.describe()}: stable=true needs sort="value" or "index", but sort is "none"',
                hint='set sort="value" (or "index"), or drop stable',
                line=self.layer.data_line,
            )
            self.incomplete = True

    def infer(self, inputs):
        """The data shape with the axis dim replaced by k (an interval when k is not known)."""
        data, k_info = inputs
        k_type = k_info.element_type
        allowed = k_type.name == "dynamic" or (
            k_type.is_integer if self.k_types is None else k_type.name in self.k_types
        )
        if not allowed:
            wanted = "an integer" if self.k_types is None else " or ".join(self.k_types)
            self.context.error(
                "index-type",
                f"{self.describe()}: k must be {wanted} tensor, but input 1 is {k_type}",
                port=self.input_port(1),
                hint="insert a Convert to i64 (or i32) before the k input",
            )
            return None
        rank = data.shape.rank
        if rank == 0:
            self.context.error(
                "input-rank",
                f"{self.describe()}: data must have rank >= 1, but it is a scalar",
                port=self.input_port(0),
                hint="reshape the data to 1-D",
            )
            return None
        k_rank = k_info.shape.rank
        if k_rank not in (None, 0):
            self.context.error(
                "input-rank",
                f"{self.describe()}: k must be a scalar, but its shape is {k_info.shape}",
                port=self.input_port(1),
                hint="give k as a 0-D tensor (Squeeze a 1-element one)",
            )
            return None
        index_type = self.index_element_type
        if rank is None:
            shape = Shape.dynamic_rank()
            why = "the data rank is not known"
            return [TensorInfo(shape, data.element_type, why=why),
                    TensorInfo(shape, index_type, why=why)]  # fmt: skip
        axis = normalize_axis_or_report(self, self.axis, rank)
        if axis is None:
            return None
        dim = data.shape[axis]
        elements = elements_of(k_info) if k_rank == 0 else None
        k = elements[0] if elements else None
        if isinstance(k, int):
            if not 0 <= k <= _INT64_MAX:
                self.context.error(
                    "input-value",
                    f"{self.describe()}: k must be >= 0, but it is {k}",
                    port=self.input_port(1),
                    hint="give a k from 0 to the size of the axis",
                )
                return None
            out_dim = static_dim(k)
            why = f"data {data.shape} with axis {self.axis} dim {dim} replaced by k = {k}"
        elif isinstance(k, Dim) and k.is_static:
            out_dim = k
            why = f"data {data.shape} with axis {self.axis} dim {dim} replaced by k = {k}"
        elif isinstance(k, Dim):
            lower = min(dim.lower, k.lower)
            if dim.upper is None:
                upper = None
            else:
                upper = dim.upper if k.upper is None else min(dim.upper, k.upper)
            out_dim = Dim(lower, upper)
            why = f"data {data.shape}, k in {k}: axis {self.axis} dim {dim} becomes {out_dim}"
        else:
            out_dim = Dim(0, dim.upper)
            why = f"k is not known: axis {self.axis} dim {dim} becomes {out_dim}"
        dims = list(data.shape.dims)
        dims[axis] = out_dim
        shape = Shape(dims)
        return [TensorInfo(shape, data.element_type, why=why),
                TensorInfo(shape, index_type, why=why)]  # fmt: skip

    def evaluate(self, inputs):
        """Stable argsort on the value ranks along the axis; the first k."""
        data, k_array = inputs
        k = int(np.asarray(k_array).reshape(-1)[0])
        axis = self.axis + data.ndim if self.axis < 0 else self.axis
        size = data.shape[axis]
        if not 0 <= k <= size:
            raise ValueError(
                f"{self.describe()}: k = {k} is out of the range [0, {size}] of axis "
                f"{self.axis} of data {list(data.shape)}"
            )
        ranks = np.unique(data, return_inverse=True)[1].reshape(data.shape).astype(np.int64)
        key = -ranks if self.mode == "max" else ranks
        order = np.argsort(key, axis=axis, kind="stable")
        order = np.take(order, np.arange(k), axis=axis)
        if self.sort == "index":
            order = np.sort(order, axis=axis)
        values = np.take_along_axis(data, order, axis=axis)
        return [values, order.astype(self.index_element_type.numpy_dtype)]


@register
class TopK1(_TopK):
    """TopK-1: k of type i8, i32 or i64."""

    type, version = "TopK", 1
    rounds = False
    k_types = ("i8", "i32", "i64")


@register
class TopK3(_TopK):
    """TopK-3: k of any integer type."""

    type, version = "TopK", 3
    rounds = False


@register
class TopK11(_TopK):
    """TopK-11: adds ``stable`` (irrun's order is always the stable one)."""

    type, version = "TopK", 11
    rounds = False
