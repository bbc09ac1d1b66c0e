"""Validation's shortcuts give exactly what the general paths give: deferred values (folded
constants and weights computed when first read), attribute sets parsed once, and the static
paths of the broadcast, Convolution and Reshape rules."""

from __future__ import annotations

import numpy as np

import irrun
from irrun.ops.base import TensorInfo
from irrun.shape import Shape


def _layer(layer_type, data, inputs, output, version="opset1"):
    ports = "".join(
        f'<port id="{i}">' + "".join(f"<dim>{d}</dim>" for d in dims) + "</port>"
        for i, dims in enumerate(inputs)
    )
    out = "".join(f"<dim>{d}</dim>" for d in output)
    return (
        f'<layer id="1" type="{layer_type}" version="{version}"><data {data}/><input>{ports}'
        f'</input><output><port id="{len(inputs)}">{out}</port></output></layer>'
    )


def _messages(text):
    return [(d.code, d.message) for d in irrun.load(text).validate()]


def test_deferred_value_is_computed_once_on_first_read():
    calls = []
    info = TensorInfo(Shape([2]))
    info.defer(lambda index: calls.append(index) or np.array([index, 7]), 3)
    assert info.may_have_value and calls == []
    assert info.value.tolist() == [3, 7]
    assert info.value.tolist() == [3, 7] and calls == [3]


def test_deferred_value_may_turn_out_unknown():
    info = TensorInfo(Shape([2]))
    info.defer(lambda index: None, 0)
    assert info.may_have_value
    assert info.value is None
    assert not info.may_have_value


def test_a_read_deferred_value_leaves_a_plain_tensor_info():
    import pytest

    info = TensorInfo(Shape([1]), why="folded")
    info.defer(lambda index: np.array([4]), 0)
    with pytest.raises(AttributeError, match="'TensorInfo' object has no attribute 'size'"):
        info.size  # noqa: B018
    assert info.value.tolist() == [4]
    assert type(info) is TensorInfo and info.why == "folded" and not info._pending


def test_setting_a_value_replaces_a_deferred_one():
    info = TensorInfo(Shape([1]))
    info.defer(lambda index: np.array([1]), 0)
    info.value = np.array([5])
    assert info.value.tolist() == [5]


def test_repeated_attribute_sets_give_separate_lists():
    text = _layer("Convolution", 'strides="2,2" pads_begin="1,1" pads_end="1,1" dilations="1,1"',
                  [[1, 3, 8, 8], [4, 3, 3, 3]], [1, 4, 4, 4])  # fmt: skip
    from irrun.ops.registry import resolve_layer

    model = irrun.load(text)
    layer = model.layers[0]
    op_class = resolve_layer(layer)
    first = op_class(layer, irrun.ops.base.OpContext())
    first.strides.append(9)  # an op may change its own lists
    second = op_class(layer, irrun.ops.base.OpContext())
    assert second.strides == [2, 2] and second.pads_begin == [1, 1]


def test_static_convolution_axis_and_its_window_error():
    ok = _layer("Convolution", 'strides="2,1" pads_begin="1,0" pads_end="0,2" dilations="1,2"',
                [[1, 3, 9, 5], [4, 3, 3, 2]], [1, 4, 4, 5])  # fmt: skip
    assert _messages(ok) == []
    too_big = _layer("Convolution", 'strides="1,1" pads_begin="0,0" pads_end="0,0" '
                     'dilations="2,1"', [[1, 3, 4, 4], [8, 3, 3, 3]], [1, 8, 2, 2])  # fmt: skip
    assert _messages(too_big) == [(
        "input-dims",
        "layer 1 (Convolution-1): spatial axis 0: the dilated kernel (3 - 1) * 2 + 1 = 5 is "
        "larger than the padded data 4 + 0 + 0 = 4",
    )]  # fmt: skip


