"""If-8, Loop-5 and TensorIterator-1: bodies inferred like the top-level graph, outer
shapes against OpenVINO's construction, port maps checked, problems inside bodies reported
with the body they are in."""

from __future__ import annotations

import numpy as np
import openvino as ov
import openvino.opset8 as o8
import pytest
from hypothesis import given
from hypothesis import strategies as st

import irrun
from tests.helpers.openvino_oracle import check_shapes, parameter, save
from tests.helpers.strategies import op_settings, shape_text


def _body_shapes_match(model: ov.Model, loaded) -> None:
    """Every layer inside a body has OpenVINO's inferred shape and type (bodies matched by
    their layer names)."""
    by_name = {}
    for layer in loaded.all_layers():
        by_name.setdefault(layer.name, layer)
    for node in model.get_ordered_ops():
        if not hasattr(node, "get_function"):
            continue
        count = 2 if node.get_type_name() == "If" else 1
        for index in range(count):
            body = node.get_function(index) if count == 2 else node.get_function()
            for inner in body.get_ordered_ops():
                if inner.get_type_name() == "Result":
                    continue
                layer = by_name[inner.get_friendly_name()]
                for k, output in enumerate(inner.outputs()):
                    port = layer.outputs[k]
                    expected = str(output.get_partial_shape())
                    assert str(port.inferred_shape) == expected, (layer.describe(), expected)
                    assert port.inferred_type.name == output.get_element_type().get_type_name()


def _check(*outputs, tmp_path=None):
    model = ov.Model(list(outputs), _parameters(outputs), "cf")
    loaded = check_shapes(model)
    _body_shapes_match(model, loaded)
    report = loaded.validate()
    assert report.layers_trusted == 0 and "subgraph-not-checked" not in report.codes()
    return loaded


def _parameters(outputs):
    seen, params, stack = set(), [], [o.get_node() for o in outputs]
    while stack:
        node = stack.pop()
        if node.get_name() in seen:
            continue
        seen.add(node.get_name())
        if node.get_type_name() == "Parameter":
            params.append(node)
        stack.extend(i.get_source_output().get_node() for i in node.inputs())
    return sorted(params, key=lambda p: p.get_friendly_name())


# -- If --------------------------------------------------------------------------------------
def _if(cond, x, then_build, else_build):
    bodies = []
    for build in (then_build, else_build):
        inner = o8.parameter(x.get_output_partial_shape(0), x.get_output_element_type(0))
        result = o8.result(build(inner))
        bodies.append((inner, result, ov.Model([result], [inner])))
    node = o8.if_op(cond)
    node.set_then_body(bodies[0][2])
    node.set_else_body(bodies[1][2])
    node.set_input(x.output(0), bodies[0][0], bodies[1][0])
    return node.set_output(bodies[0][1], bodies[1][1])


BRANCHES = {
    "relu": lambda t: o8.relu(t),
    "twice": lambda t: o8.concat([t, t], 0),
    "sum": lambda t: o8.reduce_sum(t, o8.constant(np.int64([0])), False),
    "flat": lambda t: o8.reshape(t, o8.constant(np.int64([-1])), False),
}


@op_settings(30)
@given(shape_text(min_rank=1, max_rank=3), st.sampled_from(sorted(BRANCHES)),
       st.sampled_from(sorted(BRANCHES)), st.sampled_from(["param", "true", "false"]))  # fmt: skip
def test_if_shapes_match_openvino(shape, then_name, else_name, condition):
    x = parameter(shape, "f32", name="x")
    cond = (parameter("[]", "boolean", name="c") if condition == "param"
            else o8.constant(np.bool_(condition == "true")))  # fmt: skip
    _check(_if(cond, x, BRANCHES[then_name], BRANCHES[else_name]))


def test_if_merges_different_dims_to_an_interval():
    x = parameter("[2,3]", "f32", name="x")
    c = parameter("[]", "boolean", name="c")
    loaded = _check(_if(c, x, BRANCHES["relu"], BRANCHES["twice"]))
    (layer,) = [la for la in loaded.layers if la.type == "If"]
    assert str(layer.outputs[0].inferred_shape) == "[2..4,3]"


