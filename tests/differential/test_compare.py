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
    assert "3 tensors: 3 match, 0 within rounding, 0 differ" in lines[-1]
    assert "rounding tolerance" not in lines[-1]  # (named only where it decided something)
    assert "shapes agree" in lines[-1]


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
    assert payload["schema"] == "irrun.compare/4" and payload["ok"] is False
    assert payload["summary"] == {
        "tensors": 3, "match": 1, "rounding": 0, "differs": 1, "downstream": 1,
        "known_deviation": 0, "not_compared": 0, "shape_mismatches": 0,
        "shapes_more_precise": 0, "shapes_less_precise": 0,
    }  # fmt: skip
    assert payload["rtol"] == "f64 1e-10, f32 0.0001, f16 0.01, bf16 0.06"
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


def test_scalars_that_differ_are_compared_as_scalars():
    # (Mask R-CNN's scale factor: a 0-d tensor; ascontiguousarray made it [1] and the first
    # index then did not fit it)
    found = compare_arrays(np.float32(0.25), np.float32(0.5), element_type("f32"))
    assert (found["elements"], found["differing"], found["first_index"]) == (1, 1, ())
    assert (found["irrun_value"], found["openvino_value"]) == ("0.25", "0.5")
    assert (found["max_abs_diff"], found["max_ulp"]) == (0.25, 1 << 23)
    found = compare_arrays(np.array(3, np.int64), np.array(5, np.int64), element_type("i64"))
    assert (found["first_index"], found["max_abs_diff"]) == ((), 2)


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


# -- rounding: float results of ops that round, and divergences behind them -----------------------
#: x of the rounding chain: 8,192 values per row, summed by ReduceMean (irrun in float64).
ROWS = np.random.default_rng(7).standard_normal((2, 8192)).astype(np.float32)


@pytest.fixture(scope="module")
def rounding_xml(ov, tmp_path_factory) -> Path:
    """x -> ReduceMean over axis 1 -> Multiply by ones [1, 6] -> Concat with itself -> Relu."""
    from openvino import opset1, opset13

    x = opset13.parameter([2, 8192], np.float32, name="x")
    mean = opset1.reduce_mean(x, opset13.constant(np.array([1], np.int64)), True, name="mean")
    wide = opset1.multiply(mean, opset13.constant(np.ones((1, 6), np.float32)), name="wide")
    joined = opset1.concat([wide, wide], 1, name="cat")
    out = opset1.relu(joined, name="relu")
    xml = tmp_path_factory.mktemp("rounding") / "rounding.xml"
    ov.save_model(ov.Model([out], [x], "rounding"), xml, compress_to_fp16=False)
    return xml


@pytest.fixture
def mean_one_ulp_up(monkeypatch):
    """irrun's ReduceMean gives the next float32 above its result (a rounding difference)."""
    from irrun.ops.reduce_mean import ReduceMean

    original = ReduceMean.evaluate

    def evaluate(self, inputs):
        (mean,) = original(self, inputs)
        return [np.nextafter(mean, np.float32(np.inf)).astype(mean.dtype)]

    monkeypatch.setattr(ReduceMean, "evaluate", evaluate)


def test_a_float_difference_within_rounding_is_not_a_disagreement(rounding_xml, mean_one_ulp_up):
    comparison = compare(irrun.load(rounding_xml), {"x": ROWS})
    tensors = by_layer(comparison)
    mean = tensors["mean"]
    assert mean.status == "rounding" and not mean.isolated and mean.tolerance == 1e-4
    assert mean.differing >= 1 and mean.max_ulp >= 1 and 0 < mean.relative_diff < 1e-4
    # Multiply rounds, Concat and Relu do not: all three agree exactly on OpenVINO's inputs,
    # so what they show is the inherited rounding.
    for name in ("wide", "cat", "relu"):
        assert tensors[name].status == "rounding"
        assert tensors[name].isolated and tensors[name].own_relative_diff == 0.0
    assert comparison.ok and comparison.first_divergence is None
    assert comparison.counts()["rounding"] == 4
    assert mean.verdict().startswith("within rounding (within the tolerance 0.0001): ")
    inherited = "within rounding (inherited: on OpenVINO's inputs it gives OpenVINO's result"
    assert tensors["cat"].verdict().startswith(inherited + " exactly): ")
    assert "4 within rounding, 0 differ" in comparison.summary()


