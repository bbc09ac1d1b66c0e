"""``evaluate_into`` of each op that has one equals its ``evaluate`` exactly, written into a
fresh array or (element-wise ops) into an input; the executor uses it only where the op
writes the result itself."""

import ml_dtypes
import numpy as np
import pytest

import irrun
from irrun.execution.engine import _has_into, _into_of
from irrun.ops import _elementwise
from irrun.ops.registry import resolve

PRECISIONS = {
    np.dtype(np.float32): "FP32",
    np.dtype(np.float64): "FP64",
    np.dtype(np.float16): "FP16",
    np.dtype(ml_dtypes.bfloat16): "BF16",
    np.dtype(np.int8): "I8",
    np.dtype(np.int32): "I32",
    np.dtype(np.int64): "I64",
    np.dtype(np.uint8): "U8",
    np.dtype(bool): "BOOL",
}


def _port(index, dtype, shape):
    dims = "".join(f"<dim>{d}</dim>" for d in shape)
    return f'<port id="{index}" precision="{PRECISIONS[np.dtype(dtype)]}">{dims}</port>'


def op_of(op_type, version, inputs, out_dtype, out_shape, data=""):
    """The built op of a one-layer fragment taking arrays like ``inputs``."""
    ports = "".join(_port(i, a.dtype, a.shape) for i, a in enumerate(inputs))
    model = irrun.load(
        f'<layer id="1" name="op" type="{op_type}" version="opset{version}">{data}'
        f"<input>{ports}</input><output>{_port(len(inputs), out_dtype, out_shape)}</output>"
        "</layer>"
    )
    (node,) = [n for n in model.compile().program.nodes if n.op is not None]
    return node.op


