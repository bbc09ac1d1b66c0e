"""Validating a model again (or after running it) gives the same report, the same inferred
ports and the same constant arrays: validation caches decoded Consts on the model."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import irrun

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "ir"


def state(model, report):
    ports = [(str(p.inferred_shape), p.inferred_type) for x in model.layers for p in x.outputs]
    return [d.to_dict() for d in report], report.layers_checked, report.layers_trusted, ports


@pytest.mark.parametrize("name", ["tiny.xml", "concat_declared_48.xml"])
def test_validating_twice_gives_the_same_report(name):
    model = irrun.load(EXAMPLES / name)
    first = state(model, model.validate())
    assert first[1] > 0
    assert state(model, model.validate()) == first


def test_validating_after_running_gives_the_same_report():
    model = irrun.load(EXAMPLES / "tiny.xml")
    first = state(model, model.validate())
    with np.load(EXAMPLES / "tiny_inputs.npz", allow_pickle=False) as inputs:
        model.run(dict(inputs))
    assert state(model, model.validate()) == first


def test_consts_with_one_layout_share_one_read_only_array_kept_for_the_executor():
    model = irrun.load(EXAMPLES / "tiny.xml")
    model.validate()
    consts = [x for x in model.layers if x.type == "Const"]
    assert consts
    for layer in consts:
        array = model._constants[id(layer)]
        assert model.constant(layer) is array
        assert not array.flags.writeable
