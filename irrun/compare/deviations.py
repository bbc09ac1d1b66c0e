"""Known deviations of OpenVINO's CPU plugin from the specification.

Each is a small predicate over a layer and its input arrays that returns a label (the evidence)
when the deviation applies; a divergence it explains is not counted against irrun.
"""

from __future__ import annotations

import numpy as np

from irrun.errors import IRError


# -- known deviations of the CPU plugin ----------------------------------------------------------
def _op_version(layer) -> int | None:
    from irrun.ops.registry import resolve_layer

    op_class = resolve_layer(layer)
    return op_class.version if op_class is not None else None


def _position(index) -> str:
    return "[" + ",".join(str(int(i)) for i in index) + "]"


def gather8_1d_integer_out_of_range(layer, inputs) -> str | None:
    """Gather-8 on 1-D integer data with indices outside [-s, s-1] (ops.md 2.6 #1)."""
    if layer.type != "Gather" or _op_version(layer) != 8 or len(inputs) < 2:
        return None
    data, indices = inputs[0], inputs[1]
    if data.ndim != 1 or data.dtype.kind not in "iu" or indices.size == 0:
        return None
    size = data.shape[0]
    bad = (indices < -size) | (indices >= size)
    if not bad.any():
        return None
    at = np.unravel_index(int(np.argmax(bad)), indices.shape)
    return (
        f"Gather-8 on 1-D integer data with out-of-range indices (index {int(indices[at])} at "
        f"{_position(at)} for size {size}): CPU reads adjacent memory, the spec writes 0"
    )


def gather_1_7_negative_indices(layer, inputs) -> str | None:
    """Gather-1/-7 with negative indices: CPU gives 0, the reference evaluator wraps (#2)."""
    if layer.type != "Gather" or _op_version(layer) not in (1, 7) or len(inputs) < 2:
        return None
    indices = inputs[1]
    if indices.dtype.kind != "i" or not (indices < 0).any():
        return None
    at = np.unravel_index(int(np.argmax(indices < 0)), indices.shape)
    return (
        f"Gather-{_op_version(layer)} with negative indices (index {int(indices[at])} at "
        f"{_position(at)}): CPU gives 0, irrun wraps like OpenVINO's reference evaluator"
    )


def wide_64bit_integers(layer, inputs) -> str | None:
    """i64/u64 values beyond the int32 range: the CPU plugin computes in 32 bits (#3)."""
    for number, array in enumerate(inputs):
        if array.dtype not in (np.int64, np.uint64) or array.size == 0:
            continue
        wide = (
            array > 2**31 - 1
            if array.dtype == np.uint64
            else (array < -(2**31)) | (array > 2**31 - 1)
        )
        if wide.any():
            at = np.unravel_index(int(np.argmax(wide)), array.shape)
            return (
                f"{array.dtype} values beyond the int32 range (input {number} holds "
                f"{int(array[at])} at {_position(at)}): CPU computes in 32 bits"
            )
    return None


def f64_computed_in_f32(layer, inputs) -> str | None:
    """f64 tensors: the CPU plugin computes them in f32."""
    if any(array.dtype == np.float64 for array in inputs) or any(
        port.inferred_type is not None and port.inferred_type.name == "f64"
        for port in layer.outputs
    ):
        return "f64 data: CPU computes f64 in f32"
    return None


def gather_single_batch(layer, inputs) -> str | None:
    """Gather-7/-8 with ``batch_dims > 0`` whose batch dims hold one batch: wrong values
    (or a crash) on CPU."""
    if layer.type != "Gather" or _op_version(layer) not in (7, 8) or len(inputs) < 2:
        return None
    data, indices = inputs[0], inputs[1]
    batch_dims = layer.attribute_int("batch_dims", 0)
    if batch_dims < 0:
        batch_dims += indices.ndim
    if batch_dims <= 0 or int(np.prod(data.shape[:batch_dims])) != 1:
        return None
    return (
        f"Gather-{_op_version(layer)} with batch_dims {batch_dims} on a single batch (data "
        f"{list(data.shape)}): CPU gives wrong values or crashes"
    )


def gather_nd_empty_tuples(layer, inputs) -> str | None:
    """GatherND with k = 0 (empty index tuples): CPU returns uninitialised memory."""
    if layer.type != "GatherND" or len(inputs) < 2 or inputs[1].ndim == 0:
        return None
    if inputs[1].shape[-1] != 0:
        return None
    return (
        f"GatherND with empty index tuples (indices {list(inputs[1].shape)}, k = 0): CPU returns "
        "uninitialised memory instead of whole slices"
    )


def f16_signalling_nans(layer, inputs) -> str | None:
    """f16 signalling NaNs: the CPU plugin moves f16 through f32 and quiets them."""
    for number, array in enumerate(inputs):
        if array.dtype != np.float16 or array.size == 0:
            continue
        bits = np.ascontiguousarray(array).view(np.uint16)
        signalling = ((bits & 0x7C00) == 0x7C00) & ((bits & 0x03FF) != 0) & ((bits & 0x0200) == 0)
        if signalling.any():
            at = np.unravel_index(int(np.argmax(signalling)), array.shape)
            return (
                f"f16 signalling NaN (input {number}, 0x{int(bits[at]):04x} at {_position(at)}): "
                "CPU moves f16 through f32 and quiets it"
            )
    return None


def f32_constant_subnormals(layer, inputs) -> str | None:
    """An f32 Const holding subnormals: the CPU plugin flushes them (and its -0.0) to +0.0."""
    for port in layer.inputs:
        producer = layer.graph.producer(port)
        if producer is None or producer.layer.type not in ("Const", "Constant"):
            continue
        try:
            value = producer.layer.value
        except IRError:
            continue
        if value.dtype != np.float32 or value.size == 0:
            continue
        with np.errstate(invalid="ignore"):
            subnormal = (value != 0) & (np.abs(value) < np.finfo(np.float32).tiny)
        if subnormal.any():
            return (
                f"f32 Const {producer.layer.name!r} holds subnormals: CPU flushes them, and its "
                "-0.0, to +0.0"
            )
    return None


#: Known deviations of OpenVINO's CPU plugin from the specification (ops.md 2.6 and the
#: differential tests): predicates ``(layer, input arrays) -> label or None``. A first divergence
#: for which one returns a label is reported as a known CPU deviation, not as an irrun error.
CPU_DEVIATIONS = (
    gather8_1d_integer_out_of_range,
    gather_1_7_negative_indices,
    wide_64bit_integers,
    f64_computed_in_f32,
    gather_single_batch,
    gather_nd_empty_tuples,
    f16_signalling_nans,
    f32_constant_subnormals,
)


def known_deviation(layer, inputs, device: str = "CPU") -> str | None:
    """The label of the first known CPU deviation that applies, or ``None`` (other devices)."""
    if "CPU" not in device.upper():
        return None
    for predicate in CPU_DEVIATIONS:
        label = predicate(layer, inputs)
        if label:
            return label
    return None
