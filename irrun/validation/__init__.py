"""Validation: structure checks and shape/type inference over a loaded model.

:func:`validate` reports every problem at once as a :class:`Report` of
:class:`Diagnostic` objects, in source order.
"""

from __future__ import annotations

from irrun.validation.diagnostics import CODES, Diagnostic, Report

__all__ = ["validate", "Report", "Diagnostic", "CODES"]


def validate(model, *, progress=None) -> Report:
    """Check a model: structure, edges, attributes, and inferred vs declared shapes and types.

    Parameters
    ----------
    model : irrun.Model
        A loaded model (or fragment).
    progress : callable, optional
        ``progress(stage, done, total)``, called as the layers are checked (see
        :mod:`irrun.progress`).

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
    from irrun.gc_pause import call_paused
    from irrun.validation.emitter import Emitter
    from irrun.validation.inference import infer_graph
    from irrun.validation.structure import check_structure

    def check():
        check_structure(model, emit, is_fragment=model.is_fragment)
        _check_body_structure(model, emit)
        return infer_graph(model, emit, trusted_types, gaps, progress=progress)

    emit = Emitter(model.file)
    trusted_types: dict[str, int] = {}
    gaps: list = []
    checked, trusted = call_paused(check)
    return Report(model.file, emit.diagnostics, checked, trusted, trusted_types=trusted_types,
                  inference_gaps=len(gaps))  # fmt: skip


def _check_body_structure(graph, emit) -> None:
    """The structure checks of every sub-graph body (bodies inside bodies too)."""
    from irrun.validation.emitter import HeldDiagnostics
    from irrun.validation.structure import check_structure

    for layer in graph.layers:
        if not layer.bodies:  # (most layers have none)
            continue
        for tag, body in layer.bodies.items():
            held = HeldDiagnostics(emit, f"in the {tag} of {layer.describe()}: ")
            check_structure(body, held, is_fragment=False, is_body=True)
            _check_body_structure(body, held)
            held.release()
