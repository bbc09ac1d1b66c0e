"""Time irrun's Convolution, GroupConvolution and MatMul kernels against OpenVINO's CPU plugin
and against the same computation written as one numpy call.

Run as ``python bench/bench_compute.py [--repeat N] [--quick]``. Every case is timed with
``time.perf_counter``, best of N rounds (each round calls the numpy-side functions in
turn), in one run:

- ``irrun``: the op's ``evaluate`` on numpy arrays (the op built from a one-layer IR);
- ``irrun run``: ``Model.run`` of that one-layer IR (the kernel plus the executor's checks);
- ``openvino``: the one-layer model compiled for CPU with ``INFERENCE_PRECISION_HINT=f32``
  and ``INFERENCE_NUM_THREADS`` equal to the BLAS threads numpy uses (printed), one
  ``infer`` call per repeat on a reused request;
- ``numpy``: for a convolution one ``np.einsum(..., optimize=True)`` over the padded window
  view, for MatMul ``np.matmul``.

Each row prints the times and the ratios irrun / openvino and irrun / numpy, and the largest
difference from OpenVINO relative to ``sqrt(K) * max|x| * max|w|`` (what the op docstrings'
tolerances are stated in). ``--quick`` runs small sizes and one repeat (for CI: it proves the
script still works). Not a test.

``--breakdown MODEL.xml [--inputs NPZ] [--threads N]`` times a whole model instead, per op
type: irrun's time in each layer (``Model.run(on_step=...)``, best of ``--repeat`` runs per
layer) beside OpenVINO's (its CPU plugin's ``PERF_COUNT`` profile of its fastest run, same
threads; the plugin fuses activations and biases into the layer before them, which then
show 0), to see where a model's time goes.
"""

from __future__ import annotations

import argparse
import ctypes
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import irrun  # noqa: E402
from irrun.ops import OpContext  # noqa: E402
from irrun.ops._windows import pad_array, window_view  # noqa: E402
from irrun.ops.registry import resolve_layer  # noqa: E402

warnings.filterwarnings("ignore", message=".*openvino.runtime.*")
import openvino as ov  # noqa: E402
import openvino.opset1 as ops  # noqa: E402


def blas_threads() -> int:
    """The thread count of the OpenBLAS numpy is linked with (1 when it cannot be read)."""
    np.ones((2, 2)) @ np.ones((2, 2))
    with open("/proc/self/maps") as maps:
        paths = sorted({line.split()[-1] for line in maps if "openblas" in line.lower()})
    for path in paths:
        library = ctypes.CDLL(path)
        for name in (
            "scipy_openblas_get_num_threads64_",
            "openblas_get_num_threads64_",
            "openblas_get_num_threads",
        ):
            function = getattr(library, name, None)
            if function is not None:
                return int(function())
    return 1


def best_of(function, repeat: int) -> float:
    """Best time of ``repeat`` calls, in milliseconds (after one warm-up call)."""
    return best_of_each([function], repeat)[0]


def best_of_each(functions, repeat: int) -> list[float]:
    """Best time of each function over ``repeat`` rounds that call each once in turn (so that
    a burst of load from elsewhere on the machine hits all of them alike), in milliseconds."""
    best = [float("inf")] * len(functions)
    for function in functions:
        function()
    for _ in range(repeat):
        for index, function in enumerate(functions):
            start = time.perf_counter()
            function()
            best[index] = min(best[index], time.perf_counter() - start)
    return [b * 1e3 for b in best]


