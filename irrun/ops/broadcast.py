"""Broadcast-1 and Broadcast-3: stretch a tensor to a target shape.

Spec facts: inputs data (any element type), target_shape (a 1-D integer tensor) and, for the
explicit mode, axes_mapping (a 1-D integer tensor: data axis i goes to output axis
``axes_mapping[i]``, in increasing order). Attribute ``mode``: Broadcast-1 has ``numpy``
(default), ``explicit`` (IR spelling also ``none``) and ``pdpd``; Broadcast-3 has ``numpy``
(default), ``explicit``, ``bidirectional`` and ``pdpd``. Broadcast-3's pdpd start axis is the
attribute OpenVINO writes as ``mode.mode.axis`` (default 0); Broadcast-1 reads none (axis 0).

Shape rule (``broadcast_shape_inference.hpp``); the target may be a constant or a partial
value (a shape from ShapeOf; a negative element is ``?``):

- numpy: the output is the target; data is right-aligned in it, each data dim 1 or equal
  (``[3,2]`` → ``[2,3,4]``: "Input shape dimension equal 2 cannot be broadcasted (numpy
  mode) to 4"); a target of lower rank than the data is refused.
- explicit: the output is the target; axes_mapping has one entry per data axis, sorted, each
  below the target rank, and each mapped target dim equals the data dim (or the data dim is
  1).
- bidirectional: numpy broadcasting of the data shape with the target (``[3,1]`` with
  ``[2,1,5]`` → ``[2,3,5]``; the target may be smaller).
- pdpd: the target, with data placed from the start axis; a target dim of 1 takes the data
  dim.

An unknown target of static length n gives n dims ``?`` (bidirectional: merged with the data
shape); otherwise a dynamic rank.

Kernel: ``np.broadcast_to``, a read-only view of the input (no copy); consumers must not write
into it.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._broadcast import broadcast_failure, broadcast_pair
from irrun.ops._indices import check_index_type
from irrun.ops._values import as_dim, elements_of
from irrun.ops.base import Attribute, Op, TensorInfo
from irrun.ops.registry import register
from irrun.shape import Dim, Shape

_ONE = Dim(1)


class _Broadcast(Op):
    moves_elements = (0,)
    inputs = (2, 3)
    pdpd_axis = 0

    def setup(self):
        """``explicit`` is spelt ``none`` in Broadcast-1 IR."""
        if self.mode == "none":
            self.mode = "explicit"

    def _target(self, info: TensorInfo):
        """The target shape as a Shape (partial where the value is), or ``None``."""
        elements = elements_of(info)
        if elements is None:
            return None
        return Shape([as_dim(e) for e in elements])

    def _target_in_range(self, info: TensorInfo) -> bool:
        """OpenVINO reads the target as int64 dims and refuses a u64 value beyond int64 (it
        does not wrap it as it wraps axes)."""
        elements = elements_of(info)
        if info.element_type.name != "u64" or elements is None:
            return True
        big = [e for e in elements if isinstance(e, int) and e > 2**63 - 1]
        if big:
            self.context.error(
                "input-value",
                f"{self.describe()}: target_shape {list(elements)} has {big[0]}, beyond the "
                f"int64 range of a dimension (at most {2**63 - 1}); OpenVINO refuses it",
                port=self.input_port(1),
                hint="give the target shape as i64 dims",
            )
            return False
        return True

    def infer(self, inputs):
        """Output shape by mode, as OpenVINO's broadcast shape inference."""
        data, target_info = inputs[0], inputs[1]
        mode = self.mode
        if self.version == 3 and (len(inputs) == 3) != (mode == "explicit"):
            wanted = "3 inputs (axes_mapping)" if mode == "explicit" else "2 inputs"
            self.context.error(
                "input-count",
                f"{self.describe()}: mode {mode} takes {wanted}, but the layer has {len(inputs)}",
                hint="give axes_mapping exactly when mode is explicit",
            )
            return None
        if mode == "explicit" and len(inputs) < 3:
            self.context.error(
                "input-count",
                f"{self.describe()}: mode explicit needs the axes_mapping input",
                hint="add axes_mapping, or use mode numpy",
            )
            return None
        if not check_index_type(self, target_info, 1):
            return None
        if mode == "explicit" and not check_index_type(self, inputs[2], 2):
            return None
        for port in (1, 2) if mode == "explicit" else (1,):
            shape = inputs[port].shape
            if shape.rank_is_static and shape.rank != 1:
                what = "target_shape" if port == 1 else "axes_mapping"
                self.context.error(
                    "input-rank",
                    f"{self.describe()}: {what} must be 1-D, but its shape is {shape}",
                    port=self.input_port(port),
                    hint=f"give {what} as a 1-D tensor",
                )
                return None
        if not self._target_in_range(target_info):
            return None
        target = self._target(target_info)
        etype = data.element_type
        if target is None:
            length = target_info.shape.dims
            if length is None or not length[0].is_static:
                return [TensorInfo(Shape.dynamic_rank(), etype, why="the target is not known")]
            unknown = Shape([Dim.dynamic()] * length[0].value)
            if mode == "bidirectional":
                if not data.shape.rank_is_static:
                    return [TensorInfo(Shape.dynamic_rank(), etype, why="the target is unknown")]
                merged = broadcast_pair(unknown, data.shape)
                unknown = merged if merged is not None else unknown
            if mode == "explicit" and not self._check_axes(data, target_info, None, inputs[2]):
                return None
            return [TensorInfo(unknown, etype, why="the target is not known")]
        why = f"target {target}, mode {mode}"
        if mode == "numpy":
            if not self._check_numpy(data.shape, target):
                return None
            return [TensorInfo(target, etype, why=why)]
        if mode == "explicit":
            if not self._check_axes(data, target_info, target, inputs[2]):
                return None
            return [TensorInfo(target, etype, why=why)]
        if mode == "bidirectional":
            out = broadcast_pair(data.shape, target)
            if out is None:
                self.context.error(
                    "input-dims",
                    f"{self.describe()}: data {data.shape} and target {target} do not broadcast "
                    f"(mode bidirectional): {broadcast_failure(data.shape, target)}",
                    port=self.input_port(1),
                    hint="make the clashing dimensions equal, or one of them 1",
                )
                return None
            return [TensorInfo(out, etype, why=why)]
        out = self._pdpd(data.shape, target)
        return None if out is None else [TensorInfo(out, etype, why=why)]

    def _check_numpy(self, data: Shape, target: Shape) -> bool:
        if not data.rank_is_static:
            return True
        if target.rank < data.rank:
            self.context.error(
                "input-rank",
                f"{self.describe()}: target {target} has rank {target.rank}, below the rank "
                f"{data.rank} of data {data} (mode numpy)",
                port=self.input_port(1),
                hint="give the target at least the data's rank, or use mode bidirectional",
            )
            return False
        start = target.rank - data.rank
        for i, dim in enumerate(data):
            wanted = target[start + i]
            if dim.is_static and wanted.is_static and dim.value not in (1, wanted.value):
                self.context.error(
                    "input-dims",
                    f"{self.describe()}: data {data} does not broadcast to target {target} "
                    f"(mode numpy): data dimension {i} is {dim}, target dimension {start + i} is "
                    f"{wanted}; a data dimension must be 1 or equal",
                    port=self.input_port(0),
                    hint="make the data dimension 1 or the target's, or fix the target",
                )
                return False
        return True

    def _check_axes(self, data, target_info, target, axes_info) -> bool:
        axes_shape = axes_info.shape
        if not data.shape.rank_is_static or not axes_shape.is_static:
            return True
        count = axes_shape[0].value
        rank = data.shape.rank
        expected = 1 if rank == 0 and count > 0 else rank
        if count != expected:
            self.context.error(
                "input-dims",
                f"{self.describe()}: axes_mapping has {count} entries, but data {data.shape} "
                f"has rank {expected}; it needs one output axis per data axis",
                port=self.input_port(2),
                hint="list one output axis for each data axis",
            )
            return False
        axes = elements_of(axes_info)
        if target is None or axes is None or not all(isinstance(a, int) for a in axes):
            return True
        if list(axes) != sorted(axes):
            self._bad_axes(
                f"axes_mapping {list(axes)} is not in increasing order; Broadcast cannot transpose",
                "sort axes_mapping (Transpose the data first)",
            )
            return False
        for i, axis in enumerate(axes):
            if not 0 <= axis < target.rank:
                self.context.error(
                    "axis-range",
                    f"{self.describe()}: axes_mapping[{i}] = {axis} is outside the target "
                    f"{target} (rank {target.rank}: axes 0 to {target.rank - 1})",
                    port=self.input_port(2),
                    hint=f"use output axes between 0 and {target.rank - 1}",
                )
                return False
            wanted = target[axis]
            dim = data.shape[i] if rank else _ONE
            if not (wanted.compatible(dim) or (rank and dim.compatible(_ONE))):
                self._bad_axes(f"data dimension {i} ({dim}) goes to target dimension {axis} "
                               f"({wanted}) of target {target}; they must be equal (or the data "
                               "dimension 1)", "fix axes_mapping or the target")  # fmt: skip
                return False
        return True

    def _bad_axes(self, why, hint):
        self.context.error("input-dims", f"{self.describe()}: {why}", port=self.input_port(2),
                           hint=hint)  # fmt: skip

    def _pdpd(self, data: Shape, target: Shape) -> Shape | None:
        if not data.rank_is_static:
            return Shape([Dim.dynamic()] * target.rank)
        axis = self.pdpd_axis
        if axis < 0 or target.rank - axis > data.rank:
            self.context.error(
                "input-rank",
                f"{self.describe()}: data {data} placed from axis {axis} does not reach the end "
                f"of target {target} (mode pdpd): {axis} + {data.rank} < {target.rank}",
                port=self.input_port(0),
                hint="make the start axis plus the data rank equal the target rank",
            )
            return None
        dims = list(target)
        for i in range(axis, target.rank):
            dim, wanted = data[i - axis], target[i]
            if dim == 1:
                continue
            if wanted == 1:
                dims[i] = dim
                continue
            merged = dim.merge(wanted)
            if merged is None:
                self.context.error(
                    "input-dims",
                    f"{self.describe()}: data dimension {i - axis} ({dim}) does not broadcast to "
                    f"target dimension {i} ({wanted}) of target {target} (mode pdpd, axis "
                    f"{axis}); it must be 1 or equal",
                    port=self.input_port(1),
                    hint="make the target dimension 1 or the data's",
                )
                return None
            dims[i] = merged
        return Shape(dims)

    def evaluate(self, inputs):
        """``np.broadcast_to`` (a read-only view)."""
        data, target = inputs[0], [int(v) for v in np.asarray(inputs[1]).reshape(-1)]
        mode = self.mode
        if mode == "bidirectional":
            return [np.broadcast_to(data, np.broadcast_shapes(data.shape, tuple(target)))]
        if mode == "explicit":
            axes = [int(a) for a in np.asarray(inputs[2]).reshape(-1)]
            shape = [1] * len(target)
            for i, axis in enumerate(axes[: data.ndim]):
                shape[axis] = data.shape[i]
            return [np.broadcast_to(data.reshape(shape), target)]
        if mode == "pdpd":
            axis = self.pdpd_axis
            placed = data.reshape((1,) * axis + data.shape[: len(target) - axis])
            out = np.broadcast_shapes(placed.shape, tuple(target))
            return [np.broadcast_to(placed, out)]
        return [np.broadcast_to(data, target)]


@register
class Broadcast1(_Broadcast):
    """Broadcast-1 (attribute ``mode``: numpy, explicit, pdpd)."""

    type, version = "Broadcast", 1
    rounds = False
    attributes = (
        Attribute("mode", "enum", "numpy", choices=("numpy", "explicit", "none", "pdpd")),
    )


@register
class Broadcast3(_Broadcast):
    """Broadcast-3 (attribute ``mode``: numpy, explicit, bidirectional, pdpd)."""

    type, version = "Broadcast", 3
    rounds = False
    attributes = (
        Attribute(
            "mode", "enum", "numpy", choices=("numpy", "explicit", "none", "bidirectional", "pdpd")
        ),  # fmt: skip
        Attribute("mode.mode.axis", "int", 0),
    )

    def setup(self):
        """The pdpd start axis, and ``none`` read as ``explicit``."""
        super().setup()
        self.pdpd_axis = self.mode_mode_axis
