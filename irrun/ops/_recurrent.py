"""What the recurrent ops share: LSTMCell, LSTMSequence, GRUCell, GRUSequence, RNNCell and
RNNSequence (their attributes, OpenVINO's shape rules and the NumPy kernel).

Attributes (``RNNCellBase``): ``hidden_size`` (required), ``activations`` (a comma-separated
list, lower-cased; LSTM takes three: f, g, h, default ``sigmoid,tanh,tanh``; GRU two: f, g,
default ``sigmoid,tanh``; RNN one: f, default ``tanh``), ``activations_alpha`` and
``activations_beta`` (one number per activation; only ``hardsigmoid`` uses them, default
alpha 0.2, beta 0.5) and ``clip`` (default 0: no clipping). OpenVINO knows the activations
``sigmoid``, ``tanh``, ``relu`` and ``hardsigmoid`` (``max(0, min(1, alpha * x + beta))``);
its constructors refuse other names and too few of them, and irrun reports them
(``attribute-value``). The sequences add ``direction`` (forward, reverse, bidirectional).

Gate order, as OpenVINO defines it: LSTM ``f, i, c, o`` (forget, input, cell, output), GRU
``z, r, h`` (update, reset, hidden), the gates stacked in the first dim of W, R and B (the
second for the sequences, whose first dim is the direction).

Shape rules (``rnn_base_shape_inference.hpp``). A cell takes X ``[batch, input_size]``, the
states ``[batch, hidden]``, W ``[gates * hidden, input_size]``, R ``[gates * hidden,
hidden]`` and B ``[gates * hidden]`` (GRU with ``linear_before_reset``: ``(gates + 1) *
hidden``); a sequence takes X ``[batch, seq_len, input_size]``, the states ``[batch,
num_directions, hidden]``, sequence_lengths ``[batch]`` and W, R, B with a leading
num_directions dim. Every input of a known rank must have that rank. The batch is X's first
dim merged (interval intersection) with the states' (and sequence_lengths'); the hidden size is
the first state's merged with the cell state's and with R's last dim. When that hidden size is
static, W's and R's gate dims must be *compatible* with ``gates * hidden`` and B's with its
size (no merge: a ``?`` stays unconstrained); when it is not, it is merged with W's and R's gate
dims divided by the gate count (OpenVINO's ``Dimension`` division: ``ceil(lower / g)`` ..
``floor(upper / g)``, an unbounded upper bound becoming ``floor(2**63 / g)``; a size that
does not divide is a mismatch), and B is then not checked. The sequences only divide when the
weight's *first* dim is static (OpenVINO tests dim 0 and divides dim 1). ``input_size`` is
never checked against W. num_directions is 1 (forward, reverse) or 2 (bidirectional), merged
with the states' second dims and W's, R's and B's first dims. LSTMCell alone falls back on the
``hidden_size`` attribute when the hidden size is not static (an interval is *replaced* by
it). Outputs: the cells ``[batch, hidden]`` (LSTM twice: H and C); the sequences Y ``[batch,
num_directions, seq_len, hidden]`` (seq_len is X's dim, unmerged) and the final states
``[batch, num_directions, hidden]``. The element type is the merge of X, the states, W, R and B
with OpenVINO's own gaps: GRUCell leaves W out, the sequences leave sequence_lengths out,
LSTMCell-1 the peepholes.

Kernel (OpenVINO's reference: ``lstm_cell.hpp``, ``gru_cell.hpp``, ``rnn_cell.hpp``,
``sequences.hpp``). One step, with ``clip(x)`` clamping to ``[-clip, clip]`` when ``clip >
0`` (a negative clip does not clip) and applied to every gate pre-activation (never to the
cell state before ``h``)::

    LSTM  [f,i,c,o] = X W^T + H R^T + B;  f,i,o = f(.);  c = g(.)
          C' = f * C + i * c;  H' = o * h(C')
    GRU   [z,r,h] split of X W^T and of H R^T, B = [bz, br, bh] (+ [bRh])
          z = f(Xz + Hz + bz);  r = f(Xr + Hr + br)
          h = g(Xh + (r * H) Rh^T + bh)                    (linear_before_reset false)
          h = g(Xh + r * (H Rh^T + bRh) + bh)              (linear_before_reset true)
          H' = (1 - z) * h + z * H
    RNN   H' = f(X W^T + H R^T + B)

A sequence runs the steps over time (``X W^T`` of every step in one matmul first); reverse
reverses each batch item's first ``sequence_lengths[b]`` steps before and after, as
ReverseSequence does; bidirectional runs forward with the direction-0 weights and reverse with
the direction-1 weights. Past its length a batch item's outputs are zero and its final state is
the state after its last step; a length of 0, or (forward) more than the sequence length,
gives a zero final state (the reference keeps ``h_list[len - 1]`` or zeros, and the CPU plugin
agrees); a negative length, and with reverse or bidirectional a length above the sequence
length (the CPU plugin's ReverseSequence refuses it), are errors when run. f16 and bf16 are
computed in f32 and rounded once at the end (the CPU plugin with the f32 precision hint computes
them in f32), f64 in f64; integer inputs do not run.

The CPU plugin is not consistent here: in the graph OpenVINO's ONNX frontend makes of a
bidirectional ONNX LSTM, GRU or RNN, with dynamic input shapes, it ignores sequence_lengths
(every item runs all the steps, unmasked); with static shapes it masks as above. irrun follows
the reference and the static-shape path.

``hardsigmoid`` is OpenVINO's core definition; neither its reference nor its CPU plugin runs it
(the plugin's decomposition fails with "Unsupported activation function").

Tolerance against the CPU plugin in f32 (its fused kernels order sums differently and its
sigmoid/tanh differ in the last bits; the error accumulates over the steps): ``rtol 1e-5,
atol 1e-6 * steps``. Measured on 50 bidirectional steps (batch 4, hidden 16, values of order
1): LSTM 4.2e-7, GRU 3.6e-7, RNN (tanh, which amplifies differences) 1.6e-5, at most 3.1e-7 per
step; f16 inputs give the CPU plugin's values exactly (asserted within one f16 ulp).
"""

