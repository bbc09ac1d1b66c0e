"""The inference walk: every layer in topological order, through the op registry.

For each layer it checks that the edges feeding it agree (declared dims and
precisions on both ends), builds the op (parsing its attributes), infers its
outputs from what flows in, folds small constant sub-graphs, and compares the
inferred outputs with the declared ones.

No cascades: a wrong declaration is reported once. Downstream, inference
continues from the inferred (true) values; a later layer whose declaration
only follows from the earlier mistake (it matches what the *declared* inputs
would give) becomes a note under the first error instead of an error of its own.
"""

from __future__ import annotations

from irrun.errors import IRError
from irrun.ops.base import DYNAMIC_TYPE, OpContext, TensorInfo
from irrun.ops.registry import resolve
from irrun.shape import Shape

__all__ = ["infer_graph", "FOLD_LIMIT"]

#: Constant sub-graphs are folded while each result has at most this many elements.
FOLD_LIMIT = 1 << 16


class _LayerContext(OpContext):
    """Collects an op's problems as diagnostics of its layer."""

    def __init__(self, emit, layer, op_label):
        self.emit = emit
        self.layer = layer
        self.op_label = op_label

    def error(self, code, message, *, port=None, hint=None):
        self.emit(code, message, layer=self.layer, line=port.line if port else None,
                  port=port, hint=hint, op=self.op_label)  # fmt: skip

    def warning(self, code, message, *, port=None, hint=None):
        self.emit(code, message, layer=self.layer, line=port.line if port else None,
                  port=port, hint=hint, op=self.op_label, severity="warning")  # fmt: skip


class _Silent(OpContext):
    """Swallows everything: used to re-infer from declared inputs when tracing a cause."""

    def error(self, *args, **kwargs):
        pass

    def warning(self, *args, **kwargs):
        pass


def _declared(port) -> TensorInfo:
    return TensorInfo(port.declared_shape, port.element_type or DYNAMIC_TYPE)


def _flow_order(graph):
    """Topological order of the layers that are not on a cycle (cycles are reported elsewhere)."""
    try:
        return graph.topological_order()
    except IRError:
        order, done = [], set()
        pending = list(graph._by_id.values())
        progress = True
        while progress:
            progress = False
            for layer in pending:
                if layer.id in done:
                    continue
                producers = [graph.producer(p) for p in layer.inputs]
                if all(p is None or p.layer.id in done for p in producers):
                    done.add(layer.id)
                    order.append(layer)
                    progress = True
        return order


def infer_graph(graph, emit) -> tuple[int, int]:
    """Run inference over ``graph``; return ``(layers checked, layers trusted)``."""
    flowing: dict[int, TensorInfo] = {}  # id(output port) -> what flows out of it
    causes: dict[int, object] = {}  # id(output port) -> the diagnostic that tainted it
    checked = trusted = 0
    for layer in _flow_order(graph):
        producers = [graph.producer(port) for port in layer.inputs]
        _check_edges(layer, producers, emit)
        inputs, input_causes = [], []
        for port, producer in zip(layer.inputs, producers):
            if producer is None:
                inputs.append(_declared(port))
                continue
            inputs.append(flowing.get(id(producer)) or _declared(producer))
            if id(producer) in causes:
                input_causes.append(causes[id(producer)])

        op_class = resolve(layer.type, layer.opset) if _version_known(layer) else None
        if op_class is None:
            trusted += 1
            emit("unknown-op", _unknown_message(layer), layer=layer, severity="warning",
                 hint="its declared output dims and precisions are used as they are")  # fmt: skip
            for port in layer.outputs:
                flowing[id(port)] = _declared(port)
            continue

        label = f"{op_class.type}-{op_class.version}"
        context = _LayerContext(emit, layer, label)
        try:
            op = op_class(layer, context)
            outputs = _infer(op, layer, inputs, producers, context)
        except Exception as exc:  # an op bug must not hide the rest of the report
            emit("internal", f"{layer.describe()}: checking {label} failed: {type(exc).__name__}: "
                 f"{exc}", layer=layer, op=label)  # fmt: skip
            outputs = None
        if outputs is None:
            trusted += 1
            for port in layer.outputs:
                flowing[id(port)] = _declared(port)
                if input_causes:
                    causes[id(port)] = input_causes[0]
            continue
        checked += 1
        declared_inputs = None
        for port, info in zip(layer.outputs, outputs):
            if info.value is None and op.can_evaluate:
                info.value = _fold(op, inputs, info)
            problem = _compare(op, port, info)
            if problem is None:
                port.inferred_shape = info.shape.merge(port.declared_shape) or info.shape
                port.inferred_type = info.element_type
                flowing[id(port)] = TensorInfo(port.inferred_shape, info.element_type, info.value)
                if input_causes:
                    causes[id(port)] = input_causes[0]
                continue
            port.inferred_shape, port.inferred_type = info.shape, info.element_type
            flowing[id(port)] = info
            code, message = problem
            if input_causes:
                if declared_inputs is None:
                    declared_inputs = _reinfer_declared(op_class, layer, producers, inputs)
                follows = declared_inputs is not None and _consistent(
                    port, declared_inputs, outputs, info
                )
                if follows:
                    cause = input_causes[0]
                    cause.notes.append(f"follow-on: line {port.line}: {message}")
                    causes[id(port)] = cause
                    continue
            diagnostic = emit(code, message, layer=layer, line=port.line, port=port, op=label,
                              hint=_mismatch_hint(port, info, code))  # fmt: skip
            causes[id(port)] = diagnostic
    return checked, trusted


