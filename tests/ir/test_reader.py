"""The loader on hand-written IR: layers, ports, names, fragments, graph API."""

from pathlib import Path

import networkx as nx
import numpy as np
import pytest

import irrun
from tests.helpers.ir_text import net

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "ir"


PARAM = """<layer id="0" name="x" type="Parameter" version="opset1">
  <data shape="1..10,?,3" element_type="f32"/>
  <output><port id="0" precision="FP32" names="x,in\\,put">
    <dim>-1</dim><dim>-1</dim><dim>3</dim></port></output>
</layer>"""
RESULT = """<layer id="1" name="sink" type="Result" version="opset1">
  <input><port id="0" precision="FP32"><dim>-1</dim><dim>-1</dim><dim>3</dim></port></input>
</layer>"""
EDGE = '<edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>'


def test_tiny_example_loads_with_lines_names_and_constants():
    model = irrun.load(EXAMPLES / "tiny.xml")
    assert model.ir_version == 11 and model.name == "tiny"
    assert [layer.name for layer in model.layers] == ["data", "idx", "ax", "g", "cat", "out/sink"]
    assert model.layer("g").line == 16
    assert model.layer(3).attributes == {"batch_dims": "0"}
    assert model.layer("idx").value.tolist() == [-1, 0]
    assert model.layer("ax").value.shape == ()
    assert [i.name for i in model.inputs] == ["data"]
    assert str(model.inputs[0].shape) == "[2,?]"
    assert [o.name for o in model.outputs] == ["out"]


def test_graph_is_a_multidigraph_keyed_by_ports():
    model = irrun.load(EXAMPLES / "tiny.xml")
    graph = model.graph
    assert isinstance(graph, nx.MultiDiGraph)
    assert graph.number_of_nodes() == 6 and graph.number_of_edges() == 6
    assert graph.nodes[3]["layer"].type == "Gather"
    assert set(graph[0][4]) == {(0, 1)}
    assert [layer.id for layer in model.topological_order()] == [0, 1, 2, 3, 4, 5]
    gather = model.layer("g")
    assert model.producer(gather.inputs[1]).layer.name == "idx"
    assert [p.layer.name for p in model.consumers(model.layer("data").outputs[0])] == ["g", "cat"]


def test_interval_bounds_kept_in_parameter_shape_lost_in_port_dims():
    model = irrun.load(net(PARAM + RESULT, EDGE))
    assert str(model.inputs[0].shape) == "[1..10,?,3]"
    assert str(model.layer("x").outputs[0].declared_shape) == "[?,?,3]"


def test_tensor_names_split_on_unescaped_commas():
    model = irrun.load(net(PARAM + RESULT, EDGE))
    assert model.layer("x").outputs[0].names == ("x", "in,put")
    assert model.inputs[0].name == "in,put"  # smallest by bytes, as get_any_name()
    assert model.input("x") is model.input("in,put") is model.input("x")


def test_v11_output_named_after_feeding_port_or_output_names():
    model = irrun.load(net(PARAM + RESULT, EDGE))
    assert model.outputs[0].name == "in,put"
    named = RESULT.replace('type="Result"', 'type="Result" output_names="z,y"')
    assert irrun.load(net(PARAM + named, EDGE)).outputs[0].names == ("y", "z")


def test_v10_adds_layer_names():
    model = irrun.load(net(PARAM + RESULT, EDGE, version=10))
    assert set(model.inputs[0].names) == {"x", "in,put"}
    assert set(model.outputs[0].names) == {"x", "in,put"}


def test_output_without_names_is_named_after_its_result():
    bare = PARAM.replace(' names="x,in\\,put"', "")
    assert irrun.load(net(bare + RESULT, EDGE)).outputs[0].name == "sink"


def test_scalar_and_zero_size_ports():
    layers = """<layer id="0" name="s" type="Parameter" version="opset1">
  <data shape="" element_type="i64"/><output><port id="0" precision="I64"/></output></layer>
<layer id="2" name="z" type="Parameter" version="opset1">
  <data shape="0,3" element_type="f32"/>
  <output><port id="0" precision="FP32"><dim>0</dim><dim>3</dim></port></output></layer>"""
    model = irrun.load(net(layers))
    assert model.layer("s").outputs[0].declared_shape == ()
    assert model.layer("z").outputs[0].declared_shape == (0, 3)


