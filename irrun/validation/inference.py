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

import difflib

from irrun.ops._values import ShapeDim, bounds_through
from irrun.ops.base import DYNAMIC_TYPE, Op, OpContext, TensorInfo
from irrun.ops.opsets import OPSETS
from irrun.ops.registry import LATEST_OPSET, first_opset, has_kernel, lookup_layer, op_key
from irrun.shape import Shape
from irrun.text import short_text
from irrun.validation.emitter import HeldDiagnostics

__all__ = ["infer_graph", "FOLD_LIMIT", "REMEMBER_LAYERS"]

#: Constant sub-graphs are folded while each result has at most this many elements.
FOLD_LIMIT = 1 << 16

#: Whether a layer identical to one already inferred (same op, attributes and output count;
#: inputs of the same shapes, types and small or shared constant values) gets that layer's
#: outputs without its rule running. The report is the same either way; False infers every
#: layer (``bench/bench_validate.py`` times both).
REMEMBER_LAYERS = True


class _LayerContext(OpContext):
    """Collects an op's problems as diagnostics of its layer."""

    __slots__ = ("emit", "layer", "op_label", "failed", "reported", "bodies", "held")

    def __init__(self, emit, layer, op_label, hold=False):
        self.emit = emit
        self.layer = layer
        self.op_label = op_label
        self.failed = False  # an error was reported: the layer was checked and found wrong
        self.reported = False  # anything was reported (an error or a warning)
        self.bodies = None  # tag -> the latest inference of that body (see infer_body)
        # With an input tainted by an earlier mistake, errors wait until it is known whether
        # they follow from it (see _release_held).
        self.held = [] if hold else None

    def infer_body(self, tag, feeds):
        """Infer body ``tag`` with its Parameters fed; its diagnostics are held back (an op
        may infer a body again, as Loop does when a back edge changes a shape) and only the
        latest inference of each body is reported, by :func:`_report_bodies`."""
        body = self.layer.bodies.get(tag)
        if body is None:
            return None
        held = HeldDiagnostics(self.emit, f"in the {tag} of {self.layer.describe()}: ")
        trusted_types: dict = {}
        gaps: list = []
        results: dict = {}
        counts = infer_graph(body, held, trusted_types, gaps, feeds=feeds, results=results)
        if self.bodies is None:
            self.bodies = {}
        self.bodies[tag] = (held, counts, trusted_types, gaps)
        return results

    def error(self, code, message, *, port=None, hint=None, line=None):
        self.failed = self.reported = True
        line = line or (port.line if port else None)
        if self.held is not None:
            self.held.append((code, message, port, hint, line))
            return
        self.emit(code, message, layer=self.layer, line=line, port=port, hint=hint,
                  op=self.op_label)  # fmt: skip

    def warning(self, code, message, *, port=None, hint=None, line=None):
        self.reported = True
        self.emit(code, message, layer=self.layer, line=line or (port.line if port else None),
                  port=port, hint=hint, op=self.op_label, severity="warning")  # fmt: skip


class _Silent(OpContext):
    """Swallows everything: used to re-infer from declared inputs when tracing a cause."""

    failed = False

    def error(self, *args, **kwargs):
        self.failed = True

    def warning(self, *args, **kwargs):
        pass


class _Described:
    """What the messages of a remembered layer (whose op was not built) say of its op."""

    __slots__ = ("layer", "label", "from_attributes")

    def __init__(self, op_class, layer, label):
        self.layer = layer
        self.label = label
        self.from_attributes = op_class.from_attributes

    describe = Op.describe


def _report_bodies(context, trusted_types, gaps) -> tuple[int, int]:
    """Release the diagnostics of the layer's bodies (their latest inference) and return
    their ``(checked, trusted)`` counts, merging their trusted op counts and gaps."""
    checked = trusted = 0
    for held, counts, body_trusted, body_gaps in context.bodies.values():
        held.release()
        checked += counts[0]
        trusted += counts[1]
        for label, count in body_trusted.items():
            trusted_types[label] = trusted_types.get(label, 0) + count
        gaps.extend(body_gaps)
    context.bodies = None
    return checked, trusted


