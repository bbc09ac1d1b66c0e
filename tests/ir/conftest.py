"""Every loader test runs twice: with the C accelerator of the reader (when it is built) and
in pure Python, which must give the same models and the same errors. A module that compares
the two itself sets ``COMPARES_READERS = True`` and runs once."""

from __future__ import annotations

import pytest

from irrun.ir import reader


def pytest_generate_tests(metafunc):
    if not getattr(metafunc.module, "COMPARES_READERS", False):
        metafunc.parametrize("reader_kind", ["accelerated", "pure-python"], indirect=True)


@pytest.fixture(autouse=True)
def reader_kind(request, monkeypatch):
    """Which reader the test runs with; ``accelerated`` is skipped where it is not built."""
    kind = getattr(request, "param", "accelerated")
    if kind == "pure-python":
        monkeypatch.setattr(reader, "_walk", None)
    elif reader._walk is None and not getattr(request.module, "COMPARES_READERS", False):
        pytest.skip("the reader's C accelerator is not built here")
    return kind
