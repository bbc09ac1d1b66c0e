"""Buffers of the compiled form: outputs written into the caller's arrays (``out=``),
element-wise layers written in place, big intermediates written into buffers kept between
runs; none of them ever changes an input, a weight, a folded value or an earlier result."""

import threading

import numpy as np
import openvino as ov
import pytest
from openvino import opset1, opset6, opset8
from openvino.op.util import Variable, VariableInfo

import irrun
from irrun.execution import engine
from irrun.execution.engine import CompiledModel
from tests.execution.graphs import named, param, save

F32 = np.float32


@pytest.fixture
def small_buffers(monkeypatch):
    """In place and kept buffers for arrays of any size (the tests' arrays are small)."""
    monkeypatch.setattr(engine, "IN_PLACE_MIN_BYTES", 0)
    monkeypatch.setattr(engine, "REUSE_MIN_BYTES", 0)


def plan(compiled) -> dict:
    """``{layer name: "in place" | "kept" | "fresh"}`` for the layers of the fast schedule."""
    pooled = compiled.program.pooled or compiled.program.fast
    found = {}
    for node, kept in zip(compiled.program.fast, pooled):
        name = getattr(node.evaluate, "__qualname__", "")
        if name.startswith("_in_place"):
            found[node.layer.name] = "in place"
        elif kept is not node:
            found[node.layer.name] = "kept"
        else:
            found[node.layer.name] = "fresh"
    return found


def _chain(tmp_path):
    """x -> gather (rows reversed) -> add 1 -> negative -> multiply by x -> concat with x."""
    x = param([4, 3])
    rows = opset1.constant(np.array([3, 2, 1, 0], np.int64))
    gathered = named(opset8.gather(x, rows, opset1.constant(np.int64(0))), "gathered")
    plus = named(opset1.add(gathered, opset1.constant(np.ones((4, 3), F32))), "plus")
    negated = named(opset1.negative(plus), "negated")
    product = named(opset1.multiply(negated, x), "product")
    joined = named(opset1.concat([product, x], 0), "y")
    return save(tmp_path, [opset1.result(joined)], [x])


def _chain_expected(x):
    return np.concatenate([-(x[::-1] + 1) * x, x])


def test_element_wise_layers_write_into_an_intermediate_they_read_last(tmp_path, small_buffers):
    model = _chain(tmp_path)
    compiled = CompiledModel(model)
    # "plus" reads the Gather's fresh output last, "negated" reads "plus" last, "product"
    # reads "negated" last (and x, a fed input): all three write into the Gather's output,
    # a buffer kept between runs. The Concat writes the model output: a fresh array.
    assert plan(compiled) == {"gathered": "kept", "plus": "in place", "negated": "in place",
                              "product": "in place", "y": "fresh"}  # fmt: skip
    x = np.arange(12, dtype=F32).reshape(4, 3)
    fed = x.copy()
    first = compiled.run({"x": x})["y"]
    assert compiled.reused_bytes == x.nbytes
    assert np.array_equal(first, _chain_expected(fed))
    assert np.array_equal(x, fed)  # the fed input is never written
    kept = first.copy()
    second = compiled.run({"x": x * 2})["y"]
    assert np.array_equal(second, _chain_expected(fed * 2))
    assert np.array_equal(first, kept)  # an earlier result is never overwritten
    assert not np.shares_memory(first, second)


def test_results_are_the_same_with_and_without_buffers(tmp_path, monkeypatch):
    model = _chain(tmp_path)
    x = np.linspace(-3, 3, 12, dtype=F32).reshape(4, 3)
    plain = CompiledModel(model).run({"x": x})["y"]  # default thresholds: nothing in place
    monkeypatch.setattr(engine, "IN_PLACE_MIN_BYTES", 0)
    monkeypatch.setattr(engine, "REUSE_MIN_BYTES", 0)
    buffered = CompiledModel(model)
    assert set(plan(buffered).values()) == {"in place", "kept", "fresh"}
    for _ in range(2):
        assert np.array_equal(buffered.run({"x": x})["y"], plain)