def _declared(port) -> TensorInfo:
    return TensorInfo(port.declared_shape, port.element_type or DYNAMIC_TYPE)


def _trusted(port) -> TensorInfo:
    """A declared output taken on trust. Port dims cannot tell a scalar from a dynamic rank
    (both have no <dim>), so a port without dims is taken as "rank unknown"."""
    shape = port.declared_shape
    if shape.rank == 0:
        shape = Shape.dynamic_rank()
    return TensorInfo(shape, port.element_type or DYNAMIC_TYPE)


def _flow_order(graph):
    """Topological order of the layers that are not on a cycle (cycles are reported elsewhere)."""
    return graph.acyclic_order()


def infer_graph(graph, emit, trusted_types: dict | None = None, gaps: list | None = None, *,
                feeds: dict | None = None, results: dict | None = None,
                progress=None):  # fmt: skip
    """Run inference over ``graph``; return ``(layers checked, layers trusted)``.

    ``progress``, when given, is called as the layers are checked (stage ``"validating"``;
    see :mod:`irrun.progress`).

    For a sub-graph body, ``feeds`` gives its Parameters (body layer id -> TensorInfo) what
    flows in from the outer layer, and ``results`` receives what flows into each Result (by
    layer id). Layers of bodies are counted in the totals of the layer that has them.

    ``trusted_types``, when given, receives the count of trusted layers by op (``Type-N``
    when the op version is known, else ``Type`` and the version as written); ``gaps`` the
    output ports of checked layers whose declaration is more precise than what irrun could
    infer (OpenVINO wrote a static dim where irrun knows only an interval): not an error,
    a limit of irrun's inference, counted."""
    if trusted_types is None:
        trusted_types = {}
    if gaps is None:
        gaps = []
    # Keyed by the port objects themselves (ports hash by identity; no id() call per lookup).
    declared_only: set = set()  # output ports whose declaration flows on unchecked
    mistaken: dict = {}  # output port -> the error about its own declaration
    flowing: dict = {}  # output port -> what flows out of it (TensorInfo)
    causes: dict = {}  # output port -> the diagnostic that tainted it
    checked = trusted = 0
    # input port -> the output port feeding it (the first edge into it, as indexed)
    producer_of = {port: producer for _, producer, port in graph._producers.values()}
    labels: dict[type, str] = {}
    kernels: dict[type, bool] = {}  # op class -> has_kernel (asked for nearly every layer)
    resolved: dict[tuple, object] = {}  # (type, version) -> lookup_layer's answer
    # What a rule gave for a layer (op, attributes, what flows in) that reported nothing: an
    # identical layer gets the same outputs without building the op (converted models repeat
    # their blocks: every attention layer reshapes and transposes alike).
    inferred: dict[tuple, tuple] = {}
    chances_of: dict[type, int] = {}  # op class -> how many more layers of it may miss
    order = _flow_order(graph)
    if progress is not None:
        from irrun.progress import steps

        order = steps(order, "validating", progress)
    for layer in order:
        producers, inputs, input_causes = [], [], []
        if layer.inputs:
            edges_disagree = False
            for port in layer.inputs:
                producer = producer_of.get(port)
                producers.append(producer)
                if producer is None:
                    inputs.append(_declared(port))
                    continue
                if (
                    producer.declared_shape.dims != port.declared_shape.dims
                    or producer.element_type is not port.element_type
                ):
                    edges_disagree = True
                inputs.append(flowing.get(producer) or _declared(producer))
                if causes and producer in causes:
                    input_causes.append(causes[producer])
            if edges_disagree:  # both ends declaring the same is the rule: check exceptions
                _check_edges(layer, producers, emit, mistaken)
            if results is not None and layer.type == "Result":
                results[layer.id] = inputs[0]

        resolution = resolved.get((layer.type, layer.version))
        if resolution is None:
            resolution = resolved[layer.type, layer.version] = lookup_layer(layer)
        op_class = resolution.op_class
        if op_class is None:
            if resolution.problem in _REFUSED:  # an error: checked, and found wrong
                checked += 1
            else:
                trusted += 1
                label = _trusted_label(layer, resolution)
                trusted_types[label] = trusted_types.get(label, 0) + 1
            _report_unresolved(layer, resolution, emit)
            for port in layer.outputs:
                flowing[port] = _trusted(port)
                declared_only.add(port)
            continue

        fed = feeds.get(layer.id) if feeds and layer.type == "Parameter" else None
        quick = op_class.quick_outputs
        if fed is not None:
            quick = None
        if quick is not None and not layer.inputs and len(layer.outputs) == 1:
            try:
                outputs = quick(layer)
            except Exception:  # the op, built below, reports what is wrong
                outputs = None
            port = layer.outputs[0]
            if outputs is not None:
                info = outputs[0]
                etype = port.element_type
                if port.declared_shape.dims == info.shape.dims and (
                    etype is None or etype is info.element_type
                ):  # as below, for a layer that declares exactly what it gives
                    port.inferred_shape = info.shape
                    port.inferred_type = info.element_type
                    flowing[port] = info
                    checked += 1
                    continue

        label = labels.get(op_class)
        if label is None:
            label = labels[op_class] = f"{op_class.type}-{op_class.version}"
        memo = remembered = None
        if (REMEMBER_LAYERS and fed is None and not input_causes and op_class.memoizable
                and not layer.bodies):  # fmt: skip
            chances = chances_of.get(op_class, _CHANCES)
            if chances > 0:  # (an op whose layers keep differing is not keyed any more)
                memo = _memo_key(op_class, layer, inputs, producers)
                if memo is not None:
                    remembered = inferred.get(memo)
                chances_of[op_class] = chances - 1 if remembered is None else chances + 4
        if remembered is None:
            context = _LayerContext(emit, layer, label, hold=bool(input_causes))
            try:
                op = op_class(layer, context)
                if fed is not None:  # a body Parameter: what flows in, not its attributes
                    outputs = [TensorInfo(fed.shape, fed.element_type, fed.value,
                                          why="what the outer layer feeds in",
                                          partial=fed.partial)]  # fmt: skip
                else:
                    outputs = _infer(op, layer, inputs, producers, context)
            except Exception as exc:  # an op bug must not hide the rest of the report
                emit("internal", f"{layer.describe()}: checking {label} failed: "
                     f"{type(exc).__name__}: {exc}", layer=layer, op=label)  # fmt: skip
                outputs = None
                memo = None
            if context.held:
                _release_held(context, op_class, layer, producers, inputs, input_causes[0])
            context.held = None
            if context.bodies:
                body_checked, body_trusted = _report_bodies(context, trusted_types, gaps)
                checked += body_checked
                trusted += body_trusted
            if outputs is None:
                if context.failed:  # checked, and found wrong: its declarations flow on
                    checked += 1
                else:  # the op could say nothing (e.g. an input of unknown rank it needs)
                    trusted += 1
                    trusted_types[label] = trusted_types.get(label, 0) + 1
                for port in layer.outputs:
                    flowing[port] = _trusted(port)
                    declared_only.add(port)
                    if input_causes:
                        causes[port] = input_causes[0]
                continue
        else:  # an identical layer was inferred before: the same outputs
            outputs = [TensorInfo(shape, etype, None, why, partial)
                       for shape, etype, why, partial in remembered]  # fmt: skip
            op = context = None
        checked += 1
        unchecked = False
        if context is not None:
            if op_class.moves_elements is not None and not context.failed:
                bounds_through(op, inputs, outputs)
            if memo is not None and not context.reported:
                _remember(inferred, memo, outputs)
            unchecked = context.failed
        if declared_only and not unchecked:
            for source in producers:
                if source is not None and source in declared_only:
                    unchecked = True
                    break
        if unchecked:  # what flows out rests on something unchecked: its gaps are not irrun's
            declared_only.update(layer.outputs)
        declared_outputs = None
        foldable = None  # every input a known constant and the op runnable (asked once)
        folded = None  # the op's outputs, evaluated once for all of them
        for index, (port, info) in enumerate(zip(layer.outputs, outputs)):
            if info._pending is None and info.value is None:  # (may_have_value, inlined)
                if foldable is None:
                    foldable = kernels.get(op_class)
                    if foldable is None:
                        foldable = kernels[op_class] = has_kernel(op_class)
                    for known in inputs:  # (a loop: cheaper than all() over a generator)
                        if known._pending is None and known.value is None:  # (not computed)
                            foldable = False
                            break
                    foldable = foldable and _small(outputs)
                if foldable:
                    if folded is None:
                        folded = _Folding(op, inputs).output
                    # Computed when read: most folded values (weights decompressed by
                    # Convert, Subtract, Multiply) feed rules that read only their shape.
                    info.defer(folded, index)
            etype = port.element_type
            if port.declared_shape.dims == info.shape.dims and (
                etype is None or etype is info.element_type
            ):
                problems = ()  # the common case: the file says exactly what inference gives
            else:
                if op is None:  # (a remembered layer: what messages say of its op)
                    op = _Described(op_class, layer, label)
                problems = _compare(op, port, info, fed is not None)
                if (
                    not problems
                    and port not in declared_only
                    and _less_precise(info.shape, port.declared_shape)
                ):  # a limit of irrun's inference (not of what flowed in)
                    gaps.append(port)
            if not problems:
                # Only what inference proves: declared dims are not evidence (OpenVINO ignores
                # them too), so they never narrow an inferred shape.
                port.inferred_shape = info.shape
                port.inferred_type = info.element_type
                flowing[port] = info
                if input_causes:
                    causes[port] = input_causes[0]
                continue
            port.inferred_shape, port.inferred_type = info.shape, info.element_type
            flowing[port] = info
            for code, message in problems:
                if input_causes:
                    # A declaration that merely follows from an earlier mistake (it is what the
                    # producers' declarations would give) is a note under that mistake.
                    if declared_outputs is None:
                        declared_outputs = _reinfer_declared(op_class, layer, producers, inputs)
                    if _follows(code, port, declared_outputs, index):
                        cause = input_causes[0]
                        cause.notes.append(f"follow-on: line {port.line}: {message}")
                        causes.setdefault(port, cause)
                        continue
                diagnostic = emit(code, message, layer=layer, line=port.line, port=port,
                                  op=label, hint=_mismatch_hint(port, info, code))  # fmt: skip
                causes.setdefault(port, diagnostic)
                mistaken.setdefault(port, diagnostic)
    return checked, trusted


