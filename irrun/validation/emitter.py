"""Where the validation walks put their diagnostics.

:class:`Emitter` builds each :class:`~irrun.validation.diagnostics.Diagnostic` and records
it; :class:`HeldDiagnostics` is the ``emit`` of a sub-graph body: it says in each message
which body of which layer the problem is in, and holds the diagnostics until released (an
op may infer a body more than once; only the latest inference is reported).
"""

from __future__ import annotations

from irrun.validation.diagnostics import CODES, Diagnostic

__all__ = ["Emitter", "HeldDiagnostics"]


class Emitter:
    """``emit(code, message, layer=, line=, port=, hint=, op=, severity=)`` for one model
    file: builds the diagnostic, records it in ``diagnostics`` and returns it."""

    def __init__(self, file):
        self.file = file
        self.diagnostics: list[Diagnostic] = []

    def build(self, code, message, *, layer=None, line=None, port=None, hint=None, op=None,
              severity=None) -> Diagnostic:  # fmt: skip
        """The diagnostic, not recorded."""
        return Diagnostic(
            code=code,
            severity=severity or CODES[code][0],
            message=message,
            file=self.file,
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

    def add(self, diagnostic: Diagnostic) -> None:
        """Record a diagnostic built earlier."""
        self.diagnostics.append(diagnostic)

    def __call__(self, code, message, **where) -> Diagnostic:
        diagnostic = self.build(code, message, **where)
        self.diagnostics.append(diagnostic)
        return diagnostic


class HeldDiagnostics:
    """The ``emit`` of a body inside ``outer`` (an :class:`Emitter` or another body's):
    messages start with ``prefix`` (``in the body of layer 3 'loop' (Loop-5): ``)."""

    def __init__(self, outer, prefix: str):
        self.outer = outer
        self.prefix = prefix
        self.held: list[Diagnostic] = []

    def build(self, code, message, **where) -> Diagnostic:
        """The diagnostic with this body's prefix, not recorded."""
        return self.outer.build(code, self.prefix + message, **where)

    def add(self, diagnostic: Diagnostic) -> None:
        """Hold a diagnostic built earlier (by a body inside this one)."""
        self.held.append(diagnostic)

    def __call__(self, code, message, **where) -> Diagnostic:
        diagnostic = self.build(code, message, **where)
        self.held.append(diagnostic)
        return diagnostic

    def release(self) -> None:
        """Pass the held diagnostics on to the outer ``emit``."""
        for diagnostic in self.held:
            self.outer.add(diagnostic)
        self.held = []
