"""irrun.compare and ``irrun compare``: every tensor of one IR, irrun against OpenVINO's CPU plugin.

The models are built with the OpenVINO Python API and written with ``ov.save_model``, so both
sides read the very same file.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

import irrun
import irrun.ops.concat
from irrun.compare import (
    INSTALL_COMMAND,
    Comparison,
    OpenVINOError,
    OpenVINONotInstalled,
    compare,
    compare_arrays,
)
from irrun.element_types import element_type
from tests.helpers.cli import invoke

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "ir"

#: x of the chain model: [2, 1..4] declared, [2, 3] given.
X = np.arange(6, dtype=np.float32).reshape(2, 3)
#: Gather-8 of X on axis 1 with indices [2, 0, -1] (the -1 wraps).
GATHERED = np.array([[2, 0, 2], [5, 3, 5]], np.float32)
#: Concat of GATHERED and X on axis 1.
JOINED = np.array([[2, 0, 2, 0, 1, 2], [5, 3, 5, 3, 4, 5]], np.float32)


@pytest.fixture(scope="module")
def ov():
    return pytest.importorskip("openvino")


@pytest.fixture(scope="module")
def chain_xml(ov, tmp_path_factory) -> Path:
    """Parameter -> Gather-8 -> Concat -> GatherND-8, where irrun and the CPU plugin agree."""
    from openvino import opset1, opset8, opset13

    x = opset13.parameter([2, ov.Dimension(1, 4)], np.float32, name="x")
    indices = opset13.constant(np.array([2, 0, -1], np.int64))
    gathered = opset8.gather(x, indices, opset13.constant(np.int64(1)), name="g")
    joined = opset1.concat([gathered, x], 1, name="cat")
    tuples = opset13.constant(np.array([[1, 4], [0, 0]], np.int32))
    picked = opset8.gather_nd(joined, tuples, 0, name="nd")
    xml = tmp_path_factory.mktemp("chain") / "chain.xml"
    ov.save_model(ov.Model([picked], [x], "chain"), xml, compress_to_fp16=False)
    return xml


@pytest.fixture(scope="module")
def negative_gather7_xml(ov, tmp_path_factory) -> Path:
    """Gather-7 with a negative index (the CPU plugin writes 0, irrun wraps), then Concat."""
    from openvino import opset1, opset7, opset13

    x = opset13.parameter([2, 3], np.float32, name="x")
    indices = opset13.constant(np.array([-1, 0], np.int64))
    gathered = opset7.gather(x, indices, opset13.constant(np.int64(1)), name="g7")
    joined = opset1.concat([gathered, x], 1, name="cat")
    xml = tmp_path_factory.mktemp("negative") / "negative.xml"
    ov.save_model(ov.Model([joined], [x], "negative"), xml, compress_to_fp16=False)
    return xml


@pytest.fixture
def perturbed_concat(monkeypatch):
    """irrun's Concat adds 1 to element [1, 4] of its output (JOINED[1, 4] is 4.0)."""
    original = irrun.ops.concat.Concat.evaluate

    def evaluate(self, inputs):
        (joined,) = original(self, inputs)
        joined = joined.copy()
        joined[1, 4] += 1
        return [joined]

    monkeypatch.setattr(irrun.ops.concat.Concat, "evaluate", evaluate)


def by_layer(comparison: Comparison) -> dict:
    return {t.layer_name: t for t in comparison.tensors}


def save_inputs(folder: Path, **arrays) -> Path:
    path = folder / "inputs.npz"
    np.savez(path, **arrays)
    return path


# -- the comparison ------------------------------------------------------------------------------
def test_every_tensor_matches_and_every_shape_agrees_on_the_chain(chain_xml):
    comparison = compare(irrun.load(chain_xml), {"x": X})
    assert comparison.ok and comparison.first_divergence is None
    assert [(t.layer_name, t.op, t.status) for t in comparison.tensors] == [
        ("g", "Gather-8", "match"),
        ("cat", "Concat-1", "match"),
        ("nd", "GatherND-8", "match"),
    ]
    assert [(t.inferred_shape, t.openvino_shape) for t in comparison.tensors] == [
        ("[2,3]", "[2,3]"),
        ("[2,4..7]", "[2,4..7]"),  # the interval of x survives the normalisation
        ("[2]", "[2]"),
    ]
    assert all(t.shape_agrees and t.type_agrees for t in comparison.tensors)
    lines = comparison.to_text().splitlines()
    assert [line.rsplit(": ", 1)[1] for line in lines[:3]] == ["match"] * 3
    assert "3 tensors: 3 match, 0 differ" in lines[-1] and "shapes agree" in lines[-1]


