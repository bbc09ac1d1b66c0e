"""Random inputs for sequence lengths stay within the sequence they measure (a length above
it is refused by the op, so a random run would fail)."""

from __future__ import annotations

import numpy as np
import openvino.opset1 as opset1
import openvino.opset5 as opset5

import irrun
from irrun.execution import random_inputs
from tests.helpers.openvino_oracle import model_of, parameter, save


def _lstm_model(folder, steps):
    batch, size, hidden = 64, 3, 2
    x = parameter([batch, steps, size], name="x")
    lengths = parameter([batch], "i32", name="lengths")
    h0 = opset1.constant(np.zeros((batch, 1, hidden), np.float32))
    c0 = opset1.constant(np.zeros((batch, 1, hidden), np.float32))
    rng = np.random.default_rng(1)
    w = opset1.constant(rng.standard_normal((1, 4 * hidden, size)).astype(np.float32))
    r = opset1.constant(rng.standard_normal((1, 4 * hidden, hidden)).astype(np.float32))
    b = opset1.constant(np.zeros((1, 4 * hidden), np.float32))
    lstm = opset5.lstm_sequence(x, h0, c0, lengths, w, r, b, hidden, "forward")
    return irrun.load(save(model_of(lstm), folder))


def test_lstm_sequence_lengths_are_drawn_from_one_to_the_step_count(tmp_path):
    model = _lstm_model(tmp_path, steps=3)
    drawn = random_inputs(model, seed=0)["lengths"]
    assert drawn.dtype == np.int32
    assert drawn.min() >= 1 and drawn.max() <= 3
    assert set(np.unique(drawn)) == {1, 2, 3}  # 64 draws reach every length
    outputs = model.run()  # the same draw (seed 0): it runs
    assert outputs[model.outputs[0].name].shape == (64, 1, 3, 2)


def test_reverse_sequence_lengths_follow_its_seq_axis(tmp_path):
    data = parameter([4, 64], name="data")  # seq_axis 0: 4 steps, batch_axis 1
    lengths = parameter([64], "i64", name="lengths")
    node = opset1.reverse_sequence(data, lengths, batch_axis=1, seq_axis=0)
    model = irrun.load(save(model_of(node), tmp_path))
    drawn = random_inputs(model, seed=2)["lengths"]
    assert drawn.min() >= 1 and drawn.max() <= 4
    assert set(np.unique(drawn)) == {1, 2, 3, 4}
    assert next(iter(model.run().values())).shape == (4, 64)
