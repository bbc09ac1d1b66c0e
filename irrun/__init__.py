"""irrun: read, check and run OpenVINO IR without the OpenVINO runtime.

>>> import irrun
>>> model = irrun.load("model.xml")          # doctest: +SKIP
>>> model.validate()                          # doctest: +SKIP

Heavy modules (numpy, lxml, networkx) are imported on first use, so that
``import irrun`` and ``irrun --help`` stay fast.
"""

from irrun.errors import (
    AttributeValueError,
    ExecutionError,
    FragmentError,
    IndexOutOfRangeError,
    InputFileError,
    InputValueError,
    InternalError,
    IRError,
    IRFormatError,
    MissingAttributeError,
    UnsupportedOpError,
    ValidationFailed,
    WeightsError,
    XMLSyntaxError,
)

__version__ = "0.1.0"

__all__ = [
    "load",
    "load_all",
    "validate",
    "run",
    "compile",
    "random_inputs",
    "reset_state",
    "Report",
    "Diagnostic",
    "Model",
    "Layer",
    "Port",
    "Edge",
    "Dim",
    "Shape",
    "ElementType",
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
    "InternalError",
    "UnsupportedOpError",
]

# The model's classes and functions come from irrun.api, which gives the classes their
# convenience methods (model.validate(), model.run() ...) when it is imported.
_LAZY = {
    "load": ("irrun.api", "load"),
    "load_all": ("irrun.api", "load_all"),
    "validate": ("irrun.api", "validate"),
    "run": ("irrun.api", "run"),
    "compile": ("irrun.api", "compile"),
    "random_inputs": ("irrun.api", "random_inputs"),
    "reset_state": ("irrun.api", "reset_state"),
    "Report": ("irrun.validation", "Report"),
    "Diagnostic": ("irrun.validation", "Diagnostic"),
    "Model": ("irrun.api", "Model"),
    "Layer": ("irrun.api", "Layer"),
    "Port": ("irrun.api", "Port"),
    "Edge": ("irrun.api", "Edge"),
    "Dim": ("irrun.shape", "Dim"),
    "Shape": ("irrun.shape", "Shape"),
    "ElementType": ("irrun.element_types", "ElementType"),
}


def __getattr__(name):
    if name in _LAZY:
        import importlib

        module, attribute = _LAZY[name]
        value = getattr(importlib.import_module(module), attribute)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'irrun' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