def test_running_openvino_in_process_gives_the_same_comparison(chain_xml):
    model = irrun.load(chain_xml)
    isolated = compare(model, {"x": X}).to_dict()
    in_process = compare(model, {"x": X}, isolate=False).to_dict()
    assert in_process == isolated


def test_a_perturbed_kernel_is_reported_at_the_first_divergence(chain_xml, perturbed_concat):
    model = irrun.load(chain_xml)
    comparison = compare(model, {"x": X})
    assert not comparison.ok
    tensors = by_layer(comparison)
    assert tensors["g"].status == "match"
    concat = tensors["cat"]
    assert comparison.first_divergence is concat
    assert concat.status == "differs"
    assert (concat.differing, concat.elements, concat.first_index) == (1, 12, (1, 4))
    assert (concat.irrun_value, concat.openvino_value) == ("5.0", "4.0")
    assert concat.max_abs_diff == 1.0
    ulp = int(np.float32(5).view(np.uint32)) - int(np.float32(4).view(np.uint32))
    assert concat.max_ulp == ulp == 0x200000
    # The line is that of the Concat's output port in the file OpenVINO wrote.
    port = model.layer("cat").outputs[0]
    assert concat.line == port.line
    assert (
        Path(chain_xml)
        .read_text()
        .splitlines()[concat.line - 1]
        .strip()
        .startswith(f'<port id="{port.id}" precision="FP32"')
    )
    picked = tensors["nd"]  # nd[0] is cat[1, 4]
    assert picked.status == "downstream"
    assert picked.cause == "layer 4 'cat' (Concat) output port 2"
    assert (picked.differing, picked.first_index, picked.max_abs_diff) == (1, (0,), 1.0)
    line = next(line for line in comparison.to_text().splitlines() if "'cat'" in line)
    assert line == (
        f"{chain_xml}:{concat.line}: layer 4 'cat' (Concat) output port 2: DIFFERS: 1 of 12 "
        "elements differ, first at [1,4]: irrun 5.0, OpenVINO 4.0; max abs diff 1, "
        "max ULP 2097152"
    )
    assert "first divergence: layer 4 'cat' (Concat) output port 2" in comparison.summary()


def test_gather7_negative_indices_are_a_known_cpu_deviation(negative_gather7_xml):
    comparison = compare(irrun.load(negative_gather7_xml), {"x": X})
    assert comparison.ok and comparison.first_divergence is None
    gathered, joined = comparison.tensors
    assert gathered.status == "known-deviation"
    assert gathered.deviation.startswith("Gather-7 with negative indices (index -1 at [0])")
    # irrun wraps -1 to 2: [[2, 0], [5, 3]]; the CPU plugin writes 0: [[0, 0], [0, 3]].
    assert (gathered.differing, gathered.first_index, gathered.max_abs_diff) == (2, (0, 0), 5.0)
    assert joined.status == "downstream" and joined.cause == gathered.where
    assert "known CPU deviation: Gather-7 with negative indices" in comparison.to_text()


def test_the_json_form_carries_every_number(chain_xml, perturbed_concat):
    payload = compare(irrun.load(chain_xml), {"x": X}).to_dict()
    assert payload["schema"] == "irrun.compare/1" and payload["ok"] is False
    assert payload["summary"] == {
        "tensors": 3, "match": 1, "differs": 1, "downstream": 1, "known_deviation": 0,
        "not_compared": 0, "shape_mismatches": 0,
    }  # fmt: skip
    concat = payload["tensors"][1]
    assert concat["layer"] == {"id": 4, "name": "cat", "type": "Concat", "op": "Concat-1"}
    assert (concat["first_index"], concat["differing"], concat["max_ulp"]) == ([1, 4], 1, 0x200000)
    json.dumps(payload, allow_nan=False)


