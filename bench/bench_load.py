"""How fast, and in how much memory, irrun loads a large IR, against a floor and OpenVINO.

Run: python bench/bench_load.py [--sizes 1000 10000 50000] [--repeat 3] [--keep DIR]

For each size N the script writes an IR v11 file of exactly N layers (a Parameter, blocks of
Const indices -> two Gather-8 -> Concat, and a few Results, as a converted model has them) plus
its .bin, then times, best of ``--repeat``:

* irrun: ``irrun.load(xml)`` with the reader's accelerator (:mod:`irrun.ir.accelerator`) when
  it is built, and ``pure``: the same in pure Python (the accelerator off); for information,
  ``load`` followed by ``model.graph``;
* the floor: ``lxml.etree.parse`` of the file plus a bare ``networkx.MultiDiGraph`` with one node
  per layer and one edge per ``<edge>``, read from the tree with the least possible work;
* OpenVINO: ``openvino.Core().read_model(xml)``.

Peak RSS is measured for the largest size, each case in a fresh interpreter:
``ru_maxrss`` after the work minus ``ru_maxrss`` of an interpreter that only imported the
same modules.

Goals: irrun load <= OpenVINO read_model and <= 2x the floor; irrun RSS <= 1.5x the floor's.

Last measured (2 cores shared with other work; python 3.11.7, openvino 2026.4.1), irrun / OpenVINO
``read_model`` at 1k / 10k / 50k layers, best of 7:

* ``--clock cpu``: with the accelerator 0.86 / 0.91 / 0.81 (before the reader had one layer
  reader: 0.84 / 0.95 / 0.85), pure Python 1.61 / 1.39 / 1.38 (before: 1.52 / 1.84 / 1.28);
* wall clock, machine load average 4-10: 0.59 / 1.00 / 1.66, pure 2.17 / 1.73 / 2.43 (the
  helper parse thread needs a free core); on a quiet machine 0.43 / 1.06 / 0.74;
* peak RSS at 50k layers: 1.20x the floor with the accelerator (433 MiB, as before), 1.26x
  without; OpenVINO 0.73x.

Pure-Python designs weighed against the accelerator: expat with a Python callback per element
start takes 12 / 172 / 1,797 ms only to parse, an lxml parser target 9 / 219 / 1,554 ms, where
the accelerated load takes 10 / 165 / 870 ms (CPU); walking lxml's tree in Python is 1.5-2.2x
the accelerated load. None is within 1.3x, so the accelerator stays (``IRRUN_NO_ACCELERATOR=1``
turns it off).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BLOCK_LAYERS = 6  # Const idx A, Const idx B, Const axis, Gather A, Gather B, Concat
MIN_RESULTS = 4
WIDTH = 8  # the tensor is [?, WIDTH]; each Gather takes WIDTH // 2 columns, Concat restores it


# -- generating the model --------------------------------------------------------------------------
def generate(layers: int, directory: Path) -> Path:
    """Write ``model_<layers>.xml`` + ``.bin`` with exactly ``layers`` layers; return the xml."""
    import numpy as np

    blocks = (layers - 1 - MIN_RESULTS) // BLOCK_LAYERS
    if blocks < 1:
        raise SystemExit(f"--sizes: at least {1 + MIN_RESULTS + BLOCK_LAYERS} layers")
    results = layers - 1 - blocks * BLOCK_LAYERS  # 4..9
    result_after = {round((i + 1) * blocks / results) - 1 for i in range(results)}
    result_after |= {blocks - 1 - i for i in range(results - len(result_after))}
    half = WIDTH // 2

    rng = np.random.default_rng(layers)
    indices = rng.integers(0, WIDTH, size=(blocks, 2, half), dtype=np.int64)
    axis_blob = np.int64(1).tobytes()
    # Like OpenVINO's serializer: one copy of the shared axis scalar, then the index blobs.
    blob = axis_blob + indices.tobytes()
    index_offset = len(axis_blob)
    index_size = half * 8

    dims_in = f"<dim>-1</dim><dim>{WIDTH}</dim>"
    dims_half = f"<dim>-1</dim><dim>{half}</dim>"
    dims_idx = f"<dim>{half}</dim>"
    out = [
        '<?xml version="1.0"?>',
        f'<net name="bench_{layers}" version="11">',
        "\t<layers>",
        '\t\t<layer id="0" name="input" type="Parameter" version="opset1">',
        f'\t\t\t<data shape="?,{WIDTH}" element_type="f32" />',
        f'\t\t\t<output><port id="0" precision="FP32" names="input">{dims_in}</port></output>',
        "\t\t</layer>",
    ]
    edges = []
    next_id = 1
    source = (0, 0)  # (layer id, port id) of the current tensor
    pending_results = []
    for block in range(blocks):
        idx_a, idx_b, axis, gather_a, gather_b, concat = range(next_id, next_id + BLOCK_LAYERS)
        next_id += BLOCK_LAYERS
        for layer_id, which in ((idx_a, 0), (idx_b, 1)):
            offset = index_offset + (block * 2 + which) * index_size
            out += [
                f'\t\t<layer id="{layer_id}" name="b{block}/idx{which}" type="Const" '
                'version="opset1">',
                f'\t\t\t<data element_type="i64" shape="{half}" offset="{offset}" '
                f'size="{index_size}" />',
                f'\t\t\t<output><port id="0" precision="I64">{dims_idx}</port></output>',
                "\t\t</layer>",
            ]
        out += [
            f'\t\t<layer id="{axis}" name="b{block}/axis" type="Const" version="opset1">',
            '\t\t\t<data element_type="i64" shape="" offset="0" size="8" />',
            '\t\t\t<output><port id="0" precision="I64" /></output>',
            "\t\t</layer>",
        ]
        for layer_id, idx, which in ((gather_a, idx_a, 0), (gather_b, idx_b, 1)):
            out += [
                f'\t\t<layer id="{layer_id}" name="b{block}/gather{which}" type="Gather" '
                'version="opset8">',
                '\t\t\t<data batch_dims="0" />',
                f'\t\t\t<input><port id="0" precision="FP32">{dims_in}</port>'
                f'<port id="1" precision="I64">{dims_idx}</port>'
                '<port id="2" precision="I64" /></input>',
                f'\t\t\t<output><port id="3" precision="FP32" names="b{block}/g{which}">'
                f"{dims_half}</port></output>",
                "\t\t</layer>",
            ]
            edges += [
                f'\t\t<edge from-layer="{source[0]}" from-port="{source[1]}" '
                f'to-layer="{layer_id}" to-port="0" />',
                f'\t\t<edge from-layer="{idx}" from-port="0" to-layer="{layer_id}" to-port="1" />',
                f'\t\t<edge from-layer="{axis}" from-port="0" to-layer="{layer_id}" to-port="2" />',
            ]
        out += [
            f'\t\t<layer id="{concat}" name="b{block}/concat" type="Concat" version="opset1">',
            '\t\t\t<data axis="1" />',
            f'\t\t\t<input><port id="0" precision="FP32">{dims_half}</port>'
            f'<port id="1" precision="FP32">{dims_half}</port></input>',
            f'\t\t\t<output><port id="2" precision="FP32" names="b{block}/out">{dims_in}</port>'
            "</output>",
            "\t\t</layer>",
        ]
        edges += [
            f'\t\t<edge from-layer="{gather_a}" from-port="3" to-layer="{concat}" to-port="0" />',
            f'\t\t<edge from-layer="{gather_b}" from-port="3" to-layer="{concat}" to-port="1" />',
        ]
        source = (concat, 2)
        if block in result_after:
            pending_results.append((block, concat))
    for block, concat in pending_results:  # Results last, as the serializer writes them
        result = next_id
        next_id += 1
        out += [
            f'\t\t<layer id="{result}" name="result_{block}" type="Result" version="opset1" '
            f'output_names="b{block}/out">',
            f'\t\t\t<input><port id="0" precision="FP32">{dims_in}</port></input>',
            "\t\t</layer>",
        ]
        edges.append(
            f'\t\t<edge from-layer="{concat}" from-port="2" to-layer="{result}" to-port="0" />'
        )
    assert next_id == layers, (next_id, layers)
    out += ["\t</layers>", "\t<edges>", *edges, "\t</edges>", "\t<rt_info />", "</net>", ""]

    xml = directory / f"model_{layers}.xml"
    xml.write_text("\n".join(out), encoding="utf-8")
    xml.with_suffix(".bin").write_bytes(blob)
    return xml


# -- what is timed ---------------------------------------------------------------------------------
def irrun_load(path):
    import irrun

    return irrun.load(path)


def irrun_load_pure(path):
    """``irrun.load`` without the accelerator (what a machine without a C compiler gets)."""
    import irrun
    from irrun.ir import reader

    saved, reader._walk = reader._walk, None
    try:
        return irrun.load(path)
    finally:
        reader._walk = saved


def irrun_load_and_graph(path):
    import irrun

    model = irrun.load(path)
    model.graph  # noqa: B018 - building the networkx graph is the point
    return model


def floor(path):
    """lxml parse + a bare MultiDiGraph: one node per layer, one edge per <edge>."""
    import networkx as nx
    from lxml import etree

    root = etree.parse(path).getroot()
    graph = nx.MultiDiGraph()
    graph.add_nodes_from(int(layer.get("id")) for layer in root.find("layers"))
    graph.add_edges_from(
        (int(edge.get("from-layer")), int(edge.get("to-layer"))) for edge in root.find("edges")
    )
    return graph


_CORE = None


def openvino_read_model(path):
    global _CORE
    if _CORE is None:
        import openvino as ov

        _CORE = ov.Core()
    return _CORE.read_model(path)


def best_of(functions: dict, path, repeat: int, clock=time.perf_counter) -> dict:
    """The best time of each of ``functions`` over ``repeat`` rounds, each round running every
    function once in turn: on a busy machine the load changes from minute to minute, and
    interleaving makes every case meet the same conditions."""
    times = {name: [] for name in functions}
    for _ in range(repeat):
        for name, function in functions.items():
            gc.collect()
            started = clock()
            result = function(str(path))
            times[name].append(clock() - started)
            del result
    return {name: min(values) for name, values in times.items()}


CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}


# -- peak memory in fresh interpreters -------------------------------------------------------------
_RSS_CHILD = r"""
import resource, sys
mode, path = sys.argv[1], sys.argv[2]
if mode.startswith("openvino"):
    import openvino as ov
    core = ov.Core()
