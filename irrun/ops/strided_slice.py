"""StridedSlice-1: TensorFlow-style slicing with begin/end/new-axis/shrink/ellipsis masks.

Spec facts: inputs data (any element type), begin, end and optional stride (1-D integer
tensors of one length n; stride defaults to ones). Attributes ``begin_mask`` and ``end_mask``
(required) and ``new_axis_mask``, ``shrink_axis_mask``, ``ellipsis_mask`` (default empty) are
lists of 0/1, one per position of begin (shorter lists are padded with 0, longer ones ignored
past n; every non-empty mask must have the same length). Position i of the slice spec is, in
this order of precedence (OpenVINO's shape inference):

- ellipsis (at most one): as many full dimensions as the spec leaves unmentioned;
- new axis: inserts a dimension of 1 (consumes no data dimension);
- shrink: takes element ``begin[i]`` and drops the dimension;
- otherwise ``begin[i]:end[i]:stride[i]`` with ``begin_mask[i] = 1`` meaning "from the first
  element in the stride's direction" and ``end_mask[i] = 1`` "to the last"; negative values
  count from the end, values are clamped like Slice-8's (see :mod:`irrun.ops._slicing`).

Data dimensions the spec does not reach are kept. Begin and end may be bounds (computed from
ShapeOf): the sliced dimensions are then intervals. Unknown stride (or begin/end) → those
dimensions are ``0..max``; unknown lengths of begin, end and stride → unknown rank.

OpenVINO refuses: masks with values other than 0/1 or of different lengths, two ellipses,
stride 0, begin/end/stride of different lengths, more spec positions than data dims plus new
axes (without an ellipsis). Its shape inference accepts a shrink index outside the dimension;
its reference kernel refuses to run it (irrun: a warning, and the kernel refuses).
Quirk: the CPU plugin gives wrong results when new_axis_mask and shrink_axis_mask are both
used (openvino-quirks.md); irrun follows the specification.

Partial values: a rank-1 partial value sliced with constant begin/end/stride gives the picked
elements. Kernel: NumPy basic indexing (slices, ``None`` for new axes, integers for shrinks),
a view of the input.
"""

from __future__ import annotations

from irrun.ops._indices import check_index_type
from irrun.ops._slicing import bounds_of, python_slice, slice_elements, sliced_dim
from irrun.ops._values import elements_of, info_of_elements, signed_ints, signed_values
from irrun.ops.base import Attribute, Op, TensorInfo
from irrun.ops.registry import register
from irrun.shape import Dim, Shape

_MASKS = ("begin_mask", "end_mask", "new_axis_mask", "shrink_axis_mask", "ellipsis_mask")
_NAMES = ("begin", "end", "stride")


def _bits(mask) -> set[int]:
    return {i for i, v in enumerate(mask) if v == 1}


