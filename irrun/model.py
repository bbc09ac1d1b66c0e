"""The in-memory model: :class:`Model`, :class:`Layer`, :class:`Port`, :class:`Edge`.

A :class:`Model` is what :func:`irrun.load` returns. It keeps every layer,
port and edge of the file with its XML line, exposes the graph as a
``networkx.MultiDiGraph`` (:attr:`Graph.graph`), and names its inputs and
outputs exactly as OpenVINO does.

These are data classes: they know nothing of validation, execution, comparison or
rendering, and nothing of the file format. The reader (:mod:`irrun.ir`) fills them and gives
each model the means to decode its Consts; the convenience methods ``validate``, ``run``,
``steps``, ``compare``, ``draw`` and the HTML reprs are the functions of :mod:`irrun.api`,
which adds them to :class:`Model` and :class:`Layer` (``irrun.load`` and the public names of
:mod:`irrun` import it).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property, lru_cache
from types import MappingProxyType

from irrun.attributes import parse_value
from irrun.element_types import ElementType
from irrun.errors import (
    AttributeValueError,
    IRError,
    IRFormatError,
    MissingAttributeError,
    WeightsError,
)
from irrun.graph_order import acyclic_order, find_cycle
from irrun.numbers import parse_int
from irrun.shape import Shape
from irrun.text import short_repr, short_text

__all__ = ["Model", "Graph", "Layer", "Port", "Edge", "ModelInput", "ModelOutput"]

_REQUIRED = object()


@lru_cache(maxsize=256)
def _opset_number(version: str | None) -> int | None:
    if version and version.startswith("opset") and version[5:].isdigit() and version[5:].isascii():
        return int(version[5:])
    return None


class Port:
    """One ``<port>`` of a layer.

    Attributes
    ----------
    layer : Layer
        The layer the port belongs to.
    id : int
        The port's ``id`` attribute (one id space per direction).
    direction : str
        ``"input"`` or ``"output"``.
    index : int
        Position among the layer's ports of the same direction.
    precision : str or None
        The ``precision`` attribute as written.
    element_type : ElementType or None
        The type ``precision`` names; ``None`` when the port has no precision.
    declared_shape : Shape
        The shape the ``<dim>`` children declare.
    names : tuple of str
        Tensor names (output ports).
    line : int
        XML line of the ``<port>``.
    inferred_shape, inferred_type
        Set by validation: what irrun computed for this port (``None`` before).
    """

    __slots__ = (
        "layer",
        "id",
        "direction",
        "index",
        "precision",
        "element_type",
        "declared_shape",
        "names",
        "rt_info",
        "line",
        "inferred_shape",
        "inferred_type",
    )

    def __init__(self, layer, id, direction, index, precision, element_type, shape, names, line):
        self.layer = layer
        self.id = id
        self.direction = direction
        self.index = index
        self.precision = precision
        self.element_type = element_type
        self.declared_shape = shape
        self.names = names
        self.rt_info = {}
        self.line = line
        self.inferred_shape = None
        self.inferred_type = None

    @property
    def shape(self) -> Shape:
        """The inferred shape when validation ran, else the declared one."""
        return self.inferred_shape if self.inferred_shape is not None else self.declared_shape

    def describe(self) -> str:
        """``"input port 0"`` / ``"output port 3"``."""
        return f"{self.direction} port {self.id}"

    def __repr__(self) -> str:
        kind = "in" if self.direction == "input" else "out"
        etype = f" {self.element_type}" if self.element_type else ""
        names = f" names={','.join(self.names)}" if self.names else ""
        return f"<Port {self.layer.id}:{self.id} {kind}{etype} {self.shape}{names}>"


class Edge:
    """One ``<edge>``: ``from_layer:from_port`` → ``to_layer:to_port`` (ids as written)."""

    __slots__ = ("from_layer", "from_port", "to_layer", "to_port", "line")

    def __init__(self, from_layer, from_port, to_layer, to_port, line):
        self.from_layer = from_layer
        self.from_port = from_port
        self.to_layer = to_layer
        self.to_port = to_port
        self.line = line

    def __repr__(self) -> str:
        return f"<Edge {self.from_layer}:{self.from_port} -> {self.to_layer}:{self.to_port}>"


class Layer:
    """One ``<layer>``: an op instance.

    ``attributes`` holds the ``<data>`` attributes as strings, exactly as
    written; the ``attribute_*`` methods parse them (raising
    :class:`~irrun.errors.AttributeValueError` with the layer and line).
    Sub-graph ops (TensorIterator, Loop, If) keep their bodies in ``bodies``
    (``{"body": Graph}`` or ``{"then_body": ..., "else_body": ...}``) and their
    port maps as lists of attribute dicts in ``port_maps``.
    """

    def __init__(self, graph, id, name, type, version, attributes, line):
        self.graph = graph
        self.id = id
        self.name = name
        self.type = type
        self.version = version
        self.attributes = attributes
        self.line = line
        self.inputs: list[Port] = []
        self.outputs: list[Port] = []

    # Rarely present parts default to shared read-only empties (the reader assigns fresh
    # containers when a layer has them): most layers of a big model have none.
    rt_info: Mapping = MappingProxyType({})
    output_names: tuple[str, ...] | None = None
    bodies: Mapping[str, Graph] = MappingProxyType({})
    port_maps: Mapping[str, list[dict]] = MappingProxyType({})
    back_edges: tuple = ()
    data_line: int | None = None  # line of <data>, for attribute messages

    # -- identity -------------------------------------------------------------------------
    @property
    def opset(self) -> int | None:
        """The opset number of ``version`` (``opset8`` → 8), or ``None``."""
        return _opset_number(self.version)

    def describe(self) -> str:
        """A short label for messages: ``layer 3 'cat' (Concat)`` (long names shortened)."""
        return f"layer {self.id}{short_repr(self.name)} ({short_text(self.type)})"

    def __repr__(self) -> str:
        version = f" {self.version}" if self.version else ""
        outs = " ".join(str(p.shape) for p in self.outputs)
        return f"<Layer {self.id} {self.name!r} {self.type}{version} -> {outs or 'no outputs'}>"

    # -- ports ----------------------------------------------------------------------------
    def input_port(self, port_id: int) -> Port | None:
        """The input port with this id, or ``None``."""
        return next((p for p in self.inputs if p.id == port_id), None)

    def output_port(self, port_id: int) -> Port | None:
        """The output port with this id, or ``None``."""
        return next((p for p in self.outputs if p.id == port_id), None)

    # -- typed attribute access ----------------------------------------------------------
    def _attribute_text(self, name, default):
        text = self.attributes.get(name)
        if text is None and default is _REQUIRED:
            raise MissingAttributeError(
                f"{self.describe()} has no '{name}' attribute in <data>; add {name}=\"...\"",
                file=self.graph.file,
                line=self.line,
            )
        return text

    def _bad_value(self, name, text, expected):
        return AttributeValueError(
            f"{self.describe()}: attribute {name}={short_text(text)!r} is not {expected}",
            file=self.graph.file,
            line=self.line,
        )

    def attribute(self, name: str, kind: str, default=_REQUIRED):
        """Parse an attribute of ``kind`` (``int``, ``ints``, ``bool``, ``float``, ``floats``,
        ``shape``, ``element_type``, ``string``; see :mod:`irrun.attributes`, the one parser
        the op classes use too). ``default`` is used when absent; without a default a missing
        attribute raises ``MissingAttributeError``, a malformed one ``AttributeValueError``."""
        text = self._attribute_text(name, default)
        if text is None:
            return default
        try:
            return parse_value(kind, text)
        except ValueError as exc:
            raise self._bad_value(name, text, str(exc)) from None

    def attribute_int(self, name: str, default=_REQUIRED) -> int:
        """Parse an integer attribute (int64 range); see :meth:`attribute`."""
        return self.attribute(name, "int", default)

    def attribute_ints(self, name: str, default=_REQUIRED) -> list[int]:
        """Parse a comma-separated integer list (items trimmed, empty items dropped)."""
        return self.attribute(name, "ints", default)

    def attribute_bool(self, name: str, default=_REQUIRED) -> bool:
        """Parse ``true``/``false``/``1``/``0`` (case-insensitive)."""
        return self.attribute(name, "bool", default)

    def attribute_shape(self, name: str, default=_REQUIRED) -> Shape:
        """Parse a shape attribute (``2,?,1..10``, ``""`` scalar, ``...`` dynamic rank)."""
        return self.attribute(name, "shape", default)

    def attribute_element_type(self, name: str, default=_REQUIRED) -> ElementType:
        """Parse an element type attribute (``f32``, ``i64``, ``boolean`` ...)."""
        return self.attribute(name, "element_type", default)

    # -- values ---------------------------------------------------------------------------
    @property
    def value(self):
        """The value of a Const layer as a read-only numpy array (see :meth:`Model.constant`)."""
        return self.graph.model.constant(self)


class ModelInput:
    """A model input: a Parameter (or, in a fragment, an unconnected input port)."""

    def __init__(self, name, names, port, layer):
        self.name = name
        self.names = names
        self.port = port
        self.layer = layer

    @property
    def shape(self) -> Shape:
        """The input's shape (a Parameter's ``shape`` attribute keeps interval bounds)."""
        if self.layer.type == "Parameter" and "shape" in self.layer.attributes:
            try:
                return self.layer.attribute_shape("shape")
            except IRError:
                pass
        return self.port.shape

    @property
    def element_type(self) -> ElementType | None:
        """The input's element type."""
        if self.layer.type == "Parameter":
            try:
                return self.layer.attribute_element_type("element_type")
            except IRError:
                pass
        return self.port.inferred_type or self.port.element_type

    def __repr__(self) -> str:
        return f"<ModelInput {self.name!r} {self.element_type} {self.shape}>"