#: Layers of one op that may find nothing remembered before the walk stops keying that op
#: (each one found gives 4 more): in a model whose layers of an op all differ (Gathers of
#: their own indices), keys would be work for nothing; a transformer's first block misses,
#: the next ones find.
_CHANCES = 16

#: Values of at most this many elements count by their content in a remembered layer's key.
_KEY_ELEMENTS = 64
#: A layer reading a Const of more bytes than this (weights, biases: no other layer reads
#: the same ones) is not remembered, as building its key would be work for nothing; shapes,
#: axes and scalars are smaller (an i64 target shape of up to 6 dims).
_KEY_CONST_BYTES = 48


def _memo_key(op_class, layer, inputs, producers) -> tuple | None:
    """What an op's rule can read of a layer, as a key (``None``: not to be remembered): the
    op, the layer's version, output count and attributes, and of each input its shape, type
    and what is known of its value. A value counts by its content (a small array) or, for a
    Const, by its attributes (in one model, the same attributes are the same bytes). Partial
    values holding ShapeOf's dims are left out: those name the very tensor they measure, which
    an identical layer elsewhere does not share (Reshape cancels such dims)."""
    signature = []
    valued = 0
    for producer, info in zip(producers, inputs):
        partial = info.partial
        if partial is not None:
            for element in partial:
                if type(element) is ShapeDim:
                    return None
            content = partial
        elif info._pending is None and info.value is None:
            content = None
        else:
            valued += 1
            source = producer.layer if producer is not None else None
            if source is not None and source.type == "Const":
                get = source.attributes.get
                size = get("size")
                if (size is None or len(size) > 2 or not (size.isascii() and size.isdigit())
                        or int(size) > _KEY_CONST_BYTES):  # fmt: skip
                    return None  # weights and biases: no other layer reads the same ones
                content = ("Const", get("element_type"), get("shape"), get("offset"), size)
            elif (info._pending is None and info.value.size <= _KEY_ELEMENTS
                  and info.value.dtype.kind != "O"):  # fmt: skip
                value = info.value
                content = (value.dtype.str, value.shape, value.tobytes())
            else:  # a large or still uncomputed value
                return None
        shape = info.shape
        sizes = shape._static_sizes()
        if sizes is None:
            dims = shape.dims
            sizes = None if dims is None else tuple([(d.lower, d.upper) for d in dims])
        signature.append((sizes, info.element_type, content))
    if valued and valued == len(inputs):  # every input known: the layer folds (its op needed)
        return None
    return (op_class, layer.version, len(layer.outputs), *layer.attributes.items(), *signature)


