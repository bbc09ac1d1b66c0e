"""The compiled form: validated once, ops built once, constants folded once, a schedule that
frees after the last reader; runs that need only part of a model with an op without a
kernel; random inputs."""

import numpy as np
import pytest
from openvino import opset1, opset8

import irrun
from irrun.execution import DEFAULT_INTEGER_RANGE, random_inputs
from irrun.execution.inputs import save_inputs
from irrun.ops.base import Op
from irrun.ops.registry import register, unregister
from tests.execution.graphs import named, param, save


def _two_branches(tmp_path):
    """x -> relu -> erf -> add(erf, relu) -> out; x -> neg -> other (no Erf on that path)."""
    x = param([2, 3])
    relu = named(opset1.relu(x), "relu")
    erf = named(opset1.erf(relu), "erf")
    added = named(opset1.add(erf, relu), "out")
    other = named(opset1.negative(x), "other")
    return save(tmp_path, [opset1.result(added), opset1.result(other)], [x])


def test_repeated_runs_neither_revalidate_nor_rebuild_ops(tmp_path, monkeypatch):
    import irrun.validation

    model = _two_branches(tmp_path)
    validations, builds = [], []
    real_validate = irrun.validation.validate
    real_init = Op.__init__

    def counted_validate(*args, **kwargs):
        validations.append(1)
        return real_validate(*args, **kwargs)

    def counted_init(self, *args, **kwargs):
        builds.append(1)
        real_init(self, *args, **kwargs)

    monkeypatch.setattr(irrun.validation, "validate", counted_validate)
    monkeypatch.setattr(Op, "__init__", counted_init)
    data = {"x": np.arange(6, dtype=np.float32).reshape(2, 3)}
    first = model.run(data)
    assert len(validations) == 1 and builds
    built = len(builds)
    for _ in range(3):
        again = model.run(data)
        assert again.keys() == first.keys()
        assert all(np.array_equal(again[k], first[k]) for k in first)
    assert len(validations) == 1 and len(builds) == built
    compiled = model.compile()
    assert (compiled.validations, compiled.builds, compiled.runs) == (1, 1, 4)
    model.run(data, validate=True)
    assert len(validations) == 2


def test_f16_weights_are_decompressed_once_and_counted(tmp_path):
    x = param([2, 4])
    weights = np.arange(12, dtype=np.float32).reshape(4, 3) / 8
    product = named(opset1.matmul(x, opset1.constant(weights), False, False), "y")
    model = save(tmp_path, [opset1.result(product)], [x], compress=True)
    assert "Convert" in {layer.type for layer in model.layers}
    folded = model.compile()
    lazy = irrun.execution.compile(model, fold_constants=False)
    assert folded.folded_bytes == weights.nbytes  # the f32 copy kept; the f16 Const is a view
    assert lazy.folded_bytes == 0
    data = {"x": np.arange(8, dtype=np.float32).reshape(2, 4)}
    assert np.array_equal(folded.run(data)["y"], lazy.run(data)["y"])
    assert np.array_equal(folded.run(data)["y"], data["x"] @ weights)


def test_folding_lets_go_of_each_value_once_its_readers_are_folded(tmp_path):
    """Weight decompression as nncf writes it (int8 -> f16, minus a zero point, times a
    scale, -> f32) for 8 weights of 4 MiB each: only the f32 weights stay, and the steps
    before them are freed as folding goes, not held to the end."""
    import tracemalloc

    x = param([1, 1024])
    total = x
    rng = np.random.default_rng(0)
    for _ in range(8):
        codes = opset1.constant(rng.integers(-8, 8, (1024, 1024)).astype(np.int8))
        steps = opset1.convert(codes, "f16")
        steps = opset1.subtract(steps, opset1.constant(np.float16(1)))
        steps = opset1.multiply(steps, opset1.constant(np.full((1024, 1), 0.5, np.float16)))
        weights = opset1.convert(steps, "f32")
        total = opset1.add(total, opset1.matmul(x, weights, False, False))
    model = save(tmp_path, [opset1.result(named(total, "y"))], [x])
    model.validate()
    tracemalloc.start()
    try:
        compiled = model.compile()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    f32_weights = 8 * 1024 * 1024 * 4
    assert compiled.folded_bytes == f32_weights
    # (held to the end, the f16 steps of the 8 weights would add 3 x 2 MiB each: 48 MiB)
    assert peak < f32_weights + 12 * 2**20


