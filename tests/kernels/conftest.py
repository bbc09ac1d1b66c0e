"""Shared fixtures of the kernel tests."""

import contextlib

import pytest

from irrun.kernels import _indices


@pytest.fixture(scope="session")
def tile_cells():
    """A context manager letting the kernels cut their work into tiles of ``cells`` index cells
    (``None``: the default), to drive the tiled code paths with small inputs."""

    @contextlib.contextmanager
    def setting(cells):
        saved = _indices.TILE_CELLS
        _indices.TILE_CELLS = cells or saved
        try:
            yield
        finally:
            _indices.TILE_CELLS = saved

    return setting
