"""``.ci/run`` fails, instead of letting the graph page's browser test skip, when headless
Chromium cannot be installed."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_ci_fails_when_chromium_cannot_be_installed(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("dirname", "bash"):
        (bin_dir / tool).symlink_to(shutil.which(tool))
    # Graphviz is there; any other call is recorded, and apt-get fails.
    for tool in ("dot", "apt-get", "python", "pip", "pytest", "ruff"):
        (bin_dir / tool).write_text(
            f'#!{shutil.which("bash")}\necho "{tool} $*" >> "{tmp_path}/calls"\n'
            f"exit {1 if tool == 'apt-get' else 0}\n"
        )
        (bin_dir / tool).chmod(0o755)
    environment = {**os.environ, "PATH": str(bin_dir)}
    done = subprocess.run([shutil.which("bash"), str(ROOT / ".ci" / "run")], capture_output=True,
                          text=True, timeout=60, env=environment)  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stderr == (
        "CI: headless Chromium could not be installed; the graph page's browser test would be "
        "skipped\n"
    )
    calls = (tmp_path / "calls").read_text().splitlines()
    assert calls == ["apt-get update -qq"]  # it tried, and nothing ran after