class ModelOutput:
    """A model output: a Result (or, in a fragment, an unconsumed output port)."""

    def __init__(self, name, names, port, layer):
        self.name = name
        self.names = names
        self.port = port  # the port that produces the value
        self.layer = layer  # the Result layer (the producing layer in a fragment)

    @property
    def shape(self) -> Shape:
        """The output's shape (inferred when validation ran, else declared)."""
        return self.port.shape

    @property
    def element_type(self) -> ElementType | None:
        """The output's element type."""
        return self.port.inferred_type or self.port.element_type

    def __repr__(self) -> str:
        return f"<ModelOutput {self.name!r} {self.element_type} {self.shape}>"


class Graph:
    """Layers and edges of one graph: a whole model or the body of a sub-graph op."""

    def __init__(self, model, file):
        self.model = model
        self.file = file
        self.layers: list[Layer] = []
        self.edges: list[Edge] = []

    def _index(self):
        """Build the lookups once the reader has added every layer and edge."""
        by_id: dict[int, Layer] = {}
        for layer in self.layers:
            by_id.setdefault(layer.id, layer)
        self._by_id = by_id
        # (layer id, port id) -> (edge, the port at the other end, the port itself)
        producers: dict[tuple[int, int], tuple[Edge, Port, Port]] = {}
        consumers: dict[tuple[int, int], list[tuple[Edge, Port, Port]]] = {}
        find = by_id.get
        for edge in self.edges:
            source = find(edge.from_layer)
            target = find(edge.to_layer)
            if source is None or target is None:
                continue
            # Layers have a handful of ports: a scan beats indexing every port in a dict.
            # The first port with an id wins, as for duplicate layer ids.
            from_port = edge.from_port
            for out_port in source.outputs:
                if out_port.id == from_port:
                    break
            else:
                continue
            to_port = edge.to_port
            for in_port in target.inputs:
                if in_port.id == to_port:
                    break
            else:
                continue
            producers.setdefault((edge.to_layer, to_port), (edge, out_port, in_port))
            source_key = (edge.from_layer, from_port)
            fed = consumers.get(source_key)
            if fed is None:
                consumers[source_key] = [(edge, in_port, out_port)]
            else:
                fed.append((edge, in_port, out_port))
        self._producers = producers
        self._consumers = consumers

    @cached_property
    def graph(self):
        """The graph as a ``networkx.MultiDiGraph``.

        One node per layer id (node data ``layer``: the :class:`Layer`), one edge
        per well-formed IR edge, keyed ``(from_port, to_port)`` with edge data
        ``edge`` (the :class:`Edge`). Edges naming a missing layer or port are
        left out (validation reports them).
        """
        import networkx as nx

        from irrun.gc_pause import call_paused

        graph = nx.MultiDiGraph()
        call_paused(self._fill_graph, graph)
        return graph

    def _fill_graph(self, graph) -> None:
        graph.add_nodes_from(
            (layer_id, {"layer": layer}) for layer_id, layer in self._by_id.items()
        )
        graph.add_edges_from(
            (edge.from_layer, edge.to_layer, (edge.from_port, edge.to_port), {"edge": edge})
            for edge, _, _ in self._producers.values()
        )

    def layer(self, key) -> Layer:
        """Find a layer by id (int) or name (str); ``KeyError`` lists close matches."""
        if isinstance(key, int) and key in self._by_id:
            return self._by_id[key]
        if isinstance(key, str):
            for layer in self.layers:
                if layer.name == key:
                    return layer
            if parse_int(key) in self._by_id:
                return self._by_id[parse_int(key)]
        import difflib

        close = difflib.get_close_matches(str(key), [layer.name for layer in self.layers], n=3)
        hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
        raise KeyError(f"no layer with id or name {key!r}{hint}")

    def producer(self, port: Port) -> Port | None:
        """The output port feeding an input port, or ``None`` when it is not connected."""
        found = self._producers.get((port.layer.id, port.id))
        # With duplicate port ids only the first port of that id is connected.
        return found[1] if found and found[2] is port else None

    def consumers(self, port: Port) -> list[Port]:
        """The input ports an output port feeds (in edge order)."""
        found = self._consumers.get((port.layer.id, port.id), ())
        return [in_port for _, in_port, out_port in found if out_port is port]

    def topological_order(self) -> list[Layer]:
        """Layers in an order where producers come before consumers.

        Raises ``IRFormatError`` if the graph has a cycle. The order is computed once.
        """
        order = self.acyclic_order()
        if len(order) != len(self._by_id):
            names = " -> ".join(self._by_id[i].describe() for i in find_cycle(self))
            raise IRFormatError(f"the graph has a cycle: {names}", file=self.file)
        return list(order)

    def acyclic_order(self) -> list[Layer]:
        """Layers in topological order, leaving out those on or after a cycle (computed once)."""
        order = self.__dict__.get("_order")
        if order is None:
            order = self._order = acyclic_order(self)
        return order

    def __iter__(self):
        return iter(self.layers)

    def __len__(self) -> int:
        return len(self.layers)


