"""irrun.run against OpenVINO on IR files that OpenVINO itself wrote.

Every test builds a model with the OpenVINO Python API, writes it with ``ov.save_model`` and runs
that one file twice: with OpenVINO's CPU plugin (``compile_model(read_model(xml), "CPU")``) and
with ``irrun.load(xml).run``. Output names and their order, element types, shapes and bytes must
agree; floating-point arrays are compared as raw bytes, so NaN payloads and -0.0 count.

Where the CPU plugin is known to be wrong, the test compares with the semantics instead and never
with the plugin (irrun must not copy its bugs):

* Gather-1/-7 with negative indices: the CPU plugin writes 0 (ops.md 2.6 #2); compared with
  OpenVINO's reference evaluator (``ov.Model.evaluate``, what constant folding uses) and a numpy
  model of the spec.
* Gather-8 with out-of-range indices on 1-D i32/i64 data reads adjacent memory (ops.md 2.6 #1);
  compared with the numpy model (zero fill).
* f64 data and i64 values beyond the int32 range are corrupted by the CPU plugin (ops.md 2.6 #3);
  compared with the numpy model and, for Gather and Concat, the reference evaluator.
* f16 signalling NaNs come back quieted from the CPU plugin (it moves f16 through f32); compared
  with the numpy model (a bit-for-bit copy).
* GatherND with empty index tuples (k = 0) returns uninitialised memory on CPU; compared with
  the numpy model.
* Gather with zero-size data or indices kills the process (SIGFPE), and Gather with batch_dims > 0
  over a batch of one element (e.g. data [1,4], indices [1,2], axis 1, batch_dims 1) crashes it
  (SIGSEGV); compared with the reference evaluator and the numpy model.
* Gather-8 with one constant index per batch (batch_dims = rank(indices)) into an axis of size 1
  returns the data for an out-of-range index instead of zeros; compared with the reference.
* f32 Constants holding a subnormal come back with every subnormal flushed to zero and -0.0 turned
  into +0.0; such Constants are compared with the numpy model only.

Output names are those of the model as read from the file: compiling can merge tensor names
around an op the plugin removes (a one-input Concat), which changes the compiled any-name.
"""

from __future__ import annotations

import math
import os
import random
import tempfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

import irrun

ov = pytest.importorskip("openvino")
from openvino import opset1, opset5, opset6, opset7, opset8, opset13  # noqa: E402

CORE = ov.Core()

DATA_TYPES = [np.float32, np.float16, np.int32, np.int64, np.uint8, np.int8, np.bool_]
TYPE_IDS = [np.dtype(t).name for t in DATA_TYPES]
INDEX_TYPES = [np.int32, np.int64, np.uint8]
#: Data types whose 1-D Gather-8 out-of-range results are garbage on CPU (ops.md 2.6 #1).
CPU_GATHER_1D_BUG_TYPES = (np.dtype(np.int32), np.dtype(np.int64))
#: Largest output (in elements) a random graph may create, to keep the file fast.
ELEMENT_LIMIT = 256


