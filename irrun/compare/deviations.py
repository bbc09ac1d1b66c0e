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


# -- deviations told by the results -------------------------------------------------------------
def fake_quantize_one_level(layer, inputs, ours, theirs) -> str | None:
    """FakeQuantize results one quantization level apart: an input within rounding of a
    level boundary, which the CPU plugin's precomputed scale and shift put on the other side."""
    if layer.type != "FakeQuantize" or len(inputs) < 5 or ours.dtype.kind != "f":
        return None
    if ours.shape != theirs.shape:
        return None
    levels = layer.attribute_int("levels", 0)
    if levels < 2:
        return None
    with np.errstate(all="ignore"):
        step = np.abs(inputs[4].astype(np.float64) - inputs[3].astype(np.float64)) / (levels - 1)
        apart = np.abs(ours.astype(np.float64) - theirs.astype(np.float64))
        if not (apart <= step * (1 + 1e-3) + np.finfo(np.float32).tiny).all():
            return None
    count = int((apart > 0).sum())
    return (
        f"FakeQuantize: {count} element(s) one quantization level apart (inputs within "
        "rounding of a level boundary; CPU computes the levels with its own scale and shift)"
    )


def decompression_in_f32(layer, inputs, ours, theirs) -> str | None:
    """A Convert to f32 of weights decompressed in f16/bf16 (Subtract/Multiply of constants):
    the CPU plugin computes the decompression in f32, skipping the roundings the IR writes."""
    if layer.type not in ("Convert", "ConvertLike") or not inputs or ours.dtype != np.float32:
        return None
    if ours.shape != theirs.shape:
        return None
    if inputs[0].dtype.name not in ("float16", "bfloat16"):
        return None
    if not _from_constants(layer):
        return None
    with np.errstate(all="ignore"):
        apart = np.abs(ours.astype(np.float64) - theirs.astype(np.float64))
        if not (apart <= np.abs(theirs.astype(np.float64)) * 2.0**-7 + 2.0**-24).all():
            return None
    return (
        f"weights decompressed in {inputs[0].dtype}: CPU computes the decompression in f32, "
        "skipping the roundings to the narrow type that the IR writes"
    )


def _from_constants(layer, limit: int = 64) -> bool:
    """True when everything ``layer`` is computed from is constant (within ``limit`` layers)."""
    seen, stack = set(), [layer]
    while stack:
        current = stack.pop()
        for port in current.inputs:
            producer = current.graph.producer(port)
            if producer is None:
                return False
            source = producer.layer
            if source.type in ("Const", "Constant") or id(source) in seen:
                continue
            if source.type in ("Parameter", "ReadValue") or len(seen) >= limit:
                return False
            seen.add(id(source))
            stack.append(source)
    return True


def topk_tie_order(layer, inputs, ours, theirs) -> str | None:
    """TopK indices that differ only among equal values (ties in another order)."""
    if layer.type != "TopK" or not inputs or ours.dtype.kind not in "iu":
        return None
    data = inputs[0]
    axis = layer.attribute_int("axis", -1)
    if data.ndim == 0 or not -data.ndim <= axis < data.ndim or ours.shape != theirs.shape:
        return None
    size = data.shape[axis]
    if size == 0 or ((ours < 0) | (ours >= size) | (theirs < 0) | (theirs >= size)).any():
        return None
    picked_ours = np.take_along_axis(data, ours.astype(np.intp), axis)
    picked_theirs = np.take_along_axis(data, theirs.astype(np.intp), axis)
    if not np.array_equal(picked_ours, picked_theirs, equal_nan=True):
        return None
    return "TopK: equal values in another order (ties; the spec leaves their order open)"


def nms_suppressed_at_threshold(layer, inputs, ours, theirs) -> str | None:
    """NonMaxSuppression keeping boxes whose IoU with a kept box equals iou_threshold: the
    specification suppresses only above it (NMS-5's reference at it, which irrun follows
    there), the CPU plugin at it in every version. Told by running irrun's kernel again with
    suppression at equality: it then gives OpenVINO's result."""
    if layer.type != "NonMaxSuppression" or len(inputs) < 4:
        return None
    from irrun.ops import OpContext
    from irrun.ops.registry import resolve_layer

    op_class = resolve_layer(layer)
    if op_class is None or getattr(op_class, "suppress_at_equal", True):
        return None
    op = op_class(layer, OpContext())
    op.suppress_at_equal = True
    with np.errstate(all="ignore"):
        again = op.evaluate(list(inputs))
    if not any(a.shape == theirs.shape and a.dtype == theirs.dtype and np.array_equal(a, theirs)
               for a in again):  # fmt: skip
        return None
    return (
        "NonMaxSuppression: boxes whose IoU with a kept box equals iou_threshold are suppressed "
        "by CPU and kept by the specification (suppression only above the threshold)"
    )