def _remember(inferred: dict, key: tuple, outputs) -> None:
    """Keep what the rule gave for ``key`` when it is shapes, types and partial values only
    (values are left to folding; ShapeOf's dims name the tensor they measure)."""
    kept = []
    for info in outputs:
        if info._pending is not None or info.value is not None:
            return
        partial = info.partial
        if partial is not None:
            for element in partial:
                if type(element) is ShapeDim:
                    return
        kept.append((info.shape, info.element_type, info.why, partial))
    inferred[key] = tuple(kept)


#: Resolution problems that make OpenVINO refuse the model (reported as errors).
_REFUSED = ("unknown-opset", "not-in-opset")


def _trusted_label(layer, resolution) -> str:
    if resolution.op_version is not None:
        return f"{short_text(layer.type)}-{resolution.op_version}"
    version = f" {short_text(str(layer.version))}" if layer.version else ""
    return f"{short_text(layer.type)}{version}"


def _report_unresolved(layer, resolution, emit) -> None:
    """The diagnostic for a layer irrun cannot check: an error when OpenVINO would refuse
    the layer (an opset it does not have, a type not in the declared opset), else a warning."""
    version, layer_type = short_text(str(layer.version)), short_text(layer.type)
    problem = resolution.problem
    trusted = "its declared output dims and precisions are used as they are"
    if problem == "unknown-opset":
        newest = _newest_opset_with(layer.type)
        hint = f'use an existing opset, e.g. version="opset{newest}"'
        if layer.opset is None and first_opset(layer.type) is None:
            hint = ('declare a custom op in version="extension" (irrun trusts it), or an '
                    "OpenVINO op in the opset that has it")  # fmt: skip
        emit("unknown-opset", f"{layer.describe()}: version {version!r} is not an opset "
             f"OpenVINO has (opset1 to opset{LATEST_OPSET}); OpenVINO refuses the model",
             layer=layer, hint=hint)  # fmt: skip
    elif problem == "not-in-opset":
        first = first_opset(layer.type)
        if first is not None:
            message = (f"{layer.describe()}: {layer_type} does not exist in {version}; it first "
                       f"appears in opset{first}, and OpenVINO refuses the model")  # fmt: skip
            hint = f'declare version="opset{first}" (or a later opset)'
        else:
            message = (f"{layer.describe()}: {version} has no op type {layer_type!r}; OpenVINO "
                       "refuses the model")  # fmt: skip
            close = difflib.get_close_matches(layer.type, _all_types(), n=1, cutoff=0.6)
            hint = (f"did you mean {close[0]}?" if close else
                    'a custom op belongs in its own opset (e.g. version="extension")')  # fmt: skip
        emit("not-in-opset", message, layer=layer, hint=hint)
    elif layer.bodies:  # a layer with sub-graphs that irrun cannot check
        bodies = ", ".join(
            f"{tag} ({len(body.layers)} layers)" for tag, body in layer.bodies.items()
        )
        emit("subgraph-not-checked", f"{layer.describe()} has {bodies}, which irrun keeps but "
             "does not check; its declared output dims are trusted", layer=layer,
             severity="warning", hint=trusted)  # fmt: skip
    else:
        if problem == "not-implemented":
            op = f"{layer_type}-{resolution.op_version}" if resolution.op_version else layer_type
            message = f"{layer.describe()}: irrun does not check {op} yet; declared dims trusted"
        else:
            message = (f"{layer.describe()}: irrun does not know op type {layer_type!r}"
                       f"{f' of opset {version!r}' if layer.version else ''}; not checked, "
                       "declared dims trusted")  # fmt: skip
        # op: the label the coverage line counts, which reports also group warnings by
        emit("unknown-op", message, layer=layer, severity="warning", hint=trusted,
             op=_trusted_label(layer, resolution))  # fmt: skip


