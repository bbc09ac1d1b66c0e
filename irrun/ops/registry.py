"""The op registry: which class handles a layer's ``type`` and ``version``.

A layer's ``version`` names an *opset* (``opset13``), not the op version. Which op version an
opset contains is OpenVINO's definition, kept in :data:`irrun.ops.opsets.OPSETS` (``Gather``
in ``opset13`` is Gather-8; ``GatherElements`` is in no opset before opset6). A layer without
a version (spec snippets) gets the newest version irrun has. Types match case-insensitively
after OpenVINO's four exact-case translations (``Const`` → ``Constant``, ``ReLU`` → ``Relu``,
``PReLU`` → ``PRelu``, ``SoftMax`` → ``Softmax``).

Op classes register themselves with :func:`register` when their module is imported; importing
:mod:`irrun.ops` imports every op module of the package, so there is no list to keep.
A type that is in no OpenVINO opset (a user's op) resolves, in any opset, to its newest
registered version not above the opset number.
"""

from __future__ import annotations

from dataclasses import dataclass

from irrun.ops.base import Op
from irrun.ops.opsets import OPSETS

__all__ = [
    "register",
    "unregister",
    "has_kernel",
    "runnable",
    "resolve",
    "resolve_layer",
    "lookup_layer",
    "Resolution",
    "opset_exists",
    "registered",
    "op_key",
    "first_opset",
    "LATEST_OPSET",
    "CUSTOM_OPSETS",
]

_TRANSLATIONS = {"Const": "Constant", "ReLU": "Relu", "PReLU": "PRelu", "SoftMax": "Softmax"}
_REGISTRY: dict[str, dict[int, type]] = {}
_RESOLVED: dict[tuple[str, int | None], type | None] = {}  # cleared by register()
_LOOKED_UP: dict[tuple[str, str | None], Resolution] = {}  # (type, version) spelling

#: The opset names for custom ops (OpenVINO extensions register their ops there): a layer in one
#: of them is trusted with a warning; any other name that is not ``opsetN`` is an error.
CUSTOM_OPSETS = ("extension", "experimental")
#: Op types OpenVINO's IR reader takes from opset2 when a layer declares opset1 (they were
#: in opset1 before it was frozen).
FROM_OPSET2_IN_OPSET1 = frozenset({"MVN", "ROIPooling", "ReorgYolo"})
#: The newest opset OpenVINO has (opset17 holds only a few ops, as OpenVINO defines it).
LATEST_OPSET = max(OPSETS)
#: OpenVINO's spelling of every op type of any opset, by lowercase name.
_OPENVINO_TYPES = {name.lower(): name for table in OPSETS.values() for name in table}


def op_key(layer_type: str) -> str:
    """The registry key of an IR ``type`` spelling."""
    return _TRANSLATIONS.get(layer_type, layer_type).lower()


def _clear_caches() -> None:
    _RESOLVED.clear()
    _LOOKED_UP.clear()


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
        _clear_caches()
        return cls

    return decorate(op_class) if op_class is not None else decorate


def unregister(layer_type: str, version: int) -> None:
    """Remove a registered op version (``KeyError`` if it is not registered)."""
    versions = _REGISTRY[op_key(layer_type)]
    del versions[version]
    if not versions:
        del _REGISTRY[op_key(layer_type)]
    _clear_caches()


def first_opset(layer_type: str) -> int | None:
    """The first opset that contains an OpenVINO op type (``None`` for other types)."""
    name = _OPENVINO_TYPES.get(op_key(layer_type))
    return next((n for n, table in OPSETS.items() if name in table), None)


def resolve(layer_type: str, opset: int | None):
    """The op class for a type in an opset (``None``: irrun does not know it there).

    ``opset`` is the layer's opset number (``None`` for a layer without a version, which gets
    the newest op version irrun has).
    """
    key = (layer_type, opset)
    found = _RESOLVED.get(key, _UNSET)
    if found is _UNSET:
        found = _RESOLVED[key] = _resolve(layer_type, opset)
    return found


