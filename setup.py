"""Build hook for the optional C accelerator of the IR reader (everything else is in
pyproject.toml). Without a C compiler, or with IRRUN_NO_ACCELERATOR=1 in the environment, the
build goes on without it and irrun reads IR in pure Python (see irrun/ir/accelerator.py)."""

import os
import subprocess

from setuptools import Extension, setup


def _libxml2_includes():
    """lxml's include folders: its public C API headers, and libxml2's headers where its PyPI
    wheels ship them; for an lxml built against the system's libxml2, the system's headers as
    xml2-config or pkg-config gives. The module checks when it is imported that lxml runs with
    the libxml2 it was compiled against, and refuses to load otherwise."""
    try:
        import lxml
    except ImportError:  # the reader then runs without the accelerator
        return []
    folders = list(lxml.get_include())
    if any(os.path.exists(os.path.join(f, "libxml", "tree.h")) for f in folders):
        return folders
    for command in (["xml2-config", "--cflags"], ["pkg-config", "--cflags-only-I", "libxml-2.0"]):
        try:
            flags = subprocess.run(command, capture_output=True, text=True, check=True).stdout
        except (OSError, subprocess.CalledProcessError):
            continue
        found = [flag[2:] for flag in flags.split() if flag.startswith("-I")]
        if found:
            return folders + found
    return folders


def _extensions():
    if os.environ.get("IRRUN_NO_ACCELERATOR", "").strip() not in ("", "0"):
        return []
    return [
        Extension(
            "irrun.ir._walk",
            sources=["irrun/ir/_walk.c"],
            include_dirs=_libxml2_includes(),
            optional=True,
        )
    ]


setup(ext_modules=_extensions())
