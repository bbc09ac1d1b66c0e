"""Edge cases found in review: each was a crash, a silent wrong result or a false error."""

from pathlib import Path

import numpy as np
import openvino as ov
import pytest
from openvino import opset1, opset7, opset8

import irrun
from irrun.arrays import load_npz, save_npz


def save(tmp_path, results, parameters):
    path = tmp_path / "m.xml"
    ov.save_model(ov.Model(results, parameters, "m"), path, compress_to_fp16=False)
    return irrun.load(path)


def param(shape, dtype=np.float32, name="x"):
    node = opset1.parameter(shape, dtype, name=name)
    node.output(0).get_tensor().set_names({name})
    return node


def test_bare_spec_style_fragment_without_dims_validates_and_runs():
    text = (
        '<layer id="1" type="Concat"><data axis="0"/><input><port id="0"/><port id="1"/>'
        '</input><output><port id="2"/></output></layer>'
    )
    model = irrun.load(text)
    assert model.validate().ok
    out = model.run({"1:in0": np.ones(2, np.float32), "1:in1": np.zeros(1, np.float32)})
    assert out["1:out2"].tolist() == [1, 1, 0]


def test_runtime_shape_conflict_of_dynamic_inputs_is_an_execution_error(tmp_path):
    a, b = param([-1, 2], name="a"), param([-1, 3], name="b")
    model = save(tmp_path, [opset1.result(opset1.concat([a, b], 1, name="cat"))], [a, b])
    assert model.validate().ok
    with pytest.raises(irrun.ExecutionError) as caught:
        model.run({"a": np.zeros((2, 2), np.float32), "b": np.zeros((3, 3), np.float32)})
    # The shape rule, run on the shapes of this run, says what is wrong.
    assert caught.value.message == (
        "layer 2 'cat' (Concat-1): inputs must agree on every dimension except the axis "
        "(1), but dimension 0 differs: input 0 is [2,2], input 1 is [3,3] (in this run: input "
        "shapes [2, 2], [3, 3]; the model's dynamic dims allow them, this layer does not: feed "
        "other input shapes, e.g. with --shape NAME=DIMS)"
    )


@pytest.mark.parametrize("pool", [False, True])
def test_input_too_small_for_a_window_is_an_execution_error_not_a_bug(tmp_path, pool):
    # [?,1,?,?] allows a 2x2 image; a 3x3 window does not fit it. The kernel must not make an
    # empty output (which the output check then took for a bug in irrun, exit 3).
    x = param([-1, 1, -1, -1])
    if pool:
        node = opset8.max_pool(x, [1, 1], [1, 1], [0, 0], [0, 0], [3, 3])
    else:
        weights = opset1.constant(np.ones((4, 1, 3, 3), np.float32))
        node = opset1.convolution(x, weights, [1, 1], [0, 0], [0, 0], [1, 1])
    model = save(tmp_path, [opset1.result(node.output(0))], [x])
    assert model.validate().ok
    with pytest.raises(irrun.ExecutionError) as caught:
        model.run({"x": np.zeros((1, 1, 2, 5), np.float32)})
    assert type(caught.value) is irrun.ExecutionError and caught.value.exit_code == 1
    message = caught.value.message
    assert (
        "spatial axis 0: the dilated kernel (3 - 1) * 1 + 1 = 3 is larger than the padded "
        "data 2 + 0 + 0 = 2"
    ) in message
    shapes = "[1, 1, 2, 5]" if pool else "[1, 1, 2, 5], [4, 1, 3, 3]"
    assert message.endswith(f"(in this run: input shapes {shapes}; the model's dynamic dims "
                            "allow them, this layer does not: feed other input shapes, e.g. "
                            "with --shape NAME=DIMS)")  # fmt: skip
    assert model.run({"x": np.zeros((1, 1, 3, 5), np.float32)})  # (a fitting image runs)


