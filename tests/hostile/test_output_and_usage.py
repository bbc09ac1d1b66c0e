"""Where results go (``--output`` / ``--dump``) and how the command line is used.

An output path irrun cannot write is unusable input (exit 2) and must leave nothing behind: no
partial ``.npz``, no temporary file. Usage mistakes are click usage errors (exit 2, "Usage:" or
"Error:"), never a traceback.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import textwrap

import pytest

INPUTS = "tiny_inputs.npz"


def listing(folder):
    return sorted(p.name for p in folder.iterdir())


@pytest.mark.parametrize("option", ["--output", "--dump"])
def test_output_in_a_missing_folder_exits_2_and_writes_nothing(
    tmp_path, tiny, option, invoke, expect
):
    before = listing(tmp_path)
    target = tmp_path / "no" / "such" / "out.npz"
    expect(
        invoke("execute", tiny, "--inputs", tiny.with_name(INPUTS), option, target),
        2,
        f"irrun: error: {target}",
        "does not exist",
    )
    assert listing(tmp_path) == before


@pytest.mark.parametrize("option", ["--output", "--dump"])
def test_output_that_is_a_directory_exits_2_and_keeps_it(tmp_path, tiny, option, invoke, expect):
    target = tmp_path / "out.npz"
    target.mkdir()
    (target / "keep").write_text("x")
    before = listing(tmp_path)
    expect(
        invoke("execute", tiny, "--inputs", tiny.with_name(INPUTS), option, target),
        2,
        str(target),
        "directory",
    )
    assert listing(tmp_path) == before and listing(target) == ["keep"]


@pytest.mark.parametrize(
    "target", ["/proc/self/out.npz", "/proc/version", "/sys/out.npz", "/proc/no-such-dir/out.npz"]
)
def test_output_in_an_unwritable_place_exits_2(tiny, target, invoke, expect):
    expect(
        invoke("execute", tiny, "--inputs", tiny.with_name(INPUTS), "--output", target),
        2,
        f"irrun: error: {target}",
    )


def test_output_over_a_file_in_the_model_folder_path_exits_2(tmp_path, tiny, invoke, expect):
    target = tiny / "out.npz"  # tiny.xml is a file, not a folder
    expect(
        invoke("execute", tiny, "--inputs", tiny.with_name(INPUTS), "--output", target),
        2,
        str(target),
    )
    assert tiny.is_file()


def test_output_that_is_a_fifo_is_not_replaced_by_a_regular_file(tmp_path, tiny, isolated):
    """BUG (irrun/arrays.py save_npz): the result is written to a temporary file and
    ``os.replace``d over the target whatever it is. A FIFO (or, when running as root, a device
    such as ``--output /dev/null`` or ``/dev/full``) is silently *replaced* by a regular .npz
    file: exit 0, "wrote 1 output(s) to ...", and the FIFO/device node is gone. Expected: exit 2
    "... is a FIFO/device, not a regular file" (or write into it), never delete it. Fix: lstat
    the target first and refuse anything that exists and is not a regular file."""
    fifo = tmp_path / "out.npz"
    os.mkfifo(fifo)
    outcome = isolated(
        "execute", tiny, "--inputs", tiny.with_name(INPUTS), "--output", fifo, timeout=30
    )
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode), f"the FIFO was replaced: {outcome.output}"
    assert outcome.exit_code == 2, outcome.output
    assert str(fifo) in outcome.output


def test_a_write_that_fails_half_way_leaves_no_partial_file(tmp_path, tiny):
    """RLIMIT_FSIZE makes the write of the .npz fail part-way (EFBIG): exit 2, a message naming
    the output, and neither the output nor a temporary file left in the folder."""
    out = tmp_path / "out.npz"
    before = listing(tmp_path)
    args = ["execute", str(tiny), "--inputs", str(tiny.with_name(INPUTS)), "--output", str(out)]
    code = textwrap.dedent(
        f"""
        import resource
        resource.setrlimit(resource.RLIMIT_FSIZE, (200, 200))
        from irrun.cli.main import main
        main(args={args!r}, prog_name="irrun")
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        timeout=60,
        env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"),
    )
    text = (done.stdout + done.stderr).decode(errors="replace")
    assert done.returncode == 2, text
    assert "Traceback" not in text and str(out) in text, text
    assert listing(tmp_path) == before


