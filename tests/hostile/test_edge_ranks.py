"""Both ends of an edge must declare the same dims: a different *rank* is an ``edge-dims``
error too (the other edge-dims tests change a dim at the same rank)."""

from __future__ import annotations

import pytest

import irrun
from tests.helpers.ir_text import dims, net


def relu_net(produced, consumed, result_dims=None):
    """x (Parameter, ``produced``) -> r (Relu, input port declares ``consumed``) -> out."""
    text = ",".join(map(str, produced))
    result_dims = produced if result_dims is None else result_dims
    return net(
        [
            f'<layer id="0" name="x" type="Parameter" version="opset1"><data shape="{text}" '
            f'element_type="f32"/><output><port id="0" precision="FP32">{dims(produced)}</port>'
            "</output></layer>",
            '<layer id="1" name="r" type="Relu" version="opset1"><input>'
            f'<port id="0" precision="FP32">{dims(consumed)}</port></input><output>'
            f'<port id="1" precision="FP32">{dims(produced)}</port></output></layer>',
            '<layer id="2" name="out" type="Result" version="opset1"><input>'
            f'<port id="0" precision="FP32">{dims(result_dims)}</port></input></layer>',
        ],
        [(0, 0, 1, 0), (1, 1, 2, 0)],
    )


@pytest.mark.parametrize(
    "produced, consumed",
    [([2, 16], [2, 16, 1]), ([2, 16, 1], [2, 16]), ([2, 16], []), ([], [1]), ([2, 16], [32])],
)
def test_an_edge_whose_ends_declare_different_ranks_is_reported(produced, consumed):
    report = irrun.load(relu_net(produced, consumed)).validate()
    assert report.codes() == ["edge-dims"]
    (diagnostic,) = report.diagnostics
    assert diagnostic.layer_name == "r" and diagnostic.port == "input port 0"
    assert diagnostic.line == 5  # the Relu's line
    shown = "[" + ",".join(map(str, consumed)) + "]"
    assert f"declares {shown}, but its producer layer 0 'x' (Parameter) output port 0" in (
        diagnostic.message
    )


def test_a_result_fed_a_different_rank_is_reported():
    report = irrun.load(relu_net([2, 16], [2, 16], result_dims=[2, 16, 1])).validate()
    assert report.codes() == ["edge-dims"]
    assert report.diagnostics[0].layer_name == "out"


def test_the_same_rank_and_dims_are_fine():
    assert irrun.load(relu_net([2, 16], [2, 16])).validate().codes() == []