def test_dynamic_shapes_write_in_place_when_the_run_s_shapes_allow(tmp_path, small_buffers):
    x, row = param([-1, 3], name="x"), param([-1], name="row")
    gathered = named(opset8.gather(x, opset1.constant(np.array([1, 0], np.int64)),
                                   opset1.constant(np.int64(0))), "gathered")  # fmt: skip
    plus = named(opset1.add(gathered, row), "plus")  # [2, 3] + [3] or [2, 3] + [1]: fits
    y = named(opset1.concat([plus, x], 0), "y")
    model = save(tmp_path, [opset1.result(y)], [x, row])
    compiled = CompiledModel(model)
    assert plan(compiled)["plus"] == "in place"
    x_value = np.arange(6, dtype=F32).reshape(2, 3)
    for row_value in (np.array([10, 20, 30], F32), np.array([5], F32)):
        expected = np.concatenate([x_value[[1, 0]] + row_value, x_value])
        assert np.array_equal(compiled.run({"x": x_value, "row": row_value})["y"], expected)
    # A row of 2 does not broadcast to [2, 3]: the Add's own error, not a write into gathered.
    with pytest.raises(irrun.ExecutionError, match="Add"):
        compiled.run({"x": x_value, "row": np.ones(2, F32)})


def test_a_fed_input_read_last_by_an_element_wise_layer_is_not_written(tmp_path, small_buffers):
    x = param([5])
    model = save(tmp_path, [opset1.result(named(opset1.negative(x), "y"))], [x])
    compiled = CompiledModel(model)
    assert plan(compiled) == {"y": "fresh"}
    x_value = np.arange(5, dtype=F32)
    assert compiled.run({"x": x_value})["y"].tolist() == [0, -1, -2, -3, -4]
    assert x_value.tolist() == [0, 1, 2, 3, 4]


def test_consts_and_folded_values_are_never_written(tmp_path, small_buffers):
    x = param([2, 3])
    weights = np.arange(6, dtype=F32).reshape(2, 3)
    # With f16 compression the weights are Const f16 -> Convert, a value folded at compile.
    summed = named(opset1.add(opset1.constant(weights), x), "summed")
    y = named(opset1.negative(summed), "y")
    for compress in (False, True):
        model = save(tmp_path, [opset1.result(y)], [x], name=f"c{compress}", compress=compress)
        compiled = CompiledModel(model)
        # "summed" reads a weight and a fed input and writes a fresh array, which "y" (the
        # output) is written into: kept between runs, it would have to be copied out.
        assert plan(compiled) == {"summed": "fresh", "y": "in place"}
        for step in range(3):
            value = np.full((2, 3), step, F32)
            assert np.array_equal(compiled.run({"x": value})["y"], -(weights + step))
        for _, array in compiled.program.preloaded:
            assert not array.flags.writeable
        lazy = CompiledModel(model, fold_constants=False)
        assert np.array_equal(lazy.run({"x": np.ones((2, 3), F32)})["y"], -(weights + 1))
        assert np.array_equal(lazy.run({"x": np.ones((2, 3), F32)})["y"], -(weights + 1))


def test_no_layer_writes_into_an_array_a_view_of_it_still_needs(tmp_path, small_buffers):
    """gathered -> reshape (a view) read after negative(gathered): negative must allocate."""
    x = param([4, 3])
    gathered = named(opset8.gather(x, opset1.constant(np.array([1, 0, 3, 2], np.int64)),
                                   opset1.constant(np.int64(0))), "gathered")  # fmt: skip
    view = named(opset1.reshape(gathered, opset1.constant(np.array([4, 3], np.int64)), False),
                 "view")  # fmt: skip
    negated = named(opset1.negative(gathered), "negated")
    y = named(opset1.subtract(view, negated), "y")  # gathered - (-gathered)
    model = save(tmp_path, [opset1.result(y)], [x])
    compiled = CompiledModel(model)
    assert plan(compiled)["negated"] == "fresh"
    x_value = np.arange(12, dtype=F32).reshape(4, 3)
    for _ in range(2):
        assert np.array_equal(compiled.run({"x": x_value})["y"], 2 * x_value[[1, 0, 3, 2]])


