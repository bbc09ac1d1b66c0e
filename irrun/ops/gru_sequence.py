"""GRUSequence-5: a GRU cell run over a sequence, in one or both directions.

Spec facts: inputs X ``[batch, seq_len, input_size]``, initial_hidden_state ``[batch,
num_directions, hidden_size]``, sequence_lengths ``[batch]``, W ``[num_directions, 3 *
hidden_size, input_size]``, R ``[num_directions, 3 * hidden_size, hidden_size]``, B
``[num_directions, 3 * hidden_size]`` (``4 * hidden_size`` with ``linear_before_reset``);
gates z, r, h. Outputs Y ``[batch, num_directions, seq_len, hidden_size]`` and Ho ``[batch,
num_directions, hidden_size]``. Attributes: those of every recurrent op
(``irrun.ops._recurrent``; activations f, g, default sigmoid, tanh), ``direction`` and
``linear_before_reset`` (as GRUCell-3).

Shape rule: ``seq_base_shape_infer`` (see ``irrun.ops._recurrent``). Tolerance against the CPU
plugin (f32): ``rtol 1e-5, atol 1e-6 * seq_len``.
"""

from __future__ import annotations

from irrun.ops._recurrent import BASE_ATTRIBUTES, DIRECTION, LINEAR_BEFORE_RESET, RecurrentSequence
from irrun.ops.registry import register


@register
class GRUSequence(RecurrentSequence):
    """GRUSequence-5 (six inputs)."""

    type, version, inputs = "GRUSequence", 5, (6, 6)
    attributes = (*BASE_ATTRIBUTES, DIRECTION, LINEAR_BEFORE_RESET)
    kind, gates = "gru", 3
    names = ("X", "initial_hidden_state", "sequence_lengths", "W", "R", "B")
    typed_inputs = (0, 1, 3, 4, 5)
    default_activations = ("sigmoid", "tanh")
