"""``.ci/run`` fails, instead of letting tests skip, when an optional tool cannot be installed."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_ci_fails_when_graphviz_cannot_be_installed(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("dirname", "bash"):
        (bin_dir / tool).symlink_to(shutil.which(tool))
    for tool in ("apt-get", "python", "pip", "pytest", "ruff"):  # record any call, fail apt-get
        (bin_dir / tool).write_text(
            f'#!{shutil.which("bash")}\necho "{tool} $*" >> "{tmp_path}/calls"\n'
            f"exit {1 if tool == 'apt-get' else 0}\n"
        )
        (bin_dir / tool).chmod(0o755)
    environment = {**os.environ, "PATH": str(bin_dir)}
    done = subprocess.run([shutil.which("bash"), str(ROOT / ".ci" / "run")], capture_output=True,
                          text=True, timeout=60, env=environment)  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    assert "dot program could not be installed" in done.stderr
    calls = (tmp_path / "calls").read_text().splitlines()
    assert calls and all(call.startswith("apt-get") for call in calls)  # nothing ran after


def test_ci_checks_every_optional_test_dependency():
    script = (ROOT / ".ci" / "run").read_text()
    for module in ("graphviz", "matplotlib", "nbformat", "nbclient", "ipykernel", "onnx",
                   "openvino"):  # fmt: skip
        assert f'"{module}":' in script
    assert "|| echo" not in script  # a failed install is never just reported