def test_static_broadcast_and_its_clash():
    ok = _layer("Add", 'auto_broadcast="numpy"', [[2, 1, 4], [3, 1]], [2, 3, 4])
    assert _messages(ok) == []
    clash = _layer("Add", 'auto_broadcast="numpy"', [[2, 3], [4]], [2, 3])
    assert _messages(clash) == [(
        "input-dims",
        "layer 1 (Add-1): input 1 [4] does not broadcast with input 0 [2,3] (auto_broadcast "
        "numpy): dimension 1: 3 vs 4 cannot broadcast",
    )]  # fmt: skip


def _reshape(tmp_path, in_dims, target, special_zero, out_dims):
    blob = np.array(target, dtype=np.int64).tobytes()
    dims = "".join(f"<dim>{d}</dim>" for d in in_dims)
    out = "".join(f"<dim>{d}</dim>" for d in out_dims)
    xml = f"""<?xml version="1.0"?><net name="t" version="11"><layers>
<layer id="0" name="x" type="Parameter" version="opset1"><data shape="{",".join(map(str, in_dims))}" element_type="f32"/><output><port id="0" precision="FP32">{dims}</port></output></layer>
<layer id="1" name="t" type="Const" version="opset1"><data element_type="i64" shape="{len(target)}" offset="0" size="{len(blob)}"/><output><port id="0" precision="I64"><dim>{len(target)}</dim></port></output></layer>
<layer id="2" name="r" type="Reshape" version="opset1"><data special_zero="{special_zero}"/><input><port id="0" precision="FP32">{dims}</port><port id="1" precision="I64"><dim>{len(target)}</dim></port></input><output><port id="2" precision="FP32">{out}</port></output></layer>
<layer id="3" name="o" type="Result" version="opset1"><input><port id="0" precision="FP32">{out}</port></input></layer>
</layers><edges><edge from-layer="0" from-port="0" to-layer="2" to-port="0"/><edge from-layer="1" from-port="0" to-layer="2" to-port="1"/><edge from-layer="2" from-port="2" to-layer="3" to-port="0"/></edges></net>"""  # noqa: E501
    (tmp_path / "m.xml").write_text(xml)
    (tmp_path / "m.bin").write_bytes(blob)
    return [(d.code, d.message) for d in irrun.load(tmp_path / "m.xml").validate()]


def test_static_reshape_resolves_minus_one_and_copied_zeros(tmp_path):
    assert _reshape(tmp_path, [2, 3, 4], [0, -1], "true", [2, 12]) == []
    assert _reshape(tmp_path, [0, 3], [-1, 3], "false", [0, 3]) == []


def test_static_reshape_problems_keep_their_messages(tmp_path):
    assert _reshape(tmp_path, [2, 3, 4], [5, -1], "false", [5, 1]) == [(
        "input-dims",
        "layer 2 'r' (Reshape-1): 2*3*4 = 24 elements cannot be reshaped to [5,-1]: the other "
        "target dimensions (5) do not divide it",
    )]  # fmt: skip
    assert _reshape(tmp_path, [2, 3], [4, 2], "false", [4, 2]) == [(
        "input-dims",
        "layer 2 'r' (Reshape-1): 2*3 = 6 elements cannot be reshaped to [4,2] (4*2 = 8 "
        "elements)",
    )]  # fmt: skip


def test_repeated_attribute_sets_without_lists_give_the_same_values():
    text = _layer("Add", 'auto_broadcast="numpy"', [[2, 3], [2, 3]], [2, 3])
    from irrun.ops.registry import resolve_layer

    layer = irrun.load(text).layers[0]
    op_class = resolve_layer(layer)
    ops = [op_class(layer, irrun.ops.base.OpContext()) for _ in range(2)]  # the second cached
    assert [op.auto_broadcast for op in ops] == ["numpy", "numpy"]
    ops[0].auto_broadcast = "none"  # an op's own fields are its own
    assert ops[1].auto_broadcast == "numpy"


