"""Build hook for the optional C accelerator of the IR reader (everything else is in
pyproject.toml). Without a C compiler the build goes on and irrun reads IR in pure Python."""

from setuptools import Extension, setup


def _lxml_includes():
    try:
        import lxml
    except ImportError:  # the reader then runs without the accelerator
        return []
    return lxml.get_include()


setup(
    ext_modules=[
        Extension(
            "irrun.ir._walk",
            sources=["irrun/ir/_walk.c"],
            include_dirs=_lxml_includes(),
            optional=True,
        )
    ]
)
