"""What every op is made of: parsed attributes, a shape/type rule, and (optionally) a kernel.

An op class is instantiated once per layer. Its constructor parses and checks
the layer's attributes, reporting problems through the context it is given;
:meth:`Op.infer` maps input :class:`TensorInfo` (partial shapes, element types
and, for constants, values) to output :class:`TensorInfo`; :meth:`Op.evaluate`
maps numpy arrays to numpy arrays. Validation and execution build instances of the
same class, so the rule that checks a shape is the one that predicts what the
kernel produces (and the executor asserts that it does).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from functools import lru_cache, partial

from irrun.attributes import KINDS
from irrun.element_types import ELEMENT_TYPES, ElementType
from irrun.errors import IRError
from irrun.shape import Dim, Shape, static_dim
from irrun.text import short_repr, short_text

__all__ = [
    "Op",
    "Attribute",
    "TensorInfo",
    "OpContext",
    "DYNAMIC_TYPE",
    "normalize_axis_or_report",
    "normalize_axes_or_report",
    "common_element_type",
    "lazy_text",
]

DYNAMIC_TYPE = ELEMENT_TYPES["dynamic"]


class TensorInfo:
    """What is known of a tensor before running anything.

    Attributes
    ----------
    shape : Shape
        Its partial shape.
    element_type : ElementType
        Its element type (``dynamic`` when unknown).
    value : numpy.ndarray or None
        Its value, when it is a constant (or folded from constants). A folded value may be
        computed only when first read (see :meth:`defer`).
    why : str or callable
        How an op computed the shape, shown in messages (``axis 1: 8 + 16 + 32 = 56``); a
        callable returning that text when building it costs more than it is worth up front.
    partial : tuple or None
        For a small integer tensor of rank 0 or 1 whose value is not fully known (a shape
        computed by ShapeOf and shape arithmetic): what is known of each element, as an
        ``int`` (known exactly), a :class:`~irrun.shape.Dim` (some size in that interval) or
        ``None`` (unknown). See :mod:`irrun.ops._values`.
    """

    # _pending: ``(function, index)`` computing the value on first read, or None; while it
    # is pending the ``value`` slot is empty and the object is a _DeferredInfo, whose
    # __getattr__ computes it. TensorInfo itself has no __getattr__: a class with one makes
    # every attribute read take the slow generic path (the interpreter specialises slot reads
    # only for plain classes), and rules read shapes and types of every input.
    __slots__ = ("shape", "element_type", "value", "why", "partial", "_pending")

    def __init__(self, shape: Shape, element_type: ElementType = DYNAMIC_TYPE,
                 value: object = None, why: object = "", partial: tuple | None = None):  # fmt: skip
        self.shape = shape
        self.element_type = element_type
        self.value = value
        self.why = why
        self.partial = partial
        self._pending = None

    def defer(self, function, index: int) -> None:
        """Make the value ``function(index)``, computed when first read (validation folds
        constant weights this way: most are never read)."""
        if self._pending is None:  # (when already deferred, the slot is empty)
            del self.value
            self.__class__ = _DeferredInfo
        self._pending = (function, index)

    @property
    def may_have_value(self) -> bool:
        """True when the value is known or deferred (without computing a deferred one)."""
        return self._pending is not None or self.value is not None

    def explain(self) -> str:
        """The ``why`` text."""
        return self.why() if callable(self.why) else self.why

    def __repr__(self) -> str:
        return (f"TensorInfo(shape={self.shape!r}, element_type={self.element_type!r}, "
                f"value={self.value!r}, why={self.why!r}, partial={self.partial!r})")  # fmt: skip

    def __eq__(self, other):
        if not isinstance(other, TensorInfo):
            return NotImplemented
        return (self.shape, self.element_type, self.value, self.why, self.partial) == (
            other.shape, other.element_type, other.value, other.why, other.partial)  # fmt: skip

    __hash__ = None  # as a dataclass with eq: mutable, not hashable


class _DeferredInfo(TensorInfo):
    """A :class:`TensorInfo` whose value is still to be computed (see :meth:`~TensorInfo.defer`);
    it becomes a plain TensorInfo again when the value is read."""

    __slots__ = ()

    def __getattr__(self, name):
        if name == "value":  # a deferred value, read for the first time
            pending = self._pending
            if pending is not None:
                self._pending = None
                self.__class__ = TensorInfo
                value = self.value = pending[0](pending[1])
                return value
        raise AttributeError(f"'TensorInfo' object has no attribute {name!r}")


class OpContext:
    """Where an op reports problems. Validation collects them as diagnostics;
    a plain ``OpContext`` (used when no report is wanted) raises on the first error."""

    def error(self, code: str, message: str, *, port=None, hint=None, line=None) -> None:
        """Report an error of this layer (``port``: the :class:`~irrun.model.Port` concerned;
        ``line``: the XML line when it is not the port's or the layer's)."""
        raise IRError(message)

    def warning(self, code: str, message: str, *, port=None, hint=None, line=None) -> None:
        """Report a warning of this layer."""

    def infer_body(self, tag: str, feeds: dict) -> dict | None:
        """Infer the layer's sub-graph ``tag`` (``body``, ``then_body``, ``else_body``) with
        its Parameters given ``feeds`` (body layer id -> :class:`TensorInfo`); return what
        flows into each of its Results (by body layer id), or ``None`` when this context
        does not infer bodies (then the op says nothing). Validation infers and checks the
        body and reports its problems."""
        return None


_REQUIRED = object()


@dataclass(frozen=True, slots=True)
class Attribute:
    """One declared attribute of an op.

    Attributes
    ----------
    name : str
        The ``<data>`` attribute name (``batch_dims``).
    kind : str
        ``int``, ``ints``, ``bool``, ``float``, ``floats``, ``string``, ``enum``, ``shape``
        or ``element_type`` (see :mod:`irrun.attributes`).
    default : object
        The value used when the attribute is absent (and, for a required one, the value
        OpenVINO silently uses: irrun then reports ``missing-attribute``).
    required : bool
        Whether the IR must spell it.
    choices : tuple of str
        The values of an ``enum`` (compared case-insensitively, as OpenVINO does; the value
        kept is the spelling given here).
    since, until : int
        The op versions that have it (``until`` ``None``: every later version).
    """

    name: str
    kind: str = "int"
    default: object = None
    required: bool = False
    choices: tuple = ()
    since: int = 1
    until: int | None = None

    def exists_in(self, version: int) -> bool:
        """True when op version ``version`` has this attribute."""
        return self.since <= version and (self.until is None or version <= self.until)

    @property
    def field(self) -> str:
        """The Python attribute the parsed value is stored in (``name`` made an identifier:
        ``exclude-pad`` is ``exclude_pad``, ``mode.mode.axis`` is ``mode_mode_axis``)."""
        return self.name.replace("-", "_").replace(".", "_")


class Op:
    """Base class of an op version. Subclasses set ``type``, ``version`` (or ``versions``),
    ``inputs`` and ``attributes``, and implement :meth:`infer` (and :meth:`evaluate` when
    irrun can run them).

    The constructor parses every declared attribute of this version into ``self.<name>``
    (reporting ``missing-attribute``, ``attribute-value`` and, for attributes the version does
    not have, ``unknown-attribute``) and then calls :meth:`setup` for checks that involve
    several attributes.

    Attributes
    ----------
    type : str
        The op type as OpenVINO spells it (``Concat``).
    version : int
        The op version (``8`` for Gather-8).
    inputs : tuple of int
        ``(minimum, maximum)`` number of inputs; ``maximum`` ``None`` = unbounded.
    attributes : tuple of Attribute or None
        The declared attributes (of every version; each says which versions have it).
        ``None`` (user ops that parse their own) turns off the ``unknown-attribute`` check.
    """

    type = ""
    version = 1
    inputs: tuple[int, int | None] = (1, 1)
    attributes: tuple[Attribute, ...] | None = None
    #: Set when a required attribute is missing or malformed: the walk then trusts the
    #: declared outputs instead of inferring from a guessed value (no follow-on errors).
    incomplete = False
    #: ``quick_outputs(layer)``, for ops without inputs: what :meth:`infer` would give for a
    #: plainly written layer, computed without building the op; ``None`` from it (or no
    #: function) means build the op as usual.
    quick_outputs = None
    #: True for ops whose output is what their attributes say (Parameter, Const): messages
    #: then name those attributes, not inputs.
    from_attributes = False
    #: The inputs whose elements the op only moves (copies, reorders, selects; ``"all"``: every
    #: input): partial values of shape sub-graphs pass through such an op of any rank by its
    #: kernel, run once on their lower bounds and once on their upper bounds (see
    #: :func:`irrun.ops._values.bounds_through`). ``None``: the op's rule alone says.
    moves_elements: tuple[int, ...] | str | None = None
    #: Whether the op's float results may differ from OpenVINO's by rounding (sums in another
    #: order, approximated functions): ``irrun compare`` then accepts differences within
    #: :data:`irrun.compare.ROUNDING_RTOL`. False for ops whose float outputs are OpenVINO's
    #: exactly (data movement, selection, max/min, sign, floor and the like): any difference
    #: of theirs is one.
    rounds = True
    #: Whether the rule reads nothing but the layer's attributes and what flows in, so that
    #: validation may give an identical layer (same op, attributes and inputs) the outputs it
    #: inferred before, without building the op. False for rules that look further (the graph,
    #: state variables, sub-graph bodies).
    memoizable = True

    def __init__(self, layer, context: OpContext):
        self.layer = layer
        self.context = context
        declared = self.attributes
        if declared is not None:
            self._parse_attributes(declared)
        if type(self).setup is not Op.setup:  # (most ops check nothing across attributes)
            self.setup()

    def setup(self) -> None:
        """Checks across attributes, after they are parsed (report problems, set
        ``incomplete``); the default does nothing."""

    @property
    def label(self) -> str:
        """``Concat-1``: type and op version, as the OpenVINO specification names ops."""
        return f"{self.type}-{self.version}"

    def infer(self, inputs: list[TensorInfo]) -> list[TensorInfo] | None:
        """Infer the outputs from the inputs; return ``None`` when nothing can be said
        (the declared output dims are then trusted)."""
        return None

    def evaluate(self, inputs: list) -> list:
        """Compute the outputs (numpy arrays) from the inputs (numpy arrays)."""
        raise NotImplementedError(f"{self.label} has no kernel")

    # -- attributes -----------------------------------------------------------------------
    def _parse_attributes(self, declared) -> None:
        given = self.layer.attributes
        # Real models repeat attribute sets (strides="1,1" pads_begin="1,1" ...): one parsed
        # without any problem is parsed once per op class.
        key = (type(self), id(declared), *given.items())
        parsed = _PARSED.get(key)
        if parsed is not None:
            if type(parsed) is dict:  # no list to copy, no property to go through
                self.__dict__.update(parsed)
                return
            for field, value in parsed:
                setattr(self, field, value if type(value) is not list else list(value))
            return
        known = 0
        values = []
        for attribute, field in _plan(type(self), declared):
            text = given.get(attribute.name)
            if text is None:
                if attribute.required:
                    self._report_missing(attribute)
                value = attribute.default
            else:
                known += 1
                kind = attribute.kind
                if kind == "int" and len(text) < 19 and text.isdigit() and text.isascii():
                    value = int(text)  # the common case, without the parser
                else:
                    value = self._parse_value(attribute, text)
            setattr(self, field, value)
            values.append((field, value if type(value) is not list else list(value)))
        if known < len(given):
            self._report_unknown(declared)
        elif not self.incomplete and len(_PARSED) < _PARSED_LIMIT:  # nothing was reported
            _PARSED[key] = _stored(type(self), values)

    def _parse_value(self, attribute: Attribute, text: str):
        try:
            value = _parsed(attribute.kind, text)
        except ValueError as exc:
            self._report_bad_value(attribute, text, str(exc))
            return attribute.default
        if type(value) is tuple:  # lists are kept as tuples by the cache
            return list(value)
        if attribute.kind == "enum":
            lowered = value.strip().lower()
            for choice in attribute.choices:
                if choice.lower() == lowered:
                    return choice
            self._report_bad_value(attribute, text, "one of " + ", ".join(attribute.choices))
            return attribute.default
        return value

    def _report_missing(self, attribute: Attribute) -> None:
        default = attribute.default
        shown = "nothing" if default is None else _spelled(default) or "an empty value"
        value = "..."
        if len(attribute.choices) == 1:
            # (BinaryConvolution's one mode: nothing else could have been meant)
            outcome = "its only value, but the specification requires the attribute"
            value = attribute.choices[0]
        else:
            outcome = "which is rarely what was meant"
        self.context.error(
            "missing-attribute",
            f"{self.describe()} has no '{attribute.name}' attribute; OpenVINO silently uses "
            f"{shown}, {outcome}",
            hint=f'add {attribute.name}="{value}" to the layer\'s <data> element',
            line=self.layer.data_line,
        )
        self.incomplete = True

    def _report_bad_value(self, attribute: Attribute, text: str, expected: str) -> None:
        example = attribute.choices[0] if attribute.choices else _spelled(attribute.default)
        self.context.error(
            "attribute-value",
            f"{self.describe()}: attribute {attribute.name}={short_text(text)!r} is not {expected}",
            hint=f'write it as {expected}, e.g. {attribute.name}="{example}"',
            line=self.layer.data_line,
        )
        self.incomplete = True

    def _report_unknown(self, declared) -> None:
        version = self.version
        mine = {a.name for a in declared if a.exists_in(version)}
        for name, text in self.layer.attributes.items():
            if name in mine:
                continue
            elsewhere = [a for a in declared if a.name == name]
            if elsewhere:
                versions = _versions_text(self.type, elsewhere[0])
                why = f"{name} exists only in {versions}"
                hint = f"use {versions} or remove the attribute"
            else:
                close = difflib.get_close_matches(name, sorted(mine), n=1, cutoff=0.6)
                why = "OpenVINO ignores it"
                hint = (
                    f"did you mean {close[0]}?"
                    if close
                    else (f"{self.label} has " + (", ".join(sorted(mine)) or "no attributes"))
                )
            self.context.warning(
                "unknown-attribute",
                f"{self.describe()}: attribute {short_text(name)}={short_text(text)!r} is not "
                f"an attribute of {self.label}; {why}",
                hint=hint,
                line=self.layer.data_line,
            )

    def int_attribute(self, name: str, default=None, *, required: bool = False):
        """Read an integer attribute that is not declared (user ops), reporting a missing or
        malformed one like declared attributes are."""
        text = self.layer.attributes.get(name)
        attribute = Attribute(name, "int", default, required)
        if text is None:
            if required:
                self._report_missing(attribute)
            return default
        return self._parse_value(attribute, text)

    # -- helpers shared by op classes -----------------------------------------------------
    def describe(self) -> str:
        """``layer 1 'concat' (Concat-1)``."""
        return f"layer {self.layer.id}{short_repr(self.layer.name)} ({self.label})"

    def input_port(self, index: int):
        """The layer's input port at position ``index`` (or ``None``)."""
        ports = self.layer.inputs
        return ports[index] if index < len(ports) else None

    def output_port(self, index: int = 0):
        """The layer's output port at position ``index`` (or ``None``)."""
        ports = self.layer.outputs
        return ports[index] if index < len(ports) else None