from __future__ import annotations

import math

import numpy as np

from irrun.ops.base import DYNAMIC_TYPE, Attribute, Op, TensorInfo, lazy_text
from irrun.shape import Dim, Shape, static_dim

__all__ = [
    "ACTIVATIONS",
    "BASE_ATTRIBUTES",
    "DIRECTION",
    "INPUT_FORGET",
    "LINEAR_BEFORE_RESET",
    "WEIGHTS_FORMAT",
    "RecurrentCell",
    "RecurrentSequence",
    "divided_dim",
    "tolerance",
]

#: The activation names OpenVINO knows (``get_activation_func_by_name``).
ACTIVATIONS = ("sigmoid", "tanh", "relu", "hardsigmoid")
_HARDSIGMOID_DEFAULTS = (0.2, 0.5)
_INT64_MAX = 2**63 - 1
_NARROW_FLOATS = ("float16", "bfloat16")

#: Attributes every recurrent op has.
BASE_ATTRIBUTES = (
    Attribute("hidden_size", "int", 0, required=True),
    Attribute("activations", "string", None),
    Attribute("activations_alpha", "floats", ()),
    Attribute("activations_beta", "floats", ()),
    Attribute("clip", "float", 0.0),
)
DIRECTION = Attribute(
    "direction", "enum", "forward", required=True, choices=("forward", "reverse", "bidirectional")
)
LINEAR_BEFORE_RESET = Attribute("linear_before_reset", "bool", False)
#: LSTMCell-1 only: the gate order W, R and B are written in, and the coupled input gate
#: (parsed; the kernel reads fico and no coupling, as the CPU plugin does).
WEIGHTS_FORMAT = Attribute(
    "weights_format", "enum", "ifco", choices=("fico", "icof", "ifco", "ifoc", "iofc")
)
INPUT_FORGET = Attribute("input_forget", "bool", False)


def tolerance(steps: int) -> dict:
    """The documented f32 tolerance against the CPU plugin after ``steps`` time steps, as
    ``numpy.testing.assert_allclose`` keywords."""
    return {"rtol": 1e-5, "atol": 1e-6 * max(steps, 1)}