# -- Loop ------------------------------------------------------------------------------------
def _loop(trip, cond, a, *, body_condition="true", grow=False, iteration=False, concat=True):
    ba = o8.parameter(a.get_output_partial_shape(0), np.float32, name="ba")
    params = [ba]
    value = o8.concat([ba, ba], 0) if grow else o8.relu(ba)
    if iteration:
        it = o8.parameter([], np.int64, name="it")
        params.append(it)
        value = o8.add(value, o8.convert(it, "f32"))
    state = o8.result(value)
    cond_param = None
    if body_condition == "param":
        cond_param = o8.parameter([], np.bool_, name="bc")
        params.append(cond_param)
        cond_result = o8.result(cond_param)
    else:
        cond_result = o8.result(o8.constant(np.bool_(body_condition == "true")))
    results = [state, cond_result]
    stacked = o8.result(o8.unsqueeze(value, o8.constant(np.int64(0))))
    results.append(stacked)
    node = o8.loop(trip, cond)
    node.set_function(ov.Model(results, params))
    node.set_special_body_ports([params.index(it) if iteration else -1, 1])
    node.set_merged_input(ba, a.output(0), state.output(0))
    if cond_param is not None:
        node.set_invariant_input(cond_param, o8.constant(np.bool_(True)).output(0))
    outputs = [node.get_iter_value(state.output(0), -1)]
    if concat:
        outputs.append(node.get_concatenated_slices(stacked.output(0), 0, 1, 1, -1, 0))
    return outputs


@op_settings(30)
@given(shape_text(min_rank=1, max_rank=3), st.sampled_from(["const", "param", "infinite"]),
       st.sampled_from(["const", "param"]), st.sampled_from(["true", "false", "param"]),
       st.booleans(), st.booleans())  # fmt: skip
def test_loop_shapes_match_openvino(shape, trip_kind, cond_kind, body_condition, grow, iteration):
    a = parameter(shape, "f32", name="a")
    trip = {"const": o8.constant(np.int64(3)), "infinite": o8.constant(np.int64(-1)),
            "param": parameter("[]", "i64", name="n")}[trip_kind]  # fmt: skip
    cond = (o8.constant(np.bool_(True)) if cond_kind == "const"
            else parameter("[]", "boolean", name="c"))  # fmt: skip
    _check(*_loop(trip, cond, a, body_condition=body_condition, grow=grow, iteration=iteration))


def test_loop_relaxes_a_growing_back_edge_and_infers_the_body_again():
    a = parameter("[2]", "f32", name="a")
    outputs = _loop(o8.constant(np.int64(3)), o8.constant(np.bool_(True)), a, grow=True)
    loaded = _check(*outputs)
    (layer,) = [la for la in loaded.layers if la.type == "Loop"]
    assert [str(p.inferred_shape) for p in layer.outputs] == ["[?]", "[3,?]"]


def test_loop_counts_iterations_of_a_constant_trip_count():
    a = parameter("[2]", "f32", name="a")
    loaded = _check(*_loop(o8.constant(np.int64(5)), o8.constant(np.bool_(True)), a))
    (layer,) = [la for la in loaded.layers if la.type == "Loop"]
    assert [str(p.inferred_shape) for p in layer.outputs] == ["[2]", "[5,2]"]


