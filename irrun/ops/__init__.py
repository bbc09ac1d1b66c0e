"""Op semantics: one small module per op, registered by type and version.

This layer knows what ops mean and nothing of XML. Each op class declares its attributes,
infers output shapes and element types over partial shapes, and (for the ops irrun can run)
evaluates with NumPy. Importing this package imports every op module in it (names not
starting with ``_``), and each registers its classes with :func:`register`: adding an op is
adding a file. Add your own with :func:`register`.
"""

import importlib
import pkgutil

from irrun.ops.base import Attribute, Op, OpContext, TensorInfo
from irrun.ops.registry import register, registered, resolve, unregister

__all__ = [
    "Op",
    "Attribute",
    "OpContext",
    "TensorInfo",
    "register",
    "registered",
    "resolve",
    "unregister",
]

_NOT_OPS = {"base", "registry", "opsets"}

for _module in pkgutil.iter_modules(__path__):
    if not _module.name.startswith("_") and _module.name not in _NOT_OPS:
        importlib.import_module(f"{__name__}.{_module.name}")