@register
class StridedSlice(Op):
    """StridedSlice-1 (attributes ``begin_mask``, ``end_mask`` required; ``new_axis_mask``,
    ``shrink_axis_mask``, ``ellipsis_mask``)."""

    moves_elements = (0,)
    type, version, inputs = "StridedSlice", 1, (3, 4)
    rounds = False
    attributes = (
        Attribute("begin_mask", "ints", (), required=True),
        Attribute("end_mask", "ints", (), required=True),
        Attribute("new_axis_mask", "ints", ()),
        Attribute("shrink_axis_mask", "ints", ()),
        Attribute("ellipsis_mask", "ints", ()),
    )

    def setup(self):
        """Masks: values 0/1, one length, at most one ellipsis."""
        masks = {name: list(getattr(self, name)) for name in _MASKS}
        for name, mask in masks.items():
            bad = [v for v in mask if v not in (0, 1)]
            if bad:
                self._report_mask(f"{name} {mask} has the value {bad[0]}; masks hold 0 or 1",
                                  "write 1 where the mask applies, 0 elsewhere")  # fmt: skip
                return
        sizes = {name: len(mask) for name, mask in masks.items() if mask}
        if len(set(sizes.values())) > 1:
            listing = ", ".join(f"{name} has {size}" for name, size in sizes.items())
            self._report_mask(
                f"every non-empty mask must have one length, but {listing}",
                "give each mask one entry per begin value (or leave it empty)",
            )
            return
        if len(_bits(masks["ellipsis_mask"])) > 1:
            self._report_mask(f"ellipsis_mask {masks['ellipsis_mask']} sets more than one "
                              "ellipsis", "keep one 1 in ellipsis_mask")  # fmt: skip
            return
        self.begin_bits, self.end_bits = _bits(masks["begin_mask"]), _bits(masks["end_mask"])
        self.new_bits = _bits(masks["new_axis_mask"])
        self.shrink_bits = _bits(masks["shrink_axis_mask"])
        self.ellipsis_bits = _bits(masks["ellipsis_mask"])

    def _report_mask(self, why, hint):
        self.context.error("attribute-value", f"{self.describe()}: {why}", hint=hint,
                           line=self.layer.data_line)  # fmt: skip
        self.incomplete = True

    def infer(self, inputs):
        """Output shape per ``strided_slice_shape_inference.hpp``."""
        data = inputs[0]
        for port in (1, 2):
            if not check_index_type(self, inputs[port], port):
                return None
        for port in range(1, len(inputs)):
            shape = inputs[port].shape
            if shape.rank_is_static and shape.rank != 1:
                self.context.error(
                    "input-rank",
                    f"{self.describe()}: the {_NAMES[port - 1]} input must be 1-D, but its shape "
                    f"is {shape}",
                    port=self.input_port(port),
                    hint="give one value per position of the slice spec in a 1-D tensor",
                )
                return None
        if not data.shape.rank_is_static:
            return [TensorInfo(Shape.dynamic_rank(), data.element_type, why="data of unknown rank")]
        rank = data.shape.rank
        begin, end = bounds_of(inputs[1]), bounds_of(inputs[2])
        lengths = [_static_length(inputs[p]) for p in (1, 2)]
        if len(inputs) > 3:
            strides = signed_ints(inputs[3])
        else:  # OpenVINO makes ones of begin's (else end's) static length
            default = next((n for n in lengths if n is not None), None)
            strides = None if default is None else [1] * default
        lengths.append(None if strides is None else len(strides))
        known = {_NAMES[i]: n for i, n in enumerate(lengths) if n is not None}
        if len(set(known.values())) > 1:
            listing = ", ".join(f"{name} has {n}" for name, n in known.items())
            self.context.error(
                "input-dims",
                f"{self.describe()}: begin, end and stride must have one length, but {listing}",
                port=self.input_port(2 if "end" in known and "begin" in known else 3),
                hint="give each of them one value per position of the slice spec",
            )
            return None
        if not known:
            return [TensorInfo(Shape.dynamic_rank(), data.element_type,
                               why="the slice spec has an unknown length")]  # fmt: skip
        count = next(iter(known.values()))
        if not self.ellipsis_bits and rank + len(self.new_bits) < count:
            self.context.error(
                "input-dims",
                f"{self.describe()}: the slice spec has {count} positions but data {data.shape} "
                f"has rank {rank} and new_axis_mask adds {len(self.new_bits)}: {rank} + "
                f"{len(self.new_bits)} < {count}",
                port=self.input_port(1),
                hint="drop positions from begin/end/stride, or mark new axes in new_axis_mask",
            )
            return None
        dims = data.shape.dims
        out, index = [], 0
        for axis in range(count):
            if axis in self.ellipsis_bits:
                before = sum(1 for i in range(axis) if i not in self.new_bits)
                new_after = 0
                if begin is not None:
                    new_after = sum(1 for i in range(axis + 1, len(begin)) if i in self.new_bits)
                hidden = rank - (count - axis - new_after - 1) - before
                for _ in range(max(hidden, 0)):
                    out.append(dims[index])
                    index += 1
                continue
            if axis in self.new_bits:
                out.append(Dim(1))
                continue
            if axis in self.shrink_bits:  # (OpenVINO skips it without reading the dimension)
                if index < rank:
                    self._check_shrink(inputs[1], axis, dims[index])
                index += 1
                continue
            if index >= rank:
                self.context.error(
                    "input-dims",
                    f"{self.describe()}: position {axis} of the slice spec needs data dimension "
                    f"{index}, but data {data.shape} has rank {rank}",
                    port=self.input_port(1),
                    hint="drop positions from begin/end/stride or the masks that point past "
                    "the data",
                )
                return None
            dim = dims[index]
            index += 1
            if begin is None or end is None or strides is None:
                out.append(Dim(0, dim.upper))
                continue
            stride = strides[axis] if axis < len(strides) else 1
            if stride == 0:
                self.context.error(
                    "input-value",
                    f"{self.describe()}: stride {axis} is 0 in {strides}",
                    port=self.input_port(3),
                    hint="use a non-zero stride (negative to walk backwards)",
                )
                return None
            out.append(sliced_dim(dim, *self._bounds(axis, stride, dim, begin, end), stride))
        out.extend(dims[index:])
        info = TensorInfo(Shape(out), data.element_type, why="sliced per the slice spec")
        if rank == 1 and data.value is None and len(out) <= 1:
            elements = elements_of(data)
            values = [signed_ints(inputs[p]) for p in (1, 2)]
            if elements is not None and None not in values and strides is not None:
                picked = slice_elements(elements, self._index(len(elements), *values, strides))
                info = info_of_elements(picked, data.element_type, info.shape, info.why)
        return [info]

    def _bounds(self, axis, stride, dim, begin, end):
        """The start and stop bounds of a sliced position, masks applied (OpenVINO's defaults:
        ``0`` / the length forwards, the length / ``-1 - length`` backwards)."""
        length = 2**63 - 1 if dim.upper is None else dim.upper
        reverse = stride < 0
        default_start = (length, length) if reverse else (0, 0)
        default_stop = (-1 - length, -1 - length) if reverse else (length, length)
        start = default_start if axis in self.begin_bits else begin[axis]
        stop = default_stop if axis in self.end_bits else end[axis]
        return start, stop

    def _check_shrink(self, begin_info, axis, dim):
        values = signed_ints(begin_info)
        if values is None or not dim.is_static or axis >= len(values):
            return
        size, value = dim.value, values[axis]
        if not -size <= value < size:
            self.context.warning(
                "index-range",
                f"{self.describe()}: shrink position {axis} takes element {value} of a "
                f"dimension of size {size} (allowed: [{-size}, {size - 1}]); OpenVINO's shape "
                "inference accepts it but its reference kernel refuses to run it",
                port=self.input_port(1),
                hint=f"use a begin value between {-size} and {size - 1}",
            )

    def _index(self, shape, begin, end, strides):
        """The NumPy index of the slice spec for a data tensor of ``shape`` (a tuple, or the
        length of a 1-D tensor)."""
        if isinstance(shape, int):
            shape = (shape,)
        count, rank = len(begin), len(shape)
        index, position = [], 0
        for axis in range(count):
            if axis in self.ellipsis_bits:
                before = sum(1 for i in range(axis) if i not in self.new_bits)
                new_after = sum(1 for i in range(axis + 1, count) if i in self.new_bits)
                hidden = max(rank - (count - axis - new_after - 1) - before, 0)
                index.extend([slice(None)] * hidden)
                position += hidden
            elif axis in self.new_bits:
                index.append(None)
            elif position >= rank:
                raise ValueError(
                    f"{self.describe()}: position {axis} of the slice spec points past the "
                    f"data's rank {rank} (data {list(shape)}); give at most {rank} positions "
                    "that are not new_axis or ellipsis"
                )
            elif axis in self.shrink_bits:
                size, value = shape[position], begin[axis]
                if not -size <= value < size:
                    raise ValueError(
                        f"{self.describe()}: shrink position {axis} takes element {value} of a "
                        f"dimension of size {size}, outside [{-size}, {size - 1}]; give a begin "
                        "inside the dimension"
                    )
                index.append(value + size if value < 0 else value)
                position += 1
            else:
                stride = strides[axis] if axis < len(strides) else 1
                if stride == 0:
                    raise ValueError(
                        f"{self.describe()}: the stride at position {axis} is 0 in {strides}; "
                        "use a non-zero stride (negative to walk backwards)"
                    )
                start = None if axis in self.begin_bits else begin[axis]
                stop = None if axis in self.end_bits else end[axis]
                index.append(python_slice(shape[position], start, stop, stride))
                position += 1
        return (*index, Ellipsis)

    def evaluate(self, inputs):
        """NumPy basic indexing (a view of the data)."""
        data = inputs[0]
        begin, end = (signed_values(inputs[i]) for i in (1, 2))
        strides = signed_values(inputs[3]) if len(inputs) > 3 else []
        return [data[self._index(data.shape, begin, end, strides)]]


def _static_length(info) -> int | None:
    dims = info.shape.dims
    if dims is not None and len(dims) == 1 and dims[0].is_static:
        return dims[0].value
    return None
