"""On the committed real models, every way of running gives bit-identical outputs: the fast
schedule with folded constants, without folding, the stepping walk, and validating anew."""

from pathlib import Path

import numpy as np
import pytest

import irrun
from irrun.execution import compile as compile_model

REAL_MODELS = Path(__file__).resolve().parents[1] / "real_models"
NAMES = sorted(p.name for p in REAL_MODELS.iterdir() if (p / "model.xml").exists())


def same(first: dict, second: dict) -> bool:
    return first.keys() == second.keys() and all(
        first[k].dtype == second[k].dtype and np.array_equal(first[k], second[k], equal_nan=True)
        for k in first
    )


@pytest.mark.parametrize("name", NAMES)
def test_folded_lazy_stepping_and_revalidated_runs_agree_bit_for_bit(name):
    folder = REAL_MODELS / name
    model = irrun.load(folder / "model.xml")
    inputs = dict(np.load(folder / "inputs.npz"))
    folded = model.run(inputs)
    lazy = compile_model(model, fold_constants=False).run(inputs)
    stepped = model.run(inputs, on_step=lambda step: None)
    revalidated = model.run(inputs, validate=True)
    assert same(folded, lazy) and same(folded, stepped) and same(folded, revalidated)
    if "_f16" in name:
        assert model.compile().folded_bytes > 0  # the decompressed weights, kept once
