"""Diagnostics are data: a code, a severity, a location and a message with the arithmetic.

:class:`Diagnostic` is one finding; :class:`Report` is the ordered list of all
of them with a summary. Rendering (text, JSON, HTML) lives in
:mod:`irrun.render`, separate from the data.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Diagnostic", "Report", "CODES"]

#: Every diagnostic code, with its severity and what it means (documented in the README).
CODES = {
    # structure
    "duplicate-layer-id": ("error", "two layers share one id"),
    "duplicate-port-id": ("error", "two input (or two output) ports of a layer share one id"),
    "edge-endpoint": ("error", "an edge names a layer that does not exist"),
    "edge-port": ("error", "an edge names a port the layer does not have in that direction"),
    "multiple-producers": ("error", "an input port is fed by more than one edge"),
    "unconnected-input": ("error", "an input port has no edge feeding it"),
    "cycle": ("error", "the layers form a cycle"),
    "name-collision": ("error", "IR v10: a layer is named like another layer's tensor (refused)"),
    "no-result": ("error", "the model has no Result layer, so no outputs"),
    "unused-parameter": ("warning", "a Parameter feeds nothing"),
    "unknown-op": ("warning", "irrun does not know this op type or version: declared dims trusted"),
    "unknown-opset": ("error", "the version names an opset OpenVINO does not have"),
    "not-in-opset": ("error", "the declared opset does not contain this op type"),
    "unknown-attribute": ("warning", "the op version has no attribute of this name (ignored)"),
    "negative-pad": (
        "warning",
        "a pooling pad below 0, outside the specification (OpenVINO takes it as no padding)",
    ),
    "subgraph-not-checked": ("warning", "a layer of an unknown op has sub-graphs: not checked"),
    "port-map": ("error", "a sub-graph op's port map or back edges do not fit its ports or body"),
    "input-count": ("error", "the layer has the wrong number of inputs or outputs for its op"),
    # edges and declarations
    "edge-dims": ("error", "producer and consumer ports of an edge declare different dims"),
    "edge-type": ("error", "producer and consumer ports of an edge declare different precisions"),
    "shape-mismatch": ("error", "an output port declares dims that the inputs cannot produce"),
    "rank-mismatch": ("error", "an output port declares a different rank than inferred"),
    "type-mismatch": ("error", "an output port's precision differs from the inferred type"),
    # attributes
    "missing-attribute": ("error", "a required attribute is absent (OpenVINO uses a default)"),
    "attribute-value": ("error", "an attribute's value is not of the right form"),
    "axis-range": ("error", "an axis lies outside [-rank, rank-1]"),
    "batch-dims-range": ("error", "batch_dims lies outside what the op allows"),
    # op inputs
    "input-rank": ("error", "an input has a rank the op does not accept"),
    "input-dims": ("error", "inputs disagree on dims that must be equal"),
    "input-type": ("error", "inputs have different element types where one is required"),
    "index-type": ("error", "indices (or the axis) are not of an allowed integer type"),
    "axis-input": ("error", "Gather's axis input is not a scalar or one-element tensor"),
    "index-range": ("error", "constant indices lie outside the data they select from"),
    "input-value": ("error", "a constant input's value is not one the op accepts"),
    # weights
    "bin-range": ("error", "a Const's bytes lie outside the weights file"),
    "const-size": ("error", "a Const's size does not hold its shape of its element type"),
    "internal": ("error", "irrun failed while checking this layer (a bug in irrun)"),
}


@dataclass
class Diagnostic:
    """One problem found in a model.

    Attributes
    ----------
    code : str
        A stable code from :data:`CODES` (``shape-mismatch``).
    severity : str
        ``"error"`` or ``"warning"``.
    message : str
        What is wrong, with the values and the arithmetic.
    file, line
        Where (``line`` is the XML line of the port, layer or edge).
    layer_id, layer_name, layer_type, op
        The layer concerned (``op`` is the resolved op version, ``Concat-1``).
    port : str or None
        ``"output port 3"``, when a port is concerned.
    hint : str or None
        What would fix it.
    notes : list of str
        Follow-on effects grouped under this cause.
    """

    code: str
    severity: str
    message: str
    file: str | None = None
    line: int | None = None
    layer_id: int | None = None
    layer_name: str | None = None
    layer_type: str | None = None
    op: str | None = None
    port: str | None = None
    hint: str | None = None
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        """The JSON form (schema in the README)."""
        layer = None
        if self.layer_id is not None:
            layer = {"id": self.layer_id, "name": self.layer_name, "type": self.layer_type,
                     "op": self.op}  # fmt: skip
        return {
            "code": self.code,
            "severity": self.severity,
            "file": self.file,
            "line": self.line,
            "layer": layer,
            "port": self.port,
            "message": self.message,
            "hint": self.hint,
            "notes": list(self.notes),
        }

    def __str__(self) -> str:
        from irrun.render.text import diagnostic_text

        return diagnostic_text(self)


class Report:
    """The result of :func:`irrun.validate`: every diagnostic, in source order.

    Iterate over it for :class:`Diagnostic` objects; ``ok`` is true when there
    are no errors; ``errors`` and ``warnings`` split them; ``layers_checked`` and
    ``layers_trusted`` count layers whose outputs irrun inferred versus took
    from the file; ``trusted_types`` breaks the trusted ones down by op;
    ``coverage()`` is the line ``irrun validate`` prints about them.
    """

    def __init__(self, file, diagnostics, layers_checked, layers_trusted, snippet_line=None,
                 trusted_types=None, inference_gaps=0):  # fmt: skip
        self.file = file
        #: Output ports of checked layers that declare more than irrun could infer (a static
        #: dim where irrun knows only an interval): limits of irrun's inference, not errors.
        self.inference_gaps = inference_gaps
        #: Trusted layers by op (``ScaledDotProductAttention-13``: count), most first.
        self.trusted_types = dict(
            sorted((trusted_types or {}).items(), key=lambda item: (-item[1], item[0]))
        )
        #: For one of several independent snippets in a fragment file: its first line.
        self.snippet_line = snippet_line
        self.diagnostics = sorted(diagnostics, key=lambda d: (d.line is None, d.line or 0))
        self.layers_checked = layers_checked
        self.layers_trusted = layers_trusted

    @property
    def errors(self) -> list[Diagnostic]:
        """The diagnostics of severity ``error``."""
        return [d for d in self.diagnostics if d.severity == "error"]

    @property
    def warnings(self) -> list[Diagnostic]:
        """The diagnostics of severity ``warning``."""
        return [d for d in self.diagnostics if d.severity == "warning"]

    @property
    def ok(self) -> bool:
        """True when there is no error (warnings allowed)."""
        return not self.errors

    def codes(self) -> list[str]:
        """The codes of all diagnostics, in order (handy in tests and notebooks)."""
        return [d.code for d in self.diagnostics]

    def __iter__(self):
        return iter(self.diagnostics)

    def __len__(self) -> int:
        return len(self.diagnostics)

    def __getitem__(self, index):
        return self.diagnostics[index]

    def summary(self) -> str:
        """``2 errors, 1 warning; 12 layers checked, 3 trusted``."""
        from irrun.render.text import summary_line

        return summary_line(self)

    def coverage(self) -> str:
        """``179 of 182 layers checked (98.4 %); trusted: Broadcast-3 ×3`` (empty when every
        layer was checked and inferred as precisely as declared)."""
        from irrun.render.text import coverage_line

        return coverage_line(self)

    def to_text(self, color: bool = False) -> str:
        """Compiler-style text, one diagnostic per paragraph, then the summary line."""
        from irrun.render.text import report_text

        return report_text(self, color=color)

    def to_dict(self) -> dict:
        """The JSON form (``irrun validate --format json``; schema in the README)."""
        return {
            "schema": "irrun.validate/1",
            "file": self.file,
            "snippet_line": self.snippet_line,
            "ok": self.ok,
            "summary": {
                "errors": len(self.errors),
                "warnings": len(self.warnings),
                "layers_checked": self.layers_checked,
                "layers_trusted": self.layers_trusted,
                "trusted_types": self.trusted_types,
                "inference_gaps": self.inference_gaps,
            },
            "diagnostics": [d.to_dict() for d in self.diagnostics],
        }

    def _repr_html_(self) -> str:
        from irrun.render.html import report_html

        return report_html(self)

    def __repr__(self) -> str:
        return f"<Report {self.summary()}>"