def _version_known(layer) -> bool:
    return layer.version is None or layer.opset is not None


def _unknown_message(layer) -> str:
    if layer.version is not None and layer.opset is None:
        return (f"{layer.describe()}: version {layer.version!r} is not an opset irrun knows; "
                "not checked, declared dims trusted")  # fmt: skip
    if resolve(layer.type, None) is not None:
        return (f"{layer.describe()}: {layer.type} does not exist in {layer.version}; not checked, "
                "declared dims trusted")  # fmt: skip
    return (
        f"{layer.describe()}: irrun does not know op type {layer.type!r}; not checked, "
        "declared dims trusted"
    )


def _infer(op, layer, inputs, producers, context):
    low, high = op.inputs
    count = len(layer.inputs)
    if count < low or (high is not None and count > high):
        wanted = (
            f"{low}" if low == high else f"{low} or more" if high is None else f"{low} to {high}"
        )
        context.error("input-count", f"{op.describe()} takes {wanted} input(s), but the layer "
                      f"has {count}", hint="check the layer's <input> ports and edges")  # fmt: skip
        return None
    outputs = op.infer(inputs)
    if outputs is None:
        return None
    if len(outputs) != len(layer.outputs):
        context.error("input-count", f"{op.describe()} has {len(outputs)} output(s), but the "
                      f"layer declares {len(layer.outputs)} output port(s)")  # fmt: skip
        return None
    return outputs


def _fold(op, inputs, info):
    """Evaluate the op when every input is a known constant and the result is small."""
    if not all(i.value is not None for i in inputs) or not info.shape.is_static:
        return None
    if info.shape.element_count() > FOLD_LIMIT:
        return None
    try:
        values = op.evaluate([i.value for i in inputs])
    except Exception:  # out-of-range indices etc. are reported by infer already
        return None
    return values[0] if values else None


def _compare(op, port, info):
    """``(code, message)`` when the declared port disagrees with the inferred info, else None."""
    declared, inferred = port.declared_shape, info.shape
    source = "its shape attribute says" if op.type == "Parameter" else "its inputs give"
    why = f" ({info.why})" if info.why and op.type != "Parameter" else ""
    head = f"{op.describe()} output port {port.id} declares"
    if inferred.rank_is_static and declared.rank_is_static and declared.rank != inferred.rank:
        return ("rank-mismatch", f"{head} rank {declared.rank} {declared}, but {source} rank "
                f"{inferred.rank} {inferred}{why}")  # fmt: skip
    if not declared.compatible(inferred):
        return ("shape-mismatch", f"{head} {declared}, but {source} {inferred}{why}")
    etype = port.element_type
    if etype is not None and etype.name != "dynamic" and info.element_type.name != "dynamic":
        if etype != info.element_type:
            return ("type-mismatch", f"{head} precision {port.precision} ({etype}), but "
                    f"{source} {info.element_type}")  # fmt: skip
    return None


def _mismatch_hint(port, info, code) -> str:
    if code == "type-mismatch":
        return f'set precision="{info.element_type.precision}" on the port'
    if info.shape.rank_is_static:
        dims = "".join(f"<dim>{d.to_port_dim()}</dim>" for d in info.shape)
        return f"declare {dims or 'no <dim> (a scalar)'} on output port {port.id}"
    return "fix the declared dims"


def _reinfer_declared(op_class, layer, producers, inputs):
    """What the op would give if the producers' declarations were true (None if it cannot say)."""
    declared = [
        TensorInfo(p.declared_shape, info.element_type, info.value) if p is not None else info
        for p, info in zip(producers, inputs)
    ]
    try:
        return op_class(layer, _Silent()).infer(declared)
    except Exception:
        return None


def _consistent(port, declared_outputs, outputs, info) -> bool:
    index = outputs.index(info)
    if index >= len(declared_outputs):
        return False
    expected = declared_outputs[index].shape
    return Shape(port.declared_shape).compatible(expected) and (
        not expected.rank_is_static or port.declared_shape.rank == expected.rank
    )


def _check_edges(layer, producers, emit) -> None:
    """Edge agreement: both ends of each edge declare the same dims and element type."""
    for port, producer in zip(layer.inputs, producers):
        if producer is None:
            continue
        if not producer.declared_shape.compatible(port.declared_shape):
            emit(
                "edge-dims",
                f"{layer.describe()} input port {port.id} declares {port.declared_shape}, but its "
                f"producer {producer.layer.describe()} output port {producer.id} declares "
                f"{producer.declared_shape}",
                layer=layer,
                line=port.line,
                port=port,
                hint="make both ends of the edge declare the same dims",
            )
        a, b = producer.element_type, port.element_type
        if a is not None and b is not None and "dynamic" not in (a.name, b.name) and a != b:
            emit(
                "edge-type",
                f"{layer.describe()} input port {port.id} declares precision {port.precision}, "
                f"but its producer {producer.layer.describe()} output port {producer.id} "
                f"declares {producer.precision}",
                layer=layer,
                line=port.line,
                port=port,
                hint="make both ends of the edge declare the same precision",
            )
