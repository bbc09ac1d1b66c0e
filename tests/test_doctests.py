"""Every docstring example in the library runs and gives what it shows.

Only modules with examples are collected (a module without any would pass whatever happens),
and the modules listed in :data:`DOCUMENTED` must keep theirs: a test fails if one of them no
longer runs a single example.
"""

import doctest
import importlib
import pkgutil

import pytest

import irrun

#: Modules whose examples document the public API; each must run at least one example.
DOCUMENTED = [
    "irrun.attributes",
    "irrun.compare",
    "irrun.compare.arrays",
    "irrun.element_types",
    "irrun.execution",
    "irrun.ir.names",
    "irrun.ir.reader",
    "irrun.kernels",
    "irrun.kernels.concat",
    "irrun.kernels.gather",
    "irrun.kernels.gather_elements",
    "irrun.kernels.gather_nd",
    "irrun.numbers",
    "irrun.render.draw",
    "irrun.shape",
    "irrun.text",
    "irrun.validation",
]

_FINDER = doctest.DocTestFinder()


def _all_modules():
    names = ["irrun"]
    for info in pkgutil.walk_packages(irrun.__path__, "irrun."):
        if not info.name.startswith("irrun.cli"):
            names.append(info.name)
    return names


def _runnable_examples(module) -> int:
    """Examples doctest would run (those marked +SKIP do not count)."""
    skip = doctest.OPTIONFLAGS_BY_NAME["SKIP"]
    return sum(
        1
        for test in _FINDER.find(module)
        for example in test.examples
        if not example.options.get(skip)
    )


def _modules_with_examples():
    return [name for name in _all_modules()
            if _runnable_examples(importlib.import_module(name))]  # fmt: skip


@pytest.mark.parametrize("name", _modules_with_examples())
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(
        module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False
    )
    assert result.attempted > 0, f"{name}: no example ran"
    assert result.failed == 0


@pytest.mark.parametrize("name", DOCUMENTED)
def test_documented_modules_keep_their_examples(name):
    assert _runnable_examples(importlib.import_module(name)) > 0, f"{name} has no example left"
