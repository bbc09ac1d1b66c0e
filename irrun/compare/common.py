"""Names shared by the comparison modules: statuses, errors, the install command."""

from __future__ import annotations

import numpy as np

from irrun.errors import IRError

#: How to install the optional OpenVINO backend.
INSTALL_COMMAND = "pip install 'irrun[openvino]'"

#: Statuses of a :class:`TensorComparison`.
MATCH, ROUNDING, DIFFERS, DOWNSTREAM, KNOWN, NOT_COMPARED = (
    "match",
    "rounding",
    "differs",
    "downstream",
    "known-deviation",
    "not-compared",
)
_SKIPPED_TYPES = ("Parameter", "Const", "Constant", "Result")


class OpenVINONotInstalled(ImportError):
    """The optional ``openvino`` package is missing; the message gives the install command."""


class OpenVINOError(IRError):
    """OpenVINO could not read, compile or run a model irrun runs (or crashed doing so)."""

    exit_code = 1


# -- results -------------------------------------------------------------------------------------
def _location(file: str, line: int | None) -> str:
    return f"{file}:{line}" if line else file


def _number(value) -> str:
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return str(int(value))
    return str(value)


def _json_number(value):
    if isinstance(value, float) and not np.isfinite(value):
        return str(value)  # "inf"; JSON has no infinity
    return value
