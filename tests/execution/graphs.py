"""Small OpenVINO graph builders the execution tests share: a named Parameter, a node with
its tensor named, and a model saved as IR and loaded into irrun."""

from __future__ import annotations

import numpy as np
import openvino as ov
from openvino import opset1

import irrun


def save(tmp_path, results, parameters, name="m", compress=False):
    """``ov.Model(results, parameters)`` saved as ``<name>.xml`` in ``tmp_path``, loaded."""
    model = ov.Model(results, parameters, name)
    path = tmp_path / f"{name}.xml"
    ov.save_model(model, path, compress_to_fp16=compress)
    return irrun.load(path)


def param(shape, dtype=np.float32, name="x"):
    """A Parameter whose tensor is named ``name`` (the input's name in irrun)."""
    node = opset1.parameter(shape, dtype, name=name)
    node.output(0).get_tensor().set_names({name})
    return node


def named(node, name):
    """``node`` with its friendly name and its output tensor's name set to ``name``."""
    node.set_friendly_name(name)
    node.output(0).get_tensor().set_names({name})
    return node