_PLANS: dict[type, tuple] = {}

#: (op class, declared attributes, attributes as written) -> ((field, value), ...), or a
#: dict of them (see _stored): sets parsed without a problem (lists are copied out: an op
#: may change its own).
_PARSED: dict[tuple, tuple | dict] = {}
_PARSED_LIMIT = 1 << 14


def _plan(op_class: type, declared) -> tuple:
    """``(attribute, field)`` for each declared attribute the class's version has (once per
    class: the walk builds an op per layer)."""
    plan = _PLANS.get(op_class)
    if plan is None or plan[0] is not declared:
        version = op_class.version
        plan = _PLANS[op_class] = (declared, tuple((a, a.field) for a in declared
                                                   if a.exists_in(version)))  # fmt: skip
    return plan[1]


def _stored(op_class: type, values: list) -> dict | tuple:
    """What :data:`_PARSED` keeps of a parsed set: a dict the instance's ``__dict__`` takes as
    it is when no value is a list (copied per op) and no field is a class attribute with a
    setter (which ``setattr`` would call); else the ``(field, value)`` pairs."""
    for field, value in values:
        if type(value) is list or hasattr(type(getattr(op_class, field, None)), "__set__"):
            return tuple(values)
    return dict(values)


@lru_cache(maxsize=4096)
def _parsed(kind: str, text: str):
    """``KINDS[kind](text)``, once per spelling (real models repeat ``strides="1,1"`` and
    ``auto_broadcast="numpy"`` hundreds of times); lists come back as tuples."""
    value = KINDS[kind](text)
    return tuple(value) if type(value) is list else value