def test_the_html_form_is_a_table_with_a_row_per_tensor(chain_xml, perturbed_concat):
    from lxml import html

    page = compare(irrun.load(chain_xml), {"x": X})._repr_html_()
    rows = [[cell.text_content() for cell in row] for row in html.fromstring(page).iter("tr")]
    assert rows[0][:4] == ["line", "layer", "port", "status"]
    assert [row[3] for row in rows[1:]] == ["match", "differs", "downstream"]


def test_a_crash_of_the_cpu_plugin_is_reported_not_fatal(ov, tmp_path):
    """Gather-8 with batch_dims 1 on a single batch segfaults OpenVINO 2026.4's CPU plugin; in
    the child process that becomes an OpenVINOError naming the layer. (Should a later OpenVINO
    run it, the comparison must still come back.)"""
    from openvino import opset8, opset13

    data = opset13.parameter([1, 4, 2], np.float32, name="d")
    indices = opset13.constant(np.array([[3, 0]], np.int64))
    gathered = opset8.gather(data, indices, opset13.constant(np.int64(1)), 1, name="g")
    xml = tmp_path / "single_batch.xml"
    ov.save_model(ov.Model([gathered], [data]), xml, compress_to_fp16=False)
    try:
        comparison = compare(
            irrun.load(xml), {"d": np.arange(8, dtype=np.float32).reshape(1, 4, 2)}
        )
    except OpenVINOError as exc:
        assert "OpenVINO crashed" in str(exc)
        assert "layer 3 'g' (Gather)" in str(exc) and "single batch" in str(exc)
    else:
        assert comparison.ok


# -- comparing arrays bit for bit ----------------------------------------------------------------
def test_negative_zero_against_zero_is_a_difference_of_bits_only():
    found = compare_arrays(
        np.array([1.0, -0.0], np.float32), np.array([1.0, 0.0], np.float32), element_type("f32")
    )
    assert (found["differing"], found["first_index"]) == (1, (1,))
    assert (found["irrun_value"], found["openvino_value"]) == ("-0.0", "0.0")
    assert (found["max_abs_diff"], found["max_ulp"], found["nan_mismatches"]) == (0.0, 0, 0)


def test_nan_payloads_and_nan_against_numbers_are_counted_apart():
    ours = np.array([0x7FC00000, 0x7FC00001, 0x3F800000], np.uint32).view(np.float32)
    theirs = np.array([0x7FC00000, 0x7FC00002, 0x7FC00000], np.uint32).view(np.float32)
    found = compare_arrays(ours, theirs, element_type("f32"))
    assert (found["differing"], found["first_index"]) == (2, (1,))
    assert (found["irrun_value"], found["openvino_value"]) == (
        "nan (0x7fc00001)",
        "nan (0x7fc00002)",
    )
    assert (found["nan_mismatches"], found["max_abs_diff"], found["max_ulp"]) == (1, None, None)


def test_ulp_distance_crosses_zero_and_integers_give_exact_differences():
    smallest = np.array([0x00000001], np.uint32).view(np.float32)
    found = compare_arrays(smallest, -smallest, element_type("f32"))
    assert found["max_ulp"] == 2
    wide = compare_arrays(
        np.array([2**62, 7], np.int64), np.array([-(2**62), 7], np.int64), element_type("i64")
    )
    assert (wide["max_abs_diff"], wide["max_ulp"], wide["first_index"]) == (2**63, None, (0,))
    assert compare_arrays(np.arange(3), np.arange(3), element_type("i64")) is None


# -- the command line ----------------------------------------------------------------------------
def test_cli_exits_0_when_every_tensor_matches(chain_xml, tmp_path):
    result = invoke("compare", chain_xml, "--inputs", save_inputs(tmp_path, x=X))
    assert result.exit_code == 0, result.output
    assert result.output.count(": match\n") == 3


def test_cli_exits_1_when_irrun_and_openvino_disagree(chain_xml, tmp_path, perturbed_concat):
    result = invoke(
        "compare", chain_xml, "--inputs", save_inputs(tmp_path, x=X), "--format", "json"
    )
    assert result.exit_code == 1, result.output
    payload = json.loads(result.output)
    assert [t["status"] for t in payload["tensors"]] == ["match", "differs", "downstream"]


def test_cli_exits_0_when_only_known_cpu_deviations_differ(negative_gather7_xml, tmp_path):
    result = invoke("compare", negative_gather7_xml, "--inputs", save_inputs(tmp_path, x=X))
    assert result.exit_code == 0, result.output
    assert "known CPU deviation: Gather-7 with negative indices" in result.output