def test_fast_schedule_frees_intermediates_after_their_last_reader(tmp_path):
    x = param([3])
    first = named(opset1.relu(x), "first")
    second = named(opset1.negative(first), "second")
    third = named(opset1.add(second, first), "third")
    model = save(tmp_path, [opset1.result(third)], [x])
    compiled = model.compile()
    frees = {node.layer.name: [compiled.program.slots[id(p)] for p in node.layer.outputs]
             for node in compiled.program.fast}  # fmt: skip
    freed_by = {node.layer.name: set(node.frees) for node in compiled.program.fast}
    assert set(frees["first"]) <= freed_by["third"]  # its last reader is "third"
    assert set(frees["second"]) <= freed_by["third"]
    assert not set(frees["third"]) & set().union(*freed_by.values())  # the output stays


def test_a_kernel_giving_another_shape_is_an_internal_error(tmp_path, monkeypatch):
    model = _two_branches(tmp_path)
    compiled = model.compile()
    node = next(n for n in compiled.program.fast if n.layer.name == "relu")
    monkeypatch.setattr(node, "evaluate", lambda arguments: [np.zeros(5, np.float32)])
    with pytest.raises(irrun.InternalError, match=r"produced shape \[5\], but validation"):
        model.run({"x": np.zeros((2, 3), np.float32)})


def test_full_run_refuses_a_model_needing_an_op_without_kernel(tmp_path, erf_without_kernel):
    model = _two_branches(tmp_path)
    with pytest.raises(irrun.UnsupportedOpError, match=r"Erf \(opset1\): 1 layer\(s\)"):
        model.run({"x": np.zeros((2, 3), np.float32)})


def test_partial_run_computes_what_it_can_and_lists_the_rest(tmp_path, erf_without_kernel):
    model = _two_branches(tmp_path)
    data = np.array([[-1, 0, 1], [2, -3, 4]], np.float32)
    results = model.run({"x": data}, partial=True)
    assert list(results) == ["other"]
    assert np.array_equal(results["other"], -data)
    assert [(n.layer.type, n.reason) for n in results.not_run] == [
        ("Erf", "irrun has no kernel for it"),
        ("Add", "it needs the output of layer 3 'erf' (Erf), which was not computed"),
        ("Result", "it needs the output of layer 3 'erf' (Erf), which was not computed"),
    ]


def test_stop_after_and_steps_need_only_the_layers_before(tmp_path, erf_without_kernel):
    model = _two_branches(tmp_path)
    data = np.array([[-1, 0, 1], [2, -3, 4]], np.float32)
    stopped = model.run({"x": data}, stop_after="relu")
    assert np.array_equal(stopped["relu"], np.maximum(data, 0))
    walked = []
    with pytest.raises(irrun.UnsupportedOpError, match="erf"):
        for step in model.steps({"x": data}):
            walked.append(step.layer.name)
    assert "relu" in walked and "erf" not in walked
    with pytest.raises(irrun.UnsupportedOpError, match="erf"):
        model.run({"x": data}, stop_after="out")


def test_bridged_layers_take_the_given_outputs(tmp_path, erf_without_kernel):
    from scipy.special import erf

    model = _two_branches(tmp_path)
    data = np.array([[-1, 0, 1], [2, -3, 4]], np.float32)
    layer = model.layer("erf")
    given = erf(np.maximum(data, 0)).astype(np.float32)
    results = model.run({"x": data}, bridge={layer.id: [given]})
    assert results.bridged == [layer]
    assert np.array_equal(results["out"], given + np.maximum(data, 0))


def test_unknown_stop_after_suggests_close_names(tmp_path):
    model = _two_branches(tmp_path)
    with pytest.raises(irrun.InputValueError, match=r"did you mean 'relu'"):
        model.run({"x": np.zeros((2, 3), np.float32)}, stop_after="rellu")


