"""Every benchmark under bench/ runs in its quick mode, so none of them rots (the figures
themselves are not asserted: timing belongs to the benchmarks, not to unit tests)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"
QUICK = {
    "bench_compute.py": ["--quick"],
    "bench_execute.py": ["--quick"],
    "bench_kernels.py": ["--quick", "--repeat", "1"],
    "bench_load.py": ["--sizes", "200", "--repeat", "1", "--no-rss"],
    "bench_startup.py": ["--quick"],
    "bench_validate.py": ["--quick"],
}


def test_every_benchmark_has_a_quick_mode():
    assert {p.name for p in BENCH.glob("bench_*.py")} == set(QUICK)


@pytest.mark.parametrize("name", sorted(QUICK))
def test_benchmark_runs_in_quick_mode(name):
    result = subprocess.run([sys.executable, str(BENCH / name), *QUICK[name]],
                            capture_output=True, text=True, timeout=600)  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip(), "the benchmark printed nothing"
