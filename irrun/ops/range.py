"""Range-1 and Range-4: ``start, start + step, ...`` up to (not including) ``stop``.

Spec facts: inputs start, stop, step (scalars; OpenVINO also takes 1-element tensors of rank
0 only: "'start' input is not a scalar"). Range-1: the three inputs share one numeric type, the
output's; Range-4: any numeric input types, attribute ``output_type`` (required). The output is
``[max(ceil((stop - start) / step), 0)]``, computed in double after truncating the three values
toward zero when the output type is an integer type (``range_shape_inference.hpp``); ``[?]``
when an input is not constant. Refused: NaN or infinite inputs and a zero step (Range-4 too:
OpenVINO 2026.4 refuses it although its shape inference source allows it). A float step that
truncates to 0 for an integer output (0.5 → i64) is undefined in OpenVINO (its count is a cast
of infinity); irrun gives no elements.

Kernel (the reference ``range.hpp``, checked with ``Model.evaluate``): integer output
``start + i * step`` (start and step truncated) with wrap-around, start and step read
through double as OpenVINO 2026.4's reference reads them (``Model.evaluate``: i64 start
2**53 + 1 gives 2**53 as its first element; the count is computed in double too), so irrun
gives what OpenVINO gives beyond 2**53 rather than the exact sums; float output
``start + i * step`` computed in f32 (f64 for f64) and rounded once to the output type (f16,
bf16 with OpenVINO's own bf16 rounding, f8: Convert's rules). **CPU plugin deviations**: with a
start that is not constant, (0, 10, -1) gives ten elements ``[0, -1, ..., -9]`` where the
specification and the reference give none, and float inputs with an integer output type are
not truncated first ((-2.5, 1, 1) → i64: CPU ``[-2, -2, 0, 0]``, reference ``[-2, -1, 0]``);
f16 outputs differ in a few halfway cases (0.3 + 1385 * 0.37: CPU 512.5, reference 513).
"""

from __future__ import annotations

import math

import numpy as np

from irrun.ops.base import DYNAMIC_TYPE, Attribute, Op, TensorInfo, common_element_type
from irrun.ops.registry import register
from irrun.shape import Dim, Shape

_NAMES = ("start", "stop", "step")


class _Range(Op):
    inputs = (3, 3)
    step_may_be_zero = False

    def result_type(self, inputs):
        """The output element type (``None`` after reporting a problem)."""
        raise NotImplementedError

    def infer(self, inputs):
        """``[count]`` from constant inputs, ``[?]`` otherwise."""
        etype = self.result_type(inputs)
        if etype is None:
            return None
        values = []
        for i, (info, name) in enumerate(zip(inputs, _NAMES)):
            if info.shape.rank is not None and info.shape.rank != 0:
                self.context.error(
                    "input-rank",
                    f"{self.describe()}: {name} must be a scalar, but its shape is {info.shape}",
                    port=self.input_port(i),
                    hint="give start, stop and step as scalars (Squeeze a [1] tensor)",
                )
                return None
            if info.element_type.kind in ("bool", "string"):
                self.context.error(
                    "input-type",
                    f"{self.describe()}: {name} must be a number, not {info.element_type}",
                    port=self.input_port(i),
                    hint="insert a Convert to the output type",
                )
                return None
            value = None if info.value is None else float(np.asarray(info.value).reshape(-1)[0])
            if value is not None and not math.isfinite(value):
                self._bad(i, f"{name} is {value}", "give finite start, stop and step")
                return None
            values.append(value)
        step = values[2]
        if step == 0 and not self.step_may_be_zero:
            self._bad(2, "step is 0", "give a nonzero step")
            return None
        if None in values:
            return [TensorInfo(Shape([Dim.dynamic()]), etype, why="an input is not constant")]
        count = range_length(*values, etype.is_integer)
        start, stop, step = values
        why = f"max(ceil(({stop} - {start}) / {step}), 0) = {count}"
        return [TensorInfo(Shape([count]), etype, why=why)]

    def _bad(self, index, text, hint):
        self.context.error("input-value", f"{self.describe()}: {text}",
                           port=self.input_port(index), hint=hint)  # fmt: skip

    def evaluate(self, inputs):
        """``start + i * step`` in the output type."""
        etype = self._etype
        dtype = etype.numpy_dtype
        start, stop, step = (float(np.asarray(v).reshape(-1)[0]) for v in inputs)
        count = range_length(start, stop, step, etype.is_integer)
        if etype.is_integer:
            first, delta = (np.array(int(math.trunc(v))).astype(dtype) for v in (start, step))
            steps = np.arange(count, dtype=np.int64).astype(dtype)
            with np.errstate(over="ignore"):
                return [(first + steps * delta).astype(dtype)]
        work = np.float64 if etype.name == "f64" else np.float32
        first, delta = work(start), work(step)
        values = first + np.arange(count).astype(work) * delta
        if etype.name in ("f32", "f64"):
            return [values]
        from irrun.element_types import ELEMENT_TYPES
        from irrun.ops._conversion import convert_array

        return [convert_array(values, ELEMENT_TYPES["f32"], etype)]


def range_length(start: float, stop: float, step: float, integral: bool) -> int:
    """OpenVINO's element count: ``ceil(|span| / |step|)``, 0 when the span points the other
    way (values truncated first for an integer output)."""
    if integral:
        start, stop, step = math.trunc(start), math.trunc(stop), math.trunc(step)
    if (step > 0 and start >= stop) or (step < 0 and start <= stop):
        return 0
    if step == 0:
        return 0
    return int(math.ceil(abs(float(stop) - float(start)) / abs(float(step))))


@register
class Range1(_Range):
    """Range-1: output type = the inputs' common type."""

    type, version = "Range", 1
    attributes = ()

    def result_type(self, inputs):
        etype = common_element_type(self, inputs)
        self._etype = etype
        return etype

    def evaluate(self, inputs):
        from irrun.element_types import from_numpy_dtype

        self._etype = from_numpy_dtype(np.asarray(inputs[0]).dtype)
        return super().evaluate(inputs)


@register
class Range4(_Range):
    """Range-4: attribute ``output_type`` (required)."""

    type, version = "Range", 4
    attributes = (Attribute("output_type", "element_type", DYNAMIC_TYPE, required=True),)

    def setup(self):
        self._etype = self.output_type

    def result_type(self, inputs):
        return self._etype
