"""LSTMCell-1 and LSTMCell-4: one step of a long short-term memory cell.

Spec facts: inputs X ``[batch, input_size]``, initial_hidden_state and initial_cell_state
``[batch, hidden_size]``, W ``[4 * hidden_size, input_size]``, R ``[4 * hidden_size,
hidden_size]``, B ``[4 * hidden_size]`` (gates in the order f, i, c, o); LSTMCell-1 also takes
the peepholes P ``[3 * hidden_size]`` (order f, i, o) and may leave out B and P (zeros of the
``hidden_size`` attribute's size). Outputs: H and C ``[batch, hidden_size]``, the inputs'
element type. Attributes: those of every recurrent op (``irrun.ops._recurrent``): three
activations f, g, h (default sigmoid, tanh, tanh); LSTMCell-1 adds ``weights_format`` (fico,
icof, ifco, ifoc or iofc; the IR reader's default is ifco, OpenVINO's constructor writes fico)
and ``input_forget``. Both are parsed and have no effect, as in the CPU plugin: measured, it
reads W, R and B in fico order and computes the input gate for every weights_format and
input_forget (OpenVINO's reference refuses formats other than fico and couples ``i = 1 - f``
with input_forget; OpenVINO's core would reorder the gates).

Shape rule: ``cell_base_shape_infer`` (see ``irrun.ops._recurrent``); when the hidden size is
still not static the ``hidden_size`` attribute is the output's (even against an interval);
LSTMCell-1 then checks a static P dim against ``3 * hidden_size``. Kernel:
``C' = f * C + i * g(c)``, ``H' = o * h(C')`` with the peepholes of LSTMCell-1 added to f
and i (times C) and to o (times C') before clipping, as the reference's ``lstm_cell_v1`` and the
CPU plugin do.

Tolerance against the CPU plugin (f32): ``rtol 1e-5, atol 1e-6`` (see ``_recurrent``).
"""

from __future__ import annotations

import numpy as np

from irrun.ops._recurrent import BASE_ATTRIBUTES, INPUT_FORGET, WEIGHTS_FORMAT, RecurrentCell
from irrun.ops.registry import register
from irrun.shape import static_dim

_NAMES = ("X", "initial_hidden_state", "initial_cell_state", "W", "R", "B", "P")


class _LSTMCell(RecurrentCell):
    kind, gates = "lstm", 4
    names = _NAMES
    typed_inputs = (0, 1, 2, 3, 4, 5)
    default_activations = ("sigmoid", "tanh", "tanh")

    def refine_hidden(self, hidden, inputs):
        """The hidden_size attribute when the inputs leave the hidden size open."""
        return hidden if hidden.is_static else static_dim(self.hidden_size)


@register
class LSTMCell1(_LSTMCell):
    """LSTMCell-1: peepholes, weights_format and input_forget; B and P optional."""

    type, version, inputs = "LSTMCell", 1, (5, 7)
    attributes = (*BASE_ATTRIBUTES, WEIGHTS_FORMAT, INPUT_FORGET)

    def refine_hidden(self, hidden, inputs):
        """The attribute fallback, then P checked against ``3 * hidden_size``."""
        hidden = super().refine_hidden(hidden, inputs)
        if len(inputs) == 7 and inputs[6].shape.rank_is_static and inputs[6].shape.rank >= 1:
            peepholes = inputs[6].shape
            expected = static_dim(3 * hidden.value)
            if peepholes[0].is_static and not peepholes[0].compatible(expected):
                self.context.error(
                    "input-dims",
                    f"{self.describe()}: P {peepholes} must have 3 * hidden size = 3 * {hidden} "
                    f"= {expected} elements",
                    port=self.input_port(6),
                    hint="give P the shape [3 * hidden_size] (peepholes f, i, o)",
                )
                return None
        return hidden

    def evaluate(self, inputs):
        """B and P default to zeros of the ``hidden_size`` attribute's size."""
        inputs = list(inputs)
        dtype = np.asarray(inputs[0]).dtype
        if len(inputs) < 6:
            inputs.append(np.zeros(4 * self.hidden_size, dtype))
        if len(inputs) < 7:
            inputs.append(np.zeros(3 * self.hidden_size, dtype))
        return super().evaluate(inputs)


@register
class LSTMCell4(_LSTMCell):
    """LSTMCell-4: six inputs, gates f, i, c, o, no peepholes."""

    type, version, inputs = "LSTMCell", 4, (6, 6)
    attributes = BASE_ATTRIBUTES
