"""How long `irrun --help` takes, against bare Python and against importing the heavy stack.

Run: python bench/bench_startup.py [--repeat N]   (``--quick``: one run of each)
Goal: `irrun --help` costs little more than starting Python, because the CLI imports numpy,
lxml and networkx only when a command runs.
"""

import argparse
import statistics
import subprocess
import sys
import time


def best_of(command, repeat=7):
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        times.append(time.perf_counter() - started)
    return min(times), statistics.median(times)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="best of N (default 7)")
    parser.add_argument("--quick", action="store_true", help="one run of each (a smoke run)")
    args = parser.parse_args(argv)
    repeat = 1 if args.quick else args.repeat
    cases = {
        "python -c pass (floor)": [sys.executable, "-c", "pass"],
        "irrun --help": [sys.executable, "-m", "irrun", "--help"],
        "import numpy+lxml+networkx+click": [
            sys.executable,
            "-c",
            "import numpy, lxml.etree, networkx, click",
        ],  # fmt: skip
    }
    results = {name: best_of(command, repeat) for name, command in cases.items()}
    floor = results["python -c pass (floor)"][0]
    print(f"{'case':<36} {'best ms':>8} {'median ms':>10} {'over floor ms':>14}")
    for name, (best, median) in results.items():
        print(f"{name:<36} {best * 1e3:8.1f} {median * 1e3:10.1f} {(best - floor) * 1e3:14.1f}")
    help_cost = results["irrun --help"][0] - floor
    stack_cost = results["import numpy+lxml+networkx+click"][0] - floor
    print(f"\nirrun --help adds {help_cost * 1e3:.0f} ms to Python start-up; importing the stack "
          f"adds {stack_cost * 1e3:.0f} ms (ratio {help_cost / stack_cost:.2f})")  # fmt: skip


if __name__ == "__main__":
    main()
