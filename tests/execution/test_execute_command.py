"""``irrun execute`` without an inputs file, with --partial, --threads and the progress bar."""

import io
from pathlib import Path

import numpy as np
import openvino as ov
import pytest
from irrun.cli.execute_cmd import ProgressBar
from openvino import opset1

import irrun
from irrun.execution.inputs import choose_inputs
from tests.helpers.cli import invoke

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "ir"


@pytest.fixture
def erf_xml(tmp_path) -> Path:
    x = opset1.parameter([-1, 3], np.float32, name="x")
    x.output(0).get_tensor().set_names({"x"})
    relu = opset1.relu(x, name="relu")
    erf = opset1.erf(relu, name="erf")
    added = opset1.add(erf, relu, name="out")
    other = opset1.negative(x, name="other")
    for node in (relu, erf, added, other):
        node.output(0).get_tensor().set_names({node.get_friendly_name()})
    path = tmp_path / "erf.xml"
    ov.save_model(ov.Model([added, other], [x], "erf"), path, compress_to_fp16=False)
    return path


def test_execute_without_inputs_draws_seeded_random_ones(tmp_path):
    saved = tmp_path / "drawn.npz"
    out = tmp_path / "out.npz"
    result = invoke("execute", EXAMPLES / "tiny.xml", "--seed", "7", "--save-inputs", saved,
                    "--output", out)  # fmt: skip
    assert result.exit_code == 0, result.output
    model = irrun.load(EXAMPLES / "tiny.xml")
    drawn = model.random_inputs(seed=7)
    assert np.array_equal(np.load(saved)["data"], drawn["data"])
    expected = model.run(drawn)
    assert all(np.array_equal(np.load(out)[k], expected[k]) for k in expected)


def test_save_inputs_never_replaces_a_file(tmp_path):
    saved = tmp_path / "drawn.npz"
    saved.write_bytes(b"keep me")
    result = invoke("execute", EXAMPLES / "tiny.xml", "--save-inputs", saved,
                    catch_exceptions=True)  # fmt: skip
    assert result.exit_code == 2
    assert "exists" in result.output and saved.read_bytes() == b"keep me"
    result = invoke("execute", EXAMPLES / "tiny.xml", "--save-inputs", EXAMPLES / "tiny.xml",
                    catch_exceptions=True)  # fmt: skip
    assert result.exit_code == 2 and "is the model" in result.output


def test_shape_gives_dynamic_dims_of_random_inputs(erf_xml):
    result = invoke("execute", erf_xml, "--shape", "x=4,3", "--stop-after", "relu")
    assert result.exit_code == 0, result.output
    assert "relu: float32 [4, 3]" in result.output
    result = invoke("execute", erf_xml, "--shape", "x=4", catch_exceptions=True)
    assert result.exit_code == 2 and "does not fit the input's shape [?,3]" in result.output
    result = invoke("execute", erf_xml, "--shape", "x:4", catch_exceptions=True)
    assert result.exit_code == 2 and "is not NAME=SIZES" in result.output


def _cnn(tmp_path, shape, kernel=3, stride=1, reshape_to=None) -> Path:
    """x -> a convolution with 2 output channels (3 input channels when x's are open)."""
    x = opset1.parameter(shape, np.float32, name="x")
    x.output(0).get_tensor().set_names({"x"})
    channels = shape[1] if shape[1] != -1 else 3
    weights = opset1.constant(np.ones((2, channels, kernel, kernel), np.float32))
    node = opset1.convolution(x, weights, [stride, stride], [0, 0], [0, 0], [1, 1])
    if reshape_to is not None:
        node = opset1.reshape(node, opset1.constant(np.array(reshape_to, np.int64)), True)
    path = tmp_path / "cnn.xml"
    ov.save_model(ov.Model([opset1.result(node)], [x], "cnn"), path, compress_to_fp16=False)
    return path


def test_dynamic_dims_of_random_inputs_take_the_smallest_size_the_model_accepts(tmp_path):
    # A converted CNN's image is [?,3,?,?]: 1x1 does not fit a 3x3 kernel, 4x4 is the smallest
    # tried size that does (the batch stays 1).
    model = irrun.load(_cnn(tmp_path, [-1, 3, -1, -1]))
    assert model.validate().ok
    before = [(p.inferred_shape, p.inferred_type) for layer in model.layers for p in layer.outputs]
    assert model.random_inputs()["x"].shape == (1, 3, 4, 4)
    # (the trials leave the model's inferred shapes as validation left them)
    after = [(p.inferred_shape, p.inferred_type) for layer in model.layers for p in layer.outputs]
    assert after == before
    # A stride of 5 and a reshape to 2x4x4 need a 16x16 image (a 20x20 would give 2x4x4 too,
    # but 16 is tried first); an upper bound caps the size tried.
    model = irrun.load(_cnn(tmp_path, [-1, 3, -1, -1], kernel=1, stride=5, reshape_to=[2, 4, 4]))
    assert model.random_inputs()["x"].shape == (1, 3, 16, 16)
    [output] = model.run(model.random_inputs()).values()
    assert output.shape == (2, 4, 4)
    model = irrun.load(_cnn(tmp_path, [-1, 3, ov.Dimension(0, 2), -1]))
    assert model.random_inputs()["x"].shape == (1, 3, 1, 1)  # nothing fits 0..2: 1 (as before)
    # The batch of a rank-1 input is its only dim: it is tried too.
    x = opset1.parameter([-1], np.float32, name="v")
    x.output(0).get_tensor().set_names({"v"})
    reshaped = opset1.reshape(x, opset1.constant(np.array([2, 4], np.int64)), False)
    path = tmp_path / "v.xml"
    ov.save_model(ov.Model([opset1.result(reshaped)], [x], "v"), path, compress_to_fp16=False)
    assert irrun.load(path).random_inputs()["v"].shape == (8,)


