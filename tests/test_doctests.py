"""Every docstring example in the library runs and gives what it shows."""

import doctest
import importlib
import pkgutil

import pytest

import irrun


def _modules():
    names = ["irrun"]
    for info in pkgutil.walk_packages(irrun.__path__, "irrun."):
        if not info.name.startswith("irrun.cli"):
            names.append(info.name)
    return names


@pytest.mark.parametrize("name", _modules())
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(
        module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False
    )
    assert result.failed == 0
