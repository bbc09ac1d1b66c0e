"""Fixtures of the differential tests: OpenVINO, and models written with it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest


@pytest.fixture(scope="module")
def ov():
    return pytest.importorskip("openvino")


@pytest.fixture(scope="module")
def erf_xml(ov, tmp_path_factory) -> Path:
    """x -> relu -> erf -> add(erf, relu), and x -> negative."""
    from openvino import opset1

    x = opset1.parameter([2, 3], np.float32, name="x")
    relu = opset1.relu(x, name="relu")
    erf = opset1.erf(relu, name="erf")
    added = opset1.add(erf, relu, name="out")
    other = opset1.negative(x, name="other")
    xml = tmp_path_factory.mktemp("erf") / "erf.xml"
    ov.save_model(ov.Model([added, other], [x], "erf"), xml, compress_to_fp16=False)
    return xml
