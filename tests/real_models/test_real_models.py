"""Real converter output (``scripts/make_real_models.py``): every layer of an op irrun covers is
checked, the models made only of such ops run and match OpenVINO, and a wrong declaration in
the middle of a real model is found at its layer.

Tolerance of the runs: outputs are compared with OpenVINO's CPU plugin in f32 precision as
``|irrun - openvino| <= 1e-4 * max|openvino| + 1e-5``: float kernels sum in another order than
OpenVINO's (Convolution and MatMul over up to 576 products per output here), and the error
grows through the layers; measured differences are below 1e-6 relative. Two variants need
more, for reasons of the CPU plugin's arithmetic, not irrun's:

* ``int8``/``int4`` (NNCF weight compression): ``2e-3 * max``. The IR decompresses the weights
  in f16 (Convert to f16, Subtract, Multiply), which irrun evaluates as written, rounding each
  step to f16; the CPU plugin fuses the decompression into its MatMul/Convolution in f32.
  Measured: 3.2e-4 (MobileNet) and 3.8e-4 (LLaMA) of the largest output.
* ``fq`` (FakeQuantize): ``5e-2 * max``. FakeQuantize rounds to 256 levels, so an input that a
  float rounding puts on the other side of a level boundary moves by a whole quantum, and the
  quanta add up through the layers. Measured: 1.6e-2 (MobileNet) and 8.1e-3 (LLaMA).

Integer outputs (the detector's labels) are compared exactly. The detector's detections come
sorted by score; where two expected scores are equal within the tolerance, their order is a
tie that float rounding may break either way, so the rows of such a tie are matched by content
before comparing (``_untied``).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from lxml import etree

import irrun

HERE = Path(__file__).parent
MANIFEST = json.loads((HERE / "manifest.json").read_text())
IRS = {entry["file"].split("/")[0]: entry for entry in MANIFEST["irs"]}
#: Ops of the converter's output that irrun does not check yet, by IR spelling (``"Type/opsetN":
#: "Type-version"``): none now; a model regenerated with new ops lists them here until they are.
NOT_COVERED: dict[str, str] = {}


def _uncovered(entry) -> dict[str, int]:
    return {NOT_COVERED[key]: count for key, count in entry["layers"].items() if key in NOT_COVERED}


@pytest.mark.parametrize("name", sorted(IRS))
def test_real_model_validates_and_checks_every_covered_layer(name):
    entry = IRS[name]
    report = irrun.load(HERE / entry["file"]).validate()
    assert report.ok, report.to_text()
    # Exactly the layers of ops not covered yet are trusted: everything else was checked.
    assert report.trusted_types == _uncovered(entry)
    assert report.layers_checked + report.layers_trusted == entry["layer_count"]
    unknown = [d for d in report.warnings if d.code == "unknown-op"]
    assert len(unknown) == sum(_uncovered(entry).values())
    assert [d for d in report.warnings if d.code != "unknown-op"] == []


RUNNABLE = sorted(name for name, entry in IRS.items() if not _uncovered(entry))


def test_every_real_model_runs():
    runnable = {IRS[name]["model"] for name in RUNNABLE}
    assert runnable == {
        "resnet_tiny", "mobilenet_v3_small", "vit_tiny", "bert_tiny", "gpt2_tiny", "llama_tiny",
        "ssdlite_tiny", "lraspp_tiny", "t5_tiny", "llama_kv_tiny",
    }  # fmt: skip
    assert len(RUNNABLE) == 32


#: Relative tolerance (of the largest expected value) per variant; see the module docstring.
TOLERANCE = {"int8": 2e-3, "int4": 2e-3, "fq": 5e-2}


def _arrays(path) -> dict:
    with np.load(path, allow_pickle=False) as archive:
        return {key: archive[key] for key in archive.files}


def _close(got, want, variant, what) -> None:
    assert got.shape == want.shape and got.dtype == want.dtype, what
    if not np.issubdtype(want.dtype, np.floating):
        np.testing.assert_array_equal(got, want, err_msg=what)
        return
    scale = float(np.max(np.abs(want))) if want.size else 0.0
    tolerance = TOLERANCE.get(variant, 1e-4) * scale + (1e-5 if variant not in TOLERANCE else 0)
    np.testing.assert_allclose(got, want, rtol=0, atol=tolerance, err_msg=what)


@pytest.mark.parametrize("name", RUNNABLE)
def test_real_model_runs_and_matches_openvino(name):
    entry = IRS[name]
    model = irrun.load(HERE / entry["file"])
    inputs = _arrays(HERE / entry["inputs_file"])
    expected = _arrays(HERE / entry["expected_file"])
    if entry.get("steps"):  # a stateful model: the steps in order, its states carried over
        session = model.compile()
        for step in range(entry["steps"]):
            prefix = f"step{step}."
            feed = {k[len(prefix) :]: v for k, v in inputs.items() if k.startswith(prefix)}
            outputs = session.run(feed)
            assert {prefix + k for k in outputs} == {k for k in expected if k.startswith(prefix)}
            for key, got in outputs.items():
                _close(got, expected[prefix + key], entry["variant"], f"{name} {prefix}{key}")
        return
    outputs = model.run(inputs)
    assert set(outputs) == set(expected)
    if {"boxes", "scores", "labels"} <= set(expected):
        outputs = _untied(outputs, expected, entry["variant"])
    for key, want in expected.items():
        _close(outputs[key], want, entry["variant"], f"{name} {key}")


def _untied(outputs, expected, variant) -> dict:
    """The detector's outputs with the rows of each tie in the expected scores (consecutive
    scores equal within the tolerance) put in the expected rows' order, each expected row
    taking the closest remaining row of its tie; rows outside ties stay where they are."""
    scores = expected["scores"]
    tolerance = TOLERANCE.get(variant, 1e-4) * float(np.max(np.abs(scores))) + 1e-5
    order = np.arange(len(scores))
    start = 0
    for end in range(1, len(scores) + 1):
        if end < len(scores) and abs(scores[end] - scores[end - 1]) <= tolerance:
            continue
        left = list(range(start, end))
        for row in range(start, end):
            distance = [float(np.max(np.abs(outputs["boxes"][k] - expected["boxes"][row])))
                        for k in left]  # fmt: skip
            order[row] = left.pop(int(np.argmin(distance)))
        start = end
    return {key: array[order] if key in ("boxes", "scores", "labels") else array
            for key, array in outputs.items()}  # fmt: skip


def test_detections_in_a_tie_are_matched_by_content_and_others_stay():
    boxes = np.float32([[0, 0, 1, 1], [2, 2, 3, 3], [4, 4, 5, 5], [6, 6, 7, 7]])
    want = {"scores": np.float32([0.9, 0.5, 0.5, 0.1]), "labels": np.int64([1, 2, 3, 4]),
            "boxes": boxes}  # fmt: skip
    swapped = {key: value[[0, 2, 1, 3]] for key, value in want.items()}
    untied = _untied(swapped, want, "static_f32")
    for key in want:
        np.testing.assert_array_equal(untied[key], want[key])
    # No tie: a swap stays a swap, and the comparison fails on it.
    apart = dict(want, scores=np.float32([0.9, 0.6, 0.5, 0.1]))
    assert _untied(swapped, apart, "static_f32")["labels"].tolist() == [1, 3, 2, 4]


def test_a_stateful_model_starts_again_after_reset_state():
    entry = IRS["llama_kv_tiny_stateful_f32"]
    session = irrun.load(HERE / entry["file"]).compile()
    inputs = _arrays(HERE / entry["inputs_file"])
    expected = _arrays(HERE / entry["expected_file"])
    first = {k[len("step0.") :]: v for k, v in inputs.items() if k.startswith("step0.")}
    second = {k[len("step1.") :]: v for k, v in inputs.items() if k.startswith("step1.")}
    session.run(first)
    session.run(second)
    session.reset_state()
    again = session.run(first)["logits"]
    _close(again, expected["step0.logits"], "stateful_f32", "after reset_state")
    # Without the prompt in the cache, the next token's logits are others.
    session.reset_state()
    alone = session.run(second)["logits"]
    assert float(np.max(np.abs(alone - expected["step1.logits"]))) > 1e-2


def test_a_dim_edited_on_both_ends_is_found_at_its_layer(tmp_path):
    """A Convolution in the middle of the ResNet declares 17 channels instead of 16 on its
    output and on every consumer's input: the edge agrees, the op does not."""
    source = HERE / IRS["resnet_tiny_static_f32"]["file"]
    tree = etree.parse(str(source))
    convolutions = tree.findall(".//layer[@type='Convolution']")
    layer = convolutions[len(convolutions) // 2]
    port = layer.find("output/port")
    channel = port.findall("dim")[1]
    old = int(channel.text)
    channel.text = str(old + 1)
    for edge in tree.findall(".//edge"):
        if edge.get("from-layer") == layer.get("id") and edge.get("from-port") == port.get("id"):
            consumer = tree.find(f".//layer[@id='{edge.get('to-layer')}']")
            consumer.find(f"input/port[@id='{edge.get('to-port')}']").findall("dim")[1].text = str(
                old + 1
            )
    target = tmp_path / "model.xml"
    tree.write(str(target), xml_declaration=True, encoding="utf-8")
    shutil.copy(source.with_suffix(".bin"), tmp_path / "model.bin")
    report = irrun.load(target).validate()
    assert [(d.code, d.layer_name, d.line) for d in report.errors] == [
        ("shape-mismatch", layer.get("name"), port.sourceline)
    ]
    assert f"declares [1,{old + 1}," in report.errors[0].message
    assert f"but its inputs give [1,{old}," in report.errors[0].message


#: Real models for ``irrun compare``, with the CPU deviation each must show (``None``: none).
COMPARED = {
    "resnet_tiny_static_f16": None,
    "bert_tiny_dynamic_f32": None,
    "mobilenet_v3_small_int8": "weights decompressed in float16",
    "mobilenet_v3_small_fq": "FakeQuantize: ",
    "ssdlite_tiny_static_f32": "TopK: equal values in another order",
    "t5_tiny_static_f32": "int64 results beyond the int32 range",
}


@pytest.mark.parametrize("name", sorted(COMPARED))
def test_compare_finds_no_divergence_in_a_real_model(name):
    """Every layer output agrees with OpenVINO's CPU plugin bit for bit, within rounding (a
    layer whose inputs differ judged on OpenVINO's own inputs), or through a known deviation
    of the plugin; nothing is left as ``differs``."""
    pytest.importorskip("openvino")
    from irrun.compare import compare

    folder = HERE / name
    comparison = compare(irrun.load(folder / "model.xml"), folder / "inputs.npz")
    counts = comparison.counts()
    assert counts["differs"] == 0, comparison.to_text()
    assert counts["not-compared"] == 0
    labels = {t.deviation for t in comparison.tensors if t.status == "known-deviation"}
    expected = COMPARED[name]
    if expected is None:
        assert labels == set() and comparison.ok
        assert counts["rounding"] > 0  # (float models: some results differ in their last bits)
    else:
        assert any(label.startswith(expected) for label in labels), labels


def test_compare_runs_a_stateful_model():
    """OpenVINO's CPU plugin refuses a Result on an Assign: compare exposes every other output
    and says why the Assigns are not compared."""
    pytest.importorskip("openvino")
    from irrun.compare import compare

    folder = HERE / "llama_kv_tiny_stateful_f32"
    steps = dict(np.load(folder / "inputs.npz"))
    first = {key[len("step0.") :]: value for key, value in steps.items() if key[:6] == "step0."}
    comparison = compare(irrun.load(folder / "model.xml"), first)
    assert comparison.ok and comparison.counts()["differs"] == 0
    assigns = [t for t in comparison.tensors if t.layer_type == "Assign"]
    assert len(assigns) == 4 and all(t.status == "not-compared" for t in assigns)
    assert assigns[0].reason.startswith("an Assign gives out the value it stores")
    assert comparison.counts()["rounding"] > 0