def _newest_opset_with(layer_type: str) -> int:
    key = op_key(layer_type)
    having = [n for n, table in OPSETS.items() if any(t.lower() == key for t in table)]
    return max(having) if having else LATEST_OPSET


def _all_types() -> list[str]:
    return sorted({name for table in OPSETS.values() for name in table})


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
    if op.incomplete:
        return None
    outputs = op.infer(inputs)
    if outputs is None:
        return None
    if len(outputs) != len(layer.outputs):
        context.error("input-count", f"{op.describe()} has {len(outputs)} output(s), but the "
                      f"layer declares {len(layer.outputs)} output port(s)")  # fmt: skip
        return None
    return outputs


def _small(outputs) -> bool:
    """True when every output has a static shape of at most FOLD_LIMIT elements."""
    for info in outputs:
        shape = info.shape
        if not shape.is_static or shape.element_count() > FOLD_LIMIT:
            return False
    return True


def _fold(op, inputs) -> list:
    """The op's outputs evaluated on its constant inputs (``[]`` when evaluation fails, or
    when an input's deferred value turned out unknown)."""
    values = [i.value for i in inputs]
    for value in values:
        if value is None:
            return []
    try:
        return list(op.evaluate(values))
    except Exception:  # out-of-range indices etc. are reported by infer already
        return []


