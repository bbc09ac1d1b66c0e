"""Op semantics: one small module per op, registered by type and version.

This layer knows what ops mean and nothing of XML. Each op class parses its
attributes, infers output shapes and element types over partial shapes, and
(for the ops irrun can run) evaluates with the NumPy kernels of
:mod:`irrun.kernels`. Add your own with :func:`register`.
"""

from irrun.ops.base import Op, OpContext, TensorInfo
from irrun.ops.registry import register, registered, resolve, unregister

__all__ = ["Op", "OpContext", "TensorInfo", "register", "registered", "resolve", "unregister"]