def test_declared_dims_are_not_taken_as_inferred(tmp_path):
    a = param([-1, 2], name="a")
    cat = opset1.concat([a, a], 0)
    model = save(tmp_path, [opset1.result(cat)], [a])
    text = Path(model.file).read_text()
    # Declare a size that inference cannot prove (the input is dynamic): valid, and runs.
    cat_port = text.index('<port id="2" precision="FP32"')
    patched = text[:cat_port] + text[cat_port:].replace("<dim>-1</dim>", "<dim>6</dim>", 1)
    model = irrun.load(patched)
    assert model.validate().ok
    assert str(model.layer(cat.get_friendly_name()).outputs[0].inferred_shape) == "[?,2]"
    assert next(iter(model.run({"a": np.zeros((2, 2), np.float32)}).values())).shape == (4, 2)


def test_output_names_that_are_savez_keywords_are_written(tmp_path):
    arrays = {"file": np.arange(3), "allow_pickle": np.ones(2, np.float32)}
    save_npz(tmp_path / "o.npz", arrays)
    back = load_npz(tmp_path / "o.npz")
    assert sorted(back) == ["allow_pickle", "file"]
    assert back["file"].tolist() == [0, 1, 2]


def test_fragment_inputs_are_not_found_by_the_consuming_layer_name():
    text = (
        '<layer id="1" name="cat" type="Concat"><data axis="0"/><input><port id="0"><dim>2</dim>'
        '</port><port id="1"><dim>2</dim></port></input><output><port id="2"><dim>4</dim></port>'
        "</output></layer>"
    )
    model = irrun.load(text)
    with pytest.raises(irrun.InputValueError, match="missing: 'cat:in0'"):
        model.run({"cat": np.zeros(2, np.float32)})
    with pytest.raises(KeyError):
        model.input("cat")


def test_u64_indices_beyond_int64_are_out_of_range_not_negative(tmp_path):
    x = param([4])
    indices = opset1.constant(np.array([1, 2**64 - 1], np.uint64))
    model = save(tmp_path, [opset1.result(opset7.gather(x, indices, np.int64(0)))], [x])
    report = model.validate()
    assert report.codes() == ["index-range"] and report[0].severity == "error"
    assert "9223372036854775807" in report[0].message


def test_a_string_axis_is_reported_once_without_an_internal_error(tmp_path):
    x = param([4])
    g = opset8.gather(x, np.array([1], np.int64), np.int64(0))
    model = save(tmp_path, [opset1.result(g)], [x])
    text = Path(model.file).read_text()
    # OpenVINO cannot even build this; a hand edit makes the axis a string Const holding "0"
    # (its layout: count 1, offsets 0 and 1, the byte "0"), appended to the .bin.
    blob = Path(model.weights.path).read_bytes()
    layout = b"".join(v.to_bytes(4, "little") for v in (1, 0, 1)) + b"0"
    original = 'element_type="i64" shape="" offset="8" size="8"'
    assert original in text
    text = text.replace(original, f'element_type="string" shape="" offset="{len(blob)}" size="13"')
    model = irrun.load(text, weights=blob + layout)
    # The Const's port still says I64 (type-mismatch); the Gather's refusal of a string axis
    # follows from that one edit, so it is a note under it.
    report = model.validate()
    assert report.codes() == ["type-mismatch"]
    (note,) = report[0].notes
    assert note.startswith("follow-on: line ") and "string" in note


def test_float_overflow_and_invalid_results_raise_no_numpy_warning(tmp_path):
    """inf and NaN are results like any other: a run prints no RuntimeWarning (the executor
    silences NumPy's floating-point warnings once per run, the kernels then skip it)."""
    import warnings

    a, b = param([3], name="a"), param([3], name="b")
    total = opset1.add(a, b)
    model = save(tmp_path, [opset1.result(opset1.subtract(total, total))], [a, b])
    big = np.full(3, np.finfo(np.float32).max, np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (out,) = model.run({"a": big, "b": big}).values()
        stepped = [step.outputs for step in model.steps({"a": big, "b": big})]
    assert np.isnan(out).all() and stepped