class _Folding:
    """A layer's folding, done on first need: :meth:`output` is what ``TensorInfo.defer``
    calls for each output (the op is evaluated once for all of them)."""

    __slots__ = ("op", "inputs", "values")

    def __init__(self, op, inputs):
        self.op = op
        self.inputs = inputs
        self.values = None

    def output(self, index: int):
        """Output ``index`` of the folded op (``None`` when folding fails)."""
        values = self.values
        if values is None:
            values = self.values = _fold(self.op, self.inputs)
            self.op = self.inputs = None  # (nothing more to compute: let them go)
        return values[index] if index < len(values) else None


def _less_precise(inferred: Shape, declared: Shape) -> bool:
    """True when the declaration pins down more than the inferred shape does."""
    if not declared.rank_is_static:
        return False
    if not inferred.rank_is_static:
        return True
    return any(d.is_static and not i.is_static for d, i in zip(declared, inferred))


def _compare(op, port, info, fed: bool = False) -> list[tuple[str, str]]:
    """``(code, message)`` for each way the declared port disagrees with the inferred info."""
    etype = port.element_type
    if port.declared_shape.dims == info.shape.dims and (
        etype is None or etype is info.element_type
    ):
        return []  # the common case: the file says exactly what inference gives
    problems = []
    declared, inferred = port.declared_shape, info.shape
    parameter = op.from_attributes  # Parameter, Const: the outputs are what attributes say
    source = "its shape attribute says" if parameter else "its inputs give"
    if fed:  # a body Parameter: what the outer layer feeds in
        parameter, source = True, "the outer layer feeds in"
    if inferred.rank_is_static and declared.rank_is_static and declared.rank != inferred.rank:
        why, head = _why(info, parameter), _head(op, port)
        problems.append(("rank-mismatch", f"{head} rank {declared.rank} {declared}, but "
                         f"{source} rank {inferred.rank} {inferred}{why}"))  # fmt: skip
    elif not declared.compatible(inferred):
        why, head = _why(info, parameter), _head(op, port)
        problems.append(("shape-mismatch", f"{head} {declared}, but {source} {inferred}{why}"))
    etype = port.element_type
    if etype is not None and etype.name != "dynamic" and info.element_type.name != "dynamic":
        if etype != info.element_type:
            head = _head(op, port)
            source = "its element_type attribute says" if parameter else "its inputs give"
            if fed:
                source = "the outer layer feeds in"
            problems.append(("type-mismatch", f"{head} precision {port.precision} ({etype}), "
                             f"but {source} {info.element_type}"))  # fmt: skip
    return problems


