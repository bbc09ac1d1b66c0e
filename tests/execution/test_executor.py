"""The executor: inputs, outputs, memory, debugging switches, refusals."""

import weakref
from pathlib import Path

import ml_dtypes
import numpy as np
import openvino as ov
import pytest
from openvino import opset1, opset3, opset7, opset8

import irrun
from tests.execution.graphs import param, save


def test_inputs_by_layer_name_or_tensor_name(tmp_path):
    x = opset1.parameter([2], np.float32, name="layer_x")
    x.output(0).get_tensor().set_names({"tensor_x", "alias"})
    cat = opset1.concat([x, x], 0)
    cat.output(0).get_tensor().set_names({"y"})
    model = save(tmp_path, [opset1.result(cat)], [x])
    data = np.array([1.0, 2.0], np.float32)
    for key in ("layer_x", "tensor_x", "alias"):
        assert model.run({key: data})["y"].tolist() == [1, 2, 1, 2]


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({}, "missing: 'x' (f32 [2,3])"),
        ({"x": np.zeros((2, 3), np.float32), "z": np.zeros(1)}, "unknown: 'z'"),
        (
            {"x": np.zeros((2, 3), np.float64)},
            "must be f32 (numpy float32), but the array is float64",
        ),
        (
            {"x": np.zeros((3, 2), np.float32)},
            "must have shape [2,3], but the array has shape [3, 2]",
        ),
    ],
)
def test_bad_inputs_are_refused_clearly(tmp_path, given, message):
    x = param([2, 3])
    model = save(tmp_path, [opset1.result(opset1.concat([x], 0))], [x])
    with pytest.raises(irrun.InputValueError) as info:
        model.run(given)
    assert message in str(info.value)


def test_dynamic_input_dims_accept_any_size(tmp_path):
    x = param([2, -1])
    model = save(tmp_path, [opset1.result(opset1.concat([x, x], 1))], [x])
    out = next(iter(model.run({"x": np.ones((2, 7), np.float32)}).values()))
    assert out.shape == (2, 14)


def test_bf16_travels_as_exact_float32(tmp_path):
    x = opset1.parameter([2], ov.Type.bf16, name="x")
    x.output(0).get_tensor().set_names({"x"})
    model = save(tmp_path, [opset1.result(opset1.concat([x, x], 0))], [x])
    out = next(iter(model.run({"x": np.array([1.5, -2.0], np.float32)}).values()))
    assert out.dtype == ml_dtypes.bfloat16 and out.astype(np.float32).tolist() == [1.5, -2, 1.5, -2]
    with pytest.raises(irrun.InputValueError, match="exactly representable"):
        model.run({"x": np.array([1.0001, 0.0], np.float32)})


def test_big_endian_input_is_converted_exactly(tmp_path):
    x = param([2])
    model = save(tmp_path, [opset1.result(opset1.concat([x], 0))], [x])
    out = next(iter(model.run({"x": np.array([1.5, -0.0], ">f4")}).values()))
    assert out.dtype == np.float32 and out.tobytes() == np.array([1.5, -0.0], "<f4").tobytes()


def _chain(tmp_path, length):
    x = param([1])
    node = x
    for _ in range(length):
        node = opset1.concat([node], 0)
    return save(tmp_path, [opset1.result(node)], [x])


def test_long_chain_runs_without_recursion(tmp_path):
    model = _chain(tmp_path, 1200)
    assert next(iter(model.run({"x": np.array([4.0], np.float32)}).values())).tolist() == [4.0]


def test_intermediates_are_freed_after_their_last_consumer(tmp_path):
    model = _chain(tmp_path, 6)
    seen = []
    alive_when = []

    def on_step(step):
        alive_when.append([ref() is not None for ref in seen])
        seen.extend(weakref.ref(a) for a in step.outputs)

    model.run({"x": np.array([1.0], np.float32)}, on_step=on_step)
    # When the last Concat runs, the first Concats' outputs are gone (the input array is the
    # caller's, so it stays alive).
    assert alive_when[-1][1:4] == [False, False, False]


def test_capture_and_stop_after(tmp_path):
    data = np.arange(6, dtype=np.float32).reshape(2, 3)
    x = param([2, 3])
    g = opset8.gather(x, np.array([2, 0], np.int64), np.int64(1))
    g.set_friendly_name("pick")
    g.output(0).get_tensor().set_names({"picked"})
    cat = opset1.concat([g, x], 1)
    cat.output(0).get_tensor().set_names({"out"})
    model = save(tmp_path, [opset1.result(cat)], [x])
    everything = model.run({"x": data}, capture=True)
    assert everything["picked"].tolist() == [[2, 0], [5, 3]]
    assert everything["out"].shape == (2, 5)
    stopped = model.run({"x": data}, stop_after="pick")
    assert list(stopped) == ["picked"]


def test_const_inputs_stay_memory_mapped(tmp_path):
    x = param([2])
    table = opset1.constant(np.arange(10, dtype=np.float32))
    model = save(tmp_path, [opset1.result(opset1.concat([table, x], 0))], [x])
    seen = {}

    def on_step(step):
        if step.layer.type == "Concat":
            seen["const"] = step.inputs[0]

    model.run({"x": np.zeros(2, np.float32)}, on_step=on_step)
    assert not seen["const"].flags.owndata and not seen["const"].flags.writeable


