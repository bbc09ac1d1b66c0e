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


def run_all(run, model, inputs: dict) -> list:
    """The outputs of one run, or of each step of a stateful model's inputs (``step0.x``,
    ``step1.x``...: one run per step, the state starting afresh)."""
    steps = sorted({key.split(".", 1)[0] for key in inputs if key.startswith("step")})
    if not steps:
        return [run(inputs)]
    model.reset_state()
    return [run({k.split(".", 1)[1]: v for k, v in inputs.items() if k.startswith(step + ".")})
            for step in steps]  # fmt: skip


@pytest.mark.parametrize("name", NAMES)
def test_folded_lazy_stepping_and_revalidated_runs_agree_bit_for_bit(name):
    folder = REAL_MODELS / name
    model = irrun.load(folder / "model.xml")
    inputs = dict(np.load(folder / "inputs.npz"))
    folded = run_all(model.run, model, inputs)
    lazy = run_all(compile_model(model, fold_constants=False).run, model, inputs)
    stepped = run_all(lambda i: model.run(i, on_step=lambda step: None), model, inputs)
    revalidated = run_all(lambda i: model.run(i, validate=True), model, inputs)
    for results in (lazy, stepped, revalidated):
        assert len(results) == len(folded)
        assert all(same(a, b) for a, b in zip(folded, results))
    if len(folded) > 1:  # a stateful model: each step sees the state the one before left
        assert not same(folded[0], folded[1])
    if "_f16" in name:
        assert model.compile().folded_bytes > 0  # the decompressed weights, kept once