def test_kept_buffers_are_not_shared_while_a_view_of_one_is_alive(tmp_path, small_buffers):
    """first -> reshape (a view, read last) ; second written meanwhile: two buffers."""
    x = param([4, 3])
    order = opset1.constant(np.array([1, 0, 3, 2], np.int64))
    axis = opset1.constant(np.int64(0))
    first = named(opset8.gather(x, order, axis), "first")
    view = named(opset1.reshape(first, opset1.constant(np.array([4, 3], np.int64)), False),
                 "view")  # fmt: skip
    second = named(opset8.gather(x, opset1.constant(np.array([3, 3, 0, 0], np.int64)), axis),
                   "second")  # fmt: skip
    third = named(opset8.gather(second, order, axis), "third")
    y = named(opset1.concat([view, third], 1), "y")
    model = save(tmp_path, [opset1.result(y)], [x])
    compiled = CompiledModel(model)
    x_value = np.arange(12, dtype=F32).reshape(4, 3)
    expected = np.concatenate([x_value[[1, 0, 3, 2]], x_value[[3, 3, 0, 0]][[1, 0, 3, 2]]], 1)
    for _ in range(3):
        assert np.array_equal(compiled.run({"x": x_value})["y"], expected)
    assert compiled._pool is not None and len(compiled._pool.sizes) == 3  # none shared


def test_an_output_that_is_a_view_of_a_kept_buffer_is_copied_out(tmp_path, small_buffers):
    x = param([4, 3])
    gathered = named(opset8.gather(x, opset1.constant(np.array([1, 0, 3, 2], np.int64)),
                                   opset1.constant(np.int64(0))), "gathered")  # fmt: skip
    y = named(opset1.reshape(gathered, opset1.constant(np.array([3, 4], np.int64)), False), "y")
    model = save(tmp_path, [opset1.result(y)], [x])
    compiled = CompiledModel(model)
    # The Gather's output outlives the run (the output is a view of it): no kept buffer.
    assert plan(compiled)["gathered"] == "fresh"
    x_value = np.arange(12, dtype=F32).reshape(4, 3)
    first = compiled.run({"x": x_value})["y"]
    second = compiled.run({"x": x_value + 1})["y"]
    assert np.array_equal(first, x_value[[1, 0, 3, 2]].reshape(3, 4))
    assert np.array_equal(second, first + 1)


def test_kept_buffers_are_reused_and_counted(tmp_path, small_buffers):
    model = _chain(tmp_path)
    compiled = CompiledModel(model)
    assert compiled.reused_bytes == 0  # allocated by the first run that uses them
    x = np.arange(12, dtype=F32).reshape(4, 3)
    compiled.run({"x": x})
    assert compiled.reused_bytes == x.nbytes  # the Gather's output, written in place after
    assert compiled.reused_bytes == compiled._pool.planned_bytes
    buffer = compiled._pool.buffers[0]
    compiled.run({"x": x})
    assert compiled._pool.buffers[0] is buffer


def test_peak_live_bytes_counts_memory_written_in_place_once(tmp_path, small_buffers):
    model = _chain(tmp_path)
    compiled = CompiledModel(model)
    x = np.arange(12, dtype=F32).reshape(4, 3)
    # x, the one buffer the chain writes in place (the kept Gather output) and the output.
    assert compiled.peak_live_bytes({"x": x}) == 4 * x.nbytes
    assert np.array_equal(compiled.run({"x": x})["y"], _chain_expected(x))


def test_stepping_and_capture_see_every_intermediate_unchanged(tmp_path, small_buffers):
    model = _chain(tmp_path)
    compiled = CompiledModel(model)
    x = np.arange(12, dtype=F32).reshape(4, 3)
    captured = compiled.run({"x": x}, capture=True)
    assert np.array_equal(captured["gathered"], x[::-1])
    assert np.array_equal(captured["plus"], x[::-1] + 1)
    assert np.array_equal(captured["negated"], -(x[::-1] + 1))
    assert np.array_equal(captured["product"], -(x[::-1] + 1) * x)
    assert np.array_equal(captured["y"], _chain_expected(x))
    steps = [step.outputs[0] for step in compiled.steps({"x": x}) if step.outputs]
    assert len({id(array) for array in steps}) == len(steps)


