"""Validation: structure checks and shape/type inference over a loaded model.

:func:`validate` reports every problem at once as a :class:`Report` of
:class:`Diagnostic` objects, in source order.
"""

from __future__ import annotations

from irrun.validation.diagnostics import CODES, Diagnostic, Report

__all__ = ["validate", "Report", "Diagnostic", "CODES"]


def validate(model) -> Report:
    """Check a model: structure, edges, attributes, and inferred vs declared shapes and types.

    Parameters
    ----------
    model : irrun.Model
        A loaded model (or fragment).

    Returns
    -------
    Report
        Every diagnostic in source order; ``report.ok`` is true when there is no
        error. Afterwards each checked port has ``inferred_shape`` and
        ``inferred_type`` next to its ``declared_shape``.

    Examples
    --------
    >>> import irrun
    >>> model = irrun.load('<layer id="1" type="Concat"><data axis="0"/><input>'
    ...     '<port id="0"><dim>2</dim></port><port id="1"><dim>3</dim></port></input>'
    ...     '<output><port id="2"><dim>4</dim></port></output></layer>')
    >>> report = validate(model)
    >>> report.codes()
    ['shape-mismatch']
    >>> print(report[0].message)
    layer 1 (Concat-1) output port 2 declares [4], but its inputs give [5] (axis 0: 2 + 3 = 5)
    """
    from irrun.gc_pause import gc_paused
    from irrun.validation.inference import infer_graph
    from irrun.validation.structure import check_structure

    diagnostics: list[Diagnostic] = []

    def emit(code, message, *, layer=None, line=None, port=None, hint=None, op=None,
             severity=None):  # fmt: skip
        diagnostic = Diagnostic(
            code=code,
            severity=severity or CODES[code][0],
            message=message,
            file=model.file,
            line=line
            or (port.line if port is not None else None)
            or (layer.line if layer is not None else None),
            layer_id=layer.id if layer is not None else None,
            layer_name=layer.name if layer is not None else None,
            layer_type=layer.type if layer is not None else None,
            op=op,
            port=port.describe() if port is not None else None,
            hint=hint,
        )
        diagnostics.append(diagnostic)
        return diagnostic

    with gc_paused():
        check_structure(model, emit, is_fragment=model.is_fragment)
        trusted_types: dict[str, int] = {}
        gaps: list = []
        checked, trusted = infer_graph(model, emit, trusted_types, gaps)
    return Report(model.file, diagnostics, checked, trusted, trusted_types=trusted_types,
                  inference_gaps=len(gaps))  # fmt: skip
