"""The op registry: which class handles a layer's ``type`` and ``version``.

A layer's ``version`` names an *opset* (``opset13``), not the op version; the
op version used is the newest one not above the opset number, exactly as
OpenVINO resolves it (``Gather`` in ``opset13`` is Gather-8). A layer without
a version (spec snippets) gets the newest version. Types match
case-insensitively after OpenVINO's four exact-case translations
(``Const`` → ``Constant``, ``ReLU`` → ``Relu``, ``PReLU`` → ``PRelu``,
``SoftMax`` → ``Softmax``).
"""

from __future__ import annotations

__all__ = [
    "register",
    "unregister",
    "has_kernel",
    "runnable",
    "resolve",
    "resolve_layer",
    "opset_exists",
    "registered",
    "op_key",
    "LATEST_OPSET",
]

_TRANSLATIONS = {"Const": "Constant", "ReLU": "Relu", "PReLU": "PRelu", "SoftMax": "Softmax"}
_REGISTRY: dict[str, dict[int, type]] = {}
_RESOLVED: dict[tuple[str, int | None], type | None] = {}  # cleared by register()
_RESOLVED_LAYERS: dict[tuple[str, str | None], type | None] = {}  # (type, version) spelling


def op_key(layer_type: str) -> str:
    """The registry key of an IR ``type`` spelling."""
    return _TRANSLATIONS.get(layer_type, layer_type).lower()


def register(op_class=None, *, replace: bool = False):
    """Register an :class:`~irrun.ops.base.Op` subclass under its ``type`` and ``version``.

    Use as a decorator. A user op may implement only ``infer`` (checked, not run).
    Registering a (type, version) pair twice is an error unless ``replace=True``.

    Examples
    --------
    >>> from irrun.ops import Op, register
    >>> @register(replace=True)
    ... class MyOp(Op):
    ...     type, version = "MyOp", 1
    >>> resolve("MyOp", 5) is MyOp
    True
    """

    def decorate(cls):
        versions = _REGISTRY.setdefault(op_key(cls.type), {})
        if cls.version in versions and not replace and versions[cls.version] is not cls:
            raise ValueError(f"{cls.type}-{cls.version} is already registered")
        versions[cls.version] = cls
        _RESOLVED.clear()
        _RESOLVED_LAYERS.clear()
        return cls

    return decorate(op_class) if op_class is not None else decorate


def unregister(layer_type: str, version: int) -> None:
    """Remove a registered op version (``KeyError`` if it is not registered)."""
    versions = _REGISTRY[op_key(layer_type)]
    del versions[version]
    if not versions:
        del _REGISTRY[op_key(layer_type)]
    _RESOLVED.clear()
    _RESOLVED_LAYERS.clear()


def resolve(layer_type: str, opset: int | None):
    """The op class for a layer, or ``None`` when irrun does not know it.

    ``opset`` is the layer's opset number (``None`` for a layer without a
    version, which gets the newest op version).
    """
    _load_builtin_ops()
    key = (layer_type, opset)
    if key not in _RESOLVED:
        _RESOLVED[key] = _resolve(layer_type, opset)
    return _RESOLVED[key]


def _resolve(layer_type: str, opset: int | None):
    versions = _REGISTRY.get(op_key(layer_type))
    if not versions:
        return None
    candidates = [v for v in versions if opset is None or v <= opset]
    return versions[max(candidates)] if candidates else None


#: The newest complete opset of OpenVINO 2026 (opset17 exists but is partial).
LATEST_OPSET = 16


def opset_exists(layer) -> bool:
    """True when the layer has no version (spec snippets) or names an existing opset."""
    opset = layer.opset
    return layer.version is None or (opset is not None and 1 <= opset <= LATEST_OPSET)


def resolve_layer(layer):
    """The op class for a :class:`~irrun.model.Layer` (its type in its opset), or ``None``."""
    key = (layer.type, layer.version)
    found = _RESOLVED_LAYERS.get(key, _UNRESOLVED)
    if found is _UNRESOLVED:
        found = resolve(layer.type, layer.opset) if opset_exists(layer) else None
        _RESOLVED_LAYERS[key] = found
    return found


_UNRESOLVED = object()


def has_kernel(op_class) -> bool:
    """True when an op class can run (it implements ``evaluate``)."""
    found = _HAS_KERNEL.get(op_class)
    if found is None:
        from irrun.ops.base import Op

        found = _HAS_KERNEL[op_class] = op_class.evaluate is not Op.evaluate
    return found


_HAS_KERNEL: dict[type, bool] = {}


def runnable() -> list[str]:
    """``Type-version`` of every registered op that has a kernel."""
    _load_builtin_ops()
    return sorted(
        f"{cls.type}-{cls.version}"
        for versions in _REGISTRY.values()
        for cls in versions.values()
        if has_kernel(cls)
    )


def registered() -> dict[str, list[int]]:
    """Every registered op type with its versions."""
    _load_builtin_ops()
    return {next(iter(v.values())).type: sorted(v) for _, v in sorted(_REGISTRY.items())}


_loaded = False


def _load_builtin_ops():
    global _loaded
    if not _loaded:
        _loaded = True
        from irrun.ops import (  # noqa: F401  (importing registers them)
            concat,
            constant,
            gather,
            gather_elements,
            gather_nd,
            parameter,
            result,
        )