def test_out_writes_the_outputs_into_the_given_arrays(tmp_path, small_buffers):
    model = _chain(tmp_path)
    x = np.arange(12, dtype=F32).reshape(4, 3)
    for compiled in (CompiledModel(model), model.compile()):
        given = np.full((8, 3), np.nan, F32)
        results = compiled.run({"x": x}, out={"y": given})
        assert results["y"] is given
        assert np.array_equal(given, _chain_expected(x))
    given = np.full((8, 3), np.nan, F32)
    assert irrun.run(model, {"x": x}, out={"y": given})["y"] is given
    assert model.run({"x": x + 1}, out={"y": given})["y"] is given
    assert np.array_equal(given, _chain_expected(x + 1))


def test_out_is_written_by_the_producing_kernel_itself(tmp_path, monkeypatch):
    x, c = param([6], name="x"), param([4], name="c")
    y = named(opset1.concat([x, c], 0), "y")
    compiled = CompiledModel(save(tmp_path, [opset1.result(y)], [x, c]))
    node = compiled.program.fast[0]
    monkeypatch.setattr(node, "evaluate", None)  # only evaluate_into may run
    given = np.empty(10, F32)
    feeds = {"x": np.arange(6, dtype=F32), "c": np.ones(4, F32)}
    assert compiled.run(feeds, out={"y": given})["y"] is given
    assert given.tolist() == [0, 1, 2, 3, 4, 5, 1, 1, 1, 1]


def test_out_overlapping_an_input_is_filled_after_the_run(tmp_path):
    x = param([4])
    y = named(opset8.gather(x, opset1.constant(np.array([3, 2, 1, 0], np.int64)),
                            opset1.constant(np.int64(0))), "y")  # fmt: skip
    model = save(tmp_path, [opset1.result(y)], [x])
    x_value = np.arange(4, dtype=F32)
    assert model.run({"x": x_value}, out={"y": x_value})["y"] is x_value
    assert x_value.tolist() == [3, 2, 1, 0]


def test_out_for_an_input_passed_through_and_in_stepping_runs(tmp_path):
    x = param([3])
    doubled = named(opset1.add(x, x), "doubled")
    model = save(tmp_path, [opset1.result(doubled), opset1.result(x)], [x], name="pass")
    outputs = [o.name for o in model.outputs]
    x_value = np.arange(3, dtype=F32)
    given = {name: np.empty(3, F32) for name in outputs}
    for options in ({}, {"capture": True}, {"on_step": lambda step: None}):
        results = model.run({"x": x_value}, out=given, **options)
        assert all(results[name] is given[name] for name in outputs)
        assert sorted(a.tolist() for a in given.values()) == [[0, 1, 2], [0, 2, 4]]


@pytest.mark.parametrize(
    ("given", "message"),
    [
        (
            np.empty((4, 3), F32),
            r"out: output 'y' is float32\[8, 3\], but the array given for "
            r"it is float32\[4, 3\]",
        ),  # fmt: skip
        (
            np.empty((8, 3), np.float64),
            r"output 'y' is float32\[8, 3\], but the array given "
            r"for it is float64\[8, 3\]",
        ),  # fmt: skip
        ([[0.0] * 3] * 8, r"out: output 'y' needs a numpy array, not list"),
    ],
)
def test_out_of_another_shape_or_dtype_is_refused_naming_the_output(tmp_path, given, message):
    model = _chain(tmp_path)
    with pytest.raises(irrun.InputValueError, match=message):
        model.run({"x": np.zeros((4, 3), F32)}, out={"y": given})


def test_out_for_an_unknown_output_or_read_only_is_refused(tmp_path):
    model = _chain(tmp_path)
    feeds = {"x": np.zeros((4, 3), F32)}
    with pytest.raises(irrun.InputValueError, match=r"out: 'z' is not an output of the model "
                                                    r"\(its outputs: 'y'\)"):  # fmt: skip
        model.run(feeds, out={"z": np.empty((8, 3), F32)})
    read_only = np.empty((8, 3), F32)
    read_only.flags.writeable = False
    with pytest.raises(irrun.InputValueError, match="given for output 'y' is read-only"):
        model.run(feeds, out={"y": read_only})
    with pytest.raises(irrun.InputValueError, match="out must be a dict"):
        model.run(feeds, out=[read_only])