def binary_convolution_cpu_reading(layer, inputs, ours, theirs) -> str | None:
    """BinaryConvolution as the CPU plugin computes it: the data binarised as ``x > 0``, the 8
    filter bits of each byte read in the reverse order, and the pad area left out of the sum
    when ``pad_value`` is 0 (1 counts as bit 1, another value as bit 0). The label applies
    when OpenVINO's result is exactly that (it is for ``C_in`` a multiple of 8). For other
    ``C_in`` the CPU plugin leaves some inputs out of the sum (probed one position at a time:
    flipping them changes nothing), which no reading of the specification gives."""
    if layer.type != "BinaryConvolution" or len(inputs) < 2 or ours.shape != theirs.shape:
        return None
    data, filters = inputs[0], inputs[1]
    if data.ndim != 4 or filters.ndim != 4 or data.dtype.kind != "f":
        return None
    if filters.shape[1] % 8:
        return (
            f"BinaryConvolution with C_in = {filters.shape[1]}, not a multiple of 8: CPU leaves "
            "some of the inputs out of the sum"
        )
    expected = _binary_convolution_on_cpu(layer, data, filters)
    if expected is None or expected.shape != theirs.shape:
        return None
    if not np.array_equal(expected.astype(np.float64), theirs.astype(np.float64)):
        return None
    return (
        "BinaryConvolution: CPU binarises the data as x > 0, reads the bits of each filter byte "
        "in reverse order and leaves a pad_value of 0 out of the sum; irrun follows the "
        "specification and OpenVINO's reference implementation (value == bit)"
    )


def _binary_convolution_on_cpu(layer, data, filters):
    """What the CPU plugin gives for a BinaryConvolution layer (see
    :func:`binary_convolution_cpu_reading`), or ``None`` when the layer's attributes do not
    parse."""
    from irrun.ops._conv_kernel import convolve
    from irrun.ops._windows import pad_array
    from irrun.ops.base import OpContext
    from irrun.ops.registry import resolve_layer

    op_class = resolve_layer(layer)
    if op_class is None:
        return None
    try:
        op = op_class(layer, OpContext())
        begin, end = op._resolve(data, filters)
    except (IRError, ValueError):
        return None
    flat = (filters.reshape(-1) != 0).astype(np.float32)
    short = -flat.size % 8
    # bit k of each byte read as element 7 - k of its group of 8 (the last byte's padding is 0)
    reversed_bits = np.concatenate([flat, np.zeros(short, np.float32)]).reshape(-1, 8)[:, ::-1]
    weights = 2 * reversed_bits.reshape(-1)[: flat.size].reshape(filters.shape) - 1
    pad = 0.0 if op.pad_value == 0 else 1.0 if op.pad_value == 1 else -1.0
    signs = pad_array(np.where(data > 0, 1.0, -1.0).astype(np.float32), begin, end, pad)
    return convolve(signs, weights[None], 1, [0, 0], [0, 0], op.strides, op.dilations)


def wide_64bit_results(layer, inputs, ours, theirs) -> str | None:
    """i64/u64 results beyond the int32 range (a Convert of huge floats): CPU computes in 32
    bits (#3)."""
    if ours.dtype not in (np.int64, np.uint64) or ours.shape != theirs.shape:
        return None
    differ = ours != theirs
    wide = (ours > 2**31 - 1) if ours.dtype == np.uint64 else (ours < -(2**31)) | (ours > 2**31 - 1)
    if not differ.any() or not (wide | ~differ).all():
        return None
    at = np.unravel_index(int(np.argmax(differ)), ours.shape)
    return (
        f"{ours.dtype} results beyond the int32 range ({int(ours[at])} at {_position(at)}): CPU "
        "computes in 32 bits"
    )


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

#: The deviations told by the results themselves: predicates ``(layer, input arrays, irrun's
#: result, OpenVINO's result) -> label or None`` for one output.
CPU_RESULT_DEVIATIONS = (
    fake_quantize_one_level,
    decompression_in_f32,
    topk_tie_order,
    nms_suppressed_at_threshold,
    binary_convolution_cpu_reading,
    wide_64bit_results,
)


def known_deviation(layer, inputs, device: str = "CPU", results=None) -> str | None:
    """The label of the first known CPU deviation that applies, or ``None`` (other devices).
    ``results``: ``(irrun's, OpenVINO's)`` arrays of the output concerned, for the deviations
    told by the results (:data:`CPU_RESULT_DEVIATIONS`)."""
    if "CPU" not in device.upper():
        return None
    for predicate in CPU_DEVIATIONS:
        label = predicate(layer, inputs)
        if label:
            return label
    if results is not None:
        for predicate in CPU_RESULT_DEVIATIONS:
            try:
                label = predicate(layer, inputs, *results)
            except Exception:  # (arrays not as the op expects: the deviation does not apply)
                label = None
            if label:
                return label
    return None
