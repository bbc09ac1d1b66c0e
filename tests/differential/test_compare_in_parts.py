"""irrun.compare in parts: a model whose tensors outgrow the memory limit is compared a part
of its layers at a time, with the same verdicts as a comparison at once."""

from __future__ import annotations

from pathlib import Path

import numpy as np

import irrun
import irrun.compare
import irrun.ops.relu
from irrun.compare import compare
from tests.helpers.cli import invoke

REAL_MODELS = Path(__file__).resolve().parents[1] / "real_models"


X = np.array([[-1.5, 0.25, 2.0], [3.0, -0.5, 0.75]], np.float32)


def verdicts(comparison):
    return [tensor.to_dict() for tensor in comparison.tensors]


def test_a_real_model_compared_in_parts_gives_the_verdicts_of_one_comparison(ov):
    model = irrun.load(REAL_MODELS / "resnet_tiny_static_f16" / "model.xml")
    inputs = model.random_inputs(seed=1)
    whole = compare(model, inputs, isolate=False)
    compared = sum(array.nbytes for step in model.steps(inputs)
                   if step.layer.type not in ("Parameter", "Const", "Result")
                   for array in step.outputs)  # fmt: skip
    parts = compare(model, inputs, isolate=False, memory_limit=compared // 4)
    assert whole.passes == 1 and whole.ok
    assert parts.passes >= 4
    assert verdicts(parts) == verdicts(whole)
    assert f"compared in {parts.passes} parts to stay within the memory limit" in parts.summary()
    assert parts.to_dict()["passes"] == parts.passes
    assert whole.to_dict()["schema"] == "irrun.compare/4"


def test_a_divergence_and_what_is_downstream_of_it_span_the_parts(ov, erf_xml, monkeypatch):
    def wrong_relu(x, out):  # irrun's Relu made wrong: it adds 1
        np.add(np.maximum(x, 0), 1, out=out)

    monkeypatch.setattr(irrun.ops.relu, "_relu_into", wrong_relu)
    model = irrun.load(erf_xml)
    whole = compare(model, {"x": X})
    # every layer a part of its own: relu, erf, out, other
    parts = compare(model, {"x": X}, memory_limit=1)
    assert parts.passes == 4
    statuses = {tensor.layer_name: tensor.status for tensor in parts.tensors}
    assert statuses == {"relu": "differs", "erf": "downstream", "out": "downstream",
                        "other": "match"}  # fmt: skip
    assert verdicts(parts) == verdicts(whole)
    assert not parts.ok


def test_a_bridged_layer_is_bridged_in_every_part(ov, erf_xml, erf_without_kernel):
    model = irrun.load(erf_xml)
    whole = compare(model, {"x": X})
    parts = compare(model, {"x": X}, memory_limit=1)
    assert parts.passes == 4
    assert parts.bridged == whole.bridged == [model.layer("erf").describe()]
    assert verdicts(parts) == verdicts(whole)
    assert [t.status for t in parts.tensors if t.layer_name != "erf"] == ["match"] * 3
    assert parts.ok


def test_each_part_holds_what_its_layers_read(ov, erf_xml):
    model = irrun.load(erf_xml)
    model.validate()
    sizes = {id(port): 24 for layer in model.layers for port in layer.outputs}
    names = lambda parts: [[layer.name for layer in part] for part in parts]  # noqa: E731
    parts = lambda budget: names(irrun.compare._parts(model, sizes, budget))  # noqa: E731
    # In execution order: other, relu, erf (reads relu), out (reads erf and relu). A part
    # counts its layers' tensors and those they read from outside it.
    assert parts(1) == [["other"], ["relu"], ["erf"], ["out"]]  # each alone, over budget
    assert parts(48) == [["other", "relu"], ["erf"], ["out"]]  # erf + relu, out + erf + relu
    assert parts(72) == [["other", "relu", "erf"], ["out"]]
    assert parts(96) == [["other", "relu", "erf", "out"]]


def test_the_command_takes_a_memory_limit(ov, erf_xml, tmp_path):
    inputs = tmp_path / "x.npz"
    np.savez(inputs, x=X)
    result = invoke("compare", erf_xml, "--inputs", inputs, "--memory-limit", "1")
    assert result.exit_code == 0, result.output
    assert "compared in" not in result.output  # 1 MiB holds this model's tensors
    refused = invoke("compare", erf_xml, "--inputs", inputs, "--memory-limit", "0")
    assert refused.exit_code == 2
    assert "--memory-limit" in refused.output


def test_the_model_method_draws_inputs_and_takes_a_memory_limit(ov, erf_xml):
    model = irrun.load(erf_xml)
    comparison = model.compare(seed=3, memory_limit=1)
    assert comparison.passes == 4 and comparison.ok
    assert verdicts(comparison) == verdicts(compare(model, model.random_inputs(seed=3)))
