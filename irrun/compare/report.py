"""The result of a comparison: one :class:`TensorComparison` per tensor, and the whole
:class:`Comparison` with its text, JSON and HTML forms."""

from __future__ import annotations

from dataclasses import dataclass, field

from irrun.compare.common import (
    DIFFERS,
    DOWNSTREAM,
    KNOWN,
    MATCH,
    NOT_COMPARED,
    ROUNDING,
    _json_number,
    _location,
    _number,
)
from irrun.shape import Shape


@dataclass
class TensorComparison:
    """One layer output, as irrun and OpenVINO computed it.

    ``status`` is ``"match"`` (the same bits), ``"rounding"`` (differs by float rounding
    only: the layer's own result is OpenVINO's within ``tolerance`` of OpenVINO's largest
    magnitude, and so is every difference above it), ``"differs"`` (a first divergence
    nothing known explains), ``"downstream"`` (differs because an input already differed;
    ``cause`` names where the difference started), ``"known-deviation"`` (``deviation`` names
    the CPU-plugin behaviour) or ``"not-compared"`` (``reason`` says why). ``isolated``: the
    layer's inputs differed, so it was run again on OpenVINO's own inputs to judge it; for a
    ``differs`` found that way the numbers are those of that run. ``relative_diff`` is the
    largest ``|irrun - OpenVINO|`` over OpenVINO's largest magnitude (floats of ops that
    round), ``own_relative_diff`` the same for the run on OpenVINO's inputs (``0.0``: exact).
    For a tensor that differs, ``differing`` counts
    the elements whose bits differ, ``first_index`` is the first of them in C order, with both
    values as printed, ``max_abs_diff`` is the largest ``|irrun - OpenVINO|`` among pairs
    without NaN, ``max_ulp`` the largest distance in units in the last place (floats, from their
    integer views; NaN pairs excluded) and ``nan_mismatches`` counts NaN against a number.
    ``inferred_shape``/``element_type`` are irrun's inference for the port,
    ``openvino_shape``/``openvino_type`` OpenVINO's after ``read_model``; the shapes agree when
    no size one allows is excluded by the other (see :attr:`shape_precision`).
    """

    tensor: str
    layer: str
    layer_id: int
    layer_name: str
    layer_type: str
    op: str
    port: int
    output_index: int
    line: int | None
    status: str
    deviation: str | None = None
    cause: str | None = None
    reason: str | None = None
    elements: int | None = None
    differing: int | None = None
    first_index: tuple | None = None
    irrun_value: str | None = None
    openvino_value: str | None = None
    max_abs_diff: float | int | None = None
    max_ulp: int | None = None
    nan_mismatches: int | None = None
    inferred_shape: str | None = None
    openvino_shape: str | None = None
    element_type: str | None = None
    openvino_type: str | None = None
    isolated: bool = False
    relative_diff: float | None = None
    own_relative_diff: float | None = None
    tolerance: float | None = None

    @property
    def where(self) -> str:
        """``layer 4 'cat' (Concat) output port 2``."""
        return f"{self.layer} output port {self.port}"

    @property
    def shape_agrees(self) -> bool | None:
        """Whether irrun's inferred shape and OpenVINO's are compatible: some shape fits both
        (``None``: OpenVINO has no such port). Where one knows more than the other, the two
        still agree; :attr:`shape_precision` says which knows more."""
        precision = self.shape_precision
        return None if precision is None else precision != "incompatible"

    @property
    def shape_precision(self) -> str | None:
        """irrun's inferred shape against OpenVINO's: ``same``; ``more`` (irrun's lies within
        OpenVINO's, e.g. ``[?,64,7]`` in ``[?,?,?]``: a size OpenVINO leaves open is known);
        ``less`` (OpenVINO's lies within irrun's: a limit of irrun's inference); ``other``
        (compatible, each knowing something the other does not); ``incompatible``; ``None``
        when OpenVINO has no such port."""
        if self.openvino_shape is None:
            return None
        if self.inferred_shape == self.openvino_shape:
            return "same"
        ours, theirs = Shape.parse(self.inferred_shape), Shape.parse(self.openvino_shape)
        if not ours.compatible(theirs):
            return "incompatible"
        if theirs.relaxes(ours):
            return "more"
        if ours.relaxes(theirs):
            return "less"
        return "other"

    @property
    def type_agrees(self) -> bool | None:
        """Whether irrun's inferred element type is OpenVINO's (``None``: not known)."""
        if self.openvino_type is None or self.element_type is None:
            return None
        return self.element_type == self.openvino_type

    @property
    def values_differ(self) -> bool:
        """True for every status but ``match`` and ``not-compared``."""
        return self.status in (ROUNDING, DIFFERS, DOWNSTREAM, KNOWN)

    def details(self) -> str:
        """The numbers: ``1 of 12 elements differ, first at [0,4]: irrun 6.0, ...``."""
        if self.differing is None:
            return self.reason or ""
        index = "[" + ",".join(map(str, self.first_index)) + "]"
        text = (
            f"{self.differing} of {self.elements} element{'' if self.elements == 1 else 's'} "
            f"differ, first at {index}: irrun {self.irrun_value}, OpenVINO {self.openvino_value}"
        )
        if self.max_abs_diff is not None:
            text += f"; max abs diff {_number(self.max_abs_diff)}"
        if self.max_ulp is not None:
            text += f", max ULP {self.max_ulp}"
        if self.nan_mismatches:
            text += f"; {self.nan_mismatches} NaN against a number"
        if self.max_abs_diff == 0 and not self.nan_mismatches:
            text += " (bits only: -0.0 against 0.0 or NaN payloads)"
        if self.relative_diff is not None and self.max_abs_diff:
            text += f", {self.relative_diff:.1e} of the largest |value|"
        return text

    def shape_text(self) -> str:
        """``""``, or what irrun and OpenVINO infer when their inferences are not the same."""
        parts = []
        precision = self.shape_precision
        if precision == "incompatible":
            parts.append(
                f"shape DIFFERS: irrun infers {self.inferred_shape}, OpenVINO {self.openvino_shape}"
            )
        elif precision in _PRECISION_TEXTS:
            parts.append(
                f"shape: irrun infers {self.inferred_shape}, {_PRECISION_TEXTS[precision]} "
                f"OpenVINO's {self.openvino_shape}"
            )
        if self.type_agrees is False:
            parts.append(
                f"element type DIFFERS: irrun infers {self.element_type}, "
                f"OpenVINO {self.openvino_type}"
            )
        return "; ".join(parts)

    def verdict(self) -> str:
        """The status as one phrase with its numbers (a line of :meth:`Comparison.to_text`)."""
        if self.status == MATCH:
            text = "match"
        elif self.status == ROUNDING:
            if self.isolated and self.own_relative_diff == 0:
                how = "inherited: on OpenVINO's inputs it gives OpenVINO's result exactly"
            elif self.isolated and self.own_relative_diff is not None:
                how = (f"on OpenVINO's inputs it differs by {self.own_relative_diff:.1e} of the "
                       f"largest |value|, within the tolerance {self.tolerance:g}")  # fmt: skip
            elif not self.isolated and self.tolerance:
                how = f"within the tolerance {self.tolerance:g}"
            else:  # (its inputs differ by rounding; it could not be run again on OpenVINO's)
                how = "inherited"
            text = f"within rounding ({how}): {self.details()}"
        elif self.status == DIFFERS:
            own = " on OpenVINO's own inputs" if self.isolated else ""
            text = f"DIFFERS{own}: {self.details()}"
        elif self.status == DOWNSTREAM:
            text = f"DIFFERS downstream of {self.cause}: {self.details()}"
        elif self.status == KNOWN:
            text = f"known CPU deviation: {self.deviation}; {self.details()}"
        else:
            text = f"not compared: {self.reason}"
        shapes = self.shape_text()
        return f"{text}; {shapes}" if shapes else text

    def to_dict(self) -> dict:
        """The JSON form (one entry of ``tensors`` in ``irrun compare --format json``)."""
        return {
            "tensor": self.tensor,
            "layer": {"id": self.layer_id, "name": self.layer_name, "type": self.layer_type,
                      "op": self.op},
            "port": self.port,
            "output_index": self.output_index,
            "line": self.line,
            "status": self.status,
            "deviation": self.deviation,
            "cause": self.cause,
            "reason": self.reason,
            "elements": self.elements,
            "differing": self.differing,
            "first_index": list(self.first_index) if self.first_index is not None else None,
            "irrun_value": self.irrun_value,
            "openvino_value": self.openvino_value,
            "max_abs_diff": _json_number(self.max_abs_diff),
            "max_ulp": self.max_ulp,
            "nan_mismatches": self.nan_mismatches,
            "inferred_shape": self.inferred_shape,
            "openvino_shape": self.openvino_shape,
            "shape_agrees": self.shape_agrees,
            "shape_precision": self.shape_precision,
            "element_type": self.element_type,
            "openvino_type": self.openvino_type,
            "type_agrees": self.type_agrees,
            "isolated": self.isolated,
            "relative_diff": _json_number(self.relative_diff),
            "own_relative_diff": _json_number(self.own_relative_diff),
            "tolerance": self.tolerance,
        }  # fmt: skip


