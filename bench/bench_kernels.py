"""Time the Concat/Gather kernels on realistic sizes against plain numpy baselines.

Run as ``python bench/bench_kernels.py [--repeat N] [--quick] [--cpu-time]``. Every case is
timed with ``time.perf_counter`` (``time.process_time`` with ``--cpu-time``), best of N.
Each row prints the kernel's time and two ratios measured in the same run: against a memcpy
of the output's size (``np.copy`` of an array that large, so the fresh allocation's page
faults count as they do for the kernel) and against the closest plain numpy call
(``np.take``, ``np.concatenate``, ``np.take_along_axis`` or fancy indexing, none of which
handle Gather-8's zero-fill or batch dims by themselves). Rows marked ``alt`` time the
formulations the kernels were chosen against. Not a test.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from irrun.kernels import concat, gather, gather_elements, gather_nd  # noqa: E402

MB = 1 << 20


CLOCK = time.perf_counter


def best_of(function, repeat: int) -> float:
    """Best time of ``repeat`` calls, in milliseconds."""
    times = []
    for _ in range(repeat):
        start = CLOCK()
        function()
        times.append(CLOCK() - start)
    return min(times) * 1e3


@contextlib.contextmanager
def untiled():
    """Run the kernels as one pass over the whole index grid (no tiling), for comparison."""
    # Every kernel reads the tile size from irrun.kernels._indices at call time.
    module = importlib.import_module("irrun.kernels._indices")
    saved = module.TILE_CELLS
    module.TILE_CELLS = 1 << 62
    try:
        yield
    finally:
        module.TILE_CELLS = saved


def without_tiles(function):
    def run():
        with untiled():
            return function()

    return run


def memcpy_of(nbytes: int):
    source = np.ones(nbytes, np.uint8)
    return lambda: source.copy()


def report(title, rows, repeat, out_bytes):
    """Time ``rows`` = [(label, function)]; the first is the kernel, the second its baseline."""
    memcpy = best_of(memcpy_of(out_bytes), repeat)
    times = [(label, best_of(function, repeat)) for label, function in rows]
    baseline = times[1][1]
    print(f"\n{title}  (output {out_bytes / MB:.0f} MB, memcpy {memcpy:.1f} ms)")
    for label, ms in times:
        print(
            f"  {label:<44} {ms:8.1f} ms  x{ms / memcpy:5.2f} memcpy  x{ms / baseline:5.2f} numpy"
        )


def concat_cases(rng, repeat, scale):
    parts = [rng.standard_normal((1024 // scale, 4096), dtype=np.float32) for _ in range(4)]

    def empty_and_slices(arrays, axis):
        total = sum(a.shape[axis] for a in arrays)
        shape = list(arrays[0].shape)
        shape[axis] = total
        out = np.empty(shape, arrays[0].dtype)
        start = 0
        for a in arrays:
            index = [slice(None)] * out.ndim
            index[axis] = slice(start, start + a.shape[axis])
            out[tuple(index)] = a
            start += a.shape[axis]
        return out

    out_bytes = sum(a.nbytes for a in parts)
    report(
        "concat 4 x (1024, 4096) f32, axis 0",
        [
            ("concat", lambda: concat(parts, 0)),
            ("np.concatenate", lambda: np.concatenate(parts, 0)),
            ("alt: np.empty + slice assignment", lambda: empty_and_slices(parts, 0)),
        ],
        repeat,
        out_bytes,
    )
    columns = [np.ascontiguousarray(p.reshape(4096, 1024 // scale)) for p in parts]
    report(
        "concat 4 x (4096, 1024) f32, axis 1",
        [
            ("concat", lambda: concat(columns, 1)),
            ("np.concatenate", lambda: np.concatenate(columns, 1)),
            ("alt: np.empty + slice assignment", lambda: empty_and_slices(columns, 1)),
        ],
        repeat,
        out_bytes,
    )


def gather_cases(rng, repeat, scale):
    rows = 16384 // scale
    data = rng.standard_normal((rows, 1024), dtype=np.float32)
    indices = rng.integers(0, rows, rows)
    indices32 = indices.astype(np.int32)
    with_bad = indices.copy()
    with_bad[::100] = rows + 5  # 1% out of range: the masked slow path
    negative = indices - rows
    preallocated = np.empty_like(data)
    report(
        f"gather rows: data ({rows}, 1024) f32, {rows} i64 indices, axis 0",
        [
            ("gather", lambda: gather(data, indices, 0)),
            ("np.take", lambda: np.take(data, indices, axis=0)),
            ("gather, i32 indices", lambda: gather(data, indices32, 0)),
            ("gather, all negative (wrap in np.take)", lambda: gather(data, negative, 0)),
            ("gather, 1% out of range, policy zero", lambda: gather(data, with_bad, 0)),
            ("gather, policy error", lambda: gather(data, indices, 0, out_of_range="error")),
            ("alt: np.take mode=wrap", lambda: np.take(data, indices, axis=0, mode="wrap")),
            ("alt: np.take mode=clip", lambda: np.take(data, indices, axis=0, mode="clip")),
            (
                "alt: np.take mode=raise, out=",
                lambda: np.take(data, indices, axis=0, out=preallocated),
            ),
            ("alt: fancy indexing data[indices]", lambda: data[indices]),
        ],
        repeat,
        data.nbytes,
    )

    square = rng.standard_normal((4096 // scale, 4096), dtype=np.float32)
    columns = rng.integers(0, 4096, 4096)
    report(
        f"gather columns: data ({4096 // scale}, 4096) f32, 4096 indices, axis 1",
        [
            ("gather", lambda: gather(square, columns, 1)),
            ("np.take", lambda: np.take(square, columns, axis=1)),
            ("alt: np.take mode=wrap", lambda: np.take(square, columns, axis=1, mode="wrap")),
            ("alt: np.take mode=clip", lambda: np.take(square, columns, axis=1, mode="clip")),
            ("alt: fancy indexing data[:, indices]", lambda: square[:, columns]),
        ],
        repeat,
        square.nbytes,
    )

    batched = rng.standard_normal((64 // scale, 256, 1024), dtype=np.float32)
    batch_indices = rng.integers(0, 256, (64 // scale, 256))
    batch_range = np.arange(64 // scale)[:, None]
    report(
        f"gather batch_dims=1 rows: data ({64 // scale}, 256, 1024) f32, axis 1",
        [
            ("gather", lambda: gather(batched, batch_indices, 1, 1)),
            (
                "np.take_along_axis",
                lambda: np.take_along_axis(batched, batch_indices[:, :, None], axis=1),
            ),
            ("alt: fancy indexing data[b, indices]", lambda: batched[batch_range, batch_indices]),
            ("alt: gather untiled", without_tiles(lambda: gather(batched, batch_indices, 1, 1))),
            (
                "alt: Python loop over batches",
                lambda: np.stack([np.take(b, i, axis=0) for b, i in zip(batched, batch_indices)]),
            ),
        ],
        repeat,
        batched.nbytes,
    )

    element_indices = rng.integers(0, 4096, square.shape)
    square_range = np.arange(square.shape[0])[:, None]
    report(
        f"gather batch_dims=1 elements: data ({4096 // scale}, 4096) f32, axis 1",
        [
            ("gather", lambda: gather(square, element_indices, 1, 1)),
            ("np.take_along_axis", lambda: np.take_along_axis(square, element_indices, axis=1)),
            ("alt: fancy indexing data[b, indices]", lambda: square[square_range, element_indices]),
            (
                "alt: gather untiled",
                without_tiles(lambda: gather(square, element_indices, 1, 1)),
            ),
        ],
        repeat,
        square.nbytes,
    )


def gather_nd_cases(rng, repeat, scale):
    data = rng.standard_normal((256 // scale, 256, 256), dtype=np.float32)
    tuples = 65536 // scale
    indices = np.stack(
        [rng.integers(0, 256 // scale, tuples), rng.integers(0, 256, tuples)], axis=-1
    )
    report(
        f"gather_nd rows: data ({256 // scale}, 256, 256) f32, {tuples} tuples of 2",
        [
            ("gather_nd", lambda: gather_nd(data, indices)),
            ("fancy indexing data[i0, i1]", lambda: data[indices[:, 0], indices[:, 1]]),
            ("gather_nd, policy zero", lambda: gather_nd(data, indices, out_of_range="zero")),
            ("alt: gather_nd untiled", without_tiles(lambda: gather_nd(data, indices))),
        ],
        repeat,
        tuples * 256 * 4,
    )

    square = rng.standard_normal((4096 // scale, 4096), dtype=np.float32)
    count = 4 * MB // scale
    pairs = np.stack(
        [rng.integers(0, square.shape[0], count), rng.integers(0, 4096, count)], axis=-1
    )
    report(
        f"gather_nd elements: data ({4096 // scale}, 4096) f32, {count} tuples of 2",
        [
            ("gather_nd", lambda: gather_nd(square, pairs)),
            ("fancy indexing data[i0, i1]", lambda: square[pairs[:, 0], pairs[:, 1]]),
            (
                "alt: np.ravel_multi_index + np.take",
                lambda: np.take(square, np.ravel_multi_index(tuple(pairs.T), square.shape)),
            ),
            ("alt: gather_nd untiled", without_tiles(lambda: gather_nd(square, pairs))),
        ],
        repeat,
        count * 4,
    )

    batched = rng.standard_normal((64 // scale, 256, 1024), dtype=np.float32)
    batch_indices = rng.integers(0, 256, (64 // scale, 256, 1))
    batch_range = np.arange(64 // scale)[:, None]
    report(
        f"gather_nd batch_dims=1: data ({64 // scale}, 256, 1024) f32, k=1",
        [
            ("gather_nd", lambda: gather_nd(batched, batch_indices, 1)),
            ("fancy indexing data[b, i0]", lambda: batched[batch_range, batch_indices[..., 0]]),
        ],
        repeat,
        batched.nbytes,
    )


def gather_elements_cases(rng, repeat, scale):
    square = rng.standard_normal((4096 // scale, 4096), dtype=np.float32)
    indices = rng.integers(0, 4096, square.shape)
    indices_axis0 = rng.integers(0, square.shape[0], square.shape)

    report(
        f"gather_elements: data ({4096 // scale}, 4096) f32, axis 1",
        [
            ("gather_elements", lambda: gather_elements(square, indices, 1)),
            ("np.take_along_axis", lambda: np.take_along_axis(square, indices, axis=1)),
            (
                "gather_elements, policy zero",
                lambda: gather_elements(square, indices, 1, out_of_range="zero"),
            ),
            ("alt: untiled", without_tiles(lambda: gather_elements(square, indices, 1))),
        ],
        repeat,
        square.nbytes,
    )
    report(
        f"gather_elements: data ({4096 // scale}, 4096) f32, axis 0",
        [
            ("gather_elements", lambda: gather_elements(square, indices_axis0, 0)),
            ("np.take_along_axis", lambda: np.take_along_axis(square, indices_axis0, axis=0)),
            ("alt: untiled", without_tiles(lambda: gather_elements(square, indices_axis0, 0))),
        ],
        repeat,
        square.nbytes,
    )


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="best of N (default 5)")
    parser.add_argument("--quick", action="store_true", help="1/16 of the sizes, for a smoke run")
    parser.add_argument(
        "--cpu-time",
        action="store_true",
        help="time with process_time instead of perf_counter (steadier on a busy machine)",
    )
    args = parser.parse_args(argv)
    global CLOCK
    CLOCK = time.process_time if args.cpu_time else time.perf_counter
    scale = 16 if args.quick else 1
    rng = np.random.default_rng(0)
    clock = "process_time" if args.cpu_time else "perf_counter"
    print(f"numpy {np.__version__}; {clock}, best of {args.repeat}; ratios: kernel / other time")
    concat_cases(rng, args.repeat, scale)
    gather_cases(rng, args.repeat, scale)
    gather_nd_cases(rng, args.repeat, scale)
    gather_elements_cases(rng, args.repeat, scale)


if __name__ == "__main__":
    main()