def test_a_cached_attribute_set_goes_through_a_field_setter():
    from irrun.ops.base import Attribute, Op, _stored

    class Setting(Op):
        type, version = "SettingTest", 1
        attributes = (Attribute("axis", "int", 0),)
        seen: list = []

        @property
        def axis(self):
            return self._axis

        @axis.setter
        def axis(self, value):
            self.seen.append(value)
            self._axis = value

    layer = irrun.load('<layer id="1" type="SettingTest"><data axis="3"/><output><port id="0"/>'
                       "</output></layer>").layers[0]  # fmt: skip
    ops = [Setting(layer, irrun.ops.base.OpContext()) for _ in range(2)]  # the second cached
    assert Setting.seen == [3, 3] and [op.axis for op in ops] == [3, 3]
    assert _stored(Setting, [("axis", 3)]) == (("axis", 3),)
    assert _stored(Op, [("axis", 3), ("mode", "numpy")]) == {"axis": 3, "mode": "numpy"}
    assert _stored(Op, [("axes", [1, 2])]) == (("axes", [1, 2]),)


def test_static_broadcast_remembered_pairs_keep_their_clash():
    from irrun.ops._broadcast import broadcast_failure, broadcast_pair

    for _ in range(2):  # the second time from the remembered pairs
        assert str(broadcast_pair(Shape([1, 64, 8, 8]), Shape([1, 64, 1, 1]))) == "[1,64,8,8]"
        assert str(broadcast_pair(Shape([5, 1]), Shape([3]))) == "[5,3]"
        assert broadcast_pair(Shape([2, 3]), Shape([4])) is None
        why = broadcast_failure(Shape([2, 3]), Shape([4]))
        assert why == "dimension 1: 3 vs 4 cannot broadcast"


def test_two_ports_of_one_id_are_reported_and_unique_ids_pass():
    two = ('<layer id="1" name="a" type="Add" version="opset1"><input><port id="0"><dim>2</dim>'
           '</port><port id="0"><dim>2</dim></port></input><output><port id="2"><dim>2</dim>'
           "</port></output></layer>")  # fmt: skip
    assert _messages(two) == [
        ("duplicate-port-id", "layer 1 'a' (Add) has two input ports with id 0 (lines 1 and 1)")
    ]
    assert _messages(_layer("Add", 'auto_broadcast="numpy"', [[2], [2]], [2])) == []


def test_sub_byte_boolean_and_unaligned_consts_are_decoded_only_when_read():
    # u4 weights (a Convert reads only their shape), a boolean Const and an unaligned f32 Const
    # feeding no rule that reads values: none is decoded by validation; a u4 Const whose value
    # a rule reads (a Reshape target is integer, so an i4 target) is, with the right values.
    from tests.helpers.ir_text import Net

    net = Net()
    x = net.param("x", "2,8")
    packed = np.array([0x21, 0x43, 0x65, 0x87] * 4, np.uint8)  # u4 1..8, twice per row
    weights = net.const_raw("w", packed, "u4", [2, 8])
    wide = net.op("wide", "Convert", "opset1", {"destination_type": "f32"}, [weights], [2, 8],
                  precision="FP32")  # fmt: skip
    net.result(net.op("sum", "Add", "opset1", None, [x, wide], [2, 8]), "out")
    flags = net.const_raw("flags", np.array([1, 0, 1], np.uint8), "boolean", [3])
    net.result(flags, "flags_out")
    assert len(net.blob) % 4  # the next Const starts at an unaligned offset
    odd = net.const_raw("odd", np.arange(3, dtype=np.float32).view(np.uint8), "f32", [3])
    net.result(odd, "odd_out")
    target = net.const_raw("target", np.array([0x46], np.uint8), "i4", [2])  # 6, 4
    net.result(net.op("r", "Reshape", "opset1", {"special_zero": "false"}, [x, target], [6, 4]),
               "r_out")  # fmt: skip
    model = irrun.load(net.text(), weights=bytes(net.blob))
    report = model.validate()
    assert report.ok, report.to_text()
    decoded = {layer.name for layer in model.layers if id(layer) in model._constants}
    assert decoded == {"target"}
    by_name = {layer.name: layer for layer in model.layers}
    assert model.constant(by_name["target"]).tolist() == [6, 4]
    assert model.constant(by_name["w"]).tolist() == [[1, 2, 3, 4, 5, 6, 7, 8]] * 2
    assert model.constant(by_name["flags"]).tolist() == [True, False, True]
    assert model.constant(by_name["odd"]).tolist() == [0.0, 1.0, 2.0]