def test_gather7_out_of_range_is_an_error_naming_index_and_layer(tmp_path):
    x = param([2, 3])
    idx = opset1.parameter([2], np.int64, name="i")
    idx.output(0).get_tensor().set_names({"i"})
    g = opset7.gather(x, idx, np.int64(1))
    g.set_friendly_name("g7")
    model = save(tmp_path, [opset1.result(g)], [x, idx])
    with pytest.raises(irrun.ExecutionError) as info:
        model.run({"x": np.zeros((2, 3), np.float32), "i": np.array([1, 5], np.int64)})
    text = str(info.value)
    assert "g7" in text and "5" in text


def test_unsupported_ops_are_all_listed_before_running(tmp_path):
    # Two custom ops irrun has no kernel for (a DFT and an ExtractImagePatches renamed).
    x = opset1.parameter([1, 1, 4, 2], np.float32, name="x")
    x.output(0).get_tensor().set_names({"x"})
    dft = opset7.dft(x, opset1.constant(np.array([2], np.int64)))
    patches = opset3.extract_image_patches(dft, [2, 1], [1, 1], [1, 1], "valid")
    path = tmp_path / "m.xml"
    ov.save_model(ov.Model([opset1.result(patches)], [x], "m"), path, compress_to_fp16=False)
    text = path.read_text()
    text = text.replace('type="DFT" version="opset7"', 'type="MyFFT" version="extension"')
    text = text.replace('type="ExtractImagePatches" version="opset3"',
                        'type="MyPatches" version="extension"')  # fmt: skip
    path.write_text(text)
    model = irrun.load(path)
    with pytest.raises(irrun.UnsupportedOpError) as info:
        model.run({"x": np.zeros((1, 1, 4, 2), np.float32)})
    assert "MyFFT" in str(info.value) and "MyPatches" in str(info.value)


def test_model_with_errors_is_not_run(tmp_path):
    path = tmp_path / "m.xml"
    model = _chain(tmp_path, 1)
    text = Path(model.file).read_text().replace("<dim>1</dim>", "<dim>3</dim>", 2)
    path.write_text(text)
    with pytest.raises(irrun.ValidationFailed) as info:
        irrun.load(path).run({"x": np.zeros(1, np.float32)})
    assert info.value.report.errors
    assert info.value.exit_code == 1


def test_steps_iterate_layer_by_layer_and_stop_after(tmp_path):
    x = param([2])
    first = opset1.concat([x, x], 0)
    first.set_friendly_name("first")
    second = opset1.concat([first, x], 0)
    second.set_friendly_name("second")
    model = save(tmp_path, [opset1.result(second)], [x])
    data = np.array([1.0, 2.0], np.float32)
    names = [
        (step.layer.name, [a.shape for a in step.outputs]) for step in model.steps({"x": data})
    ]
    assert names[:3] == [("x", [(2,)]), ("first", [(4,)]), ("second", [(6,)])]
    stepped = list(model.steps({"x": data}, stop_after="first"))
    assert [step.layer.name for step in stepped] == ["x", "first"]
    assert stepped[-1].outputs[0].tolist() == [1, 2, 1, 2]


def test_a_kernel_that_does_not_run_this_element_type_is_a_clear_execution_error(tmp_path):
    """Softmax on integer data is valid IR (OpenVINO builds it) that irrun's kernel does not
    run: an UnsupportedOpError naming the layer (CLI exit 1), not an internal error."""
    x = opset1.parameter([2, 3], np.int32, name="x")
    x.output(0).get_tensor().set_names({"x"})
    soft = opset8.softmax(x, 1)
    soft.set_friendly_name("soft")
    model = save(tmp_path, [opset1.result(soft)], [x])
    with pytest.raises(irrun.UnsupportedOpError) as info:
        model.run({"x": np.zeros((2, 3), np.int32)})
    assert info.value.exit_code == 1
    assert "layer 1 'soft' (SoftMax) cannot run in irrun" in str(info.value)
    assert "floating-point data only" in str(info.value)


def test_a_kernel_reaching_an_abstract_method_is_reported_as_a_bug_in_irrun(monkeypatch):
    """A bare NotImplementedError (an abstract method reached) is irrun's fault: an internal
    error (exit 3) naming the layer, never an empty "cannot run" reason."""
    from irrun.ops._elementwise import BinaryOp
    from irrun.ops.add import Add

    model = irrun.load(
        '<layer id="1" name="sum" type="Add" version="opset1"><input>'
        '<port id="0" precision="FP32"><dim>2</dim></port>'
        '<port id="1" precision="FP32"><dim>2</dim></port></input>'
        '<output><port id="2" precision="FP32"><dim>2</dim></port></output></layer>'
    )
    monkeypatch.setattr(Add, "ufunc", None)
    monkeypatch.setattr(BinaryOp, "compute", _abstract)
    with pytest.raises(irrun.InternalError) as info:
        model.run({"sum:in0": np.ones(2, np.float32), "sum:in1": np.ones(2, np.float32)})
    assert info.value.exit_code == 3
    assert "layer 1 'sum' (Add) reached a kernel irrun does not have" in str(info.value)


def _abstract(self, a, b):
    raise NotImplementedError