def divided_dim(dim: Dim, divisor: int) -> Dim | None:
    """OpenVINO's ``Dimension / divisor``: ``?`` stays ``?``; otherwise ``ceil(lower / d)`` ..
    ``floor(upper / d)`` in double precision (an unbounded upper bound is ``2**63 - 1``);
    ``None`` when that interval is empty (a static size that does not divide)."""
    if divisor == 1:
        return dim
    if dim.lower == 0 and dim.upper is None:
        return Dim.dynamic()
    lower = math.ceil(float(dim.lower) / divisor)
    upper = math.floor(float(_INT64_MAX if dim.upper is None else dim.upper) / divisor)
    if upper < lower:
        return None
    return Dim(lower, upper)


# -- activations --------------------------------------------------------------------------------
def _sigmoid(x):
    with np.errstate(over="ignore"):
        return 1 / (1 + np.exp(-x))


def _activation(name: str, alpha: float, beta: float):
    if name == "sigmoid":
        return _sigmoid
    if name == "tanh":
        return np.tanh
    if name == "relu":
        return lambda x: np.maximum(x, 0)
    return lambda x: np.clip(alpha * x + beta, 0, 1).astype(x.dtype, copy=False)


class _Recurrent(Op):
    """Attributes and element types of every recurrent op; subclasses set the kind."""

    #: "lstm", "gru" or "rnn".
    kind = "rnn"
    #: Gates stacked in W and R.
    gates = 1
    #: The input names, in order (messages).
    names: tuple[str, ...] = ()
    #: The inputs whose element types OpenVINO merges (the output type).
    typed_inputs: tuple[int, ...] = ()
    #: The activations when the attribute is absent.
    default_activations: tuple[str, ...] = ("tanh",)
    linear_before_reset = False

    @property
    def state_count(self) -> int:
        """1 (H), or 2 for LSTM (H and C)."""
        return 2 if self.kind == "lstm" else 1

    def setup(self):
        """The activations checked (names OpenVINO knows, enough of them) with their alpha and
        beta."""
        text = self.activations
        names = (list(self.default_activations) if text is None
                 else [n.strip().lower() for n in text.split(",") if n.strip()])  # fmt: skip
        wanted = len(self.default_activations)
        unknown = [n for n in names if n not in ACTIVATIONS]
        if unknown or len(names) < wanted:
            why = (f"{unknown[0]!r} is not an activation OpenVINO knows" if unknown
                   else f"{self.label} needs {wanted}, but {len(names)} are given")  # fmt: skip
            self.context.error(
                "attribute-value",
                f"{self.describe()}: activations={text!r}: {why} ({', '.join(ACTIVATIONS)})",
                hint=f'write activations="{",".join(self.default_activations)}" (or other '
                f"names of {', '.join(ACTIVATIONS)})",
                line=self.layer.data_line,
            )
            self.incomplete = True
            names = list(self.default_activations)
        self.activation_names = names[:wanted]
        self.functions = []
        for index, name in enumerate(self.activation_names):
            alpha, beta = _HARDSIGMOID_DEFAULTS
            if index < len(self.activations_alpha):
                alpha = self.activations_alpha[index]
            if index < len(self.activations_beta):
                beta = self.activations_beta[index]
            self.functions.append((name, alpha, beta))

    # -- element types ----------------------------------------------------------------------------
    def element_type(self, inputs):
        """The merged element type of the typed inputs, or ``None`` (reported)."""
        merged = DYNAMIC_TYPE
        for index in self.typed_inputs:
            if index >= len(inputs):
                continue
            etype = inputs[index].element_type
            if etype.name == "dynamic":
                continue
            if merged.name == "dynamic":
                merged, first = etype, index
            elif etype != merged:
                self.context.error(
                    "input-type",
                    f"{self.describe()}: {self.names[index]} (input {index}) is {etype} but "
                    f"{self.names[first]} (input {first}) is {merged}; OpenVINO needs one element "
                    f"type for {', '.join(self.names[i] for i in self.typed_inputs)}",
                    port=self.input_port(index),
                    hint=f"insert a Convert so that {self.names[index]} is {merged}",
                )
                return None
        return merged

    def check_ranks(self, inputs, ranks) -> bool:
        """Every input of a static rank has the rank ``ranks`` gives it (reported)."""
        for index, rank in enumerate(ranks):
            shape = inputs[index].shape
            if shape.rank_is_static and shape.rank != rank:
                self.context.error(
                    "input-rank",
                    f"{self.describe()}: {self.names[index]} (input {index}) must have rank "
                    f"{rank}, but its shape is {shape}",
                    port=self.input_port(index),
                    hint=f"give {self.names[index]} the shape {self.expected_shape(index)}",
                )
                return False
        return True

    def expected_shape(self, index: int) -> str:  # pragma: no cover - subclasses define it
        """The shape input ``index`` should have, in words (for hints)."""
        raise NotImplementedError

    def merge_or_report(self, current: Dim, index: int, axis: int, what: str, before: str):
        """``current`` merged with dim ``axis`` of input ``index`` (``None``: reported)."""
        shape = self.shapes[index]
        merged = current.merge(shape[axis])
        if merged is None:
            self.context.error(
                "input-dims",
                f"{self.describe()}: {what} does not match: {self.names[index]} {shape} has "
                f"{shape[axis]} (dim {axis}), but it is {current} from {before}",
                port=self.input_port(index),
                hint=f"give every input the same {what}",
            )
        return merged

    def check_gate_dim(self, index: int, axis: int, hidden: Dim, multiplier: int) -> bool:
        """Dim ``axis`` of input ``index`` can be ``multiplier * hidden`` (reported)."""
        shape = self.shapes[index]
        if not shape.rank_is_static:
            return True
        expected = static_dim(hidden.value * multiplier)
        if shape[axis].compatible(expected):
            return True
        self.context.error(
            "input-dims",
            f"{self.describe()}: {self.names[index]} {shape} must have {multiplier} * hidden size "
            f"= {multiplier} * {hidden} = {expected} in dim {axis}, but it has {shape[axis]}",
            port=self.input_port(index),
            hint=f"give {self.names[index]} the shape {self.expected_shape(index)}",
        )
        return False

    def divide_into(self, hidden: Dim, index: int, axis: int) -> Dim | None:
        """``hidden`` merged with dim ``axis`` of input ``index`` divided by the gate count."""
        shape = self.shapes[index]
        share = divided_dim(shape[axis], self.gates)
        merged = None if share is None else hidden.merge(share)
        if merged is None:
            self.context.error(
                "input-dims",
                f"{self.describe()}: hidden size does not match: {self.names[index]} {shape} has "
                f"{shape[axis]} in dim {axis}, which is not {self.gates} * hidden size "
                f"({'not a multiple of ' + str(self.gates) if share is None else share} vs "
                f"{hidden})",
                port=self.input_port(index),
                hint=f"give {self.names[index]} the shape {self.expected_shape(index)}",
            )
        return merged

    @property
    def bias_gates(self) -> int:
        """Gate blocks in B (GRU with linear_before_reset has a fourth)."""
        return self.gates + (1 if self.linear_before_reset else 0)

    # -- kernel ---------------------------------------------------------------------------------
    def working_type(self, array):
        """The dtype the kernel computes in (``NotImplementedError`` for non-float inputs)."""
        dtype = np.asarray(array).dtype
        if dtype == np.float64:
            return np.float64
        if dtype.kind == "f" or dtype.name in _NARROW_FLOATS:
            return np.float32
        raise NotImplementedError(f"{self.label} runs floating-point inputs only, not {dtype}")

    def activation_functions(self, work):
        """The activations as NumPy functions in the working type."""
        return [_activation(name, work(alpha), work(beta)) for name, alpha, beta in self.functions]

    def recurrence(self, r):
        """R transposed into contiguous matrices, once per direction (NumPy's matmul with a
        transposed view is several times slower): ``R^T`` (GRU: that of z and r, and that of
        h apart, which multiplies ``r * H`` or ``H`` alone)."""
        if self.kind != "gru":
            return (np.ascontiguousarray(r.T),)
        size = r.shape[1]
        return np.ascontiguousarray(r[: 2 * size].T), np.ascontiguousarray(r[2 * size :].T)

    def step(self, xw, states, recurrence, b, functions, clip):
        """One time step: ``xw`` is ``X W^T`` of this step ``[batch, gates * hidden]``,
        ``recurrence`` what :meth:`recurrence` made of R; returns the new states (H, and C
        for LSTM)."""
        if clip > 0:
            bound = xw.dtype.type(clip)

            def clipped(x):
                return np.clip(x, -bound, bound)
        else:

            def clipped(x):
                return x

        h = states[0]
        size = h.shape[1]
        if self.kind == "rnn":
            return (functions[0](clipped(xw + (h @ recurrence[0] + b))),)
        if self.kind == "lstm":
            f_act, g_act, h_act = functions
            gates = xw + (h @ recurrence[0] + b)
            c = states[1]
            f, i, candidate, o = (gates[:, k * size : (k + 1) * size] for k in range(4))
            f, i, o = f_act(clipped(f)), f_act(clipped(i)), f_act(clipped(o))
            cell = f * c + i * g_act(clipped(candidate))
            return (o * h_act(cell), cell)
        f_act, g_act = functions
        zr, rh = recurrence
        hr = h @ zr
        z = f_act(clipped(xw[:, :size] + (hr[:, :size] + b[:size])))
        reset = f_act(clipped(xw[:, size : 2 * size] + (hr[:, size:] + b[size : 2 * size])))
        if self.linear_before_reset:
            hidden = xw[:, 2 * size :] + (reset * (h @ rh + b[3 * size :]) + b[2 * size : 3 * size])
        else:
            hidden = xw[:, 2 * size :] + ((reset * h) @ rh + b[2 * size : 3 * size])
        hidden = g_act(clipped(hidden))
        return ((1 - z) * hidden + z * h,)


