"""Validation time against load time, and load + validate against OpenVINO read + compile.

Run: python bench/bench_validate.py [--sizes 10000 50000] [--repeat 3]

Uses the generated IR of bench_load.py (Parameter, blocks of Const -> Gather-8 -> Concat,
Results). For each size, in one run: irrun ``load``; irrun ``validate`` of a freshly loaded
model; OpenVINO ``read_model`` and ``compile_model(..., "CPU")`` (once: compiling is slow).

Goals: validation adds at most the load time (validate / load <= 1), and load + validate of the
50k-layer model takes under 3 s where OpenVINO needs about 20 s to read and compile it.
"""

from __future__ import annotations

import argparse
import gc
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_load import generate  # noqa: E402  (the same generated models as the load benchmark)


def timed(function, *args):
    gc.collect()
    started = time.perf_counter()
    result = function(*args)
    return time.perf_counter() - started, result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10000, 50000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skip-openvino", action="store_true", help="do not time OpenVINO")
    args = parser.parse_args(argv)

    import irrun

    rows = []
    with tempfile.TemporaryDirectory() as directory:
        for size in args.sizes:
            path = generate(size, Path(directory))
            load = validate = float("inf")
            for _ in range(args.repeat):
                seconds, model = timed(irrun.load, path)
                load = min(load, seconds)
                seconds, report = timed(model.validate)
                validate = min(validate, seconds)
                assert report.ok, report.to_text()
                del model, report
            read = compile_ = float("nan")
            if not args.skip_openvino:
                import openvino as ov

                core = ov.Core()
                read, ov_model = timed(core.read_model, path)
                compile_, _ = timed(core.compile_model, ov_model, "CPU")
            rows.append((size, load, validate, read, compile_))

    print(f"{'layers':>7} {'load s':>8} {'validate s':>11} {'val/load':>9} {'load+val s':>11} "
          f"{'ov read s':>10} {'ov compile s':>13} {'ov total/irrun':>15}")  # fmt: skip
    for size, load, validate, read, compile_ in rows:
        total = load + validate
        print(f"{size:>7} {load:8.3f} {validate:11.3f} {validate / load:9.2f} {total:11.3f} "
              f"{read:10.3f} {compile_:13.3f} {(read + compile_) / total:15.1f}")  # fmt: skip
    print("\ngoals:")
    for size, load, validate, *_ in rows:
        print(f"  {size:>7} layers: validate/load <= 1 "
              f"[{'met' if validate <= load else 'MISSED'}] ({validate / load:.2f})")  # fmt: skip
    size, load, validate, *_ = rows[-1]
    print(f"  load+validate of {size} layers < 3 s "
          f"[{'met' if load + validate < 3 else 'MISSED'}] ({load + validate:.2f} s)")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