def test_rt_info_kept_unknown_entries_ignored():
    layer = PARAM.replace(
        "<output>",
        '<rt_info><attribute name="old_api_map_element_type" version="0" value="f16"/>'
        "</rt_info><output>",
    )
    model = irrun.load(net(layer + RESULT, EDGE) + "")
    assert model.layer("x").rt_info == {"old_api_map_element_type": "f16"}


def test_concat_spec_examples_are_two_separate_snippets():
    models = irrun.load_all(EXAMPLES / "concat_spec_examples.xml")
    assert len(models) == 2
    for model in models:
        assert [str(i.shape) for i in model.inputs] == [
            "[1,8,50,50]",
            "[1,16,50,50]",
            "[1,32,50,50]",
        ]
        assert [i.name for i in model.inputs] == ["1:in0", "1:in1", "1:in2"]
        assert [(o.name, str(o.shape)) for o in model.outputs] == [("1:out0", "[1,56,50,50]")]
    assert models[1].layers[0].attributes == {"axis": "-3"}
    with pytest.raises(irrun.FragmentError, match="2 separate <layer> snippets"):
        irrun.load(EXAMPLES / "concat_spec_examples.xml")


def test_fragment_from_string_keeps_lines():
    text = (
        "<!-- c -->\n<layer id='4' type='Concat'>\n<data axis='0'/>\n<input>\n<port id='0'>"
        "<dim>2</dim></port></input><output><port id='1'><dim>2</dim></port></output></layer>"
    )
    model = irrun.load(text)
    assert model.is_fragment and model.layers[0].line == 2
    assert model.layers[0].inputs[0].line == 5


def test_nested_bodies_are_kept():
    body = """<layer id="0" name="loop" type="TensorIterator" version="opset1">
  <port_map><input external_port_id="0" internal_layer_id="0" axis="0"/>
  <output external_port_id="1" internal_layer_id="1"/></port_map>
  <input><port id="0" precision="FP32"><dim>2</dim></port></input>
  <output><port id="1" precision="FP32"><dim>1</dim></port></output>
  <body><layers>
    <layer id="0" name="p" type="Parameter" version="opset1"><data shape="1" element_type="f32"/>
      <output><port id="0" precision="FP32"><dim>1</dim></port></output></layer>
    <layer id="1" name="r" type="Result" version="opset1">
      <input><port id="0" precision="FP32"><dim>1</dim></port></input></layer>
  </layers><edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/></edges></body>
</layer>"""
    model = irrun.load(net(body))
    loop = model.layer("loop")
    assert [layer.name for layer in loop.bodies["body"].layers] == ["p", "r"]
    assert loop.port_maps["port_map"][0]["axis"] == "0"
    assert [layer.name for layer in model.all_layers()] == ["loop", "p", "r"]


def test_typed_attribute_access_reports_layer_and_line():
    model = irrun.load(EXAMPLES / "tiny.xml")
    cat = model.layer("cat")
    assert cat.attribute_int("axis") == 1
    cat.attributes["axis"] = "one"
    with pytest.raises(irrun.AttributeValueError, match="axis='one' is not an integer") as info:
        cat.attribute_int("axis")
    assert info.value.line == cat.line
    with pytest.raises(irrun.MissingAttributeError):
        cat.attribute_int("nothing")
    assert cat.attribute_int("nothing", 7) == 7


def test_weights_given_as_bytes_and_zero_copy():
    model = irrun.load(
        (EXAMPLES / "tiny.xml").read_text(), weights=(EXAMPLES / "tiny.bin").read_bytes()
    )
    assert model.layer("idx").value.dtype == np.int64
    assert model.layer("idx").value.tolist() == [-1, 0]


def test_model_without_consts_needs_no_bin(tmp_path):
    path = tmp_path / "m.xml"
    path.write_text(net(PARAM + RESULT, EDGE))
    assert irrun.load(path).weights is None


def test_repr_and_html_are_informative():
    model = irrun.load(EXAMPLES / "tiny.xml")
    assert repr(model) == "<Model 'tiny' (IR v11): 6 layers, inputs ['data'], outputs ['out']>"
    assert repr(model.layer("g")) == "<Layer 3 'g' Gather opset8 -> [2,2]>"
    html = model._repr_html_()
    assert "<table" in html and "Gather opset8" in html and "out" in html
