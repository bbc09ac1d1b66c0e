"""Time irrun's executor: dispatch per node, big data movement, real models; every figure a
ratio measured in the same run.

Run as ``python bench/bench_execute.py [--quick] [--real-models] [--threads N]``.

- **Dispatch**: a chain of N tiny elementwise layers (Add and Multiply by a constant on an
  ``f32[8]``; N = 10,000, 1,000 with ``--quick``) run through ``model.run`` (the compiled
  form), against the same computation as straight NumPy calls, OpenVINO's CPU plugin (f32,
  1 thread) and ``onnx.reference.ReferenceEvaluator`` on the same graph written as ONNX.
  µs per node, best of the repeats; also irrun's kernels alone (each layer's ``evaluate``
  called in a loop), so the executor's own share shows, and irrun validating on every run
  (``validate=True``, what ``run`` did before the compiled form).
- **Data movement**: a 256 MiB Concat and 1M-row Gather / GatherND / GatherElements through
  the compiled form writing into preallocated outputs (``run(..., out=)``), against the best
  NumPy formulation writing into a preallocated output; and, for context, irrun allocating
  its output against NumPy allocating its own.
- **Real models**: the small committed models of ``tests/real_models`` (static f32 and f16),
  and with ``--real-models`` full-size ResNet-50 and ResNet-18, MobileNetV3-large, BERT-base
  and GPT-2 small
  (sequence 128), built with random weights by :mod:`bench.build_real_models` in a Python that
  has torch and transformers (``--torch-python``; ``bench/requirements-real-models.txt``), IR
  and ONNX cached in a temporary folder. irrun's latency (median of at least 5 runs after a
  warm-up) against OpenVINO CPU f32, onnxruntime (when installed) and the reference
  evaluator on the ONNX export, all with the same threads (the reference's NumPy BLAS
  limited like irrun's; onnxruntime's threads told not to spin after a run, which took the
  cores of the next contender); and irrun's peak RSS, measured in a fresh
  process, against the weights it touches plus folded values plus the largest live set of
  tensors.

Goals (from the issue): dispatch ≤ 3 µs per node and ≥ 5× faster than the reference
evaluator; data movement ≤ 1.1× NumPy; real models ≤ 3× OpenVINO's latency, ≥ 10× faster than
the reference evaluator, peak RSS ≤ 1.5× (weights touched + largest live set). Each row says
whether its goal is met. ``--quick`` (for CI) runs small sizes and a few repeats: it proves
the script still works. Not a test.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import irrun  # noqa: E402
from irrun.execution import CompiledModel  # noqa: E402
from irrun.execution.threads import blas_threads  # noqa: E402

warnings.filterwarnings("ignore", message=".*openvino.runtime.*")
import openvino as ov  # noqa: E402
from openvino import opset1, opset8  # noqa: E402

REAL_MODELS = ROOT / "tests" / "real_models"
CACHE = Path(tempfile.gettempdir()) / "irrun-bench-models"


def best_of(function, repeat: int) -> float:
    """Best wall time of ``repeat`` calls (seconds)."""
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - started)
    return best


def interleaved(functions: dict, repeat: int) -> dict:
    """Best wall time of each function over ``repeat`` rounds, each round calling every
    function once in turn (seconds, by label)."""
    best = dict.fromkeys(functions, float("inf"))
    for _ in range(repeat):
        for label, function in functions.items():
            started = time.perf_counter()
            function()
            best[label] = min(best[label], time.perf_counter() - started)
    return best


def interleaved_medians(functions: dict, repeat: int) -> dict:
    """Median wall time of each function over ``repeat`` interleaved rounds, after one
    warm-up call of each (seconds, by label)."""
    times = {label: [] for label in functions}
    for function in functions.values():
        function()
    for _ in range(repeat):
        for label, function in functions.items():
            started = time.perf_counter()
            function()
            times[label].append(time.perf_counter() - started)
    return {label: statistics.median(values) for label, values in times.items()}


def goal(met: bool) -> str:
    return "goal met" if met else "GOAL MISSED"


def save(folder: Path, name: str, results, parameters) -> Path:
    path = folder / f"{name}.xml"
    ov.save_model(ov.Model(results, parameters, name), path, compress_to_fp16=False)
    return path


def openvino_request(path, threads: int):
    core = ov.Core()
    config = {"INFERENCE_PRECISION_HINT": "f32", "INFERENCE_NUM_THREADS": threads}
    compiled = core.compile_model(core.read_model(path), "CPU", config)
    return compiled.create_infer_request()


# -- dispatch ------------------------------------------------------------------------------------
def dispatch(folder: Path, nodes: int, repeat: int) -> dict:
    """µs per node of a chain of tiny Add/Multiply layers, irrun against the others."""
    import onnx
    from onnx import TensorProto, helper
    from onnx.reference import ReferenceEvaluator

    size = 8
    constant = np.full(size, 0.5, np.float32)
    x = opset1.parameter([size], np.float32, name="x")
    x.output(0).get_tensor().set_names({"x"})
    node, c = x, opset1.constant(constant)
    for index in range(nodes):
        node = opset1.add(node, c) if index % 2 == 0 else opset1.multiply(node, c)
    node.output(0).get_tensor().set_names({"y"})
    path = save(folder, "chain", [opset1.result(node)], [x])
    data = {"x": np.linspace(-1, 1, size, dtype=np.float32)}

    model = irrun.load(path)
    started = time.perf_counter()
    compiled = model.compile()
    compile_seconds = time.perf_counter() - started
    expected = model.run(data)["y"]
    kernels = [n.evaluate for n in compiled.program.fast]
    arguments = [data["x"], constant]

    def kernels_alone():
        for evaluate in kernels:
            evaluate(arguments)

    # The executor's own cost: a second compiled form whose kernels all return their
    # (right-shaped) first argument at once.
    stub = CompiledModel(model)
    for n in stub.program.fast:
        n.evaluate = _first_argument

    def straight_numpy():
        y = data["x"]
        for index in range(nodes):
            y = np.add(y, constant) if index % 2 == 0 else np.multiply(y, constant)
        return y

    assert np.array_equal(straight_numpy(), expected)
    request = openvino_request(path, 1)

    graph_nodes, previous = [], "x"
    for index in range(nodes):
        name = "y" if index == nodes - 1 else f"t{index}"
        graph_nodes.append(helper.make_node("Add" if index % 2 == 0 else "Mul",
                                            [previous, "c"], [name]))  # fmt: skip
        previous = name
    graph = helper.make_graph(
        graph_nodes,
        "chain",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [size])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [size])],
        [onnx.numpy_helper.from_array(constant, "c")],
    )
    reference = ReferenceEvaluator(
        helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    )
    (reference_y,) = reference.run(None, {"x": data["x"]})
    assert np.allclose(reference_y, expected)
    # Interleaved rounds: a burst of load on a shared machine then hits every contender alike.
    best = interleaved({
        "irrun": lambda: model.run(data),
        "irrun kernels alone": kernels_alone,
        "irrun executor alone": lambda: stub.run(data),
        "numpy": straight_numpy,
        "openvino": lambda: request.infer({"x": data["x"]}),
        "reference": lambda: reference.run(None, {"x": data["x"]}),
    }, repeat)  # fmt: skip
    irrun_time, kernel_time, executor_time = (best["irrun"], best["irrun kernels alone"],
                                              best["irrun executor alone"])  # fmt: skip
    numpy_time, openvino_time, reference_time = best["numpy"], best["openvino"], best["reference"]
    validating = best_of(lambda: model.run(data, validate=True), max(1, repeat // 3))

    per_node = {
        "irrun": irrun_time,
        "irrun kernels alone": kernel_time,
        "irrun executor alone (no-op kernels)": executor_time,
        "irrun validating each run": validating,
        "numpy": numpy_time,
        "openvino CPU 1 thread": openvino_time,
        "onnx reference evaluator": reference_time,
    }
    print(f"\ndispatch: a chain of {nodes:,} Add/Multiply layers on f32[{size}] "
          f"(compile {compile_seconds * 1e3:.0f} ms, once)")  # fmt: skip
    for label, seconds in per_node.items():
        print(f"  {label:<34} {seconds / nodes * 1e6:8.2f} µs/node")
    micro = irrun_time / nodes * 1e6
    executor = executor_time / nodes * 1e6
    speedup = reference_time / irrun_time
    print(
        f"  irrun's executor: {executor:.2f} µs/node (goal ≤ 3: {goal(executor <= 3)}, "
        f"stretch 2: {goal(executor <= 2)})"
    )
    print(f"  irrun with its kernels: {micro:.2f} µs/node (goal ≤ 3: {goal(micro <= 3)}); "
          f"{speedup:.1f}x faster than the reference evaluator (goal ≥ 5: {goal(speedup >= 5)}); "
          f"{irrun_time / numpy_time:.1f}x numpy, "
          f"{irrun_time / openvino_time:.1f}x OpenVINO")  # fmt: skip
    return {label: seconds / nodes * 1e6 for label, seconds in per_node.items()}


def _first_argument(arguments):
    return [arguments[0]]


# -- data movement -------------------------------------------------------------------------------
def data_movement(folder: Path, concat_mib: int, rows: int, repeat: int) -> dict:
    """The compiled path against the best NumPy formulation into a preallocated output."""
    rng = np.random.default_rng(0)
    figures = {}

    def row(title, path, feeds, numpy_variants, allocating, out):
        """``out``: the array the NumPy variants write into, which irrun is given too (the
        same pages, already faulted in, for both)."""
        model = irrun.load(path)
        compiled = model.compile()
        ((name, ours),) = model.run(feeds).items()
        for label, function in numpy_variants.items():
            assert np.array_equal(function(), ours), label
        given = {name: out}
        out[...] = 0
        assert model.run(feeds, out=given)[name] is out
        assert np.array_equal(out, ours)
        best = interleaved({"irrun out=": lambda: compiled.run(feeds, out=given),
                            "irrun": lambda: compiled.run(feeds), **numpy_variants,
                            "allocating": allocating}, repeat)  # fmt: skip
        into_time = best.pop("irrun out=")
        irrun_time = best.pop("irrun")
        allocating_time = best.pop("allocating")
        best_label = min(best, key=best.get)
        best_time = best[best_label]
        ratio = into_time / best_time
        # For context: without out=, irrun allocates its output as NumPy allocating does.
        allocating_ratio = irrun_time / allocating_time
        print(f"  {title:<44} irrun out= {into_time * 1e3:8.1f} ms  numpy into out "
              f"{best_time * 1e3:8.1f} ms ({best_label})  x{ratio:.2f} "
              f"(goal ≤ 1.1: {goal(ratio <= 1.1)})\n  {'':<44} irrun      "
              f"{irrun_time * 1e3:8.1f} ms  numpy allocating {allocating_time * 1e3:8.1f} ms"
              f"  x{allocating_ratio:.2f}")  # fmt: skip
        figures[title] = ratio
        figures[title + ", vs numpy allocating"] = allocating_ratio

    print(f"\ndata movement (best of {repeat})")
    half = concat_mib * (1 << 20) // 8 // 1024  # rows of 1024 f32 in each half
    a = rng.standard_normal((half, 1024), dtype=np.float32)
    b = rng.standard_normal((half, 1024), dtype=np.float32)
    pa, pb = (
        opset1.parameter(a.shape, np.float32, name="a"),
        opset1.parameter(b.shape, np.float32, name="b"),
    )
    path = save(folder, "concat", [opset1.result(opset1.concat([pa, pb], 0))], [pa, pb])
    out = np.empty((2 * half, 1024), np.float32)
    row(f"Concat {concat_mib} MiB", path, {"a": a, "b": b},
        {"np.concatenate(out=)": lambda: np.concatenate([a, b], 0, out=out)},
        lambda: np.concatenate([a, b], 0), out)  # fmt: skip

    data = rng.standard_normal((rows, 16), dtype=np.float32)
    indices = rng.integers(0, rows, rows)
    pd = opset1.parameter(data.shape, np.float32, name="data")
    pi = opset1.parameter(indices.shape, np.int64, name="indices")
    gathered = opset8.gather(pd, pi, opset1.constant(np.int64(0)))
    path = save(folder, "gather", [opset1.result(gathered)], [pd, pi])
    out = np.empty((rows, 16), np.float32)
    row(f"Gather {rows:,} rows of 16 f32", path, {"data": data, "indices": indices}, {
        f"np.take(out=, mode={mode!r})":
            (lambda mode=mode: np.take(data, indices, 0, out=out, mode=mode))
        for mode in ("raise", "wrap", "clip")}, lambda: np.take(data, indices, 0), out)  # fmt: skip

    tuples = indices.reshape(rows, 1)
    pt = opset1.parameter(tuples.shape, np.int64, name="tuples")
    path = save(folder, "gather_nd", [opset1.result(opset8.gather_nd(pd, pt, 0))], [pd, pt])
    row(f"GatherND {rows:,} 1-tuples into 16 f32", path, {"data": data, "tuples": tuples}, {
        "np.take(out=, mode='wrap')": lambda: np.take(data, tuples[:, 0], 0, out=out, mode="wrap"),
        "data[tuples[:, 0]]": lambda: data[tuples[:, 0]]},
        lambda: np.take(data, tuples[:, 0], 0), out)  # fmt: skip

    elements = rng.integers(0, 16, (rows, 16))
    pe = opset1.parameter(elements.shape, np.int64, name="elements")
    path = save(folder, "gather_elements",
                [opset1.result(opset8.gather_elements(pd, pe, 1))], [pd, pe])  # fmt: skip
    offsets = (np.arange(rows) * 16)[:, None]
    flat = data.reshape(-1)
    row(f"GatherElements {rows:,} rows, 16 along axis 1", path,
        {"data": data, "elements": elements}, {
            "np.take_along_axis": lambda: np.take_along_axis(data, elements, 1),
            "np.take(flat, offsets + idx, out=)": lambda: np.take(flat, elements + offsets, out=out,
                                                                  mode="wrap")},
        lambda: np.take_along_axis(data, elements, 1), out)  # fmt: skip
    return figures


# -- real models ---------------------------------------------------------------------------------
def real_model_row(name: str, xml: Path, inputs, threads: int, repeat: int, onnx_path=None) -> dict:
    """Latency of irrun, OpenVINO, onnxruntime and the reference evaluator on one model."""
    model = irrun.load(xml)
    feeds = dict(np.load(inputs)) if inputs is not None else model.random_inputs()
    started = time.perf_counter()
    compiled = model.compile()
    compile_seconds = time.perf_counter() - started
    ours = model.run(feeds, threads=threads)
    request = openvino_request(xml, threads)
    theirs = request.infer(feeds)
    contenders = {"irrun": lambda: model.run(feeds, threads=threads),
                  "openvino": lambda: request.infer(feeds)}  # fmt: skip
    onnx_feeds = None
    if onnx_path is not None and Path(onnx_path).exists():
        onnx_feeds = _onnx_feeds(onnx_path, feeds)
        try:
            import onnxruntime

            options = onnxruntime.SessionOptions()
            options.intra_op_num_threads = threads
            options.inter_op_num_threads = 1
            # Its worker threads would otherwise spin after each run, taking the cores of
            # the next contender in the round (irrun's BLAS threads at 2 threads: MobileNetV3
            # 42 ms instead of 20); without spinning onnxruntime is no slower.
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            options.add_session_config_entry("session.inter_op.allow_spinning", "0")
            session = onnxruntime.InferenceSession(str(onnx_path), options,
                                                   providers=["CPUExecutionProvider"])  # fmt: skip
            contenders["onnxruntime"] = lambda: session.run(None, onnx_feeds)
        except ImportError:
            pass
    medians = interleaved_medians(contenders, repeat)
    irrun_time, openvino_time = medians["irrun"], medians["openvino"]
    # Outputs in model order on both sides (Results in document order).
    pairs = zip(ours.values(), (np.asarray(theirs[o]) for o in request.model_outputs))
    difference = max((float(np.max(np.abs(a - b))) for a, b in pairs
                      if a.dtype.kind == "f" and a.shape == b.shape),
                     default=float("nan"))  # fmt: skip
    figures = {"irrun_ms": irrun_time * 1e3, "openvino_ms": openvino_time * 1e3,
               "compile_ms": compile_seconds * 1e3, "max_abs_diff": difference,
               "folded_mb": compiled.folded_bytes / 2**20}  # fmt: skip
    if "onnxruntime" in medians:
        figures["onnxruntime_ms"] = medians["onnxruntime"] * 1e3
    if onnx_feeds is not None:
        from onnx.reference import ReferenceEvaluator

        reference = ReferenceEvaluator(str(onnx_path))

        def run_reference():
            # Its NumPy BLAS gets the thread count every other contender has (NumPy's
            # default would give it all cores in a --threads 1 row).
            with blas_threads(threads):
                return reference.run(None, onnx_feeds)

        # Slow: two rounds, each beside an irrun run, and the ratio of the two bests.
        best = interleaved({"irrun": contenders["irrun"], "reference": run_reference}, 2)
        figures["reference_ms"] = best["reference"] * 1e3
        figures["reference_speedup"] = best["reference"] / best["irrun"]
    ratio = irrun_time / openvino_time
    line = (f"  {name:<28} irrun {irrun_time * 1e3:9.1f} ms  OpenVINO {openvino_time * 1e3:8.1f} ms"
            f"  x{ratio:5.1f} (goal ≤ 3: {goal(ratio <= 3)})")  # fmt: skip
    if "onnxruntime_ms" in figures:
        line += f"  onnxruntime {figures['onnxruntime_ms']:8.1f} ms"
    if "reference_ms" in figures:
        speedup = figures["reference_speedup"]
        line += (f"  reference {figures['reference_ms']:9.1f} ms: irrun {speedup:.1f}x faster "
                 f"(goal ≥ 10: {goal(speedup >= 10)})")  # fmt: skip
    print(line + f"  |max diff| {difference:.1e}")
    return figures


def _onnx_feeds(onnx_path, feeds) -> dict:
    import onnx

    graph = onnx.load(str(onnx_path), load_external_data=False).graph
    names = [i.name for i in graph.input]
    values = list(feeds.values())
    by_name = {name: feeds[name] for name in names if name in feeds}
    return by_name if len(by_name) == len(names) else dict(zip(names, values))


def peak_rss(xml: Path, inputs, threads: int) -> dict:
    """irrun's peak RSS in a fresh process, against what it must hold."""
    code = f"""
import json, sys
sys.path.insert(0, {str(ROOT)!r})
import numpy as np, irrun
def rss(field="VmRSS"):
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field):
                return int(line.split()[1]) * 1024
# Everything irrun imports to load, validate and run a model, before measuring.
warm = irrun.load('<layer id="1" name="n" type="Negative" version="opset1"><input><port id="0" '
                  'precision="FP32"><dim>1</dim></port></input><output><port id="1" '
                  'precision="FP32"><dim>1</dim></port></output></layer>')
warm.run()
import irrun.ops, irrun.validation
before = rss()
model = irrun.load({str(xml)!r})
feeds = dict(np.load({str(inputs)!r})) if {inputs is not None!r} else model.random_inputs()
compiled = model.compile()
live = compiled.peak_live_bytes(feeds)
model.run(feeds, threads={threads})
# (VmHWM, not ru_maxrss: that one keeps the peak of the parent this process was forked from)
peak = rss("VmHWM")
print(json.dumps({{"before": before, "peak": peak, "live": live, "weights": model.weights_size,
                  "folded": compiled.folded_bytes}}))
"""
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=3600
    )
    if done.returncode:
        raise RuntimeError(done.stderr[-2000:])
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    used = figures["peak"] - figures["before"]
    budget = figures["weights"] + figures["folded"] + figures["live"]
    figures["ratio"] = used / budget
    return figures