def examples(count: int):
    return settings(
        derandomize=True,
        max_examples=count,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


# -- running a saved model -------------------------------------------------------------------------
def save(model: ov.Model, folder: str) -> str:
    xml = os.path.join(folder, "model.xml")
    ov.save_model(model, xml, compress_to_fp16=False)
    return xml


def run_cpu(xml: str, inputs: dict) -> dict:
    """Outputs of OpenVINO's CPU plugin in output order, keyed by ``get_any_name()`` of the model
    as read from ``xml``.

    The names are taken before compiling: when the plugin removes a no-op (a one-input Concat),
    it merges the tensor names around it, and the compiled output's any-name can become the
    producer's name. The file's own name must still be among the compiled output's names.
    """
    model = CORE.read_model(xml)
    names = [port.get_any_name() for port in model.outputs]
    compiled = CORE.compile_model(model, "CPU")
    results = compiled(inputs)
    outputs = {}
    for name, port in zip(names, compiled.outputs, strict=True):
        assert name in port.get_names(), (name, port.get_names())
        outputs[name] = np.array(results[port], copy=True)
    assert len(outputs) == len(compiled.outputs), "two outputs share a name; avoid that in tests"
    return outputs


def run_reference(xml: str, inputs: dict) -> dict:
    """Outputs of OpenVINO's reference evaluator. It runs Concat and Gather with i32/i64 indices
    (not u8), and neither GatherND nor GatherElements."""
    model = CORE.read_model(xml)
    given = [
        ov.Tensor(np.array(inputs[p.get_friendly_name()], order="C"))
        for p in model.get_parameters()
    ]
    tensors = [ov.Tensor(port.get_element_type(), port.get_shape()) for port in model.outputs]
    assert model.evaluate(tensors, given)
    return {
        port.get_any_name(): np.array(t.data, copy=True) for port, t in zip(model.outputs, tensors)
    }


def output_names(xml: str) -> list[str]:
    return [port.get_any_name() for port in CORE.read_model(xml).outputs]


def run_irrun(xml: str, inputs: dict) -> dict:
    model = irrun.load(xml)
    report = model.validate()
    assert report.ok, report.to_text()
    results = model.run(inputs)
    assert [output.name for output in model.outputs] == list(results)
    # The shapes validation inferred are the shapes produced (compared with OpenVINO's later).
    assert [o.shape.to_tuple() for o in model.outputs] == [r.shape for r in results.values()]
    return results


def raw_bytes(array: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(array).reshape(-1).view(np.uint8)


def assert_same_outputs(actual: dict, expected: dict, what: str = "OpenVINO CPU") -> None:
    assert list(actual) == list(expected), (
        f"output names: irrun {list(actual)}, {what} {list(expected)}"
    )
    for name, wanted in expected.items():
        got = actual[name]
        assert got.dtype == wanted.dtype, f"{name}: irrun {got.dtype}, {what} {wanted.dtype}"
        assert got.shape == wanted.shape, f"{name}: irrun {got.shape}, {what} {wanted.shape}"
        assert np.array_equal(raw_bytes(got), raw_bytes(wanted)), (
            f"{name}: irrun\n{got!r}\n!= {what}\n{wanted!r}"
        )


def check_against_cpu(model: ov.Model, inputs: dict, numpy_expected: list | None = None) -> None:
    """Save ``model``; irrun must reproduce the CPU plugin (and the numpy model, when given)."""
    with tempfile.TemporaryDirectory() as folder:
        xml = save(model, folder)
        cpu = run_cpu(xml, inputs)
        ours = run_irrun(xml, inputs)
        assert_same_outputs(ours, cpu)
        if numpy_expected is not None:
            assert_same_outputs(ours, dict(zip(cpu, numpy_expected)), "numpy model")


def check_against_semantics(
    model: ov.Model, inputs: dict, numpy_expected: list, *, reference_evaluator: bool
) -> None:
    """Save ``model``; irrun must reproduce the numpy model (and OpenVINO's reference evaluator)."""
    with tempfile.TemporaryDirectory() as folder:
        xml = save(model, folder)
        ours = run_irrun(xml, inputs)
        assert_same_outputs(ours, dict(zip(output_names(xml), numpy_expected)), "numpy model")
        if reference_evaluator:
            assert_same_outputs(ours, run_reference(xml, inputs), "reference evaluator")


# -- values ----------------------------------------------------------------------------------------
def bits(values: list[int], dtype) -> np.ndarray:
    unsigned = {2: np.uint16, 4: np.uint32, 8: np.uint64}[np.dtype(dtype).itemsize]
    return np.array(values, dtype=unsigned).view(dtype)


#: NaNs with payloads and both signs, infinities, signed zeros, subnormals. f16 gets only quiet
#: NaNs here (see F16_SIGNALLING_NANS).
SPECIAL_VALUES = {
    np.dtype(np.float32): bits(
        [0x7FC00000, 0xFFC00000, 0x7FC12345, 0xFFFFFFFF, 0x7F800001, 0xFF80ABCD, 0x7F800000,
         0xFF800000, 0x80000000, 0x00000000, 0x00000001, 0x807FFFFF],
        np.float32,
    ),
    np.dtype(np.float16): bits(
        [0x7E00, 0xFE00, 0x7E5A, 0xFFFF, 0x7C00, 0xFC00, 0x8000, 0x0000, 0x0001, 0x83FF],
        np.float16,
    ),
    np.dtype(np.float64): bits(
        [0x7FF8000000000000, 0xFFF8000000000000, 0x7FF8DEADBEEF0001, 0x7FF0000000000001,
         0x7FF0000000000000, 0xFFF0000000000000, 0x8000000000000000, 0x0000000000000001],
        np.float64,
    ),
}  # fmt: skip
F16_SIGNALLING_NANS = bits([0x7C01, 0xFD55, 0x7DFF], np.float16)


def is_subnormal(values: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        return (values != 0) & (np.abs(values) < np.finfo(values.dtype).tiny)


def random_values(
    rng, shape, dtype, *, specials: bool = False, wide: bool = False, constant: bool = False
) -> np.ndarray:
    """Random values of ``dtype``; integers stay inside int32 unless ``wide`` (ops.md 2.6 #3).

    ``specials`` mixes in SPECIAL_VALUES. ``constant`` marks values for a Constant that the CPU
    plugin will run: f32 ones then get no subnormals, because the plugin flushes the subnormals
    of an f32 Constant to zero (and its -0.0 to +0.0 with them).
    """
    dtype = np.dtype(dtype)
    shape = tuple(shape)
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.kind == "f":
        values = (rng.standard_normal(shape) * 100).astype(dtype)
        if specials and values.size:
            pool = SPECIAL_VALUES[dtype]
            if constant and dtype == np.float32:
                pool = pool[~is_subnormal(pool)]
            unsigned = np.dtype(f"u{dtype.itemsize}")
            chosen = rng.random(shape) < 0.4
            # Written through an unsigned view so that no float conversion touches the NaNs.
            values.view(unsigned)[chosen] = rng.choice(pool.view(unsigned), int(chosen.sum()))
        return values
    info = np.iinfo(dtype)
    low, high = int(info.min), int(info.max)
    if not wide:
        low, high = max(low, -(2**31)), min(high, 2**31 - 1)
    values = rng.integers(low, high, shape, endpoint=True, dtype=dtype)
    if wide and values.size and dtype == np.int64:
        # Make sure some values really lie beyond int32, where the CPU plugin breaks.
        values.reshape(-1)[0] = 2**40 + 3
        values.reshape(-1)[-1] = -(2**62) - 5
    return values


def random_indices(rng, shape, size: int, dtype, *, negative: bool, out_of_range: bool):
    """Indices for an axis of ``size``: [0, s-1], or [-s, s-1] when ``negative``; ``out_of_range``
    widens the range by 3 on each side (on the low side for signed types only)."""
    signed = np.dtype(dtype).kind == "i"
    low = -size if negative and signed else 0
    high = size - 1
    if out_of_range:
        high += 3
        low = low - 3 if signed else low
    return rng.integers(low, high, tuple(shape), endpoint=True).astype(dtype)


seeds = st.integers(0, 2**32 - 1)


class Chooser:
    """Choices made from hypothesis draws, evenly spread.

    In short derandomized runs ``sampled_from``, ``integers`` and ``booleans`` lean heavily to
    their first values; here each choice is made by ``random.Random`` seeded with a drawn integer
    and a salt. The salt (the data type) keeps the copies of a test parametrized by data type,
    which get the same derandomized draws, from exploring the same cases.
    """

    def __init__(self, draw, salt: str = ""):
        self.draw, self.salt = draw, salt

    def _random(self) -> random.Random:
        return random.Random(f"{self.salt}/{self.draw(seeds)}")

    def pick(self, options):
        options = list(options)
        return options[self._random().randrange(len(options))]

    def between(self, low: int, high: int) -> int:
        return self.pick(range(low, high + 1))

    def coin(self) -> bool:
        return self.pick([True, False])

    def likely(self) -> bool:
        return self.pick([True, True, False])

    def dims(self, count: int, low: int = 1, high: int = 4) -> tuple[int, ...]:
        return tuple(self.between(low, high) for _ in range(count))

    def seed(self) -> int:
        return self._random().getrandbits(32)


def salt_of(dtype) -> str:
    return np.dtype(dtype).name if dtype is not None else ""


# -- numpy models of the specification (ops.md), written independently of irrun --------------------
def as_bits(array: np.ndarray) -> np.ndarray:
    """Floats as unsigned integers of the same width, so copies in the models never convert."""
    if array.dtype.kind == "f":
        return array.view(f"u{array.dtype.itemsize}")
    return array


def model_gather(data, indices, axis: int, batch_dims: int = 0) -> np.ndarray:
    """ops.md 2.1: wrap negative indices, zero for indices outside [-s, s-1]."""
    source = as_bits(data)
    r, q = data.ndim, indices.ndim
    axis = axis + r if axis < 0 else axis
    b = batch_dims + q if batch_dims < 0 else batch_dims
    n = data.shape[axis]
    out = np.zeros(data.shape[:axis] + indices.shape[b:] + data.shape[axis + 1 :], source.dtype)
    for o in np.ndindex(out.shape):
        pre, ind, post = o[:axis], o[axis : axis + q - b], o[axis + q - b :]
        i = int(indices[pre[:b] + ind])
        i = i + n if i < 0 else i
        if 0 <= i < n:
            out[o] = source[pre + (i,) + post]
    return out.view(data.dtype)


def model_gather_nd(data, indices, batch_dims: int, *, flatten_batch: bool) -> np.ndarray:
    """ops.md 3.1 (indices inside [-s, s-1]; negative ones wrap)."""
    source = as_bits(data)
    b, k = batch_dims, indices.shape[-1]
    out = np.zeros(indices.shape[:-1] + data.shape[b + k :], source.dtype)
    for position in np.ndindex(indices.shape[:-1]):
        tuple_ = tuple(
            int(v) + (data.shape[b + j] if v < 0 else 0) for j, v in enumerate(indices[position])
        )
        out[position] = source[position[:b] + tuple_]
    if flatten_batch and b > 0:
        out = out.reshape((math.prod(indices.shape[:b]),) + out.shape[b:])
    return out.view(data.dtype)


def model_gather_elements(data, indices, axis: int) -> np.ndarray:
    """ops.md 4 (indices inside [-s, s-1]; negative ones wrap)."""
    size = data.shape[axis]
    wrapped = np.where(indices < 0, indices.astype(np.int64) + size, indices).astype(np.intp)
    return np.take_along_axis(as_bits(data), wrapped, axis).view(data.dtype)


def model_concat(arrays, axis: int) -> np.ndarray:
    return np.concatenate([as_bits(a) for a in arrays], axis=axis).view(arrays[0].dtype)


# -- Concat-1 --------------------------------------------------------------------------------------
@st.composite
def concat_cases(draw, dtype=None):
    choose = Chooser(draw, salt_of(dtype))
    rank = choose.between(1, 6)
    shape = list(choose.dims(rank, 1, 3 if rank > 3 else 4))
    axis = choose.between(-rank, rank - 1)
    if rank > 1 and choose.between(0, 9) == 0:  # every input empty, and the output
        shape[choose.pick([d for d in range(rank) if d != axis % rank])] = 0
    count = choose.between(1, 4)
    return {
        "dtype": np.dtype(dtype or choose.pick(DATA_TYPES)),
        "shape": shape,
        "axis": axis,
        "axis_sizes": [choose.between(0, 3) for _ in range(count)],
        "kinds": [choose.pick(["parameter", "constant", "repeat"]) for _ in range(count)],
        "specials": choose.coin(),
        "seed": choose.seed(),
    }


@pytest.mark.parametrize("dtype", DATA_TYPES, ids=TYPE_IDS)
@examples(28)
@given(data=st.data())
def test_concat_matches_cpu(dtype, data):
    """Concat-1, ranks 1-6, every axis (negative too), 1-4 inputs, Parameters, Constants and one
    Parameter repeated, inputs of size 0."""
    case = data.draw(concat_cases(dtype), label="case")
    rng = np.random.default_rng(case["seed"])
    axis = case["axis"] % len(case["shape"])
    nodes, arrays, parameters, inputs = [], [], [], {}
    for i, (kind, size) in enumerate(zip(case["kinds"], case["axis_sizes"])):
        if kind == "repeat" and parameters:
            which = int(rng.integers(len(parameters)))
            nodes.append(parameters[which])
            arrays.append(inputs[parameters[which].get_friendly_name()])
            continue
        shape = list(case["shape"])
        shape[axis] = size
        values = random_values(
            rng, shape, case["dtype"], specials=case["specials"], constant=kind == "constant"
        )
        if kind == "constant":
            nodes.append(opset13.constant(values))
        else:
            parameter = opset13.parameter(shape, case["dtype"], name=f"input{i}")
            parameters.append(parameter)
            inputs[f"input{i}"] = values
            nodes.append(parameter)
        arrays.append(values)
    concat = opset1.concat(nodes, case["axis"])
    check_against_cpu(ov.Model([concat], parameters), inputs, [model_concat(arrays, axis)])


# -- Gather-1/-7/-8 --------------------------------------------------------------------------------
def crashes_cpu_gather(data_shape, batch_dims: int) -> bool:
    """Gather with batch_dims > 0 over a single batch element kills the CPU plugin (SIGSEGV)."""
    return batch_dims > 0 and math.prod(data_shape[:batch_dims]) == 1


def cpu_gather_ignores_out_of_range(data_shape, axis: int, batch_dims: int, indices_rank) -> bool:
    """One index per batch (batch_dims = rank(indices) > 0) into an axis of size 1: the CPU
    plugin returns data for constant out-of-range indices instead of zeros (see
    test_gather8_out_of_range_constant_index_per_batch_into_an_axis_of_size_1_gives_zeros)."""
    return 0 < batch_dims == indices_rank and data_shape[axis] == 1


@st.composite
def gather_cases(
    draw,
    versions=(8, 7, 1),
    *,
    cpu_safe: bool = True,
    empty: bool = False,
    batched: bool = False,
    single_batch: bool = False,
    dtype=None,
):
    """A Gather of data (rank 1-4) with indices (rank 0-3).

    With ``cpu_safe``, Gather-1/-7 get only indices in [0, s-1], Gather-8 no out-of-range ones
    on 1-D i32/i64 data, and batch_dims > 0 a batch of more than one element. With ``empty``,
    data (outside the axis) or indices have a dimension of size 0. With ``batched``, batch_dims
    > 0; with ``single_batch`` too, and every batch dimension is 1.
    """
    choose = Chooser(draw, salt_of(dtype))
    batched = batched or single_batch
    version = choose.pick(versions)
    rank = choose.between(2 if empty or batched else 1, 4)
    data_shape = list(choose.dims(rank, 1, 4))
    axis = choose.pick([a for a in range(-rank, rank) if not batched or a % rank >= 1])
    axis_n = axis % rank
    indices_rank = choose.between(1 if empty or batched else 0, 3)
    low_batch = 1 if batched else 0
    batch = 0 if version == 1 else choose.between(low_batch, min(axis_n, indices_rank))
    if single_batch:
        data_shape[:batch] = [1] * batch
    elif cpu_safe and crashes_cpu_gather(data_shape, batch):
        data_shape[0] = 2
    indices_shape = list(data_shape[:batch]) + list(choose.dims(indices_rank - batch, 1, 3))
    if empty:
        if batch == indices_rank or choose.coin():
            dimension = choose.pick([d for d in range(rank) if d != axis_n])
            data_shape[dimension] = 0
            if dimension < batch:
                indices_shape[dimension] = 0
        else:
            indices_shape[choose.between(batch, indices_rank - 1)] = 0
    batch_attribute = batch
    if version > 1 and batch < indices_rank and choose.coin():
        batch_attribute = batch - indices_rank  # the same batch_dims, counted from the end
    dtype = np.dtype(dtype or choose.pick(DATA_TYPES))
    index_type = np.dtype(choose.pick(INDEX_TYPES))
    negative = (version == 8 or not cpu_safe) and choose.likely()
    cpu_bug = (
        rank == 1 and dtype in CPU_GATHER_1D_BUG_TYPES and math.prod(indices_shape) > 1
    ) or cpu_gather_ignores_out_of_range(data_shape, axis_n, batch, indices_rank)
    out_of_range = version == 8 and not (cpu_safe and cpu_bug) and choose.likely()
    return {
        "version": version,
        "data_shape": data_shape,
        "dtype": dtype,
        "axis": axis,
        "axis_type": choose.pick([np.int32, np.int64]),
        "axis_as_vector": choose.coin(),
        "indices_shape": indices_shape,
        "index_type": index_type,
        "indices_constant": choose.coin(),
        "batch_dims": batch_attribute,
        "negative": negative,
        "out_of_range": out_of_range,
        "specials": choose.coin(),
        "seed": choose.seed(),
    }


GATHER_BUILDERS = {
    1: lambda data, indices, axis, batch_dims: opset1.gather(data, indices, axis),
    7: lambda data, indices, axis, batch_dims: opset7.gather(data, indices, axis, batch_dims),
    8: lambda data, indices, axis, batch_dims: opset8.gather(data, indices, axis, batch_dims),
}


def build_gather(case):
    """The model (data and maybe indices as Parameters), its inputs and the numpy expectation."""
    rng = np.random.default_rng(case["seed"])
    data = random_values(rng, case["data_shape"], case["dtype"], specials=case["specials"])
    size = case["data_shape"][case["axis"] % len(case["data_shape"])]
    indices = random_indices(
        rng, case["indices_shape"], size, case["index_type"],
        negative=case["negative"], out_of_range=case["out_of_range"],
    )  # fmt: skip
    data_parameter = opset13.parameter(case["data_shape"], case["dtype"], name="data")
    parameters, inputs = [data_parameter], {"data": data}
    if case["indices_constant"]:
        indices_node = opset13.constant(indices)
    else:
        indices_node = opset13.parameter(case["indices_shape"], case["index_type"], name="indices")
        parameters.append(indices_node)
        inputs["indices"] = indices
    axis_value = np.array(
        [case["axis"]] if case["axis_as_vector"] else case["axis"], case["axis_type"]
    )
    gather = GATHER_BUILDERS[case["version"]](
        data_parameter, indices_node, opset13.constant(axis_value), case["batch_dims"]
    )
    expected = model_gather(data, indices, case["axis"], case["batch_dims"])
    return ov.Model([gather], parameters), inputs, expected


@pytest.mark.parametrize("dtype", DATA_TYPES, ids=TYPE_IDS)
@examples(22)
@given(data=st.data())
def test_gather_matches_cpu(dtype, data):
    """Gather-1/-7/-8: scalar and n-D indices of i32/i64/u8, negative and out-of-range indices
    for Gather-8, constant or Parameter indices, a scalar or [1] axis of i32/i64."""
    case = data.draw(gather_cases(dtype=dtype), label="case")
    model, inputs, expected = build_gather(case)
    check_against_cpu(model, inputs, [expected])


@examples(50)
@given(gather_cases(versions=(8, 7), batched=True))
def test_gather_with_batch_dims_matches_cpu(case):
    """Gather-7/-8 with batch_dims > 0, given as is or counted from the end (negative)."""
    model, inputs, expected = build_gather(case)
    check_against_cpu(model, inputs, [expected])


@examples(30)
@given(gather_cases(empty=True))
def test_gather_with_zero_size_data_or_indices_matches_the_reference_evaluator(case):
    """Zero-size data (outside the axis) or indices give a zero-size output (the CPU plugin
    dies of SIGFPE on these models, so the reference evaluator and numpy are the oracles)."""
    model, inputs, expected = build_gather(case)
    reference = case["index_type"] != np.uint8  # the reference evaluator has no u8 indices
    check_against_semantics(model, inputs, [expected], reference_evaluator=reference)


@examples(20)
@given(gather_cases(versions=(7, 8), single_batch=True))
def test_gather_with_batch_dims_over_one_batch_element_matches_the_reference_evaluator(case):
    """batch_dims > 0 with every batch dimension 1, e.g. data [1,4], indices [1,2], axis 1,
    batch_dims 1 (the CPU plugin dies of SIGSEGV on these models)."""
    model, inputs, expected = build_gather(case)
    reference = case["index_type"] != np.uint8  # the reference evaluator has no u8 indices
    check_against_semantics(model, inputs, [expected], reference_evaluator=reference)


@examples(40)
@given(gather_cases(versions=(1, 7), cpu_safe=False))
def test_gather_1_7_negative_indices_wrap_like_the_reference_evaluator(case):
    """Gather-1/-7 negative indices: OpenVINO's reference evaluator wraps them (its CPU plugin
    writes 0, which irrun must not copy)."""
    model, inputs, expected = build_gather(case)
    reference = case["index_type"] != np.uint8  # the reference evaluator has no u8 indices
    check_against_semantics(model, inputs, [expected], reference_evaluator=reference)


@examples(25)
@given(
    dtype=st.sampled_from(CPU_GATHER_1D_BUG_TYPES),
    size=st.integers(1, 6),
    count=st.integers(2, 8),
    index_type=st.sampled_from([np.int32, np.int64]),
    seed=seeds,
)
def test_gather8_out_of_range_on_1d_integer_data_gives_zeros(dtype, size, count, index_type, seed):
    """Gather-8 writes 0 for out-of-range indices, also on 1-D i32/i64 data, where the CPU
    plugin reads adjacent memory instead (ops.md 2.6 #1)."""
    rng = np.random.default_rng(seed)
    data = random_values(rng, [size], dtype)
    indices = random_indices(rng, [count], size, index_type, negative=True, out_of_range=True)
    indices[0] = size + 7  # at least one index out of range
    parameters = [opset13.parameter([size], dtype, name="data")]
    gather = opset8.gather(parameters[0], opset13.constant(indices), opset13.constant(np.int64(0)))
    expected = model_gather(data, indices, 0)
    check_against_semantics(
        ov.Model([gather], parameters), {"data": data}, [expected], reference_evaluator=True
    )


def test_gather8_out_of_range_constant_index_per_batch_into_an_axis_of_size_1_gives_zeros(
    tmp_path,
):
    """data [2,1,2], constant indices [0, 3], axis 1, batch_dims 1: batch 1's index 3 is out of
    range, so its row is zeros (the reference evaluator agrees; the CPU plugin returns the data
    row [3, 4] as if the index were 0)."""
    data = np.arange(1, 5, dtype=np.float32).reshape(2, 1, 2)
    x = opset13.parameter([2, 1, 2], np.float32, name="data")
    indices = opset13.constant(np.array([0, 3], np.int64))
    gather = opset8.gather(x, indices, opset13.constant(np.int64(1)), 1)
    xml = save(ov.Model([gather], [x]), str(tmp_path))
    ours = run_irrun(xml, {"data": data})
    assert_same_outputs(ours, dict(zip(ours, [np.array([[1, 2], [0, 0]], np.float32)])), "spec")
    assert_same_outputs(ours, run_reference(xml, {"data": data}), "reference evaluator")


# -- GatherND-5/-8 ---------------------------------------------------------------------------------
@st.composite
def gather_nd_cases(draw, *, empty_tuples: bool = False, dtype=None):
    choose = Chooser(draw, salt_of(dtype))
    rank = choose.between(1, 4)
    data_shape = choose.dims(rank, 1, 3 if rank == 4 else 4)
    batch = choose.between(0, min(2, rank - 1))
    k = 0 if empty_tuples else choose.between(1, rank - batch)
    middle = choose.dims(choose.between(0, 2), 1, 3)
    return {
        "version": choose.pick([5, 8]),
        "dtype": np.dtype(dtype or choose.pick(DATA_TYPES)),
        "data_shape": data_shape,
        "batch_dims": batch,
        "indices_shape": data_shape[:batch] + middle + (k,),
        "index_type": np.dtype(choose.pick(INDEX_TYPES)),
        "negative": choose.coin(),
        "indices_constant": choose.coin(),
        "specials": choose.coin(),
        "seed": choose.seed(),
    }


def build_gather_nd(case):
    rng = np.random.default_rng(case["seed"])
    data = random_values(rng, case["data_shape"], case["dtype"], specials=case["specials"])
    b, shape = case["batch_dims"], case["indices_shape"]
    columns = [
        random_indices(
            rng, shape[:-1], case["data_shape"][b + j], case["index_type"],
            negative=case["negative"], out_of_range=False,
        )
        for j in range(shape[-1])
    ]  # fmt: skip
    indices = np.stack(columns, axis=-1) if columns else np.zeros(shape, case["index_type"])
    data_parameter = opset13.parameter(list(case["data_shape"]), case["dtype"], name="data")
    parameters, inputs = [data_parameter], {"data": data}
    if case["indices_constant"]:
        indices_node = opset13.constant(indices)
    else:
        indices_node = opset13.parameter(list(shape), case["index_type"], name="indices")
        parameters.append(indices_node)
        inputs["indices"] = indices
    make = opset5.gather_nd if case["version"] == 5 else opset8.gather_nd
    node = make(data_parameter, indices_node, b)
    expected = model_gather_nd(data, indices, b, flatten_batch=case["version"] == 5)
    return ov.Model([node], parameters), inputs, expected


@pytest.mark.parametrize("dtype", DATA_TYPES, ids=TYPE_IDS)
@examples(17)
@given(data=st.data())
def test_gather_nd_matches_cpu(dtype, data):
    """GatherND-5 (batch dims flattened) and GatherND-8, batch_dims 0-2, tuple length 1..r-b,
    negative indices wrapping, i32/i64/u8 indices."""
    case = data.draw(gather_nd_cases(dtype=dtype), label="case")
    model, inputs, expected = build_gather_nd(case)
    check_against_cpu(model, inputs, [expected])


@examples(15)
@given(gather_nd_cases(empty_tuples=True))
def test_gather_nd_empty_index_tuples_select_whole_slices(case):
    """k = 0: each empty tuple selects its whole batch slice (ops.md 3.1; the CPU plugin returns
    uninitialised memory here, so the numpy model is the oracle)."""
    model, inputs, expected = build_gather_nd(case)
    check_against_semantics(model, inputs, [expected], reference_evaluator=False)


# -- GatherElements-6 ------------------------------------------------------------------------------
@st.composite
def gather_elements_cases(draw, dtype=None):
    choose = Chooser(draw, salt_of(dtype))
    rank = choose.between(1, 4)
    data_shape = choose.dims(rank, 1, 4)
    axis = choose.between(-rank, rank - 1)
    indices_shape = list(data_shape)
    indices_shape[axis] = choose.between(1, 5)
    return {
        "dtype": np.dtype(dtype or choose.pick(DATA_TYPES)),
        "data_shape": data_shape,
        "axis": axis,
        "indices_shape": indices_shape,
        "index_type": np.dtype(choose.pick([np.int32, np.int64])),
        "negative": choose.coin(),
        "indices_constant": choose.coin(),
        "specials": choose.coin(),
        "seed": choose.seed(),
    }


@pytest.mark.parametrize("dtype", DATA_TYPES, ids=TYPE_IDS)
@examples(12)
@given(data=st.data())
def test_gather_elements_matches_cpu(dtype, data):
    """GatherElements-6 along every axis, indices shorter or longer than data on the axis,
    negative indices wrapping."""
    case = data.draw(gather_elements_cases(dtype), label="case")
    rng = np.random.default_rng(case["seed"])
    values = random_values(rng, case["data_shape"], case["dtype"], specials=case["specials"])
    indices = random_indices(
        rng, case["indices_shape"], case["data_shape"][case["axis"]], case["index_type"],
        negative=case["negative"], out_of_range=False,
    )  # fmt: skip
    data_parameter = opset13.parameter(list(case["data_shape"]), case["dtype"], name="data")
    parameters, inputs = [data_parameter], {"data": values}
    if case["indices_constant"]:
        indices_node = opset13.constant(indices)
    else:
        indices_node = opset13.parameter(case["indices_shape"], case["index_type"], name="indices")
        parameters.append(indices_node)
        inputs["indices"] = indices
    node = opset6.gather_elements(data_parameter, indices_node, case["axis"])
    expected = model_gather_elements(values, indices, case["axis"])
    check_against_cpu(ov.Model([node], parameters), inputs, [expected])


# -- random graphs ---------------------------------------------------------------------------------
def describe(node) -> str:
    """One line per op for hypothesis' notes: name, type-version, inputs, attributes, shape."""
    inputs = []
    for value in node.input_values():
        producer = value.get_node()
        if producer.get_type_name() == "Constant":
            inputs.append(f"Constant{producer.get_data().tolist()}")
        else:
            inputs.append(f"{producer.get_friendly_name()}:{value.get_index()}")
    version = node.get_type_info().version_id
    return (
        f"{node.get_friendly_name()} = {node.get_type_name()}-{version}({', '.join(inputs)}) "
        f"{node.get_attributes()} -> {node.get_output_element_type(0).get_type_name()}"
        f"{list(node.get_output_shape(0))} names {sorted(node.output(0).get_names())}"
    )


class GraphBuilder(Chooser):
    """Grows a random model of one data type from hypothesis draws.

    Every tensor in the pool carries its value under the numpy model, so the graph's expected
    outputs are known without OpenVINO. With ``cpu_safe`` the graph avoids what the CPU plugin
    gets wrong (negative indices for Gather-1/-7, out-of-range Gather-8 indices where the plugin
    misbehaves, batch_dims over a single batch element).
    """

    KINDS = ("concat", "gather", "gather_nd", "gather_elements")

    def __init__(self, draw, dtype, *, cpu_safe: bool, wide: bool = False, specials: bool = False):
        super().__init__(draw, salt_of(dtype))
        self.rng = np.random.default_rng(self.seed())
        self.dtype = np.dtype(dtype)
        self.cpu_safe, self.wide, self.specials = cpu_safe, wide, specials
        self.parameters: list = []
        self.inputs: dict[str, np.ndarray] = {}
        self.pool: list[tuple[object, np.ndarray]] = []  # (ov.Output, value)
        #: False once the graph has an op or index type OpenVINO's reference evaluator lacks.
        self.reference_evaluator_can_run = True

    # inputs
    def values(self, shape, *, constant: bool = False) -> np.ndarray:
        return random_values(
            self.rng, shape, self.dtype, specials=self.specials, wide=self.wide, constant=constant
        )

    def parameter(self, value: np.ndarray, prefix: str = "input"):
        name = f"{prefix}{len(self.parameters)}"
        node = opset13.parameter(list(value.shape), value.dtype, name=name)
        self.parameters.append(node)
        self.inputs[name] = value
        return node

    def add_input(self) -> None:
        value = self.values(self.dims(self.between(1, 3), 1, 4))
        self.pool.append((self.parameter(value).output(0), value))

    def index_input(self, indices: np.ndarray):
        if indices.dtype == np.uint8:
            self.reference_evaluator_can_run = False
        if self.pick([True, False]):
            return opset13.constant(indices)
        return self.parameter(indices, prefix="indices")

    # one op
    def grow(self) -> None:
        sources = [i for i, (_, value) in enumerate(self.pool) if value.ndim >= 1]
        source = self.pool[self.pick(sources)]
        kind = self.pick(self.KINDS)
        built = getattr(self, kind)(*source)
        if built is not None:
            node, value = built
            assert tuple(node.get_output_shape(0)) == value.shape, (kind, node, value.shape)
            if self.between(0, 3) == 0:  # a tensor name on an intermediate
                node.output(0).get_tensor().set_names({f"tensor{len(self.pool)}"})
            self.pool.append((node.output(0), value))
            if kind in ("gather_nd", "gather_elements"):
                self.reference_evaluator_can_run = False

    def concat(self, output, value):
        rank = value.ndim
        axis = self.between(-rank, rank - 1)
        axis_n = axis % rank
        parts = [(output, value)]
        for _ in range(self.between(0, 3)):
            kind = self.pick(["same", "pool", "constant", "parameter"])
            fitting = [
                entry
                for entry in self.pool
                if entry[1].ndim == rank
                and np.delete(np.array(entry[1].shape), axis_n).tolist()
                == np.delete(np.array(value.shape), axis_n).tolist()
            ]
            if kind == "same":
                parts.append((output, value))
            elif kind == "pool":
                parts.append(fitting[self.between(0, len(fitting) - 1)])
            else:
                shape = list(value.shape)
                shape[axis_n] = self.between(0, 3)
                piece = self.values(shape, constant=kind == "constant")
                node = opset13.constant(piece) if kind == "constant" else self.parameter(piece)
                parts.append((node.output(0), piece))
        self._random().shuffle(parts)
        expected = model_concat([v for _, v in parts], axis_n)
        if expected.size > ELEMENT_LIMIT:
            return None
        return opset1.concat([o for o, _ in parts], axis), expected

    def gather(self, output, value):
        rank = value.ndim
        version = self.pick([1, 7, 8])
        axis = self.between(-rank, rank - 1)
        axis_n = axis % rank
        indices_rank = self.between(0, 2)
        batch = 0 if version == 1 else self.between(0, min(axis_n, indices_rank))
        if self.cpu_safe and crashes_cpu_gather(value.shape, batch):
            batch = 0
        shape = value.shape[:batch] + self.dims(indices_rank - batch, 1, 3)
        if (
            math.prod(value.shape[:axis_n] + shape[batch:] + value.shape[axis_n + 1 :])
            > ELEMENT_LIMIT
        ):
            return None
        batch_attribute = batch
        if version > 1 and batch < indices_rank and self.pick([True, False]):
            batch_attribute = batch - indices_rank
        index_type = self.pick(INDEX_TYPES)
        negative = (version == 8 or not self.cpu_safe) and self.pick([True, False])
        cpu_bug = (
            rank == 1 and self.dtype in CPU_GATHER_1D_BUG_TYPES and math.prod(shape) > 1
        ) or cpu_gather_ignores_out_of_range(value.shape, axis_n, batch, indices_rank)
        out_of_range = version == 8 and not (self.cpu_safe and cpu_bug) and self.pick([True, False])
        indices = random_indices(
            self.rng, shape, value.shape[axis_n], index_type,
            negative=negative, out_of_range=out_of_range,
        )  # fmt: skip
        if self.dtype == np.float64:  # the reference evaluator has no f64 Gather
            self.reference_evaluator_can_run = False
        axis_node = opset13.constant(np.array(axis, self.pick([np.int32, np.int64])))
        node = GATHER_BUILDERS[version](
            output, self.index_input(indices), axis_node, batch_attribute
        )
        return node, model_gather(value, indices, axis, batch_attribute)

    def gather_nd(self, output, value):
        rank = value.ndim
        version = self.pick([5, 8])
        batch = self.between(0, min(2, rank - 1))
        k = self.between(1, rank - batch)
        head = value.shape[:batch] + self.dims(self.between(0, 1), 1, 3)
        if math.prod(head) * math.prod(value.shape[batch + k :]) > ELEMENT_LIMIT:
            return None
        index_type = self.pick(INDEX_TYPES)
        negative = self.pick([True, False])
        indices = np.stack(
            [
                random_indices(self.rng, head, value.shape[batch + j], index_type,
                               negative=negative, out_of_range=False)
                for j in range(k)
            ],
            axis=-1,
        )  # fmt: skip
        make = opset5.gather_nd if version == 5 else opset8.gather_nd
        node = make(output, self.index_input(indices), batch)
        return node, model_gather_nd(value, indices, batch, flatten_batch=version == 5)

    def gather_elements(self, output, value):
        rank = value.ndim
        axis = self.between(-rank, rank - 1)
        shape = list(value.shape)
        shape[axis] = self.between(1, 4)
        if math.prod(shape) > ELEMENT_LIMIT:
            return None
        index_type = self.pick([np.int32, np.int64])
        indices = random_indices(
            self.rng, shape, value.shape[axis], index_type,
            negative=self.pick([True, False]), out_of_range=False,
        )  # fmt: skip
        node = opset6.gather_elements(output, self.index_input(indices), axis)
        return node, model_gather_elements(value, indices, axis)

    # the model
    def build(self, steps: int):
        """The ov.Model with 1-3 Results (the last tensor always among them) and their values."""
        for _ in range(self.between(1, 2)):
            self.add_input()
        for _ in range(steps):
            self.grow()
        last = len(self.pool) - 1
        chosen = [last]
        for _ in range(self.between(0, 2)):
            index = self.between(0, last)
            if index not in chosen:
                chosen.append(index)
        results, expected = [], []
        for number, index in enumerate(chosen):
            output, value = self.pool[index]
            is_parameter = output.get_node().get_type_name() == "Parameter"
            if not is_parameter and self.pick([True, False]):  # a named model output
                output.get_tensor().set_names({f"output{number}", f"alias{number}"})
            results.append(opset13.result(output))
            expected.append(value)
        model = ov.Model(results, self.parameters)
        note("\n".join(describe(node) for node in model.get_ordered_ops()))
        return model, self.inputs, expected


@pytest.mark.parametrize("dtype", DATA_TYPES, ids=TYPE_IDS)
@examples(24)
@given(data=st.data())
def test_random_graphs_match_cpu(dtype, data):
    """Chains and DAGs of Concat, Gather, GatherND and GatherElements: Parameters feeding several
    consumers, a tensor concatenated with itself, several Results, named outputs, scalar outputs."""
    specials = Chooser(data.draw, salt_of(dtype)).coin()
    builder = GraphBuilder(data.draw, dtype, cpu_safe=True, specials=specials)
    model, inputs, expected = builder.build(builder.between(1, 5))
    check_against_cpu(model, inputs, expected)


def test_chain_parameter_gather_concat_gather_nd_with_fan_out_and_named_outputs(tmp_path):
    """The textbook chain: Parameter -> Gather -> Concat -> GatherND, the Gather's output also a
    named model output and a second Concat input, the Parameter feeding three consumers."""
    rng = np.random.default_rng(7)
    data = random_values(rng, [3, 4, 2], np.float32, specials=True)
    x = opset13.parameter([3, 4, 2], np.float32, name="x")
    picked = opset8.gather(
        x, opset13.constant(np.array([3, -1, 0], np.int64)), opset13.constant(np.int64(1))
    )
    picked.output(0).get_tensor().set_names({"picked"})
    joined = opset1.concat([picked, x, picked], -2)
    selected = opset8.gather_nd(
        joined, opset13.constant(np.array([[0, 9], [2, -1], [1, 4]], np.int32))
    )
    selected.output(0).get_tensor().set_names({"selected", "also_selected"})
    elements = opset6.gather_elements(
        x, opset13.constant(np.array([[[1, 0]], [[-1, 2]], [[0, 0]]], np.int64)), 1
    )
    model = ov.Model([selected, picked, elements], [x])
    gathered = model_gather(data, np.array([3, -1, 0]), 1)
    concatenated = model_concat([gathered, data, gathered], 1)
    expected = [
        model_gather_nd(concatenated, np.array([[0, 9], [2, -1], [1, 4]]), 0, flatten_batch=False),
        gathered,
        model_gather_elements(data, np.array([[[1, 0]], [[-1, 2]], [[0, 0]]]), 1),
    ]
    xml = save(model, str(tmp_path))
    ours = run_irrun(xml, {"x": data})
    assert_same_outputs(ours, run_cpu(xml, {"x": data}))
    assert_same_outputs(ours, dict(zip(ours, expected)), "numpy model")
    assert list(ours)[:2] == ["also_selected", "picked"]  # the smallest of a tensor's names


# -- special float values --------------------------------------------------------------------------
def special_chain(dtype, data_values: np.ndarray, constant_values: np.ndarray):
    """Concat(x, Constant) -> Gather-8 -> GatherND-8 -> GatherElements; x = ``data_values`` and the
    Constant ``constant_values``, both of shape (2, n)."""
    n = data_values.shape[1]
    x = opset13.parameter([2, n], dtype, name="x")
    joined = opset1.concat([x, opset13.constant(constant_values)], 0)  # (4, n)
    reversed_columns = np.arange(n - 1, -1, -1, dtype=np.int64)
    taken = opset8.gather(
        joined, opset13.constant(reversed_columns), opset13.constant(np.int64(-1))
    )
    nd_indices = np.array([[3], [-4], [1]], np.int32)
    rows = opset8.gather_nd(taken, opset13.constant(nd_indices))  # (3, n)
    element_indices = np.tile(np.arange(-n, 0, dtype=np.int64), (3, 1))
    elements = opset6.gather_elements(rows, opset13.constant(element_indices), 1)
    joined_value = model_concat([data_values, constant_values], 0)
    taken_value = model_gather(joined_value, reversed_columns, -1)
    rows_value = model_gather_nd(taken_value, nd_indices, 0, flatten_batch=False)
    expected = [model_gather_elements(rows_value, element_indices, 1), joined_value]
    return ov.Model([elements, joined], [x]), {"x": data_values}, expected


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_nan_payloads_infinities_and_negative_zero_pass_bit_exactly(dtype):
    """Every special value, NaN payloads and signs included, travels through the four ops
    unchanged (f32 signalling NaNs too: the CPU plugin keeps them)."""
    pool = SPECIAL_VALUES[np.dtype(dtype)]
    data = np.stack([pool, pool[::-1]])
    if dtype == np.float32:  # an f32 Constant with a subnormal is flushed by the CPU plugin
        pool = np.where(is_subnormal(pool), np.float32(-0.0), pool)
    model, inputs, expected = special_chain(dtype, data, np.stack([pool[::-1], pool]))
    check_against_cpu(model, inputs, expected)


def test_f32_constants_keep_subnormals_and_negative_zero():
    """A Const's bits reach the outputs unchanged. The CPU plugin flushes the subnormals of an
    f32 Constant holding any subnormal to zero, and its -0.0 to +0.0 with them; irrun must not."""
    pool = SPECIAL_VALUES[np.dtype(np.float32)]
    assert is_subnormal(pool).any() and (pool.view(np.uint32) == 0x80000000).any()
    data = np.stack([pool[::-1], pool])
    model, inputs, expected = special_chain(np.float32, data, np.stack([pool, pool[::-1]]))
    check_against_semantics(model, inputs, expected, reference_evaluator=False)
    # Only Concat and Gather: OpenVINO's reference evaluator keeps the bits as well.
    x = opset13.parameter([2, len(pool)], np.float32, name="x")
    joined = opset1.concat([opset13.constant(data), x], -1)
    taken = opset8.gather(joined, opset13.constant(np.int64(-1)), opset13.constant(np.int64(0)))
    expected = [model_gather(model_concat([data, data], -1), np.array(-1), 0)]
    model = ov.Model([taken], [x])
    check_against_semantics(model, {"x": data}, expected, reference_evaluator=True)


def test_f16_signalling_nans_are_copied_not_quieted():
    """A copy keeps an f16 signalling NaN's bits (the CPU plugin quiets them via f32)."""
    data = np.stack(
        [np.concatenate([F16_SIGNALLING_NANS, SPECIAL_VALUES[np.dtype(np.float16)][:3]])] * 2
    )
    model, inputs, expected = special_chain(np.float16, data, data[:, ::-1].copy())
    check_against_semantics(model, inputs, expected, reference_evaluator=False)
    signalling = F16_SIGNALLING_NANS.view(np.uint16)
    assert np.isin(signalling, expected[0].view(np.uint16)).all()  # the test is not vacuous


# -- values the CPU plugin cannot hold: f64 and i64 beyond int32 -----------------------------------
@pytest.mark.parametrize("dtype", [np.float64, np.int64], ids=["float64", "int64"])
@examples(30)
@given(data=st.data())
def test_f64_and_wide_i64_graphs_match_the_semantics(dtype, data):
    """f64 data (with specials) and i64 values beyond int32 through random graphs; also negative
    Gather-1/-7 indices and out-of-range Gather-8 indices on 1-D data. Compared with the numpy
    model and, for Gather/Concat-only graphs, OpenVINO's reference evaluator."""
    builder = GraphBuilder(
        data.draw, dtype, cpu_safe=False, wide=True, specials=dtype == np.float64
    )
    model, inputs, expected = builder.build(builder.between(1, 4))
    check_against_semantics(
        model, inputs, expected, reference_evaluator=builder.reference_evaluator_can_run
    )


# -- regression vectors from ops.md ----------------------------------------------------------------
G9_DATA = np.array([1, 2, 3, 4, 5], np.float32)
G9_INDICES = np.array([3, 10, -20, -1, -5, 5, -6], np.int64)
G9_EXPECTED = np.array([4, 0, 0, 5, 1, 0, 0], np.float32)


@pytest.mark.parametrize("indices_constant", [True, False])
def test_g9_gather8_zero_fills_out_of_range_and_wraps_negatives(tmp_path, indices_constant):
    x = opset13.parameter([5], np.float32, name="data")
    parameters, inputs = [x], {"data": G9_DATA}
    if indices_constant:
        indices = opset13.constant(G9_INDICES)
    else:
        indices = opset13.parameter([7], np.int64, name="indices")
        parameters.append(indices)
        inputs["indices"] = G9_INDICES
    gather = opset8.gather(x, indices, opset13.constant(np.int64(0)))
    gather.output(0).get_tensor().set_names({"g9"})
    xml = save(ov.Model([gather], parameters), str(tmp_path))
    ours = run_irrun(xml, inputs)
    assert_same_outputs(ours, {"g9": G9_EXPECTED}, "ops.md G9")
    assert_same_outputs(ours, run_cpu(xml, inputs))
    assert_same_outputs(ours, run_reference(xml, inputs), "reference evaluator")


@pytest.mark.parametrize("version", [1, 7])
@pytest.mark.parametrize("indices_constant", [True, False])
def test_g9_gather1_7_out_of_range_is_refused(tmp_path, version, indices_constant):
    """G9 on Gather-1/-7: OpenVINO's reference gives [4,0,0,5,1,0,0] and its CPU plugin
    [4,0,0,0,0,0,0]; the Gather-1/-7 spec leaves out-of-range indices undefined, so irrun refuses
    them (a validation error for constant indices, an IndexOutOfRangeError at run time) and
    names the index and its position."""
    x = opset13.parameter([5], np.float32, name="data")
    parameters, inputs = [x], {"data": G9_DATA}
    if indices_constant:
        indices = opset13.constant(G9_INDICES)
    else:
        indices = opset13.parameter([7], np.int64, name="indices")
        parameters.append(indices)
        inputs["indices"] = G9_INDICES
    gather = GATHER_BUILDERS[version](x, indices, opset13.constant(np.int64(0)), 0)
    gather.output(0).get_tensor().set_names({"g9"})
    xml = save(ov.Model([gather], parameters), str(tmp_path))
    assert_same_outputs(run_reference(xml, inputs), {"g9": G9_EXPECTED}, "ops.md G9")
    model = irrun.load(xml)
    if indices_constant:
        report = model.validate()
        assert report.codes() == ["index-range"]
        assert "4 index value(s) outside [-5, 4]" in report[0].message
        assert "e.g. 10 at [1]" in report[0].message
        return
    with pytest.raises(irrun.IndexOutOfRangeError) as info:
        model.run(inputs)
    assert "index 10 at indices position (1,)" in str(info.value)


@pytest.mark.parametrize("version", [1, 7])
def test_g9_gather1_7_negative_indices_wrap(tmp_path, version):
    """The in-range part of G9 on Gather-1/-7: [3, -1, -5] -> [4, 5, 1] (CPU plugin: [4, 0, 0])."""
    x = opset13.parameter([5], np.float32, name="data")
    indices = opset13.constant(np.array([3, -1, -5], np.int64))
    gather = GATHER_BUILDERS[version](x, indices, opset13.constant(np.int64(0)), 0)
    xml = save(ov.Model([gather], [x]), str(tmp_path))
    ours = run_irrun(xml, {"data": G9_DATA})
    assert_same_outputs(ours, dict(zip(ours, [np.array([4, 5, 1], np.float32)])), "ops.md G9")
    assert_same_outputs(ours, run_reference(xml, {"data": G9_DATA}), "reference evaluator")


G11_DATA = np.array([[1, 2, 3, 4, 5], [6, 7, 8, 9, 10]], np.float32)
G11_INDICES = np.array([[0, -1, 4], [4, 0, -5]], np.int64)
G11_REFERENCE = np.array([[1, 5, 5], [10, 6, 6]], np.float32)


@pytest.mark.parametrize("batch_dims", [1, -1])
@pytest.mark.parametrize("indices_constant", [True, False])
def test_g11_gather7_negative_indices_with_batch_dims_give_the_reference(
    tmp_path, batch_dims, indices_constant
):
    """G11 (Gather-7, batch_dims 1): reference [[1,5,5],[10,6,6]], CPU [[1,0,5],[10,6,0]]."""
    x = opset13.parameter([2, 5], np.float32, name="data")
    parameters, inputs = [x], {"data": G11_DATA}
    if indices_constant:
        indices = opset13.constant(G11_INDICES)
    else:
        indices = opset13.parameter([2, 3], np.int64, name="indices")
        parameters.append(indices)
        inputs["indices"] = G11_INDICES
    gather = opset7.gather(x, indices, opset13.constant(np.int64(1)), batch_dims)
    gather.output(0).get_tensor().set_names({"g11"})
    xml = save(ov.Model([gather], parameters), str(tmp_path))
    ours = run_irrun(xml, inputs)
    assert_same_outputs(ours, {"g11": G11_REFERENCE}, "ops.md G11")
    assert_same_outputs(ours, run_reference(xml, inputs), "reference evaluator")


def test_g11_constant_folding_agrees_with_the_reference(tmp_path):
    """With every input a Constant, OpenVINO folds G11 with its reference evaluator; irrun runs
    the unfolded file to the same values."""
    gather = opset7.gather(
        opset13.constant(G11_DATA), opset13.constant(G11_INDICES), opset13.constant(np.int64(1)), 1
    )
    xml = save(ov.Model([gather], []), str(tmp_path))
    ours = run_irrun(xml, {})
    assert_same_outputs(ours, dict(zip(ours, [G11_REFERENCE])), "ops.md G11")
    assert_same_outputs(ours, run_cpu(xml, {}), "OpenVINO constant folding")


# -- the command line ------------------------------------------------------------------------------
def test_cli_execute_writes_the_outputs_openvino_computes(tmp_path):
    """``irrun execute MODEL --inputs in.npz --output out.npz`` writes OpenVINO's results."""
    from tests.helpers.cli import invoke

    rng = np.random.default_rng(3)
    values = {
        "x": random_values(rng, [2, 3, 4], np.float32, specials=True),
        "y": random_values(rng, [2, 2, 4], np.float32),
        "indices": np.array([[2, 0], [-1, 1]], np.int64),
        "flags": random_values(rng, [3], np.bool_),
        "halves": random_values(rng, [4, 2], np.float16, specials=True),
    }
    x, y, indices, flags, halves = (
        opset13.parameter(list(v.shape), v.dtype, name=k) for k, v in values.items()
    )
    joined = opset1.concat([x, y], 1)  # (2, 5, 4)
    picked = opset8.gather(joined, indices, opset13.constant(np.int32(1)), 1)  # (2, 2, 4)
    picked.output(0).get_tensor().set_names({"picked"})
    rows = opset5.gather_nd(
        joined, opset13.constant(np.array([[[1], [4]], [[0], [-2]]], np.int64)), 1
    )
    more_flags = opset1.concat([flags, opset13.constant(np.array([True, False]))], 0)
    half_rows = opset8.gather(
        halves, opset13.constant(np.array([3, -4, 9], np.int32)), opset13.constant(np.int64(0))
    )
    model = ov.Model([picked, rows, more_flags, half_rows], [x, y, indices, flags, halves])
    xml = save(model, str(tmp_path))
    inputs_file, output_file = tmp_path / "inputs.npz", tmp_path / "outputs.npz"
    np.savez(inputs_file, **values)

    result = invoke("execute", xml, "--inputs", inputs_file, "--output", output_file,
                    catch_exceptions=True)  # fmt: skip
    assert result.exit_code == 0, result.output + str(result.exception or "")
    with np.load(output_file, allow_pickle=False) as archive:
        written = {name: archive[name] for name in archive.files}
    expected = run_cpu(xml, values)
    assert sorted(written) == sorted(expected)
    assert_same_outputs({name: written[name] for name in expected}, expected)