def _head(op, port) -> str:
    return f"{op.describe()} output port {port.id} declares"


def _why(info, parameter: bool) -> str:
    text = "" if parameter else info.explain()
    return f" ({text})" if text else ""


def _mismatch_hint(port, info, code) -> str:
    if code == "type-mismatch":
        return f'set precision="{info.element_type.precision}" on the port'
    if info.shape.rank_is_static:
        dims = "".join(f"<dim>{d.to_port_dim()}</dim>" for d in info.shape)
        return f"declare {dims or 'no <dim> (a scalar)'} on output port {port.id}"
    return "fix the declared dims"


def _reinfer_declared(op_class, layer, producers, inputs):
    """What the op would give if the producers' declarations (dims and precisions) were true;
    ``None`` if it cannot say."""
    declared = [
        TensorInfo(p.declared_shape, p.element_type or info.element_type, info.value)
        if p is not None
        else info
        for p, info in zip(producers, inputs)
    ]
    try:
        return op_class(layer, _Silent()).infer(declared)
    except Exception:
        return None


def _release_held(context, op_class, layer, producers, inputs, cause) -> None:
    """The errors an op reported about a layer one of whose inputs rests on an earlier
    mistake: notes under that mistake when the op finds nothing wrong with what the
    producers declare (the errors come from the mistake, not from this layer), else errors."""
    declared = [
        TensorInfo(p.declared_shape, p.element_type or info.element_type, info.value)
        if p is not None
        else info
        for p, info in zip(producers, inputs)
    ]
    silent = _Silent()
    try:
        _infer(op_class(layer, silent), layer, declared, producers, silent)
        follows = not silent.failed
    except Exception:  # the op cannot say: keep the errors
        follows = False
    for code, message, port, hint, line in context.held:
        if follows:
            cause.notes.append(f"follow-on: line {line or layer.line}: {message}")
        else:
            context.emit(code, message, layer=layer, line=line, port=port, hint=hint,
                         op=context.op_label)  # fmt: skip
    context.held = None


def _follows(code, port, declared_outputs, index) -> bool:
    """True when ``port``'s declaration matches what the declared inputs give (for ``code``)."""
    if declared_outputs is None or index >= len(declared_outputs):
        return False
    expected = declared_outputs[index]
    if code == "type-mismatch":
        return expected.element_type.name == "dynamic" or expected.element_type == port.element_type
    shape = expected.shape
    return port.declared_shape.compatible(shape) and (
        not shape.rank_is_static or port.declared_shape.rank == shape.rank
    )


def _check_edges(layer, producers, emit, mistaken=None) -> None:
    """Edge agreement: both ends of each edge declare the same dims and element type. Where
    the producer's declaration was already reported wrong (``mistaken``: output port ->
    that error) and this end declares what was inferred there (dims or precision), the
    disagreement is a note of that error: one wrong declaration, one error."""
    for port, producer in zip(layer.inputs, producers):
        if producer is None:
            continue
        earlier = mistaken.get(producer) if mistaken else None
        inferred = producer.inferred_shape
        if not producer.declared_shape.compatible(port.declared_shape):
            if (
                earlier is not None
                and inferred is not None
                and (port.declared_shape.compatible(inferred))
            ):
                earlier.notes.append(
                    f"follow-on: line {port.line}: {layer.describe()} input port {port.id} "
                    f"declares {port.declared_shape}, as inferred, so its edge disagrees with "
                    "the wrong declaration"
                )
            else:
                _edge_dims(layer, port, producer, emit)
        a, b = producer.element_type, port.element_type
        if a is not None and b is not None and "dynamic" not in (a.name, b.name) and a != b:
            if earlier is not None and producer.inferred_type is b:
                earlier.notes.append(
                    f"follow-on: line {port.line}: {layer.describe()} input port {port.id} "
                    f"declares precision {port.precision}, as inferred, so its edge disagrees "
                    "with the wrong declaration"
                )
                continue
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


def _edge_dims(layer, port, producer, emit) -> None:
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
