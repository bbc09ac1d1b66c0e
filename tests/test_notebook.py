"""examples/notebook.ipynb runs top to bottom, and is committed without outputs."""

import json
import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
NOTEBOOK = EXAMPLES / "notebook.ipynb"


def test_notebook_is_committed_without_outputs():
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(notebook)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert code
    assert all(cell.outputs == [] and cell.execution_count is None for cell in code)


def test_notebook_runs_top_to_bottom(tmp_path, monkeypatch):
    # A kernel of this very interpreter: the stock "python3" spec runs whatever `python` is on
    # PATH, which need not be the one that has irrun installed.
    spec = tmp_path / "kernels" / "irrun-test"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "irrun test", "language": "python",
    }))  # fmt: skip
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path))
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(
        notebook,
        timeout=180,
        kernel_name="irrun-test",
        resources={"metadata": {"path": str(EXAMPLES)}},  # the notebook's folder is its cwd
    )
    client.execute()  # raises CellExecutionError on the first failing cell

    outputs = [output for cell in notebook.cells for output in cell.get("outputs", [])]
    assert not [output for output in outputs if output.output_type == "error"]
    shown = "\n".join(
        text
        for output in outputs
        for text in [output.get("text", ""), *output.get("data", {}).values()]
        if isinstance(text, str)
    )
    assert "shape-mismatch" in shown  # the report, as HTML
    assert sum("image/svg+xml" in output.get("data", {}) for output in outputs) == 2
    assert "[6., 4., 4., 5., 6.]" in shown  # model.run
    assert "<Step layer 3 'g' (Gather)" in shown  # model.steps
    assert "array([[3., 1.],\n       [6., 4.]], dtype=float32)" in shown  # the intermediate