def print_rss(name: str, figures: dict) -> None:
    mib = 1 << 20
    used = (figures["peak"] - figures["before"]) / mib
    print(f"  {name:<28} peak RSS above start {used:8.1f} MiB;"
          f" weights {figures['weights'] / mib:.1f} + folded {figures['folded'] / mib:.1f} + "
          f"largest live set {figures['live'] / mib:.1f} MiB: x{figures['ratio']:.2f} "
          f"(goal ≤ 1.5: {goal(figures['ratio'] <= 1.5)})")  # fmt: skip


def committed_models(threads: int, repeat: int) -> dict:
    print(f"\nreal models in tests/real_models (threads {threads}, median of {repeat})")
    figures = {}
    folders = sorted(p for p in REAL_MODELS.iterdir() if p.is_dir() and "_static_" in p.name)
    for folder in folders:
        figures[folder.name] = real_model_row(folder.name, folder / "model.xml",
                                              folder / "inputs.npz", threads, repeat)  # fmt: skip
    for folder in folders[:2]:
        rss = peak_rss(folder / "model.xml", folder / "inputs.npz", threads)
        print_rss(folder.name, rss)
        figures[folder.name]["rss"] = rss
    return figures


def full_size_models(torch_python: str, threads: int, repeat: int, names) -> dict:
    """Build (once, cached) and time the full-size models."""
    CACHE.mkdir(exist_ok=True)
    built = subprocess.run([torch_python, str(ROOT / "bench" / "build_real_models.py"),
                            str(CACHE), *names], capture_output=True, text=True)  # fmt: skip
    if built.returncode:
        print(f"\nfull-size models: building failed:\n{built.stderr[-3000:]}")
        return {}
    manifest = json.loads(built.stdout.strip().splitlines()[-1])
    print(f"\nfull-size models, random weights (threads {threads}, median of {repeat}; "
          f"IR and ONNX cached in {CACHE})")  # fmt: skip
    figures = {}
    for name, entry in manifest.items():
        if "error" in entry:
            print(f"  {name:<28} not built: {entry['error']}")
            continue
        figures[name] = real_model_row(name, Path(entry["xml"]), entry["inputs"], threads, repeat,
                                       entry.get("onnx"))  # fmt: skip
    for name, entry in manifest.items():
        if "error" not in entry:
            rss = peak_rss(Path(entry["xml"]), entry["inputs"], threads)
            print_rss(name, rss)
            figures[name]["rss"] = rss
    return figures


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, few repeats (CI)")
    parser.add_argument("--repeat", type=int, default=None)
    parser.add_argument("--threads", type=int, default=1, help="threads of every runtime")
    parser.add_argument("--real-models", action="store_true",
                        help="also build and time the full-size models "
                        "(needs --torch-python)")  # fmt: skip
    parser.add_argument(
        "--torch-python",
        default=sys.executable,
        help="a Python with torch and transformers, to build the models",
    )
    parser.add_argument(
        "--models",
        nargs="*",
        default=["resnet50", "resnet18", "mobilenet_v3_large", "bert_base", "gpt2_small"],
    )
    parser.add_argument("--json", metavar="FILE", help="also write every figure to this file")
    args = parser.parse_args(argv)
    repeat = args.repeat or (3 if args.quick else 10)
    print(
        f"irrun {irrun.__version__}, OpenVINO {ov.get_version().split('-')[0]}, "
        f"numpy {np.__version__}"
    )
    figures = {}
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        figures["dispatch"] = dispatch(folder, 1000 if args.quick else 10_000, repeat)
        figures["data_movement"] = data_movement(
            folder, 8 if args.quick else 256, 20_000 if args.quick else 1_000_000, repeat
        )
    figures["committed_models"] = committed_models(
        args.threads, 3 if args.quick else max(5, repeat)
    )
    if args.real_models:
        figures["full_size_models"] = full_size_models(args.torch_python, args.threads,
                                                       max(5, repeat), args.models)  # fmt: skip
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1, default=float))


if __name__ == "__main__":
    main()
