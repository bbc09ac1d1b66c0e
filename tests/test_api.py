"""The public API (irrun.api): the functions, and the model methods they become, in a fresh
interpreter, where nothing else has imported irrun.api first."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TINY = (ROOT / "examples" / "ir" / "tiny.xml").as_posix()


def _fresh(code: str) -> list[str]:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip().splitlines()


def test_a_loaded_model_has_every_convenience_method():
    code = f"""
import numpy as np
import irrun
model = irrun.load({TINY!r})
data = {{"data": np.arange(6, dtype=np.float32).reshape(2, 3)}}
print(isinstance(model, irrun.Model), type(model) is irrun.model.Model)
print(model.validate().ok, sorted(model.run(data)), len(list(model.steps(data))))
print(model.draw(format="dot").startswith("digraph"), "<table" in model._repr_html_())
print(model.layer("idx").value.tolist(), "<table" in model.layer("g")._repr_html_())
"""
    assert _fresh(code) == ["True True", "True ['out'] 6", "True True", "[-1, 0] True"]


def test_the_api_functions_are_the_methods():
    code = """
import irrun, irrun.api
print(irrun.Model.validate is irrun.api.validate, irrun.Model.run is irrun.api.run)
print(irrun.load is irrun.api.load, irrun.validate is irrun.api.validate)
"""
    assert _fresh(code) == ["True True", "True True"]


def test_import_irrun_imports_neither_the_model_nor_heavy_modules():
    code = """
import sys, irrun
heavy = ('irrun.model', 'irrun.api', 'numpy', 'lxml', 'networkx', 'click', 'openvino')
print(sorted(m for m in heavy if m in sys.modules))
"""
    assert _fresh(code) == ["[]"]


def test_a_model_built_without_a_reader_says_how_to_read_its_consts():
    code = f"""
import irrun
from irrun.model import Model
model = irrun.load({TINY!r})
bare = Model(model.file, model.name, 11, False, model.weights)
try:
    bare.constant(model.layer("idx"))
except irrun.WeightsError as exc:
    print(exc.message)
"""
    [message] = _fresh(code)
    assert "without a reader for its weights" in message
