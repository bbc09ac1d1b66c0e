"""A weights file that changes under a loaded model: truncated, rewritten in place, replaced.

Reading a memory mapping whose file was truncated kills the process with SIGBUS, so those cases
run in a child interpreter; a file rewritten in place would give the old model the new bytes.
Both are a ``WeightsError`` asking to load the model again. A file replaced by a rename leaves
the mapping as it was: the model keeps computing with the weights it loaded.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import irrun
from irrun.errors import WeightsError

DATA = np.arange(6, dtype=np.float32).reshape(2, 3)
EXPECTED = np.array([[2, 0, 0, 1, 2], [5, 3, 3, 4, 5]], dtype=np.float32)


def change_in_child(tiny, change: str, then: str) -> subprocess.CompletedProcess:
    """Load and validate ``tiny`` in a child, ``change`` its .bin, then do ``then``."""
    code = textwrap.dedent(
        f"""
        import os, numpy as np, irrun
        model = irrun.load({str(tiny)!r})
        assert model.validate().ok
        value = model.layer("idx").value
        bin_path = {str(tiny.with_suffix(".bin"))!r}
        {change}
        try:
            {then}
        except irrun.IRError as exc:
            print(type(exc).__name__, exc)
        else:
            print("no error")
        """
    )
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)  # fmt: skip


TRUNCATIONS = {
    "to 0 bytes": "os.truncate(bin_path, 0)",
    "to half": "os.truncate(bin_path, os.path.getsize(bin_path) // 2)",
}
CALLS = {
    "validate": "model.validate()",
    "run": 'model.run({"data": np.ones((2, 3), np.float32)})',
    "constant": 'model.constant("idx")',
    "steps": 'list(model.steps({"data": np.ones((2, 3), np.float32)}))',
}


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("truncation", TRUNCATIONS)
def test_truncated_bin_under_a_loaded_model_is_a_weights_error_not_sigbus(tiny, truncation, call):
    done = change_in_child(tiny, TRUNCATIONS[truncation], CALLS[call])
    assert done.returncode == 0, f"exit {done.returncode}\n{done.stderr[-2000:]}"
    assert done.stdout.startswith("WeightsError"), done.stdout
    assert "changed since the model was loaded" in done.stdout
    assert "load the model again" in done.stdout


def test_truncated_between_two_steps_stops_at_the_next_step(tiny):
    change = "steps = model.steps({'data': np.ones((2, 3), np.float32)}); next(steps)"
    done = change_in_child(tiny, change + "; os.truncate(bin_path, 0)", "list(steps)")
    assert done.returncode == 0, f"exit {done.returncode}\n{done.stderr[-2000:]}"
    assert done.stdout.startswith("WeightsError"), done.stdout


def rewrite_in_place(path, content: bytes) -> None:
    """What ``openvino.save_model`` does to an existing .bin: truncate and write, same inode."""
    before = os.stat(path)
    with open(path, "r+b") as stream:
        stream.truncate(0)
        stream.write(content)
    after = os.stat(path)
    assert after.st_ino == before.st_ino
    if after.st_mtime_ns == before.st_mtime_ns:  # a coarse clock: make the change visible
        os.utime(path, ns=(after.st_atime_ns, before.st_mtime_ns + 1_000_000))


@pytest.mark.parametrize(
    "content",
    [
        pytest.param(lambda old: bytes(len(old)), id="same size"),
        pytest.param(lambda old: old[:8], id="smaller"),
        pytest.param(lambda old: old + bytes(64), id="larger"),
    ],
)
def test_bin_rewritten_in_place_is_refused_instead_of_mixing_weights(tiny, content):
    model = irrun.load(tiny)
    assert np.array_equal(model.run({"data": DATA})["out"], EXPECTED)
    bin_path = tiny.with_suffix(".bin")
    rewrite_in_place(bin_path, content(bin_path.read_bytes()))
    for call in (model.validate, lambda: model.run({"data": DATA}), lambda: model.constant("idx")):
        with pytest.raises(WeightsError, match="changed since the model was loaded") as caught:
            call()
        assert "load the model again" in str(caught.value)
    assert irrun.load(tiny).validate() is not None  # loading again reads the new file


def test_bin_replaced_by_a_rename_keeps_the_loaded_weights(tiny, tmp_path):
    model = irrun.load(tiny)
    replacement = tmp_path / "new.bin"
    replacement.write_bytes(bytes(tiny.with_suffix(".bin").stat().st_size))
    os.replace(replacement, tiny.with_suffix(".bin"))
    assert model.validate().ok
    assert np.array_equal(model.run({"data": DATA})["out"], EXPECTED)


def test_unchanged_bin_is_checked_without_complaint(tiny):
    model = irrun.load(tiny)
    for _ in range(3):
        assert model.validate().ok
        assert np.array_equal(model.run({"data": DATA})["out"], EXPECTED)


def test_weights_given_as_bytes_need_no_check(tiny):
    model = irrun.load(tiny, weights=tiny.with_suffix(".bin").read_bytes())
    tiny.with_suffix(".bin").write_bytes(b"")
    assert np.array_equal(model.run({"data": DATA})["out"], EXPECTED)