def exactly(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def into_fresh(op, inputs):
    (expected,) = op.evaluate(inputs)
    out = np.empty_like(expected)
    op.evaluate_into(inputs, [out])
    return expected, out


RNG = np.random.default_rng(7)
FLOATS = np.array([-2.5, -0.0, 0.0, 1.5, np.inf, -np.inf, np.nan, 3e38], np.float32)
INTS8 = np.array([-128, -1, 0, 1, 127, 100, -100, 5], np.int8)
HALVES = np.array([-2.5, -0.0, 0.0, 1.5, np.inf, -np.inf, np.nan, 6e4], np.float16)
BOOLS = np.array([True, False, True, False, True, True, False, False])

BINARY = ["Add", "Subtract", "Multiply", "Less", "LessEqual", "Greater", "GreaterEqual",
          "Equal", "NotEqual"]  # fmt: skip


@pytest.mark.parametrize("op_type", BINARY)
@pytest.mark.parametrize("values", [FLOATS, INTS8, HALVES],
                         ids=["f32", "i8 (wraps)", "f16"])  # fmt: skip
def test_binary_evaluate_into_equals_evaluate(op_type, values):
    a, b = values, np.roll(values, 3)
    boolean = op_type not in ("Add", "Subtract", "Multiply")
    op = op_of(op_type, 1, [a, b], bool if boolean else a.dtype, a.shape)
    assert op.writes_into and _into_of(op, [(0, a.shape, np.dtype(bool if boolean else a.dtype))])
    expected, got = into_fresh(op, [a, b])
    assert exactly(got, expected)
    if not boolean:  # in place into either input
        for position in (0, 1):
            inputs = [a.copy(), b.copy()]
            op.evaluate_into(inputs, [inputs[position]])
            assert exactly(inputs[position], expected)


@pytest.mark.parametrize("op_type", ["LogicalAnd", "LogicalOr", "LogicalXor"])
def test_logical_evaluate_into_equals_evaluate(op_type):
    a, b = BOOLS, np.roll(BOOLS, 1)
    op = op_of(op_type, 1 if op_type != "LogicalXor" else 2, [a, b], bool, a.shape)
    expected, got = into_fresh(op, [a, b])
    assert exactly(got, expected)
    target = a.copy()
    op.evaluate_into([target, b], [target])
    assert exactly(target, expected)


@pytest.mark.parametrize("op_type", ["BitwiseAnd", "BitwiseOr", "BitwiseXor"])
def test_bitwise_evaluate_into_equals_evaluate(op_type):
    a, b = INTS8, np.roll(INTS8, 2)
    op = op_of(op_type, 13, [a, b], a.dtype, a.shape)
    expected, got = into_fresh(op, [a, b])
    assert exactly(got, expected)


def test_binary_evaluate_into_broadcasts_numpy_and_pdpd():
    a = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    b = RNG.standard_normal((3, 1)).astype(np.float32)
    op = op_of("Add", 1, [a, b], a.dtype, a.shape)
    expected, got = into_fresh(op, [a, b])
    assert exactly(got, expected)
    row = RNG.standard_normal(3).astype(np.float32)
    attributes = '<data auto_broadcast="pdpd" auto_broadcast.auto_broadcast_axis="1"/>'
    pdpd = op_of("Subtract", 1, [a, row], a.dtype, a.shape, attributes)
    expected, got = into_fresh(pdpd, [a, row])
    assert exactly(got, expected)
    inputs = [a.copy(), row]
    pdpd.evaluate_into(inputs, [inputs[0]])
    assert exactly(inputs[0], expected)


@pytest.mark.parametrize(("op_type", "values"), [
    ("Negative", INTS8), ("Negative", FLOATS), ("Abs", INTS8), ("Abs", FLOATS),
    ("BitwiseNot", INTS8), ("Exp", FLOATS), ("Sqrt", FLOATS), ("Sin", FLOATS.astype(np.float64)),
    ("Tanh", FLOATS), ("Log", FLOATS),
    ("Relu", FLOATS), ("Relu", HALVES), ("Relu", INTS8),
    ("Relu", FLOATS.astype(ml_dtypes.bfloat16)),
])  # fmt: skip
def test_unary_evaluate_into_equals_evaluate_also_in_place(op_type, values):
    version = 13 if op_type == "BitwiseNot" else 1
    op = op_of(op_type, version, [values], values.dtype, values.shape)
    assert op.writes_into
    _into_fresh_and_in_place_equal_evaluate(op, values)


def _into_fresh_and_in_place_equal_evaluate(op, values):
    """``evaluate_into`` a fresh array, and into the input itself, equals ``evaluate``."""
    expected, got = into_fresh(op, [values])
    assert exactly(got, expected)
    target = values.copy()
    op.evaluate_into([target], [target])
    assert exactly(target, expected)


@pytest.mark.parametrize(("op_type", "values"), [
    ("Exp", HALVES),  # computed in f32, rounded once: not the f16 ufunc
    ("Exp", INTS8),  # computed in f64 and rounded to the integer
    ("Negative", FLOATS.astype(ml_dtypes.bfloat16)),  # not one of NumPy's own dtypes
])  # fmt: skip
def test_unary_evaluate_into_falls_back_where_the_ufunc_would_differ(op_type, values):
    op = op_of(op_type, 1, [values], values.dtype, values.shape)
    _into_fresh_and_in_place_equal_evaluate(op, values)


@pytest.mark.parametrize(("op_type", "inputs"), [
    ("Maximum", [FLOATS, np.roll(FLOATS, 1)]), ("Floor", [INTS8]),
    ("Sigmoid", [FLOATS]), ("Divide", [FLOATS, np.roll(FLOATS, 1)]),
])  # fmt: skip
def test_ops_whose_compute_is_not_one_ufunc_compute_and_copy(op_type, inputs):
    op = op_of(op_type, 1, inputs, inputs[0].dtype, inputs[0].shape)
    assert not op.writes_into
    assert _into_of(op, [(0, inputs[0].shape, inputs[0].dtype)]) is None  # the executor skips
    expected, got = into_fresh(op, inputs)
    assert exactly(got, expected)


def test_a_subclass_overriding_compute_or_evaluate_is_not_taken_for_a_ufunc():
    add = resolve("Add", 1)

    class Doubled(add):
        def compute(self, a, b):
            return 2 * np.add(a, b)

    class Evaluated(add):
        def evaluate(self, inputs):
            return [np.zeros_like(inputs[0])]

    assert _elementwise._ufunc_of(add) is np.add
    assert _elementwise._ufunc_of(Doubled) is None
    assert _elementwise._ufunc_of(Evaluated) is None
    assert _has_into(add) and _has_into(Doubled) and not _has_into(Evaluated)


def test_the_ops_whose_kernel_is_one_ufunc_write_with_it():
    """The element-wise ops that declare their ufunc are written into with it; ops whose
    kernel is more than a ufunc call compute and copy."""
    declared = {(cls.type, cls.version): cls.ufunc for cls in _registered_elementwise()
                if cls.__dict__.get("ufunc") is not None}  # fmt: skip
    assert declared == {
        ("Add", 1): np.add, ("Subtract", 1): np.subtract, ("Multiply", 1): np.multiply,
        ("LogicalAnd", 1): np.logical_and, ("LogicalOr", 1): np.logical_or,
        ("LogicalXor", 2): np.logical_xor, ("Less", 1): np.less,
        ("LessEqual", 1): np.less_equal, ("Greater", 1): np.greater,
        ("GreaterEqual", 1): np.greater_equal, ("Equal", 1): np.equal,
        ("NotEqual", 1): np.not_equal, ("BitwiseAnd", 13): np.bitwise_and,
        ("BitwiseOr", 13): np.bitwise_or, ("BitwiseXor", 13): np.bitwise_xor,
        ("Negative", 1): np.negative, ("Abs", 1): np.abs, ("BitwiseNot", 13): np.invert,
    }  # fmt: skip
    by_type = {(cls.type, cls.version): cls for cls in _registered_elementwise()}
    for key, ufunc in declared.items():
        assert _elementwise._ufunc_of(by_type[key]) is ufunc, key
    # Xor-1 inherits LogicalXor's ufunc; Divide's kernel is more than a ufunc call.
    assert _elementwise._ufunc_of(by_type["Xor", 1]) is np.logical_xor
    assert _elementwise._ufunc_of(by_type["Divide", 1]) is None


def _registered_elementwise():
    """Every registered element-wise op class (the op modules imported)."""
    import irrun.ops  # noqa: F401 - registers every op
    from irrun.ops.registry import _REGISTRY

    return [cls for versions in _REGISTRY.values() for cls in versions.values()
            if issubclass(cls, (_elementwise.BinaryOp, _elementwise.UnaryOp))]  # fmt: skip


def test_strings_and_objects_are_computed_and_copied_by_the_executor():
    strings = np.array(["a", "bc", "d"], np.dtypes.StringDType())
    gather = resolve("Gather", 8)
    assert _has_into(gather)
    # evaluate_into works on them, but the executor computes and copies (no out= kernels for
    # variable-size elements).
    for dtype in (strings.dtype, np.dtype(object), np.dtype("<U3")):
        outs = [(0, (3,), dtype)]
        op = object.__new__(gather)
        assert _into_of(op, outs) is None
    assert _into_of(object.__new__(gather), [(0, (3,), np.dtype(np.float32))]) is not None


def test_gather_concat_and_gather_nd_ops_evaluate_into_equals_evaluate():
    data = np.arange(24, dtype=np.float32).reshape(4, 6)
    indices = np.array([[3, -1], [9, 0]], np.int64)  # 9 is out of range: Gather-8 gives zeros
    axis = np.array(0, np.int64)
    op = op_of("Gather", 8, [data, indices, axis], data.dtype, (2, 2, 6),
               '<data batch_dims="0"/>')  # fmt: skip
    expected, got = into_fresh(op, [data, indices, axis])
    assert exactly(got, expected) and not expected[1, 0].any()
    concat = op_of("Concat", 1, [data, data[:1]], data.dtype, (5, 6), '<data axis="0"/>')
    expected, got = into_fresh(concat, [data, data[:1]])
    assert exactly(got, expected)
    tuples = np.array([[1, 2], [-1, 0]], np.int64)
    nd = op_of("GatherND", 8, [data, tuples], data.dtype, (2,), '<data batch_dims="0"/>')
    expected, got = into_fresh(nd, [data, tuples])
    assert exactly(got, expected)
    elements = np.array([[0, 5], [1, 1], [2, 0], [3, -1]], np.int64)
    ge = op_of("GatherElements", 6, [data, elements], data.dtype, (4, 2), '<data axis="1"/>')
    expected, got = into_fresh(ge, [data, elements])
    assert exactly(got, expected)


def _conv_data(op_type, groups, spatial, kernel, strides, pads):
    data = RNG.standard_normal((2, 4, *spatial)).astype(np.float32)
    if op_type == "Convolution":
        filters = RNG.standard_normal((6, 4, *kernel)).astype(np.float32)
    else:
        filters = RNG.standard_normal((groups, 6 // groups, 4 // groups, *kernel)).astype(
            np.float32
        )
    attributes = (f'<data strides="{",".join(map(str, strides))}" '
                  f'pads_begin="{",".join(map(str, pads))}" pads_end="{",".join(map(str, pads))}" '
                  f'dilations="{",".join("1" * len(kernel))}" auto_pad="explicit"/>')  # fmt: skip
    out = [(s + 2 * p - k) // st + 1 for s, p, k, st in zip(spatial, pads, kernel, strides)]
    return data, filters, attributes, (2, 6, *out)


@pytest.mark.parametrize(
    "op_type, groups, kernel, strides, pads",
    [
        ("Convolution", 1, (3, 3), (1, 1), (1, 1)),  # im2col GEMM
        ("Convolution", 1, (1, 1), (2, 2), (0, 0)),  # pointwise, strided
        ("Convolution", 1, (1, 1), (1, 1), (0, 0)),  # pointwise on the data itself
        ("GroupConvolution", 2, (3, 3), (2, 2), (1, 1)),  # tap columns
        ("GroupConvolution", 2, (1, 1), (1, 1), (0, 0)),  # pointwise, grouped
    ],
)
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32])
def test_convolution_evaluate_into_equals_evaluate(op_type, groups, kernel, strides, pads, dtype):
    data, filters, attributes, shape = _conv_data(op_type, groups, (7, 6), kernel, strides, pads)
    if np.dtype(dtype).kind == "i":
        data, filters = (np.rint(a * 3) for a in (data, filters))
    data, filters = data.astype(dtype), filters.astype(dtype)
    op = op_of(op_type, 1, [data, filters], data.dtype, shape, attributes)
    expected, got = into_fresh(op, [data, filters])
    assert exactly(got, expected)
    # a non-contiguous out (e.g. a caller's out= array) is filled as well
    wide = np.zeros((*shape[:-1], shape[-1] * 2), dtype)
    op.evaluate_into([data, filters], [wide[..., ::2]])
    assert exactly(np.ascontiguousarray(wide[..., ::2]), expected) and not wide[..., 1::2].any()


def test_convolution_evaluate_into_in_row_tiles(monkeypatch):
    """An im2col matrix beyond TILE_BYTES is built per tile of rows, written into out."""
    from irrun.ops import _conv_kernel

    data, filters, attributes, shape = _conv_data("Convolution", 1, (9, 5), (3, 3), (1, 1),
                                                  (1, 1))  # fmt: skip
    op = op_of("Convolution", 1, [data, filters], data.dtype, shape, attributes)
    monkeypatch.setattr(_conv_kernel, "TILE_BYTES", 1)
    expected, got = into_fresh(op, [data, filters])
    assert exactly(got, expected)


@pytest.mark.parametrize(
    "a_shape, b_shape, transpose_a, transpose_b",
    [
        ((3, 5), (5, 4), False, False),
        ((2, 3, 5), (4, 5), False, True),
        ((5, 3), (2, 1, 5, 4), True, False),
        ((5,), (5, 4), False, False),  # 1-D inputs: computed and copied
        ((3, 5), (5,), False, False),
    ],
)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int32, np.int8])
def test_matmul_evaluate_into_equals_evaluate(a_shape, b_shape, transpose_a, transpose_b,
                                              dtype):  # fmt: skip
    a = np.rint(RNG.standard_normal(a_shape) * 3).astype(dtype)
    b = np.rint(RNG.standard_normal(b_shape) * 3).astype(dtype)
    if np.dtype(dtype).kind == "f":
        a, b = (RNG.standard_normal(s).astype(dtype) for s in (a_shape, b_shape))
    left = np.swapaxes(a, -1, -2) if transpose_a and a.ndim > 1 else a
    right = np.swapaxes(b, -1, -2) if transpose_b and b.ndim > 1 else b
    shape = np.matmul(left.astype(np.float64), right.astype(np.float64)).shape
    data = (f'<data transpose_a="{str(transpose_a).lower()}" '
            f'transpose_b="{str(transpose_b).lower()}"/>')  # fmt: skip
    op = op_of("MatMul", 1, [a, b], a.dtype, shape, data)
    expected, got = into_fresh(op, [a, b])
    assert exactly(got, expected)


def test_convolution_and_matmul_write_fresh_arrays():
    """The executor lets the element-wise layer after them run in place."""
    from irrun.execution.engine import _writes_fresh

    data, filters, attributes, shape = _conv_data("Convolution", 1, (7, 6), (3, 3), (1, 1),
                                                  (1, 1))  # fmt: skip
    assert _writes_fresh(op_of("Convolution", 1, [data, filters], data.dtype, shape, attributes))
    data, filters, attributes, shape = _conv_data("GroupConvolution", 2, (7, 6), (3, 3), (1, 1),
                                                  (1, 1))  # fmt: skip
    assert _writes_fresh(op_of("GroupConvolution", 1, [data, filters], data.dtype, shape,
                               attributes))  # fmt: skip
    a = np.ones((2, 3), np.float32)
    assert _writes_fresh(op_of("MatMul", 1, [a, a.T], a.dtype, (2, 2)))