def test_an_open_channel_dim_is_fitted_before_the_image_dims(tmp_path):
    # [?,?,?,?]: no one size fits the channels (3) and the image at once; the channels alone
    # take 3 (1 and 2 are refused by the filters), then the image one size, as with [?,3,?,?].
    model = irrun.load(_cnn(tmp_path, [-1, -1, -1, -1]))
    assert model.random_inputs()["x"].shape == (1, 3, 4, 4)
    model = irrun.load(_cnn(tmp_path, [-1, -1, -1, -1], kernel=1, stride=5, reshape_to=[2, 4, 4]))
    assert model.random_inputs()["x"].shape == (1, 3, 16, 16)  # (no one size fits C and H, W)
    [output] = model.run(model.random_inputs()).values()
    assert output.shape == (2, 4, 4)
    result = invoke("execute", tmp_path / "cnn.xml", "--output", tmp_path / "out.npz")
    assert result.exit_code == 0, result.output
    assert "random input 'x' [?,?,?,?] is float32 [1, 3, 16, 16]" in result.output
    # A channel dim open alone takes 3 too (no size of TRIED_SIZES fits it).
    model = irrun.load(_cnn(tmp_path, [1, -1, 5, 5]))
    assert model.random_inputs()["x"].shape == (1, 3, 5, 5)
    # Nothing fits an image dim capped at 0..2 under a 3x3 kernel: every open dim stays 1,
    # and the command line says so.
    model = irrun.load(_cnn(tmp_path, [-1, -1, ov.Dimension(0, 2), -1]))
    assert model.random_inputs()["x"].shape == (1, 1, 1, 1)
    inputs, unfitted = choose_inputs(model)
    assert unfitted == ["x"] and inputs["x"].shape == (1, 1, 1, 1)
    assert choose_inputs(irrun.load(_cnn(tmp_path, [-1, 3, -1, -1])))[1] == []
    result = invoke("execute", _cnn(tmp_path, [-1, -1, ov.Dimension(0, 2), -1]),
                    catch_exceptions=True)  # fmt: skip
    assert result.exit_code == 1
    assert (
        "irrun: note: random input 'x' [?,?,..2,?] is float32 [1, 1, 1, 1]: no size irrun tries "
        "for its dynamic dims (1, 2, 4 ... 512 for all of them, 1 to 16 one at a time) fits the "
        "model's shape rules, so the run will likely fail; give its shape with --shape x=..."
    ) in result.output


def test_execute_of_a_dynamic_cnn_without_shapes_runs(tmp_path):
    result = invoke("execute", _cnn(tmp_path, [-1, 3, -1, -1], kernel=5), "--output",
                    tmp_path / "out.npz")  # fmt: skip
    assert result.exit_code == 0, result.output
    [output] = np.load(tmp_path / "out.npz").values()
    assert output.shape == (1, 2, 4, 4)  # an 8x8 image
    assert (
        "irrun: note: random input 'x' [?,3,?,?] is float32 [1, 3, 8, 8] (the sizes irrun chose "
        "for its dynamic dims; --shape x=... gives others)"
    ) in result.output
    given = invoke("execute", tmp_path / "cnn.xml", "--shape", "x=1,3,9,9")
    assert given.exit_code == 0 and "note" not in given.output


def test_partial_runs_what_it_can_and_lists_the_rest(erf_xml, erf_without_kernel):
    refused = invoke("execute", erf_xml, catch_exceptions=True)
    assert refused.exit_code == 1 and "--partial" in refused.output
    result = invoke("execute", erf_xml, "--partial", catch_exceptions=True)
    assert result.exit_code == 1
    assert "other: float32 [1, 3]" in result.output
    assert "3 layer(s) could not run" in result.output
    erf = irrun.load(erf_xml).layer("erf")
    assert f"{erf_xml}:{erf.line}: {erf.describe()}: irrun has no kernel for it" in result.output


def test_stop_after_an_unknown_name_suggests_close_ones(erf_xml):
    result = invoke("execute", erf_xml, "--stop-after", "rellu", catch_exceptions=True)
    assert result.exit_code == 2
    assert "did you mean 'relu'" in result.output


def test_threads_option(erf_xml):
    assert invoke("execute", erf_xml, "--threads", "1").exit_code == 0
    result = invoke("execute", erf_xml, "--threads", "0", catch_exceptions=True)
    assert result.exit_code == 2


def test_progress_bar_only_on_a_terminal_and_for_runs_that_take_a_while():
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    now = [0.0]
    assert ProgressBar.on_terminal(io.StringIO()) is None  # piped: silent
    stream = Terminal()
    bar = ProgressBar.on_terminal(stream, clock=lambda: now[0])
    bar(10, 100)
    assert stream.getvalue() == ""  # a run this quick draws nothing
    now[0] = 1.0
    bar(50, 100)
    bar.close()
    assert "running [###############---------------] 50/100 layers" in stream.getvalue()
    assert stream.getvalue().endswith("\r")


def test_progress_is_reported_during_a_run(tmp_path):
    x = opset1.parameter([2], np.float32, name="x")
    node = x
    for _ in range(300):
        node = opset1.negative(node)
    path = tmp_path / "long.xml"
    ov.save_model(ov.Model([node], [x], "long"), path)
    seen = []
    irrun.load(path).run(progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (300, 300) and len(seen) >= 50