def test_rtol_0_compares_bit_for_bit(rounding_xml, mean_one_ulp_up):
    comparison = compare(irrun.load(rounding_xml), {"x": ROWS}, rtol=0)
    tensors = by_layer(comparison)
    assert tensors["mean"].status == "differs" and not comparison.ok
    assert [tensors[n].status for n in ("wide", "cat", "relu")] == ["downstream"] * 3
    assert comparison.to_dict()["rtol"] == "bit for bit"


def test_a_divergence_behind_rounding_is_found_where_it_starts(rounding_xml, mean_one_ulp_up,
                                                                perturbed_concat):  # fmt: skip
    comparison = compare(irrun.load(rounding_xml), {"x": ROWS})
    tensors = by_layer(comparison)
    assert tensors["wide"].status == "rounding"
    concat = tensors["cat"]
    # Its inputs differ by rounding, so it was run again on OpenVINO's: there it is 1 off at
    # [1, 4] (the perturbation), and the numbers are that run's.
    assert concat.status == "differs" and concat.isolated and concat.own_relative_diff is None
    assert comparison.first_divergence is concat and not comparison.ok
    assert (concat.differing, concat.first_index) == (1, (1, 4))
    assert concat.max_abs_diff == pytest.approx(1.0, abs=1e-6)
    assert concat.verdict().startswith("DIFFERS on OpenVINO's own inputs: 1 of 24 elements")
    relu = tensors["relu"]
    assert relu.status == "downstream" and relu.cause == concat.where


def test_an_op_that_does_not_round_is_held_to_its_bits(chain_xml, monkeypatch):
    """Concat moves data: one ulp off is a divergence, whatever the tolerance."""
    original = irrun.ops.concat.Concat.evaluate

    def evaluate(self, inputs):
        (joined,) = original(self, inputs)
        return [np.nextafter(joined, np.float32(np.inf)).astype(joined.dtype)]

    monkeypatch.setattr(irrun.ops.concat.Concat, "evaluate", evaluate)
    assert not irrun.ops.concat.Concat.rounds
    comparison = compare(irrun.load(chain_xml), {"x": X}, rtol=0.5)
    concat = by_layer(comparison)["cat"]
    assert concat.status == "differs" and concat.max_ulp == 1 and concat.tolerance is None


def test_cli_rtol_decides_the_exit_code(rounding_xml, tmp_path, mean_one_ulp_up):
    inputs = save_inputs(tmp_path, x=ROWS)
    lenient = invoke("compare", rounding_xml, "--inputs", inputs)
    assert lenient.exit_code == 0, lenient.output
    assert "(rounding tolerance: f64 1e-10, f32 0.0001, f16 0.01, bf16 0.06)" in lenient.output
    strict = invoke("compare", rounding_xml, "--inputs", inputs, "--rtol", 0)
    assert strict.exit_code == 1 and "(rounding tolerance: bit for bit)" in strict.output
    for bad in (-1, "nan"):
        refused = invoke("compare", rounding_xml, "--inputs", inputs, "--rtol", bad)
        assert refused.exit_code == 2 and "--rtol" in refused.output, refused.output
    with pytest.raises(ValueError, match="rtol must be a number >= 0"):
        compare(irrun.load(rounding_xml), {"x": ROWS}, rtol=float("nan"))


def test_within_rounding_bounds_by_the_largest_value_and_never_excuses_nan_or_inf():
    from irrun.compare.tolerance import relative_difference, within_rounding

    f32 = element_type("f32")
    theirs = np.float32([100.0, 1e-3, -2.0])
    ours = np.float32([100.0, 1e-3 + 5e-3, -2.0])  # 5e-3 off: 5e-5 of the largest value
    assert within_rounding(ours, theirs, f32, 1e-4)
    assert not within_rounding(ours, theirs, f32, 1e-5)
    assert relative_difference(ours, theirs) == pytest.approx(5e-5, rel=1e-3)
    nan = np.float32([np.nan, 1.0])
    assert within_rounding(np.float32([np.nan, 1.0]), nan, f32, 1e-4)  # NaN meets NaN
    assert not within_rounding(np.float32([0.0, 1.0]), nan, f32, 1.0)
    assert not within_rounding(np.float32([np.inf]), np.float32([-np.inf]), f32, 1.0)
    assert relative_difference(np.float32([np.inf]), np.float32([3.0])) is None
    # all zeros at OpenVINO: only the smallest normal number is allowed
    assert within_rounding(np.float32([1e-39]), np.float32([0.0]), f32, 1e-4)
    assert not within_rounding(np.float32([1e-30]), np.float32([0.0]), f32, 1e-4)


