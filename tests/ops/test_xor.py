"""Xor-1 (opset1's LogicalXor): an IR with it is read by OpenVINO (its Python API has no
constructor): shapes and values compared with that, and its type error."""

from __future__ import annotations

import numpy as np
import openvino as ov
import openvino.opset1 as opset1
import pytest

import irrun
from tests.helpers.openvino_oracle import parameter, save
from tests.helpers.strategies import diagnostic


def _xor_ir(folder, a_shape, b_shape, etype="boolean", broadcast="numpy"):
    a, b = parameter(a_shape, etype, name="a"), parameter(b_shape, etype, name="b")
    node = opset1.logical_and(a, b, broadcast) if etype == "boolean" else opset1.add(a, b)
    path = save(ov.Model([node], [a, b], "oracle"), folder)
    text = path.read_text()
    for old in ('type="LogicalAnd" version="opset1"', 'type="Add" version="opset1"'):
        text = text.replace(old, 'type="Xor" version="opset1"')
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    "a_shape, b_shape, broadcast",
    [
        ("[2,3]", "[3]", "numpy"),
        ("[?,1,4]", "[2..5,1]", "numpy"),
        ("[2,3]", "[2,3]", "none"),
        ("[...]", "[3]", "numpy"),
    ],  # fmt: skip
)
def test_xor_shapes_match_openvino(tmp_path, a_shape, b_shape, broadcast):
    path = _xor_ir(tmp_path, a_shape, b_shape, broadcast=broadcast)
    expected = ov.Core().read_model(path)
    node = next(n for n in expected.get_ordered_ops() if n.get_type_name() == "Xor")
    model = irrun.load(path)
    report = model.validate()
    assert report.ok and not report.warnings, report.to_text()
    port = next(layer for layer in model.layers if layer.type == "Xor").outputs[0]
    assert str(port.inferred_shape) == str(node.get_output_partial_shape(0))
    assert port.inferred_type.name == "boolean"


def test_xor_matches_cpu_plugin(tmp_path):
    path = _xor_ir(tmp_path, [2, 3], [3])
    rng = np.random.default_rng(0)
    feed = {"a": rng.integers(0, 2, (2, 3)).astype(bool), "b": np.array([True, False, True])}
    compiled = ov.Core().compile_model(ov.Core().read_model(path), "CPU")
    expected = compiled(feed)[0]
    got = irrun.load(path).run(feed)
    (value,) = got.values()
    assert value.dtype == np.bool_
    np.testing.assert_array_equal(value, expected)
    np.testing.assert_array_equal(value, feed["a"] ^ feed["b"])


def test_xor_of_integers_is_reported(tmp_path):
    """OpenVINO refuses the IR ('args_et == element::boolean' failed); irrun says why."""
    path = _xor_ir(tmp_path, [2], [2], "i32")
    with pytest.raises(RuntimeError, match="element::boolean"):
        ov.Core().read_model(path)
    found = diagnostic(irrun.load(path).validate(), "input-type")
    assert "Xor-1" in found.message and "boolean" in found.message, found.message