def test_out_of_a_dynamic_output_is_checked_against_the_run(tmp_path):
    x = param([-1, 3])
    y = named(opset1.negative(x), "y")
    model = save(tmp_path, [opset1.result(y)], [x])
    given = np.empty((2, 3), F32)
    assert model.run({"x": np.ones((2, 3), F32)}, out={"y": given})["y"] is given
    assert given.tolist() == [[-1, -1, -1]] * 2
    with pytest.raises(irrun.InputValueError, match=r"out: output 'y' of this run is "
                                                    r"float32\[5, 3\], but the array given "
                                                    r"for it is float32\[2, 3\]"):  # fmt: skip
        model.run({"x": np.ones((5, 3), F32)}, out={"y": given})


def test_two_threads_running_one_compiled_model_get_their_own_results(tmp_path, small_buffers):
    model = _chain(tmp_path)
    compiled = CompiledModel(model)
    failures = []
    start = threading.Barrier(2)

    def work(seed):
        start.wait()
        for step in range(200):
            x = np.full((4, 3), seed * 1000 + step, F32) + np.arange(12, dtype=F32).reshape(4, 3)
            if not np.array_equal(compiled.run({"x": x})["y"], _chain_expected(x)):
                failures.append((seed, step))

    threads = [threading.Thread(target=work, args=(seed,)) for seed in (1, 2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert compiled.runs == 400


def test_a_model_with_state_keeps_no_buffers(tmp_path, small_buffers):
    x = param([4, 3])
    gathered = named(opset8.gather(x, opset1.constant(np.array([1, 0, 3, 2], np.int64)),
                                   opset1.constant(np.int64(0))), "gathered")  # fmt: skip
    info = VariableInfo()
    info.variable_id = "v"
    info.data_shape = ov.PartialShape([4, 3])
    info.data_type = ov.Type.f32
    variable = Variable(info)

    read = opset6.read_value(gathered, variable)
    assign = opset6.assign(read, variable)
    y = named(opset1.negative(read), "y")
    model = ov.Model([opset1.result(y)], [assign], [x], "state")
    path = tmp_path / "state.xml"
    ov.save_model(model, path)
    compiled = CompiledModel(irrun.load(path))
    assert compiled._pool is None
    x_value = np.arange(12, dtype=F32).reshape(4, 3)
    # ReadValue gives its initial value (the Gather's output) once, then what was assigned.
    assert np.array_equal(compiled.run({"x": x_value})["y"], -x_value[[1, 0, 3, 2]])
    assert np.array_equal(compiled.run({"x": x_value + 1})["y"], -x_value[[1, 0, 3, 2]])


def test_the_add_after_a_convolution_or_matmul_runs_in_place(tmp_path, small_buffers):
    """Convolution and MatMul write fresh arrays (evaluate_into): the residual or bias Add
    reading one last writes into it."""
    x = param([1, 2, 5, 5])
    weights = opset1.constant(np.arange(36, dtype=F32).reshape(2, 2, 3, 3) / 36)
    conv = named(opset1.convolution(x, weights, [1, 1], [1, 1], [1, 1], [1, 1]), "conv")
    residual = named(opset1.add(conv, x), "residual")
    flat = opset1.reshape(residual, opset1.constant(np.array([1, 50], np.int64)), False)
    matrix = opset1.constant(np.linspace(-1, 1, 150, dtype=F32).reshape(50, 3))
    product = named(opset1.matmul(flat, matrix, False, False), "product")
    biased = named(opset1.add(product, opset1.constant(np.ones((1, 3), F32))), "biased")
    model = save(tmp_path, [opset1.result(opset1.relu(biased))], [x])
    compiled = CompiledModel(model)
    found = plan(compiled)
    assert found["residual"] == "in place" and found["biased"] == "in place"
    feed = np.linspace(-2, 2, 50, dtype=F32).reshape(1, 2, 5, 5)
    from irrun.ops._conv_kernel import convolve

    summed = convolve(feed, weights.data[None], 1, [1, 1], [1, 1], [1, 1], [1, 1]) + feed
    expected = np.maximum(summed.reshape(1, 50) @ matrix.data + 1, 0)
    for _ in range(2):  # the second run reuses the buffers
        (got,) = compiled.run({"x": feed}).values()
        assert np.array_equal(got, expected)
    assert np.array_equal(feed, np.linspace(-2, 2, 50, dtype=F32).reshape(1, 2, 5, 5))
