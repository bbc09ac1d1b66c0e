"""Validation time against load time, and load + validate against OpenVINO read + compile.

Run: python bench/bench_validate.py [--sizes 10000 50000] [--repeat 3]

Uses the generated IR of bench_load.py (Parameter, blocks of Const -> Gather-8 -> Concat,
Results). For each size, in one run: irrun ``load``; irrun ``validate`` of a freshly loaded
model; OpenVINO ``read_model`` and ``compile_model(..., "CPU")`` (once: compiling is slow).

Real models: the IR committed in ``tests/real_models`` (converted from PyTorch: ResNet,
MobileNetV3, ViT, BERT, GPT-2, LLaMA, ...; static, dynamic, f16-compressed, quantised)
validated per layer against the generated Gather/Concat model of the first size, the two
interleaved round by round (best of the rounds for each).

Goals: validation adds at most the load time (validate / load <= 1), load + validate of the
50k-layer model takes under 3 s where OpenVINO needs about 20 s to read and compile it, and a
real model's layers validate no slower on average than the Gather/Concat layers
(µs per layer, real / generated <= 1).

Remembered layers: each committed real model, and each full-size one found under
``--full-size DIR`` (the IR that ``bench/build_real_models.py`` writes there, as
``bench_execute.py --real-models`` does: ResNet-50, MobileNetV3-large, BERT-base, GPT-2 ...),
validated with ``irrun.validation.inference.REMEMBER_LAYERS`` on and off, interleaved round by
round (best of the rounds each): the time a layer identical to one already inferred saves.

``--quick`` runs one small size and one repeat (for CI: it proves the script still works).
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
    parser.add_argument("--quick", action="store_true", help="1,000 layers, one repeat")
    parser.add_argument("--full-size", type=Path, metavar="DIR",
                        help="also time remembered layers on the full-size IR in DIR "
                        "(*/model.xml, as bench/build_real_models.py writes it)")  # fmt: skip
    args = parser.parse_args(argv)
    if args.quick:
        args.sizes, args.repeat = [1000], 1

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
    real_models(irrun, args.sizes[0], args.repeat)
    paths = sorted(REAL_MODELS.glob("*/model.xml"))
    if args.full_size is not None:
        paths += sorted(args.full_size.glob("*/model.xml"))
    remembered_layers(irrun, paths, 1 if args.quick else max(args.repeat, 10))
    return 0


REAL_MODELS = Path(__file__).resolve().parents[1] / "tests" / "real_models"


def real_models(irrun, generated_layers: int, repeat: int) -> None:
    """Validation time per layer of every committed real model, against the generated model.

    The generated model is validated again in every round, between the real models, so that
    both sides of the ratio see the machine in the same state (a drift in load or clock
    between two separate measurements would otherwise show up in the ratio); each figure is
    the best of its rounds, each validation of a freshly loaded model."""
    paths = sorted(REAL_MODELS.glob("*/model.xml"))
    if not paths:
        print("\nreal models: none found under tests/real_models")
        return
    with tempfile.TemporaryDirectory() as directory:
        generated = generate(generated_layers, Path(directory))
        best = {path: float("inf") for path in [generated, *paths]}
        layers, checked = {}, {}
        for _ in range(max(repeat, 3)):
            for path in [generated, *paths]:
                model = irrun.load(path)
                seconds, report = timed(model.validate)
                best[path] = min(best[path], seconds)
                layers[path], checked[path] = len(model.layers), report.layers_checked
                del model, report
    generated_per_layer = best.pop(generated) / layers[generated]
    print(f"\n{'real model':<34} {'layers':>7} {'checked':>8} {'validate ms':>12} "
          f"{'us/layer':>9} {'vs generated':>13}")  # fmt: skip
    total_seconds = total_layers = 0
    for path, seconds in best.items():
        count = layers[path]
        total_seconds, total_layers = total_seconds + seconds, total_layers + count
        per_layer = seconds / count
        print(f"{path.parent.name:<34} {count:>7} {checked[path]:>8} "
              f"{seconds * 1e3:12.2f} {per_layer * 1e6:9.1f} "
              f"{per_layer / generated_per_layer:13.2f}")  # fmt: skip
    ratio = total_seconds / total_layers / generated_per_layer
    print(f"  real models: {total_seconds / total_layers * 1e6:.1f} us/layer, generated "
          f"Gather/Concat model ({generated_layers} layers, validated in the same rounds) "
          f"{generated_per_layer * 1e6:.1f} us/layer: ratio <= 1 "
          f"[{'met' if ratio <= 1 else 'MISSED'}] ({ratio:.2f})")  # fmt: skip


def remembered_layers(irrun, paths, repeat: int) -> None:
    """Validation of each model with layers remembered and without, interleaved round by
    round (the order alternating), best of ``repeat`` rounds each, each a fresh load."""
    from irrun.validation import inference

    if not paths:
        return
    best = {(path, on): float("inf") for path in paths for on in (True, False)}
    layers = {}
    try:
        for round_ in range(repeat):
            for on in (True, False) if round_ % 2 else (False, True):
                inference.REMEMBER_LAYERS = on
                for path in paths:
                    model = irrun.load(path)
                    seconds, _ = timed(model.validate)
                    best[path, on] = min(best[path, on], seconds)
                    layers[path] = len(model.layers)
                    del model
    finally:
        inference.REMEMBER_LAYERS = True
    print(f"\n{'remembered layers':<34} {'layers':>7} {'on ms':>8} {'off ms':>8} {'on/off':>7}")
    totals = [0.0, 0.0]
    for path in paths:
        on, off = best[path, True], best[path, False]
        totals[0] += on
        totals[1] += off
        print(f"{path.parent.name:<34} {layers[path]:>7} {on * 1e3:8.2f} {off * 1e3:8.2f} "
              f"{on / off:7.2f}")  # fmt: skip
    print(
        f"  all: {totals[0] * 1e3:.1f} ms with layers remembered, {totals[1] * 1e3:.1f} ms "
        f"without ({totals[0] / totals[1]:.2f})"
    )


if __name__ == "__main__":
    sys.exit(main())