class RecurrentCell(_Recurrent):
    """A cell: one time step (LSTMCell, GRUCell, RNNCell)."""

    def expected_shape(self, index: int) -> str:
        """The shape of input ``index`` in words."""
        return {0: "[batch, input_size]", 1: "[batch, hidden_size]", 2: "[batch, hidden_size]",
                self.state_count + 1: f"[{self.gates} * hidden_size, input_size]",
                self.state_count + 2: f"[{self.gates} * hidden_size, hidden_size]",
                self.state_count + 3: f"[{self.bias_gates} * hidden_size]",
                6: "[3 * hidden_size]"}[index]  # fmt: skip

    def infer(self, inputs):
        """``[batch, hidden]`` for each state, as ``cell_base_shape_infer``."""
        etype = self.element_type(inputs)
        if etype is None:
            return None
        states = self.state_count
        ranks = [2] * (1 + states) + [2, 2, 1]
        if not self.check_ranks(inputs, ranks):
            return None
        shapes = self.shapes = [info.shape for info in inputs]
        unknown = Dim.dynamic()

        def dim(index, axis):
            shape = shapes[index]
            return shape[axis] if shape.rank_is_static else unknown

        batch = dim(0, 0)
        for index in range(1, states + 1):
            if shapes[index].rank_is_static:
                before = "X" if index == 1 else "X and initial_hidden_state"
                batch = self.merge_or_report(batch, index, 0, "batch size", before)
                if batch is None:
                    return None
        hidden = dim(1, 1)
        w, r, b = states + 1, states + 2, states + 3
        for index, before in ((2, "initial_hidden_state"), (r, "the states")):
            if (index == 2 and states < 2) or not shapes[index].rank_is_static:
                continue
            hidden = self.merge_or_report(hidden, index, 1, "hidden size", before)
            if hidden is None:
                return None
        if hidden.is_static:
            for index, multiplier in ((w, self.gates), (r, self.gates), (b, self.bias_gates)):
                if not self.check_gate_dim(index, 0, hidden, multiplier):
                    return None
        else:
            for index in (w, r):
                if shapes[index].rank_is_static and shapes[index][0].is_static:
                    hidden = self.divide_into(hidden, index, 0)
                    if hidden is None:
                        return None
        hidden = self.refine_hidden(hidden, inputs)
        if hidden is None:
            return None
        shape = Shape([batch, hidden])
        why = lazy_text("batch {} and hidden size {}", batch, hidden)
        return [TensorInfo(shape, etype, why=why) for _ in range(states)]

    def refine_hidden(self, hidden: Dim, inputs) -> Dim | None:
        """The version's last word on the hidden size (the LSTM cells use the attribute)."""
        return hidden

    def evaluate(self, inputs):
        """One step of the cell."""
        dtype = np.asarray(inputs[0]).dtype
        work = self.working_type(inputs[0])
        arrays = [np.asarray(a, dtype=work) for a in inputs]
        states = self.state_count
        x = arrays[0]
        w, r, b = (arrays[states + k] for k in (1, 2, 3))
        result = self.step(x @ np.ascontiguousarray(w.T), arrays[1:states + 1],
                           self.recurrence(r), b, self.activation_functions(work),
                           self.clip)  # fmt: skip
        return [np.asarray(s).astype(dtype, copy=False) for s in result]