def _spelled(value) -> str:
    """An attribute value as IR text (``true``, ``1,2``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    return "" if value is None else str(value)


def _versions_text(op_type: str, attribute: Attribute) -> str:
    if attribute.until is None:
        return f"{op_type}-{attribute.since} and later"
    if attribute.since == attribute.until:
        return f"{op_type}-{attribute.since}"
    return f"{op_type}-{attribute.since} to {op_type}-{attribute.until}"


def common_element_type(op: Op, inputs: list[TensorInfo], what: str = "inputs", ports=None):
    """The one element type of ``inputs`` (ignoring dynamic), reporting ``input-type`` when they
    differ and returning ``None``. ``ports``: the input positions concerned (default: all)."""
    if ports is None and len(inputs) == 2:  # the common case: two inputs of one known type
        first = inputs[0].element_type
        if first is inputs[1].element_type and first.name != "dynamic":
            return first
    positions = range(len(inputs)) if ports is None else ports
    known = [(i, inputs[i].element_type) for i in positions
             if inputs[i].element_type.name != "dynamic"]  # fmt: skip
    if len({etype for _, etype in known}) > 1:
        listing = ", ".join(f"input {i} is {etype}" for i, etype in known)
        op.context.error(
            "input-type",
            f"{op.describe()}: all {what} must have one element type, but {listing}",
            hint="insert a Convert so that every input has the same element type",
        )
        return None
    if known:
        return known[0][1]
    return inputs[positions[0]].element_type if len(positions) else DYNAMIC_TYPE


def normalize_axis_or_report(op: Op, axis: int, rank: int, what: str = "axis",
                             port_index: int | None = None):  # fmt: skip
    """Return ``axis`` normalised into ``[0, rank)``, or report ``axis-range`` (on input
    ``port_index`` when the axis comes from an input) and return None."""
    if -rank <= axis < rank:
        return axis + rank if axis < 0 else axis
    op.context.error(
        "axis-range",
        f"{op.describe()}: {what} {axis} is out of the range [{-rank}, {rank - 1}] allowed "
        f"for rank {rank}",
        port=None if port_index is None else op.input_port(port_index),
        hint=f"use {'an' if what[0] in 'aeiou' else 'a'} {what} between {-rank} and {rank - 1}",
    )
    return None


def normalize_axes_or_report(op: Op, axes, rank: int, what: str = "axis",
                             port_index: int | None = None, unique: bool = True, *,
                             scalar: bool = False, line: int | None = None):  # fmt: skip
    """``axes`` (ints) normalised into ``[0, rank)``; reports ``axis-range`` for one out of
    range and (when ``unique``) for one given twice; ``None`` then. ``scalar``: data of rank 0
    takes the axes of rank 1 (``-1`` and ``0``, normalised to ``0``), as OpenVINO's reductions
    and Squeeze do. ``line``: the XML line of an error when the axes are an attribute."""
    axes = [int(axis) for axis in axes]
    bound = max(rank, 1) if scalar else rank
    result = []
    for axis in axes:
        if not -bound <= axis < bound:
            listed = f" of {axes}" if len(axes) > 1 else ""
            port = None if port_index is None else op.input_port(port_index)
            scalar_note = " (a scalar takes -1 and 0)" if scalar and rank == 0 else ""
            op.context.error(
                "axis-range",
                f"{op.describe()}: {what} {axis}{listed} is out of the range [{-bound}, "
                f"{bound - 1}] allowed for rank {rank}{scalar_note}",
                port=port,
                line=line,
                hint=f"use {'an' if what[0] in 'aeiou' else 'a'} {what} between {-bound} and "
                f"{bound - 1}",
            )
            return None
        normalised = axis + bound if axis < 0 else axis
        if unique and normalised in result:
            port = None if port_index is None else op.input_port(port_index)
            op.context.error(
                "axis-range",
                f"{op.describe()}: {what} {axis} is given twice in {axes} (normalised "
                f"for rank {rank}: {normalised})",
                port=port,
                line=line,
                hint=f"list each {what} once",
            )
            return None
        result.append(normalised)
    return result


_ZERO = static_dim(0)


def lazy_text(template: str, *values):
    """A ``why`` for :class:`TensorInfo` that formats ``template`` with ``values`` only when a
    message shows it (most inferred shapes are never explained; formatting shapes is not free).

    >>> lazy_text("{} and {}", 1, 2)()
    '1 and 2'
    """
    return partial(template.format, *values)


def sum_dims(dims: list[Dim]) -> Dim:
    """Sum of dimensions (intervals add bound-wise)."""
    total = _ZERO
    for dim in dims:
        total = total + dim
    return total