def test_dump_failure_leaves_no_output_either(tmp_path, tiny, invoke, expect):
    out = tmp_path / "out.npz"
    dump = tmp_path / "missing" / "dump.npz"
    expect(
        invoke(
            "execute", tiny, "--inputs", tiny.with_name(INPUTS), "--output", out, "--dump", dump
        ),
        2,
        str(dump),
    )
    assert not out.exists()


def test_failed_execution_writes_no_output(ov_copy, tmp_path, invoke, expect):
    import numpy as np

    model = ov_copy("g7")
    inputs = tmp_path / "in.npz"
    np.savez(inputs, data=np.ones((2, 3), np.float32), idx=np.array([0, 9], np.int64))
    out, dump = tmp_path / "out.npz", tmp_path / "dump.npz"
    expect(
        invoke("execute", model, "--inputs", inputs, "--output", out, "--dump", dump), 1, "index 9"
    )
    assert not out.exists() and not dump.exists()


# -- usage -------------------------------------------------------------------------------------
USAGE = {
    "unknown-option": (["validate", "{model}", "--bogus"], "No such option"),
    "unknown-command": (["frobnicate", "{model}"], "No such command"),
    "missing-model": (["validate"], "Missing argument"),
    "missing-model-execute": (["execute", "--inputs", "{inputs}"], "Missing argument"),
    "missing-inputs-option": (["execute", "{model}"], "Missing option '--inputs'"),
    "inputs-without-file": (["execute", "{model}", "--inputs"], "requires an argument"),
    "weights-without-file": (["inspect", "{model}", "--weights"], "requires an argument"),
    "output-without-file": (
        ["execute", "{model}", "--inputs", "{inputs}", "--output"],
        "requires an argument",
    ),
    "bad-format": (["validate", "{model}", "--format", "yaml"], "Invalid value for '--format'"),
    "extra-argument": (["inspect", "{model}", "{model}"], "unexpected extra argument"),
    "werror-with-value": (["validate", "{model}", "--werror=yes"], "does not take a value"),
}


@pytest.mark.parametrize("case", USAGE)
def test_usage_errors_exit_2_with_click_usage_message(tiny, case, invoke, expect):
    words, needle = USAGE[case]
    args = [w.format(model=tiny, inputs=tiny.with_name(INPUTS)) for w in words]
    out = expect(invoke(*args), 2, needle)
    assert "Error:" in out


@pytest.mark.parametrize("layer", ["no-such-layer", "9999", "", "-1"])
def test_stop_after_an_unknown_layer_is_a_usage_error(tiny, layer, invoke, expect):
    """BUG (irrun/execution.py steps): ``model.layer(stop_after)`` raises KeyError for an unknown
    name, which nothing turns into an IRError: "irrun: internal error: KeyError: \\"no layer with
    id or name 'no-such-layer'\\"", exit 3. Expected: exit 2 naming the model and the unknown
    layer (with its "did you mean" list). Fix: catch KeyError in steps() and raise
    InputValueError (or click.BadParameter in cli/execute_cmd.py)."""
    out = expect(
        invoke("execute", tiny, "--inputs", tiny.with_name(INPUTS), "--stop-after", layer),
        2,
        str(tiny),
    )
    assert repr(layer) in out or layer in out


def test_stop_after_a_real_layer_works(tiny, invoke, expect):
    expect(
        invoke("execute", tiny, "--inputs", tiny.with_name(INPUTS), "--stop-after", "g"),
        0,
        "picked",
    )