def test_result_deviations_tell_ties_levels_and_wide_integers():
    from irrun.compare.deviations import fake_quantize_one_level, topk_tie_order, wide_64bit_results

    topk = irrun.load(
        '<layer id="1" type="TopK" version="opset11"><data axis="0" mode="max" sort="value" '
        'index_element_type="i32"/><input><port id="0"><dim>4</dim></port><port id="1"/></input>'
        '<output><port id="2"><dim>2</dim></port><port id="3" precision="I32"><dim>2</dim>'
        "</port></output></layer>"
    ).layers[0]
    data = np.float32([5.0, 1.0, 5.0, 0.0])
    assert topk_tie_order(topk, [data], np.int32([0, 2]), np.int32([2, 0])).startswith("TopK")
    assert topk_tie_order(topk, [data], np.int32([0, 1]), np.int32([0, 2])) is None
    fq = irrun.load(
        '<layer id="1" type="FakeQuantize" version="opset1"><data levels="5"/><input>'
        '<port id="0"><dim>3</dim></port><port id="1"/><port id="2"/><port id="3"/>'
        '<port id="4"/></input><output><port id="5"><dim>3</dim></port></output></layer>'
    ).layers[0]
    bounds = [np.float32(0), np.float32(1), np.float32(0), np.float32(1)]
    x = np.float32([0.125, 0.5, 1.0])
    one_level = fake_quantize_one_level(fq, [x, *bounds], np.float32([0.25, 0.5, 1.0]),
                                        np.float32([0.0, 0.5, 1.0]))  # fmt: skip
    assert one_level.startswith("FakeQuantize: 1 element(s) one quantization level apart")
    assert fake_quantize_one_level(fq, [x, *bounds], np.float32([0.5, 0.5, 1.0]),
                                   np.float32([0.0, 0.5, 1.0])) is None  # fmt: skip
    wide = wide_64bit_results(topk, [], np.int64([-(2**63), 3]), np.int64([-(2**31), 3]))
    assert wide.startswith("int64 results beyond the int32 range (-9223372036854775808 at [0])")
    assert wide_64bit_results(topk, [], np.int64([7, 3]), np.int64([8, 3])) is None


@pytest.mark.parametrize(
    "ours, theirs, precision",
    [
        ("[2,3]", "[2,3]", "same"),
        ("[?,64,?,7]", "[?,?,?,?]", "more"),  # (maxvit's window partition: values know more)
        ("[1..4,3]", "[...]", "more"),
        ("[?,?,?,?]", "[?,1..,1..,96]", "less"),  # (swin's Pad: a limit of irrun's rule)
        ("[2,?]", "[?,3]", "other"),
        ("[2,3]", "[2,4]", "incompatible"),
        ("[2,3]", "[2,3,1]", "incompatible"),
    ],
)
def test_shapes_agree_when_compatible_and_say_which_side_knows_more(ours, theirs, precision):
    from irrun.compare.report import TensorComparison

    tensor = TensorComparison(tensor="t", layer="layer 1 'a' (Relu)", layer_id=1, layer_name="a",
                              layer_type="Relu", op="Relu-1", port=1, output_index=0, line=3,
                              status="match", inferred_shape=ours,
                              openvino_shape=theirs)  # fmt: skip
    assert tensor.shape_precision == precision
    assert tensor.shape_agrees is (precision != "incompatible")
    comparison = Comparison("m.xml", "CPU", "2026.4.1", [tensor])
    assert comparison.ok is (precision != "incompatible")
    expected_line = {
        "same": "",
        "more": f"shape: irrun infers {ours}, more precise than OpenVINO's {theirs}",
        "less": f"shape: irrun infers {ours}, less precise than OpenVINO's {theirs}",
        "other": f"shape: irrun infers {ours}, neither within nor around OpenVINO's {theirs}",
        "incompatible": f"shape DIFFERS: irrun infers {ours}, OpenVINO {theirs}",
    }[precision]
    assert tensor.shape_text() == expected_line
    summary = comparison.summary()
    if precision == "incompatible":
        assert summary.endswith("; 1 shape/type disagreement(s)")
    elif precision in ("more", "less"):
        more, less = (1, 0) if precision == "more" else (0, 1)
        assert summary.endswith(f"; shapes agree (irrun infers {more} shape(s) more precisely "
                                f"than OpenVINO, {less} less precisely)")  # fmt: skip
    else:
        assert summary.endswith("; shapes agree")
    assert comparison.to_dict()["tensors"][0]["shape_precision"] == precision
