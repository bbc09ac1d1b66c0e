"""GRUCell-3: one step of a gated recurrent unit.

Spec facts: inputs X ``[batch, input_size]``, initial_hidden_state ``[batch, hidden_size]``,
W ``[3 * hidden_size, input_size]``, R ``[3 * hidden_size, hidden_size]`` (gates z, r, h) and B
``[3 * hidden_size]`` (``[4 * hidden_size]`` with ``linear_before_reset``: the recurrence bias
of h apart). Output H ``[batch, hidden_size]``. Attributes: those of every recurrent op
(``irrun.ops._recurrent``; two activations f, g, default sigmoid, tanh) and
``linear_before_reset`` (default false: ``h = g(Xh + (r * H) Rh^T + bh)``; true: ``h = g(Xh +
r * (H Rh^T + bRh) + bh)``).

Shape rule: ``cell_base_shape_infer``; OpenVINO merges the element types of X, the state, R and
B but not W (W of another floating type is accepted). Tolerance against the CPU plugin (f32):
``rtol 1e-5, atol 1e-6``.
"""

from __future__ import annotations

from irrun.ops._recurrent import BASE_ATTRIBUTES, LINEAR_BEFORE_RESET, RecurrentCell
from irrun.ops.registry import register


@register
class GRUCell(RecurrentCell):
    """GRUCell-3 (five inputs)."""

    type, version, inputs = "GRUCell", 3, (5, 5)
    attributes = (*BASE_ATTRIBUTES, LINEAR_BEFORE_RESET)
    kind, gates = "gru", 3
    names = ("X", "initial_hidden_state", "W", "R", "B")
    typed_inputs = (0, 1, 3, 4)
    default_activations = ("sigmoid", "tanh")