# -- TensorIterator --------------------------------------------------------------------------
def _tensor_iterator(seq, h0, *, start, end, stride, part, axis, one_row=False):
    rank = seq.get_output_partial_shape(0).rank.get_length()
    piece = list(seq.get_output_partial_shape(0))
    piece[axis] = ov.Dimension(part)
    xs = o8.parameter(ov.PartialShape(piece), np.float32, name="xs")
    hs = o8.parameter(h0.get_output_partial_shape(0), np.float32, name="hs")
    reduced = o8.reduce_sum(xs, o8.constant(np.int64([axis])), False)
    hn = o8.add(reduced, hs)
    rh = o8.result(hn)
    ry = o8.result(o8.unsqueeze(hn, o8.constant(np.int64([axis]))))
    node = o8.tensor_iterator()
    node.set_body(ov.Model([rh, ry], [xs, hs]))
    node.set_sliced_input(xs, seq.output(0), start, stride, part, end, axis)
    node.set_merged_input(hs, h0.output(0), rh.output(0))
    assert rank >= 2
    return [node.get_iter_value(rh.output(0), -1),
            node.get_concatenated_slices(ry.output(0), start, (1 if stride > 0 else -1)
                                         if one_row else stride, 1 if one_row else part, end,
                                         axis)]  # fmt: skip


@op_settings(30)
@given(st.sampled_from(["[2,6,4]", "[2,?,4]", "[?,6,4]", "[2,2..8,4]", "[1,7,3]"]),
       st.sampled_from([(0, -1, 1, 1), (0, -1, 2, 2), (-1, 0, -1, 1), (0, -1, 1, 2)]))  # fmt: skip
def test_tensor_iterator_shapes_match_openvino(shape, slicing):
    start, end, stride, part = slicing
    seq = parameter(shape, "f32", name="seq")
    dims = shape.strip("[]").split(",")
    h0 = parameter(f"[{dims[0]},{dims[2]}]", "f32", name="h0")
    _check(*_tensor_iterator(seq, h0, start=start, end=end, stride=stride, part=part, axis=1))


# -- problems --------------------------------------------------------------------------------
def _saved_loop(tmp_path):
    a = parameter("[2]", "f32", name="a")
    outputs = _loop(o8.constant(np.int64(3)), o8.constant(np.bool_(True)), a)
    path = save(ov.Model(outputs, _parameters(outputs), "cf"), tmp_path)
    return path, path.read_text()


def test_a_wrong_declaration_inside_a_body_is_reported_with_its_body(tmp_path):
    path, text = _saved_loop(tmp_path)
    relu = text.index('type="ReLU"')
    out = text.index("<output>", relu)
    dim = text.index("<dim>2</dim>", out)
    path.write_text(text[:dim] + "<dim>5</dim>" + text[dim + len("<dim>2</dim>") :])
    report = irrun.load(path).validate()
    errors = [d for d in report if d.severity == "error"]
    assert [d.code for d in errors] == ["shape-mismatch"]
    (error,) = errors
    assert error.message.startswith("in the body of layer ")
    assert (
        "(Loop): layer " in error.message
        and "declares [5], but its inputs give [2]" in error.message
    )
    assert error.line == text[:dim].count("\n")  # the line of its <port>


def test_a_port_map_naming_a_missing_body_layer_is_an_error(tmp_path):
    path, text = _saved_loop(tmp_path)
    text = text.replace('internal_layer_id="0"', 'internal_layer_id="77"', 1)
    path.write_text(text)
    report = irrun.load(path).validate()
    (error,) = [d for d in report if d.severity == "error"]
    assert error.code == "port-map"
    assert (
        "maps input port 2 to body layer 77, which should be a Parameter of its <body> "
        "(no such layer)" in error.message
    )


def test_an_unmapped_output_port_is_an_error(tmp_path):
    path, text = _saved_loop(tmp_path)
    start = text.index('<output external_port_id="3"')
    end = text.index("/>", start) + 2
    path.write_text(text[:start] + text[end:])
    report = irrun.load(path).validate()
    (error,) = [d for d in report if d.severity == "error"]
    assert error.code == "port-map"
    assert "output port 3 is not mapped to a body Result in <port_map>" in error.message


def test_bodies_count_in_the_coverage(tmp_path):
    path, _ = _saved_loop(tmp_path)
    report = irrun.load(path).validate()
    assert report.ok and report.layers_trusted == 0
    assert report.layers_checked == len(list(irrun.load(path).all_layers()))


