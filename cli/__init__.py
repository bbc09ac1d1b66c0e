"""The ``irrun`` command-line app (click), installed as the package ``irrun.cli``.

This folder sits at the top of the repository but is mapped into the irrun
package by ``pyproject.toml``; importing it as a bare ``cli`` would shadow or
be shadowed by any other ``cli`` module, so it refuses.
"""

if __name__ != "irrun.cli":
    raise ImportError(
        "irrun's command-line app must be imported as 'irrun.cli', not as "
        f"{__name__!r}; install the project (pip install -e .) and use 'import irrun.cli'"
    )
