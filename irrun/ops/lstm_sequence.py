"""LSTMSequence-5: an LSTM cell run over a sequence, in one or both directions.

Spec facts: inputs X ``[batch, seq_len, input_size]``, initial_hidden_state and
initial_cell_state ``[batch, num_directions, hidden_size]``, sequence_lengths ``[batch]`` (an
integer tensor), W ``[num_directions, 4 * hidden_size, input_size]``, R ``[num_directions, 4 *
hidden_size, hidden_size]``, B ``[num_directions, 4 * hidden_size]`` (gates f, i, c, o).
Outputs Y ``[batch, num_directions, seq_len, hidden_size]``, Ho and Co ``[batch,
num_directions, hidden_size]``. Attributes: those of every recurrent op
(``irrun.ops._recurrent``; activations f, g, h, default sigmoid, tanh, tanh) and ``direction``.

Shape rule: ``seq_base_shape_infer`` (see ``irrun.ops._recurrent``). The masking past each
item's length, reverse and bidirectional runs follow the reference's ``sequences.hpp``.

OpenVINO's C++ core also has a v0 LSTMSequence (with peepholes), but no IR opset holds it: its
IR reader refuses ``type="LSTMSequence" version="opset1"`` ("Opset opset1 doesn't contain the
operation"), so irrun has LSTMSequence-5 only.

Tolerance against the CPU plugin (f32): ``rtol 1e-5, atol 1e-6 * seq_len``.
"""

from __future__ import annotations

from irrun.ops._recurrent import BASE_ATTRIBUTES, DIRECTION, RecurrentSequence
from irrun.ops.registry import register


@register
class LSTMSequence(RecurrentSequence):
    """LSTMSequence-5 (seven inputs)."""

    type, version, inputs = "LSTMSequence", 5, (7, 7)
    attributes = (*BASE_ATTRIBUTES, DIRECTION)
    kind, gates = "lstm", 4
    names = ("X", "initial_hidden_state", "initial_cell_state", "sequence_lengths", "W", "R",
             "B")  # fmt: skip
    typed_inputs = (0, 1, 2, 4, 5, 6)
    default_activations = ("sigmoid", "tanh", "tanh")