class RecurrentSequence(_Recurrent):
    """A sequence: the cell run over time, in one or two directions."""

    direction = "forward"

    def expected_shape(self, index: int) -> str:
        """The shape of input ``index`` in words."""
        states, d = self.state_count, "num_directions"
        return {0: "[batch, seq_len, input_size]",
                1: f"[batch, {d}, hidden_size]", 2: f"[batch, {d}, hidden_size]",
                states + 1: "[batch]",
                states + 2: f"[{d}, {self.gates} * hidden_size, input_size]",
                states + 3: f"[{d}, {self.gates} * hidden_size, hidden_size]",
                states + 4: f"[{d}, {self.bias_gates} * hidden_size]"}[index]  # fmt: skip

    def infer(self, inputs):
        """Y ``[batch, num_directions, seq_len, hidden]`` and the final states ``[batch,
        num_directions, hidden]``, as ``seq_base_shape_infer``."""
        etype = self.element_type(inputs)
        if etype is None:
            return None
        states = self.state_count
        ranks = [3] * (1 + states) + [1, 3, 3, 2]
        if not self.check_ranks(inputs, ranks):
            return None
        shapes = self.shapes = [info.shape for info in inputs]
        unknown = Dim.dynamic()

        def dim(index, axis):
            shape = shapes[index]
            return shape[axis] if shape.rank_is_static else unknown

        batch = dim(0, 0)
        for index in range(1, states + 2):
            if shapes[index].rank_is_static:
                batch = self.merge_or_report(batch, index, 0, "batch size",
                                             ", ".join(self.names[:index]))  # fmt: skip
                if batch is None:
                    return None
        hidden = dim(1, 2)
        w, r, b = states + 2, states + 3, states + 4
        for index in (2, r) if states == 2 else (r,):
            if shapes[index].rank_is_static:
                hidden = self.merge_or_report(hidden, index, 2, "hidden size",
                                              "the inputs before it")  # fmt: skip
                if hidden is None:
                    return None
        directions = static_dim(2 if self.direction == "bidirectional" else 1)
        for index in (*range(1, states + 1), w, r, b):
            if not shapes[index].rank_is_static:
                continue
            axis = 1 if index <= states else 0
            merged = directions.merge(shapes[index][axis])
            if merged is None:
                self.context.error(
                    "input-dims",
                    f"{self.describe()}: {self.names[index]} {shapes[index]} has "
                    f"{shapes[index][axis]} directions (dim {axis}), but direction="
                    f"{self.direction!r} means {directions}",
                    port=self.input_port(index),
                    hint=f"give {self.names[index]} the shape {self.expected_shape(index)}, or "
                    "change direction",
                )
                return None
            directions = merged
        if hidden.is_static:
            for index, multiplier in ((w, self.gates), (r, self.gates), (b, self.bias_gates)):
                if not self.check_gate_dim(index, 1, hidden, multiplier):
                    return None
        else:
            for index in (w, r):
                # OpenVINO tests dim 0 (the directions) for being static and divides dim 1
                if shapes[index].rank_is_static and shapes[index][0].is_static:
                    hidden = self.divide_into(hidden, index, 1)
                    if hidden is None:
                        return None
        sequence = dim(0, 1)
        why = lazy_text("batch {}, {} direction(s), {} steps, hidden size {}", batch,
                        directions, sequence, hidden)  # fmt: skip
        outputs = [TensorInfo(Shape([batch, directions, sequence, hidden]), etype, why=why)]
        final = Shape([batch, directions, hidden])
        outputs += [TensorInfo(final, etype, why=why) for _ in range(states)]
        return outputs

    def evaluate(self, inputs):
        """The steps over time, per direction; masking past each item's length."""
        dtype = np.asarray(inputs[0]).dtype
        work = self.working_type(inputs[0])
        states = self.state_count
        lengths = np.asarray(inputs[states + 1]).astype(np.int64)
        if (lengths < 0).any():
            b = int(np.argmax(lengths < 0))
            raise ValueError(
                f"{self.describe()}: sequence_lengths[{b}] = {int(lengths[b])} is negative"
            )
        steps = np.asarray(inputs[0]).shape[1]
        if self.direction != "forward" and (lengths > steps).any():
            # ReverseSequence cannot reverse more steps than there are (the CPU plugin refuses)
            b = int(np.argmax(lengths > steps))
            raise ValueError(
                f"{self.describe()}: sequence_lengths[{b}] = {int(lengths[b])} is more than the "
                f"{steps} steps of X, which direction={self.direction!r} cannot reverse"
            )
        arrays = [np.asarray(a, dtype=work) for i, a in enumerate(inputs) if i != states + 1]
        x, initial = arrays[0], arrays[1 : states + 1]
        w, r, b = arrays[states + 1 : states + 4]
        functions = self.activation_functions(work)
        reverse = {"forward": (False,), "reverse": (True,),
                   "bidirectional": (False, True)}[self.direction]  # fmt: skip
        ys, finals = [], []
        for d, backwards in enumerate(reverse):
            starts = [np.ascontiguousarray(s[:, d]) for s in initial]
            y, final = self._direction(x, lengths, starts, w[d], r[d], b[d], functions,
                                       backwards)  # fmt: skip
            ys.append(y)
            finals.append(final)
        outputs = [np.stack(ys, axis=1)]
        outputs += [np.stack([f[k] for f in finals], axis=1) for k in range(states)]
        return [o.astype(dtype, copy=False) for o in outputs]

    def _direction(self, x, lengths, states, w, r, b, functions, backwards):
        """One direction: Y ``[batch, seq_len, hidden]`` and the final states."""
        batch, steps = x.shape[0], x.shape[1]
        if backwards:
            x = _reversed(x, lengths)
        # every step at once: [batch, seq_len, gates * hidden]
        xw = (x.reshape(-1, x.shape[2]) @ np.ascontiguousarray(w.T)).reshape(batch, steps, -1)
        recurrence = self.recurrence(r)
        hidden = r.shape[1]
        y = np.zeros((batch, steps, hidden), dtype=x.dtype)
        last = lengths - 1  # the step whose state is final
        finals = [np.zeros((batch, hidden), dtype=x.dtype) for _ in states]
        for t in range(steps):
            states = self.step(xw[:, t], states, recurrence, b, functions, self.clip)
            y[:, t] = states[0]
            ending = (last == t)[:, None]
            finals = [np.where(ending, s, f) for s, f in zip(states, finals)]
        y[np.arange(steps)[None, :] >= lengths[:, None]] = 0
        if backwards:
            y = _reversed(y, lengths)
        return y, finals


def _reversed(array, lengths):
    """ReverseSequence along axis 1 with batch axis 0: each item's first ``lengths[b]`` steps
    reversed, the rest kept."""
    steps = array.shape[1]
    t = np.arange(steps)[None, :]
    count = lengths[:, None]
    source = np.where(t < count, count - 1 - t, t)
    return np.take_along_axis(array, source[:, :, None], axis=1)
