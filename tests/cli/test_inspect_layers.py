"""``irrun inspect --layers``: every layer's ports declared and inferred, the layers by op,
the weights by element type; the same as JSON."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from tests.helpers.cli import invoke
from tests.helpers.ir_text import Net

ROOT = Path(__file__).resolve().parents[2]


def test_the_layer_table_of_tiny(monkeypatch):
    monkeypatch.chdir(ROOT)
    result = invoke("inspect", "examples/ir/tiny.xml", "--layers")
    assert result.exit_code == 0
    assert result.output == (
        "examples/ir/tiny.xml: IR v11 'tiny', 6 layers\n"
        "weights: examples/ir/tiny.bin (24 bytes)\n"
        "  i64  24 bytes in 2 Consts\n"
        "inputs:\n"
        "  data  f32     [2,?]\n"
        "outputs:\n"
        "  out  f32     [2,2..]\n"
        "layers by op (5 types):\n"
        "  Const-1      opset1  2  ████████████████████\n"
        "  Concat-1     opset1  1  ██████████\n"
        "  Gather-8     opset8  1  ██████████\n"
        "  Parameter-1  opset1  1  ██████████\n"
        "  Result-1     opset1  1  ██████████\n"
        "layers:\n"
        "  id  name      op           inputs                      outputs\n"
        "   0  data      Parameter-1  -                           f32 [2,?]\n"
        "   1  idx       Const-1      -                           i64 [2]\n"
        "   2  ax        Const-1      -                           i64 []\n"
        "   3  g         Gather-8     f32 [2,?], i64 [2], i64 []  f32 [2,2]\n"
        "   4  cat       Concat-1     f32 [2,2], f32 [2,?]        f32 [2,?] → [2,2..]\n"
        "   5  out/sink  Result-1     f32 [2,2..]                 -\n"
    )


def _mixed(tmp_path) -> Path:
    """f16 weights converted to f32, an i64 Const, a wrongly declared Concat, a custom op."""
    net = Net()
    x = net.param("x", "1,4")
    w = net.const("w", np.ones((1, 4), dtype=np.float16))
    wide = net.op("w32", "Convert", "opset1", {"destination_type": "f32"}, [w], [1, 4], "FP32")
    cat = net.op("cat", "Concat", "opset1", {"axis": "1"}, [x, wide], [1, 9])
    custom = net.op("mine", "Frob", "extension", None, [cat], [1, 9])
    net.const("k", np.arange(3, dtype=np.int64))
    net.result(custom)
    (tmp_path / "m.bin").write_bytes(bytes(net.blob))
    (tmp_path / "m.xml").write_text(net.text())
    return tmp_path / "m.xml"


def test_inferred_shapes_and_types_beside_the_declared_ones(tmp_path, monkeypatch):
    _mixed(tmp_path)
    monkeypatch.chdir(tmp_path)
    result = invoke("inspect", "m.xml", "--layers")
    assert result.exit_code == 0  # inspect describes; validate judges
    assert result.output == (
        "m.xml: IR v11 'net', 7 layers\n"
        "weights: m.bin (32 bytes)\n"
        "  i64  24 bytes in 1 Const\n"
        "  f16  8 bytes in 1 Const\n"
        "inputs:\n"
        "  x  f32     [1,4]\n"
        "outputs:\n"
        "  mine  f32     [1,9]\n"
        "layers by op (6 types):\n"
        "  Const-1         opset1     2  ████████████████████\n"
        "  Concat-1        opset1     1  ██████████\n"
        "  Convert-1       opset1     1  ██████████\n"
        "  Frob (unknown)  extension  1  ██████████\n"
        "  Parameter-1     opset1     1  ██████████\n"
        "  Result-1        opset1     1  ██████████\n"
        "layers:\n"
        "  id  name  op                        inputs                outputs\n"
        "   0  x     Parameter-1               -                     f32 [1,4]\n"
        "   1  w     Const-1                   -                     f16 [1,4]\n"
        "   2  w32   Convert-1                 f16 [1,4]             f32 [1,4]\n"
        "   3  cat   Concat-1                  f32 [1,4], f32 [1,4]  f32 [1,9] → [1,8]\n"
        "   4  mine  Frob extension (unknown)  f32 [1,9] → [1,8]     f32 [1,9]\n"
        "   5  k     Const-1                   -                     i64 [3]\n"
        "   6  out6  Result-1                  f32 [1,9]             -\n"
    )


def test_the_same_as_json(tmp_path):
    path = _mixed(tmp_path)
    summary = json.loads(invoke("inspect", path, "--layers", "--format", "json").output)
    assert summary["weights_by_element_type"] == {
        "i64": {"consts": 1, "bytes": 24}, "f16": {"consts": 1, "bytes": 8}
    }  # fmt: skip
    assert summary["ops"][0] == {"type": "Const", "version": "opset1", "op": "Const-1",
                                 "count": 2}  # fmt: skip
    assert {"type": "Frob", "version": "extension", "op": None, "count": 1} in summary["ops"]
    cat = summary["layer_table"][3]
    assert (cat["id"], cat["name"], cat["op"]) == (3, "cat", "Concat-1")
    assert cat["inputs"][1] == {"port": 1, "element_type": "f32", "declared_shape": "[1,4]",
                                "inferred_type": "f32", "inferred_shape": "[1,4]"}  # fmt: skip
    assert cat["outputs"] == [{"port": 2, "element_type": "f32", "declared_shape": "[1,9]",
                               "names": ["cat"], "inferred_type": "f32",
                               "inferred_shape": "[1,8]"}]  # fmt: skip
    plain = json.loads(invoke("inspect", path, "--format", "json").output)
    assert "layer_table" not in plain and plain["ops"] == summary["ops"]


def test_without_layers_inspect_prints_what_it_did(monkeypatch):
    monkeypatch.chdir(ROOT)
    result = invoke("inspect", "examples/ir/tiny.xml")
    assert result.output.splitlines()[-6:] == [
        "layers:", "  Concat opset1     1", "  Const opset1      2", "  Gather opset8     1",
        "  Parameter opset1  1", "  Result opset1     1",
    ]  # fmt: skip