def conv_case(name, data_shape, filter_shape, strides, pads, groups=1):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(data_shape, dtype=np.float32)
    w = rng.standard_normal(filter_shape, dtype=np.float32)
    param = ops.parameter(data_shape, ov.Type.f32, name="x")
    if groups == 1:
        node = ops.convolution(param, ops.constant(w), strides, pads, pads, [1, 1])
    else:
        node = ops.group_convolution(param, ops.constant(w), strides, pads, pads, [1, 1])

    def einsum():
        padded = pad_array(x, pads, pads, 0)
        kernel = filter_shape[-2:]
        out = [(p - k) // s + 1 for p, k, s in zip(padded.shape[2:], kernel, strides)]
        view = window_view(padded, out, kernel, strides, [1, 1])
        if groups == 1:
            return np.einsum("ncxykl,ockl->noxy", view, w, optimize=True)
        n, c = view.shape[:2]
        grouped = view.reshape(n, groups, c // groups, *view.shape[2:])
        result = np.einsum("ngcxykl,gockl->ngoxy", grouped, w, optimize=True)
        return result.reshape(n, -1, *result.shape[3:])

    depth = int(np.prod(filter_shape[-3:]))
    return name, node, {"x": x}, [x, w], einsum, depth, np.abs(w).max()


def matmul_case(name, a_shape, b_shape, constant_b):
    rng = np.random.default_rng(1)
    a = rng.standard_normal(a_shape, dtype=np.float32)
    b = rng.standard_normal(b_shape, dtype=np.float32)
    pa = ops.parameter(a_shape, ov.Type.f32, name="a")
    if constant_b:
        node = ops.matmul(pa, ops.constant(b), False, False)
        feeds = {"a": a}
    else:
        node = ops.matmul(pa, ops.parameter(b_shape, ov.Type.f32, name="b"), False, False)
        feeds = {"a": a, "b": b}
    return name, node, feeds, [a, b], lambda: np.matmul(a, b), a_shape[-1], np.abs(b).max()


def cases(quick: bool):
    if quick:
        return [
            conv_case("conv 3x3 1x16x14x14 -> 16", [1, 16, 14, 14], [16, 16, 3, 3], [1, 1], [1, 1]),
            conv_case(
                "depthwise 3x3 1x16x14x14",
                [1, 16, 14, 14],
                [16, 1, 1, 3, 3],
                [1, 1],
                [1, 1],
                groups=16,
            ),
            matmul_case("matmul [1,16,64]x[64,64]", [1, 16, 64], [64, 64], True),
        ]
    return [
        conv_case(
            "conv 3x3 1x64x56x56 -> 64 (ResNet)", [1, 64, 56, 56], [64, 64, 3, 3], [1, 1], [1, 1]
        ),
        conv_case("conv 1x1 1x256x56x56 -> 64", [1, 256, 56, 56], [64, 256, 1, 1], [1, 1], [0, 0]),
        conv_case(
            "conv 7x7/2 stem 1x3x224x224 -> 64", [1, 3, 224, 224], [64, 3, 7, 7], [2, 2], [3, 3]
        ),
        conv_case(
            "depthwise 3x3 1x144x56x56 (MobileNet)",
            [1, 144, 56, 56],
            [144, 1, 1, 3, 3],
            [1, 1],
            [1, 1],
            groups=144,
        ),
        conv_case(
            "group conv 3x3 1x128x28x28, 32 groups",
            [1, 128, 28, 28],
            [32, 4, 4, 3, 3],
            [1, 1],
            [1, 1],
            groups=32,
        ),
        matmul_case("matmul [1,128,768]x[768,768]", [1, 128, 768], [768, 768], True),
        matmul_case("attention [12,128,64]x[12,64,128]", [12, 128, 64], [12, 64, 128], False),
    ]


def run_case(case, repeat, threads, core, folder):
    name, node, feeds, arrays, baseline, depth, w_max = case
    model = ov.Model(node.outputs(), [p for p in _parameters(node)], name.split()[0])
    path = Path(folder) / "model.xml"
    ov.save_model(model, str(path), compress_to_fp16=False)
    loaded = irrun.load(path)
    loaded.validate()
    layer = next(
        layer for layer in loaded.layers if layer.type not in ("Parameter", "Const", "Result")
    )
    op = resolve_layer(layer)(layer, OpContext())
    kernel = lambda: op.evaluate(arrays)  # noqa: E731
    run = lambda: loaded.run(feeds)  # noqa: E731
    # numpy first: OpenVINO's worker threads keep spinning for a while after an inference
    # and would steal the cores BLAS needs (which made numpy's times jump 10x at random)
    mine = kernel()[0]
    times = best_of_each([kernel, run, baseline], repeat)
    config = {"INFERENCE_NUM_THREADS": threads, "INFERENCE_PRECISION_HINT": "f32"}
    compiled = core.compile_model(model, "CPU", config)
    request = compiled.create_infer_request()
    by_name = {i.get_node().get_friendly_name(): i for i in compiled.inputs}
    ov_feeds = {by_name[k]: v for k, v in feeds.items()}
    theirs = np.array(request.infer(ov_feeds)[compiled.outputs[0]])
    times.insert(2, best_of(lambda: request.infer(ov_feeds), repeat))
    time.sleep(0.3)  # let OpenVINO's threads go idle before the next case's numpy timings
    scale = np.sqrt(depth) * np.abs(arrays[0]).max() * w_max
    error = float(np.abs(mine - theirs).max() / scale)
    return name, times, error


def _parameters(node):
    seen, stack, found = set(), [node], []
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if current.get_type_name() == "Parameter":
            found.append(current)
        stack.extend(i.get_source_output().get_node() for i in current.inputs())
    return sorted(found, key=lambda p: p.get_friendly_name())


def breakdown(xml: str, inputs, threads: int, repeat: int) -> None:
    """Print a model's time per op type in irrun and in OpenVINO's CPU plugin."""
    from collections import Counter, defaultdict

    model = irrun.load(xml)
    feeds = dict(np.load(inputs)) if inputs else model.random_inputs()
    layer_best: dict = {}

    def record(step):
        if step.layer.type not in ("Const", "Parameter", "Result"):
            key = id(step.layer)
            layer_best[key] = (step.layer.type, min(step.seconds, layer_best.get(key, (0, 1e9))[1]))

    model.run(feeds, threads=threads)  # warm-up
    for _ in range(repeat):
        model.run(feeds, threads=threads, on_step=record)
    ours, counts = defaultdict(float), Counter()
    for kind, seconds in layer_best.values():
        ours[kind] += seconds * 1e3
        counts[kind] += 1
    config = {"INFERENCE_NUM_THREADS": threads, "INFERENCE_PRECISION_HINT": "f32",
              "PERF_COUNT": "YES"}  # fmt: skip
    request = ov.Core().compile_model(xml, "CPU", config).create_infer_request()
    fastest = None
    for _ in range(max(repeat, 3)):
        start = time.perf_counter()
        request.infer(feeds)
        took = time.perf_counter() - start
        if fastest is None or took < fastest[0]:
            fastest = (took, request.get_profiling_info())
    theirs = defaultdict(float)
    for info in fastest[1]:
        kind = "MatMul" if info.node_type == "FullyConnected" else info.node_type
        theirs[kind] += info.real_time.total_seconds() * 1e3
    print(f"{xml}: threads {threads}, best of {repeat} per layer, ms")
    print(f"{'op type':<28} {'layers':>6} {'irrun':>9} {'openvino':>9} {'ratio':>7}")
    for kind in sorted(ours, key=lambda k: -ours[k]):
        other = theirs.get(kind, 0.0)
        ratio = f"{ours[kind] / other:7.1f}" if other > 0 else f"{'-':>7}"
        print(f"{kind:<28} {counts[kind]:6d} {ours[kind]:9.2f} {other:9.2f} {ratio}")
    rest = sum(v for k, v in theirs.items() if k not in ours)
    print(f"{'(OpenVINO only: reorders...)':<28} {'':6} {'':9} {rest:9.2f}")
    print(f"{'sum of layers':<28} {sum(counts.values()):6d} {sum(ours.values()):9.2f} "
          f"{sum(theirs.values()):9.2f}")  # fmt: skip


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="small sizes, one repeat")
    parser.add_argument("--breakdown", metavar="MODEL.xml", help="time one model per op type")
    parser.add_argument("--inputs", metavar="NPZ", help="with --breakdown: the model's inputs")
    parser.add_argument("--threads", type=int, default=1, help="with --breakdown")
    args = parser.parse_args(argv)
    repeat = 1 if args.quick else args.repeat
    if args.breakdown:
        breakdown(args.breakdown, args.inputs, args.threads, repeat)
        return
    threads = blas_threads()
    print(
        f"threads: numpy BLAS {threads}, OpenVINO INFERENCE_NUM_THREADS {threads}; "
        f"best of {repeat}, ms"
    )
    header = (
        f"{'case':<42} {'irrun':>8} {'irrun run':>10} {'openvino':>9} {'numpy':>8} "
        f"{'/openvino':>9} {'/numpy':>7} {'err/scale':>10}"
    )
    print(header)
    core = ov.Core()
    for case in cases(args.quick):
        with tempfile.TemporaryDirectory() as folder:
            name, (kernel, run, openvino, baseline), error = run_case(
                case, repeat, threads, core, folder
            )
        print(
            f"{name:<42} {kernel:8.2f} {run:10.2f} {openvino:9.2f} {baseline:8.2f} "
            f"{kernel / openvino:9.2f} {kernel / baseline:7.2f} {error:10.1e}"
        )


if __name__ == "__main__":
    main()