def _resolve(layer_type: str, opset: int | None):
    versions = _REGISTRY.get(op_key(layer_type))
    if not versions:
        return None
    if opset is None:
        return versions[max(versions)]
    name = _OPENVINO_TYPES.get(op_key(layer_type))
    if name is not None and opset in OPSETS:  # OpenVINO's own op: its table says which version
        version = OPSETS[opset].get(name)
        return None if version is None else versions.get(version)
    candidates = [v for v in versions if v <= opset]
    return versions[max(candidates)] if candidates else None


_UNSET = object()


@dataclass(frozen=True, slots=True)
class Resolution:
    """How a layer's type and version resolve.

    Attributes
    ----------
    op_class : type or None
        The op class irrun checks (and runs) the layer with.
    problem : str or None
        ``None`` when ``op_class`` is set; else ``"unknown-opset"`` (``opsetN`` that OpenVINO
        does not have), ``"not-in-opset"`` (the opset does not contain that type: OpenVINO
        refuses the model), ``"not-implemented"`` (an OpenVINO op irrun does not check yet)
        or ``"custom"`` (a type in another opset, e.g. ``extension``: a custom op).
    op_version : int or None
        The OpenVINO op version the opset contains, when known.
    """

    op_class: type | None
    problem: str | None = None
    op_version: int | None = None


def lookup_layer(layer) -> Resolution:
    """How a :class:`~irrun.model.Layer`'s type and version resolve (cached per spelling)."""
    key = (layer.type, layer.version)
    found = _LOOKED_UP.get(key)
    if found is None:
        found = _LOOKED_UP[key] = _lookup(layer.type, layer.version, layer.opset)
    return found


def _lookup(layer_type: str, version: str | None, opset: int | None) -> Resolution:
    name = _OPENVINO_TYPES.get(op_key(layer_type))
    if version is None:  # a spec snippet: the newest version irrun has
        op_class = resolve(layer_type, None)
        return Resolution(op_class, None if op_class else "not-implemented" if name else "custom")
    if opset is None:  # not one of OpenVINO's opsets
        if version not in CUSTOM_OPSETS:  # OpenVINO refuses an opset no extension registers
            return Resolution(None, "unknown-opset")
        op_class = resolve(layer_type, None) if name is None else None
        return Resolution(op_class, None if op_class else "custom")
    if opset not in OPSETS:
        return Resolution(None, "unknown-opset")
    if opset == 1 and name in FROM_OPSET2_IN_OPSET1:
        opset = 2
    op_version = OPSETS[opset].get(name) if name else None
    if name is not None and op_version is None:
        return Resolution(None, "not-in-opset")
    op_class = resolve(layer_type, opset)
    if op_class is not None:
        return Resolution(op_class, None, op_version)
    return Resolution(None, "not-implemented" if name else "not-in-opset", op_version)


def resolve_layer(layer):
    """The op class for a :class:`~irrun.model.Layer` (its type in its opset), or ``None``."""
    return lookup_layer(layer).op_class


def opset_exists(layer) -> bool:
    """True when the layer has no version (spec snippets), a custom opset name, or names an
    opset OpenVINO has."""
    if layer.version is None:
        return True
    return layer.opset in OPSETS if layer.opset is not None else layer.version in CUSTOM_OPSETS


def has_kernel(op_class) -> bool:
    """True when an op class can run (it implements ``evaluate``)."""
    found = _HAS_KERNEL.get(op_class)
    if found is None:
        found = _HAS_KERNEL[op_class] = op_class.evaluate is not Op.evaluate
    return found


_HAS_KERNEL: dict[type, bool] = {}


def runnable() -> list[str]:
    """``Type-version`` of every registered op that has a kernel, the type as IR files spell
    it (``Const-1``, the op OpenVINO's specification calls Constant-1)."""
    return sorted(
        f"{_IR_SPELLING.get(cls.type, cls.type)}-{cls.version}"
        for versions in _REGISTRY.values()
        for cls in versions.values()
        if has_kernel(cls)
    )


#: Op types whose name in IR files differs from the specification's.
_IR_SPELLING = {"Constant": "Const"}


def registered() -> dict[str, list[int]]:
    """Every registered op type with its versions."""
    return {next(iter(v.values())).type: sorted(v) for _, v in sorted(_REGISTRY.items())}
