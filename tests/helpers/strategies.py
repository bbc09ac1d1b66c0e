"""Hypothesis strategies and small helpers shared by the op tests (``tests/ops``).

Partial shapes are drawn as OpenVINO's text (``"[2,?,1..4]"``, ``"[...]"``), the form
:func:`tests.helpers.openvino_oracle.parameter` takes. A dimension is one of

- a static size: ``"3"``;
- unknown: ``"?"``;
- an interval: ``"2..5"``;
- an open interval: ``"2.."`` (no upper bound) or ``"..4"`` (lower bound 0);

and a whole shape may be of dynamic rank, ``"[...]"``.

Strategies:

- :func:`dim_text`: a dim that draws its own size (static, ``?``, interval, ``low..``,
  ``..high``);
- :func:`dim_around`: a dim whose range holds a given size (for shapes that must fit an op,
  e.g. a convolution's channels);
- :func:`shape_text`: a shape of any dims strategy, maybe of dynamic rank;
- :func:`shape_around`: a shape of given sizes, each drawn by :func:`dim_around`, maybe of
  dynamic rank.

Helpers: :func:`op_settings` (the settings of the op tests), :func:`built` (an OpenVINO node
or reject the example), :func:`bare_op`, :func:`const_info` and :func:`shape_of_info` (an op
and its inputs without a model, to call ``infer`` directly), :func:`validated` and
:func:`edited_report` (irrun's report of a net or of an edited OpenVINO model),
:func:`diagnostic` and :func:`first_line_with` (checking a reported diagnostic).
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from types import SimpleNamespace

import numpy as np
from hypothesis import HealthCheck, assume, settings
from hypothesis import strategies as st

import irrun
from irrun.element_types import element_type
from irrun.ops._values import elements_from_shape
from irrun.ops.base import OpContext, TensorInfo
from irrun.shape import Shape

__all__ = [
    "bare_op",
    "built",
    "const_info",
    "diagnostic",
    "dim_around",
    "dim_text",
    "edited_report",
    "first_line_with",
    "op_settings",
    "shape_around",
    "shape_of_info",
    "shape_text",
    "validated",
]


# -- settings -----------------------------------------------------------------------------------
def op_settings(
    max_examples: int = 40, *, suppress_too_slow: bool = True, rejects_many: bool = False
) -> settings:
    """The settings of an op test: ``max_examples`` examples, no deadline (OpenVINO's first
    call is slow), and the ``too_slow`` health check suppressed unless ``suppress_too_slow``
    is false. ``rejects_many``: most examples drawn are ones OpenVINO refuses and the test
    rejects (:func:`built`) on purpose, so the ``filter_too_much`` check is suppressed too
    (it would fail now and then)."""
    checks = [HealthCheck.too_slow] if suppress_too_slow else []
    if rejects_many:
        checks.append(HealthCheck.filter_too_much)
    if not checks:  # the health checks of the current profile
        return settings(max_examples=max_examples, deadline=None)
    return settings(max_examples=max_examples, deadline=None, suppress_health_check=checks)


# -- dims and shapes ----------------------------------------------------------------------------
def _bracketed(dims: Iterable[str]) -> str:
    return "[" + ",".join(dims) + "]"


@st.composite
def dim_text(
    draw,
    sizes: st.SearchStrategy[int] | None = None,
    *,
    max_width: int = 5,
    static_weight: int = 2,
) -> str:
    """One dim that draws its own size from ``sizes`` (0 to 6 when None): the static size
    (``static_weight`` times as likely as each other kind), ``?``, an interval
    ``size..size + w`` (``w`` from 1 to ``max_width``), ``size..`` or ``..size + 1``."""
    kinds = ["static"] * static_weight + ["?", "interval", "low", "high"]
    kind = draw(st.sampled_from(kinds))
    size = draw(st.integers(0, 6) if sizes is None else sizes)
    if kind == "static":
        return str(size)
    if kind == "?":
        return "?"
    if kind == "low":
        return f"{size}.."
    if kind == "high":
        return f"..{size + 1}"
    return f"{size}..{size + draw(st.integers(1, max_width))}"


@st.composite
def dim_around(draw, size: int, *, open_intervals: bool = True, max_above: int = 4) -> str:
    """One dim whose range holds ``size``: ``size`` itself (three times as likely as each other
    kind), ``?``, an interval ``low..high`` with ``low`` from 0 to ``size`` and
    ``high`` from ``size`` to ``size + max_above``, and with ``open_intervals`` also
    ``low..``."""
    kinds = ["static"] * 3 + ["?", "interval"] + (["open"] if open_intervals else [])
    kind = draw(st.sampled_from(kinds))
    if kind == "static":
        return str(size)
    if kind == "?":
        return "?"
    low = draw(st.integers(0, size))
    if kind == "open":
        return f"{low}.."
    return f"{low}..{draw(st.integers(size, size + max_above))}"


@st.composite
def shape_text(
    draw,
    dims: st.SearchStrategy[str] | None = None,
    *,
    min_rank: int = 0,
    max_rank: int = 4,
    dynamic_rank: int | None = 9,
) -> str:
    """A shape of ``min_rank`` to ``max_rank`` dims drawn by ``dims`` (:func:`dim_text` by
    default), or, one time in ``dynamic_rank`` (never when None), ``[...]``."""
    if dynamic_rank is not None and draw(st.integers(0, dynamic_rank - 1)) == 0:
        return "[...]"
    dims = dim_text() if dims is None else dims
    return _bracketed(draw(st.lists(dims, min_size=min_rank, max_size=max_rank)))


@st.composite
def shape_around(draw, sizes: Sequence[int], *, dynamic_rank: int | None = 9, **dim) -> str:
    """A shape of the ranks of ``sizes``, each dim drawn by :func:`dim_around` of its size
    (``dim`` are its keyword arguments), or, one time in ``dynamic_rank`` (never when None),
    ``[...]``."""
    if dynamic_rank is not None and draw(st.integers(0, dynamic_rank - 1)) == 0:
        return "[...]"
    return _bracketed(draw(dim_around(size, **dim)) for size in sizes)


# -- building nodes and ops ---------------------------------------------------------------------
def built(build: Callable, errors: type[BaseException] | tuple = RuntimeError):
    """``build()``, or the example rejected (``assume(False)``) when OpenVINO refuses it with
    one of ``errors``."""
    try:
        return build()
    except errors:
        assume(False)


def bare_op(
    op_class,
    attributes: dict | None = None,
    *,
    id="1",  # noqa: A002  (the layer's attribute)
    name: str = "s",
    type: str | None = None,  # noqa: A002
    inputs: Sequence = (),
    outputs: Sequence = (),
    data_line: int | None = None,
    context: OpContext | None = None,
):
    """An op of ``op_class`` on a stand-in layer (no model, no file), to call ``infer`` or
    ``evaluate`` directly; ``context`` defaults to a plain :class:`OpContext`."""
    layer = SimpleNamespace(id=id, name=name, attributes=attributes or {}, data_line=data_line,
                            inputs=list(inputs), outputs=list(outputs))  # fmt: skip
    if type is not None:
        layer.type = type
    return op_class(layer, OpContext() if context is None else context)


def const_info(values, etype: str = "i64") -> TensorInfo:
    """A constant input of ``values`` as ``etype``: its shape, type and value."""
    array = np.array(values, dtype=element_type(etype).numpy_dtype)
    return TensorInfo(Shape(array.shape), element_type(etype), value=array)


def shape_of_info(shape: str | Shape, etype: str = "i64") -> TensorInfo:
    """What irrun's ShapeOf gives for an input of ``shape`` (text or :class:`Shape`): a
    value when every dim is static, else the dims as partial elements."""
    shape = Shape.parse(shape) if isinstance(shape, str) else shape
    info = TensorInfo(Shape([shape.rank]), element_type(etype))
    elements = elements_from_shape(shape)
    if all(isinstance(e, int) for e in elements):
        info.value = np.array(elements, dtype=element_type(etype).numpy_dtype)
    else:
        info.partial = elements
    return info


# -- reports ------------------------------------------------------------------------------------
def validated(net, text: str | None = None, folder: str | Path | None = None):
    """irrun's report of ``net`` (an :class:`tests.helpers.ir_text.Net`) written as ``text``
    (its own text when None) with its ``.bin``, in ``folder`` (a temporary one when None)."""
    if folder is None:
        with tempfile.TemporaryDirectory() as tmp:
            return validated(net, text, tmp)
    with open(f"{folder}/m.xml", "w") as f:
        f.write(net.text() if text is None else text)
    with open(f"{folder}/m.bin", "wb") as f:
        f.write(bytes(net.blob))
    return irrun.load(f"{folder}/m.xml").validate()


def edited_report(model, edit: Callable[[str], str], folder: str | Path | None = None):
    """irrun's report of the OpenVINO ``model`` saved and its XML edited by ``edit``, and the
    edited text, in ``folder`` (a temporary one when None)."""
    from tests.helpers.openvino_oracle import save

    if folder is None:
        with tempfile.TemporaryDirectory() as tmp:
            return edited_report(model, edit, tmp)
    path = save(model, folder)
    text = edit(path.read_text())
    path.write_text(text)
    return irrun.load(path).validate(), text


def diagnostic(report, code: str, *, only: bool = True):
    """The diagnostic with ``code`` of ``report`` (or of a list of diagnostics, such as a
    report's ``errors``): asserted to be there, and with ``only`` to be the only one with that
    code (the report's text is the assertion's message)."""
    found = [d for d in report if d.code == code]
    text = report.to_text() if hasattr(report, "to_text") else found
    assert found, text
    assert not only or len(found) == 1, text
    return found[0]


def first_line_with(text: str, fragment: str) -> int:
    """1-based number of the first line of ``text`` holding ``fragment``."""
    return next(i for i, line in enumerate(text.splitlines(), 1) if fragment in line)
