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

from dataclasses import dataclass

from irrun.element_types import ELEMENT_TYPES, ElementType
from irrun.errors import IRError
from irrun.shape import Dim, Shape, static_dim
from irrun.text import short_repr, short_text

__all__ = ["Op", "TensorInfo", "OpContext", "DYNAMIC_TYPE", "normalize_axis_or_report"]

DYNAMIC_TYPE = ELEMENT_TYPES["dynamic"]


@dataclass(slots=True)
class TensorInfo:
    """What is known of a tensor before running anything.

    Attributes
    ----------
    shape : Shape
        Its partial shape.
    element_type : ElementType
        Its element type (``dynamic`` when unknown).
    value : numpy.ndarray or None
        Its value, when it is a constant (or folded from constants).
    why : str or callable
        How an op computed the shape, shown in messages (``axis 1: 8 + 16 + 32 = 56``); a
        callable returning that text when building it costs more than it is worth up front.
    """

    shape: Shape
    element_type: ElementType = DYNAMIC_TYPE
    value: object = None
    why: object = ""

    def explain(self) -> str:
        """The ``why`` text."""
        return self.why() if callable(self.why) else self.why


class OpContext:
    """Where an op reports problems. Validation collects them as diagnostics;
    a plain ``OpContext`` (used when no report is wanted) raises on the first error."""

    def error(self, code: str, message: str, *, port=None, hint=None, line=None) -> None:
        """Report an error of this layer (``port``: the :class:`~irrun.model.Port` concerned;
        ``line``: the XML line when it is not the port's or the layer's)."""
        raise IRError(message)

    def warning(self, code: str, message: str, *, port=None, hint=None, line=None) -> None:
        """Report a warning of this layer."""


class Op:
    """Base class of an op version. Subclasses set ``type`` and ``version``, parse their
    attributes in ``__init__`` and implement :meth:`infer` (and :meth:`evaluate` when
    irrun can run them).

    Attributes
    ----------
    type : str
        The op type as OpenVINO spells it (``Concat``).
    version : int
        The op version (``8`` for Gather-8).
    inputs : tuple of int
        ``(minimum, maximum)`` number of inputs; ``maximum`` ``None`` = unbounded.
    """

    type = ""
    version = 1
    inputs: tuple[int, int | None] = (1, 1)
    #: Set when a required attribute is missing or malformed: the walk then trusts the
    #: declared outputs instead of inferring from a guessed value (no follow-on errors).
    incomplete = False
    #: ``quick_outputs(layer)``, for ops without inputs: what :meth:`infer` would give for a
    #: plainly written layer, computed without building the op; ``None`` from it (or no
    #: function) means build the op as usual.
    quick_outputs = None

    def __init__(self, layer, context: OpContext):
        self.layer = layer
        self.context = context

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

    # -- helpers shared by op classes -----------------------------------------------------
    def int_attribute(self, name: str, default=None, *, required: bool = False):
        """Read an integer attribute, reporting a missing or malformed one.

        A missing required attribute is reported (``missing-attribute``) and
        ``default`` used, as OpenVINO silently does.
        """
        layer = self.layer
        text = layer.attributes.get(name)
        if text is not None and len(text) < 19 and text.isdigit() and text.isascii():
            return int(text)  # the common case: a plain non-negative number
        if text is None:
            if required:
                self.context.error(
                    "missing-attribute",
                    f"{self.describe()} has no '{name}' attribute; OpenVINO silently uses "
                    f"{default}, which is rarely what was meant",
                    hint=f'add {name}="..." to the layer\'s <data> element',
                    line=layer.data_line,
                )
                self.incomplete = True
            return default
        try:
            return layer.attribute_int(name)
        except IRError:
            self.context.error(
                "attribute-value",
                f"{self.describe()}: attribute {name}={short_text(layer.attributes[name])!r} "
                "is not an integer",
                hint=f'write {name} as a whole number, e.g. {name}="{default or 0}"',
                line=layer.data_line,
            )
            self.incomplete = True
            return default

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


_ZERO = static_dim(0)


def sum_dims(dims: list[Dim]) -> Dim:
    """Sum of dimensions (intervals add bound-wise)."""
    total = _ZERO
    for dim in dims:
        total = total + dim
    return total
