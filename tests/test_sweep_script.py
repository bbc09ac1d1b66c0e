"""scripts/sweep_architectures.py without its heavy dependencies: what ``--only`` selects and
the command line it accepts (building and checking models needs torch, and is not run here)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "sweep_architectures.py"


@pytest.fixture(scope="module")
def sweep():
    spec = importlib.util.spec_from_file_location("sweep_architectures", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # (stdlib imports only at the top)
    return module


def test_the_sweep_lists_186_architectures_once_each(sweep):
    assert len(sweep.ARCHITECTURES) == 186 == len(set(sweep.ARCHITECTURES))
    assert sweep.VARIANTS == ("f16", "f32", "int8", "int4", "dynamic")


def test_only_takes_names_and_shell_patterns_in_the_order_given(sweep):
    transformers = [f"hf:{name}" for name in sweep.TRANSFORMERS]
    names, unknown = sweep._matching(["tv:swin_t", "hf:*", "hf:bert", "nope:*", "tv:nothing"])
    assert names == ["tv:swin_t", *transformers]  # (each once: hf:bert is already in)
    assert unknown == ["nope:*", "tv:nothing"]


def test_unknown_names_and_variants_are_usage_errors(sweep, capsys):
    with pytest.raises(SystemExit) as exited:
        sweep.main(["--only", "tv:nothing"])
    assert exited.value.code == 2
    assert "unknown architecture(s): tv:nothing" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exited:
        sweep.main(["--variant", "int3"])
    assert exited.value.code == 2
    assert "invalid choice: 'int3'" in capsys.readouterr().err
