"""A bug in irrun exits 3, as the README says, whichever path finds it; and the string Gather
that used to be one runs."""

from __future__ import annotations

import numpy as np
import pytest

import irrun
from irrun.errors import InternalError, ValidationFailed
from irrun.ops import Op, TensorInfo, register, unregister
from tests.helpers.cli import expect, outcome
from tests.helpers.ir_text import Net, dims


def string_gather_net(folder, index):
    """words: string Const ["ab", "c"]; pick = Gather-8(words, index, axis 0) -> out."""
    net = Net()
    layout = b"".join(v.to_bytes(4, "little") for v in (2, 0, 2, 3)) + b"abc"
    net.blob += layout
    net.layers.append(
        '    <layer id="0" name="words" type="Const" version="opset1">\n'
        f'      <data element_type="string" shape="2" offset="0" size="{len(layout)}"/>\n'
        f'      <output><port id="0" precision="STRING" names="words">{dims([2])}</port></output>\n'
        "    </layer>\n"
    )
    index = net.const("index", np.asarray(index, np.int64))
    axis = net.const("axis", np.array(0, np.int64))
    pick = net.op("pick", "Gather", "opset8", {"batch_dims": "0"},
                  [(0, 0, [2], "STRING"), index, axis], index[2], "STRING")  # fmt: skip
    net.result(pick, "out")
    xml = folder / "strings.xml"
    xml.write_text(net.text())
    xml.with_suffix(".bin").write_bytes(bytes(net.blob))
    np.savez(folder / "none.npz")
    return xml


@pytest.mark.parametrize("index, expected", [(1, "'c'"), (-2, "'ab'"), ([1, 0], "['c' 'ab']")])
def test_gather8_over_a_string_const_runs(tmp_path, index, expected):
    xml = string_gather_net(tmp_path, index)
    text = expect(outcome("execute", xml, "--inputs", tmp_path / "none.npz"), 0)
    assert expected in text
    value = irrun.load(xml).run({})["pick"]
    assert value.dtype == np.dtypes.StringDType() and value.shape == np.shape(index)


# -- the internal-error paths ---------------------------------------------------------------------
IR = """<?xml version="1.0"?>
<net name="buggy" version="11">
  <layers>
    <layer id="0" name="x" type="Parameter" version="opset1">
      <data shape="2" element_type="f32"/>
      <output><port id="0" precision="FP32" names="x"><dim>2</dim></port></output>
    </layer>
    <layer id="1" name="bug" type="BuggyTestOp" version="extension">
      <input><port id="0" precision="FP32"><dim>2</dim></port></input>
      <output><port id="1" precision="FP32" names="y"><dim>2</dim></port></output>
    </layer>
    <layer id="2" name="out" type="Result" version="opset1">
      <input><port id="0" precision="FP32"><dim>2</dim></port></input>
    </layer>
  </layers>
  <edges>
    <edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>
    <edge from-layer="1" from-port="1" to-layer="2" to-port="0"/>
  </edges>
</net>
"""

BUGS = {
    "infer raises": ("infer", lambda x: 1 / 0),
    "evaluate raises": ("evaluate", lambda x: {}["missing"]),
    "wrong dtype": ("evaluate", lambda x: x.astype(np.float64)),
    "wrong shape": ("evaluate", lambda x: np.concatenate([x, x])),
}


@pytest.fixture(params=list(BUGS))
def buggy(request, tmp_path):
    """A model whose one op has the bug named by the parameter; its files in tmp_path."""
    where, bug = BUGS[request.param]

    @register(replace=True)
    class BuggyTestOp(Op):
        type, version, inputs = "BuggyTestOp", 1, (1, 1)

        def infer(self, inputs):
            if where == "infer":
                bug(None)
            return [TensorInfo(inputs[0].shape, inputs[0].element_type, why="the input's")]

        def evaluate(self, inputs):
            return [bug(inputs[0])]

    xml = tmp_path / "buggy.xml"
    xml.write_text(IR)
    np.savez(tmp_path / "in.npz", x=np.ones(2, np.float32))
    yield request.param, xml
    unregister("BuggyTestOp", 1)


def test_every_internal_error_exits_3(buggy, tmp_path):
    bug, xml = buggy
    run = outcome("execute", xml, "--inputs", tmp_path / "in.npz")
    assert run.exit_code == 3, run.output
    assert "Traceback" not in run.output and "bug in irrun" in run.output
    if bug == "infer raises":
        checked = outcome("validate", xml)
        assert checked.exit_code == 3 and "error[internal]" in checked.output, checked.output
        drawn = outcome("graph", xml, "-o", tmp_path / "g.dot", "--engine", "auto")
        assert drawn.exit_code == 3 and (tmp_path / "g.dot").exists(), drawn.output
    else:
        assert outcome("validate", xml).exit_code == 0


def test_internal_errors_through_the_api(buggy, tmp_path):
    bug, xml = buggy
    model = irrun.load(xml)
    inputs = {"x": np.ones(2, np.float32)}
    if bug == "infer raises":
        with pytest.raises(ValidationFailed) as caught:
            model.run(inputs)
        assert caught.value.exit_code == 3
    elif bug.startswith("wrong"):
        with pytest.raises(InternalError, match="a bug in irrun") as caught:
            model.run(inputs)
        assert caught.value.exit_code == 3
    else:
        with pytest.raises(KeyError):
            model.run(inputs)


def test_validation_errors_of_the_model_still_exit_1(tmp_path):
    xml = tmp_path / "bad.xml"
    xml.write_text(
        IR.replace("BuggyTestOp", "Relu")
        .replace('"extension"', '"opset1"')
        .replace(
            '<dim>2</dim></port></output>\n    </layer>\n    <layer id="2"',
            '<dim>3</dim></port></output>\n    </layer>\n    <layer id="2"',
        )
    )
    np.savez(tmp_path / "in.npz", x=np.ones(2, np.float32))
    assert outcome("validate", xml).exit_code == 1
    assert outcome("execute", xml, "--inputs", tmp_path / "in.npz").exit_code == 1