def test_random_inputs_are_seeded_typed_and_shaped(tmp_path):
    x = opset1.parameter([-1, 3], np.float32, name="x")
    x.output(0).get_tensor().set_names({"x"})
    flags = param([2], np.bool_, name="flags")
    counts = param([4], np.int32, name="counts")
    model = save(tmp_path, [opset1.result(x), opset1.result(flags), opset1.result(counts)],
                 [x, flags, counts])  # fmt: skip
    first = random_inputs(model, seed=3, shapes={"x": [5, 3]})
    again = random_inputs(model, seed=3, shapes={"x": [5, 3]})
    other = random_inputs(model, seed=4, shapes={"x": [5, 3]})
    assert all(np.array_equal(first[k], again[k]) for k in first)
    assert not np.array_equal(first["x"], other["x"])
    assert (first["x"].shape, first["x"].dtype) == ((5, 3), np.float32)
    assert first["flags"].dtype == np.bool_
    low, high = DEFAULT_INTEGER_RANGE
    assert first["counts"].dtype == np.int32
    assert low <= first["counts"].min() and first["counts"].max() < high
    assert random_inputs(model)["x"].shape == (1, 3)  # the stated default for a dynamic dim
    with pytest.raises(irrun.InputValueError, match=r"does not fit the input's shape"):
        random_inputs(model, shapes={"x": [5, 4]})
    with pytest.raises(irrun.InputValueError, match=r"no input named 'y'"):
        random_inputs(model, shapes={"y": [1]})


def test_token_ids_stay_inside_the_embedding_table(tmp_path):
    ids = param([1, 64], np.int64, name="ids")
    table = opset1.constant(np.arange(7 * 2, dtype=np.float32).reshape(7, 2))
    looked_up = named(opset8.gather(table, opset1.convert(ids, "i32"), np.int64(0)), "emb")
    model = save(tmp_path, [opset1.result(looked_up)], [ids])
    drawn = random_inputs(model, seed=0)["ids"]
    assert drawn.min() >= 0 and drawn.max() < 7
    assert len(np.unique(drawn)) > 3
    assert model.run()["emb"].shape == (1, 64, 2)  # no inputs: the same draw, seed 0
    assert np.array_equal(model.run()["emb"], model.run(random_inputs(model))["emb"])


def test_saved_inputs_never_replace_a_file(tmp_path):
    model = _two_branches(tmp_path)
    target = tmp_path / "inputs.npz"
    save_inputs(target, random_inputs(model))
    assert np.array_equal(np.load(target)["x"], random_inputs(model)["x"])
    with pytest.raises(irrun.InputFileError, match="exists"):
        save_inputs(target, random_inputs(model))


def test_threads_are_set_for_the_run_and_restored(tmp_path):
    from irrun.execution.threads import blas_threads, current_blas_threads

    before = current_blas_threads()
    seen = []
    with blas_threads(1):
        seen.append(current_blas_threads())
    assert seen == [1] or before is None
    assert current_blas_threads() == before
    model = _two_branches(tmp_path)
    assert "out" in model.run({"x": np.zeros((2, 3), np.float32)}, threads=1)
    with pytest.raises(irrun.InputValueError, match="positive integer"):
        model.run({"x": np.zeros((2, 3), np.float32)}, threads=0)


class _Counter(Op):
    """A stateful test op: out = state (initially the input) + 1, written back."""

    type, version, inputs = "TestCounter", 1, (1, 1)
    uses_state = True

    def infer(self, inputs):
        return [inputs[0]]

    def evaluate(self, inputs, state):
        previous = state.read("counter")
        value = (inputs[0] if previous is None else previous) + 1
        state.write("counter", value)
        return [value]


@pytest.fixture
def registered():
    """Register test op classes for one test, and remove them afterwards."""
    classes = []

    def add(op_class):
        register(op_class, replace=True)
        classes.append(op_class)

    yield add
    for op_class in classes:
        unregister(op_class.type, op_class.version)


