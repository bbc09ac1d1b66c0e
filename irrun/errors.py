"""The exception hierarchy of irrun.

Every error irrun raises on purpose derives from :class:`IRError`, so a caller
(or the CLI) can catch one class and show its message. Each error carries the
location it is about when one is known: file, line, column, layer.

The CLI maps :class:`UsageError`-like problems and unreadable input to exit
code 2, problems of the model itself (validation or execution) to exit 1 and
bugs of irrun (:class:`InternalError`, or a report holding an ``internal``
diagnostic) to exit 3; see :attr:`IRError.exit_code`.
"""

from __future__ import annotations

__all__ = [
    "IRError",
    "InputFileError",
    "XMLSyntaxError",
    "IRFormatError",
    "WeightsError",
    "FragmentError",
    "AttributeValueError",
    "MissingAttributeError",
    "InputValueError",
    "ValidationFailed",
    "ExecutionError",
    "IndexOutOfRangeError",
    "UnsupportedOpError",
    "InternalError",
]


class IRError(Exception):
    """Base class of every error irrun raises for bad input or a bad model.

    Parameters
    ----------
    message : str
        What is wrong and, where possible, what would fix it.
    file : str, optional
        The file the problem is in.
    line, column : int, optional
        1-based position in ``file``.
    layer : str, optional
        A short description of the layer, e.g. ``"layer 3 'cat' (Concat)"``.
    """

    #: Exit code the CLI uses for this error: 2 = unusable input, 1 = the model has problems,
    #: 3 = a bug in irrun.
    exit_code = 2

    def __init__(self, message, *, file=None, line=None, column=None, layer=None):
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line
        self.column = column
        self.layer = layer

    def location(self) -> str:
        """Return ``file:line:column`` (as much of it as is known), or ``""``."""
        parts = [str(p) for p in (self.file, self.line, self.column) if p is not None]
        return ":".join(parts)

    def __str__(self) -> str:
        where = self.location()
        text = self.message
        if self.layer and self.layer not in text:
            text = f"{self.layer}: {text}"
        return f"{where}: {text}" if where else text


class InputFileError(IRError):
    """A file cannot be used: missing, a directory, a device or FIFO, unreadable."""


class XMLSyntaxError(IRError):
    """The XML is not well-formed, or uses a forbidden feature (DTD, entities)."""


class IRFormatError(IRError):
    """The XML is well-formed but is not OpenVINO IR as OpenVINO reads it."""


class WeightsError(IRError):
    """A Const's bytes cannot be read from the weights (``.bin``) file."""


class FragmentError(IRError):
    """A fragment file holds several independent ``<layer>`` snippets."""


class AttributeValueError(IRFormatError):
    """A ``<data>`` attribute has a value of the wrong form (``axis="one"``)."""


class MissingAttributeError(IRFormatError):
    """A required ``<data>`` attribute is absent."""


class InputValueError(IRError):
    """An input value given for execution does not fit the model."""


class ValidationFailed(IRError):
    """The model has errors, so it cannot be executed; ``report`` lists them.

    ``exit_code`` is 3 when one of them is an ``internal`` diagnostic (irrun failed while
    checking a layer: a bug in irrun, not a problem of the model), else 1.
    """

    exit_code = 1

    def __init__(self, message, report, **where):
        super().__init__(message, **where)
        self.report = report
        if any(d.code == "internal" for d in getattr(report, "diagnostics", ())):
            self.exit_code = InternalError.exit_code


class ExecutionError(IRError):
    """An op failed while the model was running."""

    exit_code = 1


class IndexOutOfRangeError(ExecutionError):
    """An index lies outside the data it selects from (``policy="error"``)."""


class UnsupportedOpError(ExecutionError):
    """The model holds ops irrun has no kernel for."""


class InternalError(IRError):
    """irrun itself went wrong (a kernel gave an array other than the one validation inferred):
    a bug in irrun, not a problem of the model. The CLI exits 3."""

    exit_code = 3
