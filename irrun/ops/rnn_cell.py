"""RNNCell (the op OpenVINO's opset1 and opset3 and later contain; the specification calls it
RNNCell-3): one step of a plain recurrent cell, ``H' = f(X W^T + H R^T + B)``.

Spec facts: inputs X ``[batch, input_size]``, initial_hidden_state ``[batch, hidden_size]``,
W ``[hidden_size, input_size]``, R ``[hidden_size, hidden_size]``, B ``[hidden_size]``; output
H ``[batch, hidden_size]``. Attributes: those of every recurrent op (``irrun.ops._recurrent``;
one activation, default tanh). Shape rule: ``cell_base_shape_infer`` with one gate.
Tolerance against the CPU plugin (f32): ``rtol 1e-5, atol 1e-6``.
"""

from __future__ import annotations

from irrun.ops._recurrent import BASE_ATTRIBUTES, RecurrentCell
from irrun.ops.registry import register


@register
class RNNCell(RecurrentCell):
    """RNNCell (OpenVINO's v0 class; five inputs)."""

    type, version, inputs = "RNNCell", 1, (5, 5)
    attributes = BASE_ATTRIBUTES
    kind, gates = "rnn", 1
    names = ("X", "initial_hidden_state", "W", "R", "B")
    typed_inputs = (0, 1, 2, 3, 4)
    default_activations = ("tanh",)