class Model(Graph):
    """A loaded OpenVINO IR model (or a fragment of ``<layer>`` snippets).

    Build one with :func:`irrun.load`. Attributes: ``file`` (path or
    ``"<string>"``), ``name``, ``ir_version`` (10, 11, or ``None`` for a
    fragment), ``is_fragment``, ``weights`` (a :class:`~irrun.ir.weights.Weights`
    or ``None``), ``rt_info``, ``layers``, ``edges``, ``inputs``, ``outputs``.

    ``const_reader`` decodes Const layers for :meth:`constant` and :meth:`weights_problems`:
    an object with ``read_const(layer)`` (the array, or an :class:`~irrun.errors.IRError`)
    and ``const_problem(layer)`` (why it cannot be read, or ``None``). The reader passes
    :mod:`irrun.ir.constants`, which knows the weights format; this class does not.
    """

    def __init__(self, file, name, ir_version, is_fragment, weights, const_reader=None):
        super().__init__(self, file)
        self.name = name
        self.ir_version = ir_version
        self.is_fragment = is_fragment
        self.weights = weights
        self.const_reader = const_reader
        self.rt_info: dict = {}
        self.inputs: list[ModelInput] = []
        self.outputs: list[ModelOutput] = []
        self._constants: dict[int, object] = {}  # id(Const layer) -> its array
        # Validation's memory of Const layouts already checked against these weights, and of
        # arrays already decoded (several Consts may point at the same bytes).
        self._checked_consts: dict[tuple, tuple] = {}
        self._const_arrays: dict[tuple, object] = {}

    # -- I/O lookup -----------------------------------------------------------------------
    def input(self, name: str) -> ModelInput:
        """Find an input by Parameter layer name or any of its tensor names."""
        for model_input in self.inputs:
            by_layer = model_input.layer.type == "Parameter" and name == model_input.layer.name
            if by_layer or name in model_input.names:
                return model_input
        known = ", ".join(repr(i.name) for i in self.inputs) or "none"
        raise KeyError(f"the model has no input named {name!r}; its inputs are {known}")

    def output(self, name: str) -> ModelOutput:
        """Find an output by any of its names or its Result layer's name."""
        for model_output in self.outputs:
            if name in model_output.names or name == model_output.layer.name:
                return model_output
        known = ", ".join(repr(o.name) for o in self.outputs) or "none"
        raise KeyError(f"the model has no output named {name!r}; its outputs are {known}")

    # -- weights --------------------------------------------------------------------------
    def constant(self, layer) -> object:
        """The value of a Const layer as a read-only numpy array.

        Zero-copy view of the memory-mapped ``.bin`` where alignment allows.
        Raises :class:`~irrun.errors.WeightsError` naming the layer, the byte
        range and the file length when the Const cannot be read.
        """
        if not isinstance(layer, Layer):
            layer = self.layer(layer)
        self.check_weights()
        cached = self._constants.get(id(layer))
        if cached is not None:
            return cached
        value = self._require_const_reader(layer).read_const(layer)
        self._constants[id(layer)] = value
        return value

    def weights_problems(self) -> list[tuple[Layer, str]]:
        """Every Const (bodies included) whose bytes cannot be read, with the reason.

        Reads no weights except string headers; nothing is allocated.
        """
        self.check_weights()
        problems = []
        for layer in self.all_layers():
            if layer.type == "Const":
                problem = self._require_const_reader(layer).const_problem(layer)
                if problem:
                    problems.append((layer, problem))
        return problems

    def check_weights(self) -> None:
        """Raise :class:`~irrun.errors.WeightsError` if the weights file was truncated or
        rewritten since the model was loaded (see :meth:`irrun.ir.weights.Weights.check`);
        validation, runs and :meth:`constant` call it first."""
        check = getattr(self.weights, "check", None)
        if check is not None:
            check()

    def _require_const_reader(self, layer):
        if self.const_reader is None:
            raise WeightsError(
                f"{layer.describe()}: this model was built without a reader for its weights; "
                "load it with irrun.load to read Consts",
                file=self.file,
                line=layer.line,
            )
        return self.const_reader

    def all_layers(self):
        """Every layer, including those inside sub-graph bodies (depth first, document order)."""
        stack = [iter(self.layers)]
        while stack:
            layer = next(stack[-1], None)
            if layer is None:
                stack.pop()
                continue
            yield layer
            # Bodies in document order: the first body's iterator must end up on top.
            for body in reversed(list(layer.bodies.values())):
                stack.append(iter(body.layers))

    def count_by_type(self) -> dict[str, int]:
        """Layer counts keyed ``"Type opsetN"`` (``"Type"`` when the version is missing)."""
        counts: dict[str, int] = {}
        for layer in self.layers:
            key = f"{layer.type} {layer.version}" if layer.version else layer.type
            counts[key] = counts.get(key, 0) + 1
        return dict(sorted(counts.items()))

    @property
    def weights_size(self) -> int:
        """Bytes of the weights file (0 without one)."""
        return self.weights.size if self.weights is not None else 0

    # -- presentation ---------------------------------------------------------------------
    def __repr__(self) -> str:
        kind = "fragment" if self.is_fragment else f"IR v{self.ir_version}"
        return (
            f"<Model {self.name!r} ({kind}): {len(self.layers)} layers, "
            f"inputs {[i.name for i in self.inputs]}, outputs {[o.name for o in self.outputs]}>"
        )

    def summary(self) -> dict:
        """A JSON-ready summary (what ``irrun inspect`` prints)."""
        return {
            "file": self.file,
            "name": self.name,
            "ir_version": self.ir_version,
            "fragment": self.is_fragment,
            "inputs": [
                {"name": i.name, "names": list(i.names), "shape": str(i.shape),
                 "element_type": str(i.element_type) if i.element_type else None}
                for i in self.inputs
            ],
            "outputs": [
                {"name": o.name, "names": list(o.names), "shape": str(o.shape),
                 "element_type": str(o.element_type) if o.element_type else None}
                for o in self.outputs
            ],
            "layers": len(self.layers),
            "layer_counts": self.count_by_type(),
            "weights_file": self.weights.path if self.weights is not None else None,
            "weights_bytes": self.weights_size,
        }  # fmt: skip