def test_state_is_kept_between_runs_and_reset(registered):
    registered(_Counter)
    model = irrun.load(
        '<layer id="1" name="count" type="TestCounter" version="extension">'
        '<input><port id="0" precision="FP32"><dim>1</dim></port></input>'
        '<output><port id="1" precision="FP32"><dim>1</dim></port></output></layer>'
    )
    data = {"count:in0": np.zeros(1, np.float32)}
    assert [model.run(data)["count:out1"][0] for _ in range(3)] == [1, 2, 3]
    model.reset_state()
    assert model.run(data)["count:out1"][0] == 1


class _Twice(Op):
    """A test op with a body: runs it twice, feeding its Result back to its Parameter."""

    type, version, inputs = "TestTwice", 1, (1, 1)
    runs_bodies = True

    def infer(self, inputs):
        return [inputs[0]]

    def evaluate(self, inputs, run_body):
        value = inputs[0]
        for _ in range(2):
            value = run_body("body", {0: value})[2]
        return [value]


_PORT = '<port id="{}" precision="FP32"><dim>2</dim></port>'
_TWICE = (
    '<layer id="1" name="twice" type="TestTwice" version="extension">'
    f"<input>{_PORT.format(0)}</input><output>{_PORT.format(1)}</output><body><layers>"
    '<layer id="0" name="p" type="Parameter" version="opset1"><data shape="2" '
    f'element_type="f32"/><output>{_PORT.format(0)}</output></layer>'
    '<layer id="3" name="plus" type="Add" version="opset1">'
    f"<input>{_PORT.format(0)}{_PORT.format(1)}</input><output>{_PORT.format(2)}</output></layer>"
    f'<layer id="2" name="r" type="Result" version="opset1"><input>{_PORT.format(0)}</input>'
    '</layer></layers><edges><edge from-layer="0" from-port="0" to-layer="3" to-port="0"/>'
    '<edge from-layer="0" from-port="0" to-layer="3" to-port="1"/>'
    '<edge from-layer="3" from-port="2" to-layer="2" to-port="0"/></edges></body></layer>'
)


def test_a_body_is_built_once_and_run_with_its_parameters_fed(registered):
    registered(_Twice)
    model = irrun.load(_TWICE)
    data = {"twice:in0": np.array([1, 2], np.float32)}
    assert model.run(data)["twice:out1"].tolist() == [4, 8]  # (x + x) + (x + x)
    assert model.run(data)["twice:out1"].tolist() == [4, 8]
    compiled = model.compile()
    assert compiled.builds == 2  # the model and its body, once each


def test_dynamic_outputs_take_the_slow_check_once_per_shape(tmp_path, monkeypatch):
    """An output of a dynamic inferred shape is checked against it on the first run of each
    shape (the verdict depends on the shape and dtype alone); a wrong shape is still caught."""
    from irrun.execution import engine

    x = param([-1, 3])
    model = save(tmp_path, [opset1.result(named(opset1.relu(opset1.negative(x)), "y"))], [x])
    compiled = model.compile()
    checks = []
    real = engine._check_output

    def counting(model, node, port, array, arguments):
        checks.append((node.layer.name, array.shape))
        return real(model, node, port, array, arguments)

    monkeypatch.setattr(engine, "_check_output", counting)
    feed = {"x": np.ones((2, 3), np.float32)}
    compiled.run(feed)
    first = len(checks)
    assert first >= 2  # both layers' outputs are dynamic: [?,3]
    compiled.run(feed)
    assert len(checks) == first  # remembered
    compiled.run({"x": np.ones((4, 3), np.float32)})
    assert len(checks) == 2 * first  # a new shape is checked
    node = next(n for n in compiled.program.fast if n.layer.name == "y")
    monkeypatch.setattr(node, "evaluate", lambda arguments: [np.zeros((2, 4), np.float32)])
    with pytest.raises(irrun.InternalError, match=r"produced shape \[2, 4\], but validation"):
        compiled.run(feed)
    monkeypatch.setattr(node, "evaluate", lambda arguments: [np.zeros((2, 3), np.float64)])
    with pytest.raises(irrun.InternalError, match=r"produced float64, but validation"):
        compiled.run(feed)