@pytest.mark.parametrize("code", ["unknown-op"])
def test_an_unknown_op_inside_a_body_is_trusted_and_named(tmp_path, code):
    path, text = _saved_loop(tmp_path)
    path.write_text(text.replace('type="ReLU" version="opset1"', 'type="Frobnicate" '
                                 'version="extension"'))  # fmt: skip
    report = irrun.load(path).validate()
    (warning,) = [d for d in report if d.code == code]
    assert warning.message.startswith("in the body of layer ")
    assert report.layers_trusted == 1


# -- running ---------------------------------------------------------------------------------
def _run_both(outputs, inputs):
    from tests.helpers.openvino_oracle import run_irrun, run_openvino

    model = ov.Model(list(outputs), _parameters(outputs), "cf")
    return run_openvino(model, inputs), run_irrun(model, inputs)


@pytest.mark.parametrize("condition", [True, False])
def test_if_runs_the_body_its_condition_picks(condition):
    x = parameter("[2,3]", "f32", name="x")
    c = parameter("[]", "boolean", name="c")
    out = _if(c, x, BRANCHES["relu"], lambda t: o8.multiply(t, o8.constant(np.float32(-2))))
    data = np.arange(-3, 3, dtype=np.float32).reshape(2, 3)
    expected, got = _run_both([out], {"x": data, "c": np.bool_(condition)})
    np.testing.assert_array_equal(got[0], expected[0])
    assert got[0].dtype == np.float32


@pytest.mark.parametrize("iteration", [False, True])
@pytest.mark.parametrize("trip", [1, 4])
def test_loop_runs_as_the_cpu_plugin_does(trip, iteration):
    a = parameter("[3]", "f32", name="a")
    outputs = _loop(o8.constant(np.int64(trip)), o8.constant(np.bool_(True)), a,
                    iteration=iteration)  # fmt: skip
    data = np.float32([-1, 0.5, 2])
    expected, got = _run_both(outputs, {"a": data})
    for e, g in zip(expected, got):
        np.testing.assert_array_equal(g, e)


def test_loop_stops_when_its_body_condition_turns_false():
    a = parameter("[]", "f32", name="a")
    ba = o8.parameter([], np.float32, name="ba")
    grown = o8.add(ba, o8.constant(np.float32(1)))
    state, go_on = o8.result(grown), o8.result(o8.less(grown, o8.constant(np.float32(5))))
    stacked = o8.result(o8.unsqueeze(grown, o8.constant(np.int64(0))))
    node = o8.loop(o8.constant(np.int64(10)), o8.constant(np.bool_(True)))
    node.set_function(ov.Model([state, go_on, stacked], [ba]))
    node.set_special_body_ports([-1, 1])
    node.set_merged_input(ba, a.output(0), state.output(0))
    outputs = [node.get_iter_value(state.output(0), -1),
               node.get_concatenated_slices(stacked.output(0), 0, 1, 1, -1, 0)]  # fmt: skip
    expected, got = _run_both(outputs, {"a": np.float32(1.5)})
    np.testing.assert_array_equal(got[0], expected[0])
    np.testing.assert_array_equal(got[1], expected[1])
    np.testing.assert_array_equal(got[1], np.float32([2.5, 3.5, 4.5, 5.5]))


@pytest.mark.parametrize("slicing", [(0, -1, 1, 1), (0, -1, 2, 2), (-1, 0, -1, 1)])
def test_tensor_iterator_runs_as_the_cpu_plugin_does(slicing):
    start, end, stride, part = slicing
    seq = parameter("[2,6,4]", "f32", name="seq")
    h0 = parameter("[2,4]", "f32", name="h0")
    outputs = _tensor_iterator(
        seq, h0, start=start, end=end, stride=stride, part=part, axis=1, one_row=True
    )  # each iteration gives one row
    rng = np.random.default_rng(3)
    feed = {"seq": rng.integers(-4, 4, (2, 6, 4)).astype(np.float32),
            "h0": rng.integers(-4, 4, (2, 4)).astype(np.float32)}  # fmt: skip
    expected, got = _run_both(outputs, feed)
    for e, g in zip(expected, got):
        np.testing.assert_array_equal(g, e)