@dataclass
class Comparison:
    """What :func:`compare` found: one :class:`TensorComparison` per layer output, in
    execution order. ``irrun_error`` is set when irrun stopped part-way (the tensors it did not
    compute are ``not-compared``)."""

    file: str
    device: str
    openvino_version: str
    tensors: list[TensorComparison] = field(default_factory=list)
    irrun_error: str | None = None
    irrun_error_line: int | None = None
    #: Layers irrun has no kernel for, whose OpenVINO outputs were fed to the layers after.
    bridged: list[str] = field(default_factory=list)
    #: The rounding tolerance used, as text (``bit for bit``, ``f64 1e-10, f32 0.0001, ...``).
    rtol: str = ""
    #: How many parts the layers were compared in (more than 1: their tensors together
    #: outgrew ``compare``'s memory limit).
    passes: int = 1

    @property
    def ok(self) -> bool:
        """No unexplained divergence: every tensor matches, differs by rounding only or
        through a known CPU deviation (or downstream of one), shapes and element types agree,
        and irrun ran."""
        return (
            self.irrun_error is None
            and not any(t.status == DIFFERS for t in self.tensors)
            and all(t.shape_agrees is not False for t in self.tensors)
            and all(t.type_agrees is not False for t in self.tensors)
        )

    @property
    def short_version(self) -> str:
        """``2026.4.1`` of ``2026.4.1-22982-e213a147257-releases/2026/4``."""
        return self.openvino_version.split("-")[0]

    @property
    def first_divergence(self) -> TensorComparison | None:
        """The first tensor that differs with no known explanation, or ``None``."""
        return next((t for t in self.tensors if t.status == DIFFERS), None)

    def counts(self) -> dict[str, int]:
        """Tensors per status, plus ``shape_mismatches`` (shape or element type) and the
        shapes irrun infers more / less precisely than OpenVINO (``shapes_more_precise``,
        ``shapes_less_precise``; ``other`` ones count in neither)."""
        statuses = (MATCH, ROUNDING, DIFFERS, DOWNSTREAM, KNOWN, NOT_COMPARED)
        counts = {status: 0 for status in statuses}
        for tensor in self.tensors:
            counts[tensor.status] += 1
        counts["shape_mismatches"] = sum(
            t.shape_agrees is False or t.type_agrees is False for t in self.tensors
        )
        precisions = [t.shape_precision for t in self.tensors]
        counts["shapes_more_precise"] = precisions.count("more")
        counts["shapes_less_precise"] = precisions.count("less")
        return counts

    def summary(self) -> str:
        """``3 tensors: 2 match, 1 differs, ...; shapes agree``."""
        counts = self.counts()
        text = (
            f"{len(self.tensors)} tensor{'' if len(self.tensors) == 1 else 's'}: "
            f"{counts[MATCH]} match, "
            f"{counts[ROUNDING]} within rounding, "
            f"{counts[DIFFERS]} differ{'s' if counts[DIFFERS] == 1 else ''}, "
            f"{counts[DOWNSTREAM]} downstream, "
            f"{counts[KNOWN]} known CPU deviation{'' if counts[KNOWN] == 1 else 's'}, "
            f"{counts[NOT_COMPARED]} not compared; "
        )
        mismatches = counts["shape_mismatches"]
        text += f"{mismatches} shape/type disagreement(s)" if mismatches else "shapes agree"
        more, less = counts["shapes_more_precise"], counts["shapes_less_precise"]
        if more or less:
            text += (f" (irrun infers {more} shape(s) more precisely than OpenVINO, {less} less "
                     "precisely)")  # fmt: skip
        if self.bridged:
            text += f"; {len(self.bridged)} layer(s) bridged with OpenVINO's outputs"
        if self.passes > 1:
            text += f"; compared in {self.passes} parts to stay within the memory limit"
        first = self.first_divergence
        if first is not None:
            text += f"; first divergence: {first.where} (line {first.line})"
        return text

    def to_text(self) -> str:
        """One line per tensor (``FILE:LINE: layer ... output port N: verdict``), then the
        summary line."""
        lines = [f"{_location(self.file, t.line)}: {t.where}: {t.verdict()}" for t in self.tensors]
        if self.irrun_error is not None:
            where = _location(self.file, self.irrun_error_line)
            lines.append(f"{where}: irrun stopped: {self.irrun_error}")
        if self.bridged:
            lines.append(
                f"{self.file}: bridged {len(self.bridged)} layer(s) irrun has no kernel for "
                f"with OpenVINO's outputs: {', '.join(self.bridged)}"
            )
        # (the tolerance is named where it decided something, or when it is none)
        shown = self.rtol and (self.rtol == "bit for bit" or self.counts()[ROUNDING])
        tolerance = f" (rounding tolerance: {self.rtol})" if shown else ""
        lines.append(
            f"{self.file}: irrun vs OpenVINO {self.short_version} on {self.device}{tolerance}: "
            f"{self.summary()}"
        )
        return "\n".join(lines)

    def to_dict(self) -> dict:
        """The JSON form (``irrun compare --format json``, schema ``irrun.compare/4``: version
        3 had no ``passes``; version 2 had no ``shape_precision``, ``shapes_more_precise`` or
        ``shapes_less_precise``, and its ``shape_agrees`` was true only for identical shapes;
        version 1 had no ``rounding`` status, ``rtol``, ``isolated``, ``relative_diff`` or
        ``tolerance``)."""
        return {
            "schema": "irrun.compare/4",
            "file": self.file,
            "device": self.device,
            "openvino_version": self.openvino_version,
            "rtol": self.rtol,
            "ok": self.ok,
            "summary": {
                "tensors": len(self.tensors),
                **{key.replace("-", "_"): value for key, value in self.counts().items()},
            },
            "irrun_error": self.irrun_error,
            "irrun_error_line": self.irrun_error_line,
            "bridged": self.bridged,
            "passes": self.passes,
            "tensors": [t.to_dict() for t in self.tensors],
        }

    def _repr_html_(self) -> str:
        from html import escape

        from irrun.render.html import html_table

        colors = {MATCH: "#2e7d32", ROUNDING: "#558b2f", DIFFERS: "#c62828",
                  DOWNSTREAM: "#ef6c00", KNOWN: "#1565c0"}  # fmt: skip
        rows = []
        for t in self.tensors:
            color = colors.get(t.status, "#333")
            verdict = t.verdict() if t.status != MATCH or t.shape_text() else ""
            rows.append((
                str(t.line or ""),
                escape(t.layer),
                str(t.port),
                f"<span style='color:{color};font-weight:bold'>{escape(t.status)}</span>",
                escape(verdict),
                escape(t.inferred_shape or ""),
                escape(t.openvino_shape or ""),
            ))  # fmt: skip
        headers = ("line", "layer", "port", "status", "verdict", "irrun shape", "OpenVINO shape")
        table = html_table(headers, rows)
        stopped = f"<p>irrun stopped: {escape(self.irrun_error)}</p>" if self.irrun_error else ""
        title = escape(f"irrun vs OpenVINO {self.short_version} on {self.device}")
        return f"<div><b>{title}</b>{table}{stopped}<p>{escape(self.summary())}</p></div>"

    def __repr__(self) -> str:
        return f"<Comparison {'ok' if self.ok else 'DIFFERS'}: {self.summary()}>"


#: How irrun's inferred shape relates to OpenVINO's, as the per-tensor line says it.
_PRECISION_TEXTS = {
    "more": "more precise than",
    "less": "less precise than",
    "other": "neither within nor around",
}
