"""LSTMCell-1 and LSTMCell-4: one step of a long short-term memory cell.

Spec facts: inputs X ``[batch, input_size]``, initial_hidden_state and initial_cell_state
``[batch, hidden_size]``, W ``[4 * hidden_size, input_size]``, R ``[4 * hidden_size,
hidden_size]``, B ``[4 * hidden_size]`` (gates in the order f, i, c, o). Outputs: H and C
``[batch, hidden_size]``, the inputs' element type. Attributes: those of every recurrent op
(``irrun.ops._recurrent``): three activations f, g, h (default sigmoid, tanh, tanh).

LSTMCell-1 also takes the peepholes P ``[3 * hidden_size]``, may leave out B and P (the reader
adds zeros), and has ``weights_format`` (fico, icof, ifco, ifoc or iofc; the reader's default
is ifco, OpenVINO's constructor writes fico) and ``input_forget``. It runs as the CPU plugin
runs it, measured: W, R and B read in fico order and the input gate computed whatever
weights_format and input_forget say, and P ignored (a random P changes nothing). OpenVINO's
serializer does not even write P: an IR it saves has six inputs. (OpenVINO's reference would
add the peepholes, refuse formats other than fico and couple ``i = 1 - f``.)

Shape rule: ``cell_base_shape_infer`` (see ``irrun.ops._recurrent``); when the hidden size is
still not static the ``hidden_size`` attribute is the output's (even against an interval);
LSTMCell-1 then checks P's first dim, when static, against ``3 * hidden_size``, and refuses a
P of dynamic rank or rank 0 (OpenVINO reads its dim 0 unconditionally: "Accessing
out-of-range dimension"). Kernel: ``C' = f * C + i * g(c)``, ``H' = o * h(C')``.

Tolerance against the CPU plugin (f32): ``rtol 1e-5, atol 1e-6`` (see ``_recurrent``).
"""

from __future__ import annotations

import numpy as np

from irrun.ops._recurrent import BASE_ATTRIBUTES, INPUT_FORGET, WEIGHTS_FORMAT, RecurrentCell
from irrun.ops.base import TensorInfo
from irrun.ops.registry import register
from irrun.shape import Shape, static_dim

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
    """LSTMCell-1: peepholes, weights_format and input_forget (no effect when run); B and P
    optional."""

    type, version, inputs = "LSTMCell", 1, (5, 7)
    attributes = (*BASE_ATTRIBUTES, WEIGHTS_FORMAT, INPUT_FORGET)

    def infer(self, inputs):
        """As LSTMCell-4, a missing B and P being zeros of ``4 * hidden_size`` and ``3 *
        hidden_size`` (the attribute), as OpenVINO adds them."""
        etype = inputs[0].element_type
        self.added = len(inputs) < 7
        if len(inputs) == 5:
            inputs = [*inputs, TensorInfo(Shape([static_dim(4 * self.hidden_size)]), etype)]
        if len(inputs) == 6:
            inputs = [*inputs, TensorInfo(Shape([static_dim(3 * self.hidden_size)]), etype)]
        return super().infer(inputs)

    def refine_hidden(self, hidden, inputs):
        """The attribute fallback, then P's first dim checked against ``3 * hidden_size``."""
        hidden = super().refine_hidden(hidden, inputs)
        peepholes = inputs[6].shape
        expected = static_dim(3 * hidden.value)
        if not peepholes.rank_is_static or peepholes.rank == 0:
            problem = f"OpenVINO reads its first dim, which a shape {peepholes} does not have"
        elif peepholes[0].is_static and not peepholes[0].compatible(expected):
            problem = f"it has {peepholes[0]}, not 3 * hidden size = 3 * {hidden} = {expected}"
            if self.added:
                problem += (f" (P is left out: OpenVINO adds zeros of 3 * hidden_size = 3 * "
                            f"{self.hidden_size}, the attribute)")  # fmt: skip
        else:
            return hidden
        self.context.error(
            "input-rank" if not peepholes.rank else "input-dims",
            f"{self.describe()}: P {peepholes} must have 3 * hidden size elements: {problem}",
            port=self.input_port(6),
            hint=f"give P the shape [{expected}] (peepholes f, i, o)"
            + (f", or set hidden_size={hidden}" if self.added else ""),
        )
        return None

    def evaluate(self, inputs):
        """B defaults to zeros; P is ignored, as by the CPU plugin."""
        inputs = list(inputs[:6])
        if len(inputs) < 6:
            inputs.append(np.zeros(4 * inputs[1].shape[1], inputs[0].dtype))
        return super().evaluate(inputs)


@register
class LSTMCell4(_LSTMCell):
    """LSTMCell-4: six inputs, gates f, i, c, o, no peepholes."""

    type, version, inputs = "LSTMCell", 4, (6, 6)
    attributes = BASE_ATTRIBUTES