else:
    import lxml.etree, networkx, numpy, irrun, irrun.ir.reader, irrun.model
if mode == "irrun":
    kept = irrun.load(path)
elif mode == "pure":
    irrun.ir.reader._walk = None
    kept = irrun.load(path)
elif mode == "irrun+graph":
    kept = irrun.load(path)
    kept.graph
elif mode == "floor":
    root = lxml.etree.parse(path).getroot()
    graph = networkx.MultiDiGraph()
    graph.add_nodes_from(int(layer.get("id")) for layer in root.find("layers"))
    graph.add_edges_from(
        (int(edge.get("from-layer")), int(edge.get("to-layer"))) for edge in root.find("edges")
    )
    kept = (root, graph)
elif mode == "openvino":
    kept = core.read_model(path)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(peak * (1 if sys.platform == "darwin" else 1024))
"""


class Spawner:
    """Starts the measuring interpreters from a small helper process.

    On Linux a process inherits the peak RSS of the process that forked it (``execve`` keeps
    ``ru_maxrss``), so children started from this script, grown big by the timing runs, would all
    report this script's peak. The helper is started before anything large is loaded, so what it
    passes on is smaller than any measurement.
    """

    _CODE = (
        "import json, subprocess, sys\n"
        "for line in sys.stdin:\n"
        "    done = subprocess.run(json.loads(line), capture_output=True, text=True)\n"
        "    sys.stderr.write(done.stderr)\n"
        "    lines = done.stdout.split()\n"
        "    print(lines[-1] if done.returncode == 0 and lines else 'error', flush=True)\n"
    )

    def __init__(self):
        self.process = subprocess.Popen(
            [sys.executable, "-c", self._CODE], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            text=True,
        )  # fmt: skip

    def peak_rss(self, mode: str, path: Path) -> int:
        """Peak RSS in bytes of a fresh interpreter doing ``mode`` (``*baseline``: nothing)."""
        argv = [sys.executable, "-c", _RSS_CHILD, mode, str(path)]
        self.process.stdin.write(json.dumps(argv) + "\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline().strip()
        if not answer.isdigit():
            raise RuntimeError(f"the {mode} measurement failed")
        return int(answer)

    def over_baseline(self, mode: str, path: Path, repeat: int) -> float:
        """MiB the work adds to the peak RSS (smallest of ``repeat`` runs, baseline likewise)."""
        baseline_mode = "openvino-baseline" if mode == "openvino" else "baseline"
        baseline = min(self.peak_rss(baseline_mode, path) for _ in range(repeat))
        peak = min(self.peak_rss(mode, path) for _ in range(repeat))
        return (peak - baseline) / 2**20

    def close(self):
        self.process.stdin.close()
        self.process.wait(timeout=60)


# -- report ----------------------------------------------------------------------------------------
def verdict(ok: bool) -> str:
    return "met" if ok else "MISSED"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 50000])
    parser.add_argument("--repeat", type=int, default=3, help="best of how many runs")
    parser.add_argument("--keep", type=Path, help="write the generated IR here and keep it")
    parser.add_argument("--no-rss", action="store_true", help="skip the memory measurement")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="wall",
                        help="wall time, or the CPU time of this process (all its threads: "
                             "steadier on a busy machine)")  # fmt: skip
    args = parser.parse_args(argv)
    # Started while this process is still small: see Spawner.
    spawner = None if args.no_rss else Spawner()

    import openvino as ov

    import irrun

    try:
        _run(args, spawner, ov, irrun)
    finally:
        if spawner is not None:
            spawner.close()
    return 0


def _run(args, spawner, ov, irrun) -> None:
    with tempfile.TemporaryDirectory(prefix="irrun-bench-") as temporary:
        directory = args.keep or Path(temporary)
        directory.mkdir(parents=True, exist_ok=True)
        rows = []
        for size in args.sizes:
            started = time.perf_counter()
            xml = generate(size, directory)
            generated = time.perf_counter() - started
            # The file must be valid IR for both readers before anything is timed.
            model = irrun.load(xml)
            reference = ov.Core().read_model(xml)
            assert len(model.layers) == size == len(reference.get_ordered_ops())
            assert len(model.outputs) == len(reference.outputs)
            del model, reference
            cases = {"irrun": irrun_load, "pure": irrun_load_pure,
                     "irrun+graph": irrun_load_and_graph, "floor": floor,
                     "openvino": openvino_read_model}  # fmt: skip
            times = best_of(cases, xml, args.repeat, CLOCKS[args.clock])
            rows.append((size, os.path.getsize(xml), generated, times))

        from irrun.ir import reader

        accelerated = "none: " + reader.ACCELERATOR_STATUS if reader._walk is None else "built"
        print(f"IR load time ({args.clock}), best of {args.repeat} (ms); "
              f"python {sys.version.split()[0]}, openvino {ov.__version__.split('-')[0]}; "
              f"accelerator {accelerated}")  # fmt: skip
        header = (
            f"{'layers':>7} {'xml MB':>7} {'gen ms':>6} {'irrun':>8} {'pure':>8} {'+graph':>8} "
            f"{'floor':>8} {'openvino':>9} {'irrun/floor':>12} {'irrun/ov':>9} {'pure/ov':>8} "
            f"{'ms/1k layers':>13}"
        )
        print(header)
        print("-" * len(header))
        goals = []
        for size, xml_bytes, generated, t in rows:
            print(
                f"{size:>7} {xml_bytes / 2**20:>7.1f} {generated * 1e3:>6.0f} "
                f"{t['irrun'] * 1e3:>8.1f} {t['pure'] * 1e3:>8.1f} {t['irrun+graph'] * 1e3:>8.1f} "
                f"{t['floor'] * 1e3:>8.1f} {t['openvino'] * 1e3:>9.1f} "
                f"{t['irrun'] / t['floor']:>12.2f} {t['irrun'] / t['openvino']:>9.2f} "
                f"{t['pure'] / t['openvino']:>8.2f} {t['irrun'] * 1e3 / size * 1000:>13.2f}"
            )
            goals.append((size, t))
        print("\ngoals (time):")
        for size, t in goals:
            print(f"  {size:>7} layers: irrun <= openvino read_model "
                  f"[{verdict(t['irrun'] <= t['openvino'])}], irrun <= 2x floor "
                  f"[{verdict(t['irrun'] <= 2 * t['floor'])}]; pure <= openvino "
                  f"[{verdict(t['pure'] <= t['openvino'])}]")  # fmt: skip

        if not args.no_rss:
            largest = max(args.sizes)
            xml = directory / f"model_{largest}.xml"
            print(
                "\npeak RSS over an interpreter that only imported the modules, "
                f"{largest} layers (MiB, smallest of {args.repeat} fresh processes):"
            )
            rss = {mode: spawner.over_baseline(mode, xml, args.repeat)
                   for mode in ("irrun", "pure", "irrun+graph", "floor", "openvino")}  # fmt: skip
            for mode, mib in rss.items():
                ratio = f"{mib / rss['floor']:.2f}x floor" if rss["floor"] > 0 else ""
                print(f"  {mode:<12} {mib:8.1f}   {ratio}")
            print("goal (memory):")
            limit = 1.5 * rss["floor"]
            print(f"  irrun RSS <= 1.5x floor [{verdict(rss['irrun'] <= limit)}], "
                  f"pure RSS <= 1.5x floor [{verdict(rss['pure'] <= limit)}]")  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