def test_cli_exits_2_for_inputs_that_do_not_fit(chain_xml, tmp_path):
    result = invoke("compare", chain_xml, "--inputs", save_inputs(tmp_path, y=X))
    assert result.exit_code == 2
    assert "missing: 'x'" in result.output


def test_without_openvino_the_cli_says_how_to_install_it_and_exits_2(monkeypatch):
    monkeypatch.setitem(sys.modules, "openvino", None)
    result = invoke("compare", EXAMPLES / "tiny.xml", "--inputs", EXAMPLES / "tiny_inputs.npz")
    assert result.exit_code == 2
    assert INSTALL_COMMAND == "pip install 'irrun[openvino]'"
    assert INSTALL_COMMAND in result.output and "Traceback" not in result.output


@pytest.mark.parametrize("isolate", [True, False])
def test_without_openvino_compare_raises_an_import_error_with_the_command(monkeypatch, isolate):
    monkeypatch.setitem(sys.modules, "openvino", None)
    model = irrun.load(EXAMPLES / "tiny.xml")
    with pytest.raises(OpenVINONotInstalled, match=r"pip install 'irrun\[openvino\]'") as raised:
        compare(model, str(EXAMPLES / "tiny_inputs.npz"), isolate=isolate)
    assert isinstance(raised.value, ImportError)


def test_model_compare_method_matches_the_function(tmp_path):
    data = np.arange(6, dtype=np.float32).reshape(2, 3)
    model = irrun.load(Path(__file__).resolve().parents[2] / "examples" / "ir" / "tiny.xml")
    comparison = model.compare({"data": data})
    assert comparison.ok
    assert [t.status for t in comparison.tensors] == ["match", "match"]


# -- a model with a layer irrun has no kernel for ------------------------------------------------
@pytest.fixture
def erf_without_kernel():
    """Erf-1 registered as a shape-only op (its rule, no kernel) for the test's duration."""
    from irrun.ops.base import Op
    from irrun.ops.registry import register, resolve

    original = resolve("Erf", 1)

    class ShapeOnlyErf(original):
        evaluate = Op.evaluate

    register(ShapeOnlyErf, replace=True)
    yield
    register(original, replace=True)


@pytest.fixture(scope="module")
def erf_xml(ov, tmp_path_factory) -> Path:
    """x -> relu -> erf -> add(erf, relu), and x -> negative."""
    from openvino import opset1

    x = opset1.parameter([2, 3], np.float32, name="x")
    relu = opset1.relu(x, name="relu")
    erf = opset1.erf(relu, name="erf")
    added = opset1.add(erf, relu, name="out")
    other = opset1.negative(x, name="other")
    xml = tmp_path_factory.mktemp("erf") / "erf.xml"
    ov.save_model(ov.Model([added, other], [x], "erf"), xml, compress_to_fp16=False)
    return xml


def test_a_layer_without_kernel_is_bridged_and_the_rest_compared(erf_xml, erf_without_kernel):
    comparison = compare(irrun.load(erf_xml), {"x": X - 2})
    tensors = by_layer(comparison)
    assert tensors["erf"].status == "not-compared"
    assert tensors["erf"].reason.startswith("bridged: irrun has no kernel for it")
    # "out" reads OpenVINO's Erf output and irrun's Relu: compared as usual.
    assert [tensors[name].status for name in ("relu", "out", "other")] == ["match"] * 3
    assert comparison.ok
    assert comparison.bridged == [irrun.load(erf_xml).layer("erf").describe()]
    text = comparison.to_text()
    assert "bridged 1 layer(s) irrun has no kernel for with OpenVINO's outputs" in text
    assert comparison.to_dict()["bridged"] == comparison.bridged


def test_compare_command_bridges_and_draws_random_inputs(erf_xml, erf_without_kernel, tmp_path):
    saved = tmp_path / "drawn.npz"
    result = invoke("compare", erf_xml, "--seed", "5", "--save-inputs", saved)
    assert result.exit_code == 0, result.output
    assert "bridged with OpenVINO's outputs" in result.output
    drawn = irrun.load(erf_xml).random_inputs(seed=5)
    assert np.array_equal(np.load(saved)["x"], drawn["x"])
