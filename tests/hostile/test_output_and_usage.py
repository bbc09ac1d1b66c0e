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
    "seed-without-value": (["execute", "{model}", "--seed"], "requires an argument"),
    "inputs-without-file": (["execute", "{model}", "--inputs"], "requires an argument"),
    "weights-without-file": (["inspect", "{model}", "--weights"], "requires an argument"),
    "output-without-file": (
        ["execute", "{model}", "--inputs", "{inputs}", "--output"],
        "requires an argument",
    ),
    "bad-format": (["validate", "{model}", "--format", "yaml"], "Invalid value for '--format'"),
    "extra-argument": (
        ["execute", "{model}", "{model}", "--inputs", "{inputs}"],
        "unexpected extra argument",
    ),
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


# -- outputs that would destroy what the command reads, or each other ---------------------------
def _fingerprints(folder):
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}


@pytest.mark.parametrize("option", ["--output", "--dump"])
@pytest.mark.parametrize("victim", ["tiny.xml", "tiny.bin", INPUTS])
def test_output_that_is_a_file_the_command_reads_exits_2_and_keeps_it(
    tmp_path, tiny, option, victim, invoke, expect
):
    before = _fingerprints(tmp_path)
    role = {"tiny.xml": "the model", "tiny.bin": "the weights file", INPUTS: "the inputs file"}
    expect(
        invoke("execute", tiny, "--inputs", tiny.with_name(INPUTS), option, tmp_path / victim),
        2,
        f"{option} '{tmp_path / victim}' is {role[victim]}",
        "would destroy that file",
    )
    assert _fingerprints(tmp_path) == before


@pytest.mark.parametrize("link", ["symlink", "hard link", "folder symlink", "relative"])
def test_output_reaching_the_model_through_a_link_exits_2(
    tmp_path, tiny, link, monkeypatch, invoke, expect
):
    if link == "symlink":
        target = tmp_path / "alias.xml"
        target.symlink_to(tiny)
    elif link == "hard link":
        target = tmp_path / "alias.xml"
        os.link(tiny, target)
    elif link == "folder symlink":
        (tmp_path / "same").symlink_to(tmp_path, target_is_directory=True)
        target = tmp_path / "same" / "tiny.bin"
    else:
        (tmp_path / "sub").mkdir()
        monkeypatch.chdir(tmp_path / "sub")
        target = "../tiny_inputs.npz"
    before = _fingerprints(tmp_path)
    expect(
        invoke("execute", tiny, "--inputs", tiny.with_name(INPUTS), "--output", target),
        2,
        "would destroy that file",
    )
    assert _fingerprints(tmp_path) == before


def test_explicit_weights_file_is_protected_too(tmp_path, tiny, invoke, expect):
    weights = tmp_path / "other.npz"
    weights.write_bytes(tiny.with_suffix(".bin").read_bytes())
    expect(
        invoke(
            "execute",
            tiny,
            "--weights",
            weights,
            "--inputs",
            tiny.with_name(INPUTS),
            "--dump",
            weights,
        ),  # fmt: skip
        2,
        "is the weights file",
    )
    assert weights.read_bytes() == tiny.with_suffix(".bin").read_bytes()


def test_output_and_dump_to_one_file_exits_2_and_writes_nothing(tmp_path, tiny, invoke, expect):
    before = listing(tmp_path)
    target = tmp_path / "x.npz"
    expect(
        invoke(
            "execute",
            tiny,
            "--inputs",
            tiny.with_name(INPUTS),
            "--output",
            target,
            "--dump",
            tmp_path / "." / "x.npz",
        ),  # fmt: skip
        2,
        "--dump",
        "is --output",
        "one would overwrite the other",
    )
    assert listing(tmp_path) == before


@pytest.mark.parametrize("option", ["--output", "--dump"])
@pytest.mark.parametrize("value", ["", " "])
def test_empty_output_path_exits_2(tmp_path, tiny, option, value, monkeypatch, invoke, expect):
    monkeypatch.chdir(tmp_path)
    before = listing(tmp_path)
    expect(
        invoke("execute", tiny, "--inputs", tiny.with_name(INPUTS), option, value),
        2,
        f"{option} is empty",
    )
    assert listing(tmp_path) == before


@pytest.mark.parametrize("victim", ["model", "weights"])
def test_graph_output_that_is_the_model_or_its_weights_exits_2(
    tmp_path, tiny, victim, invoke, expect
):
    # The picture's extension must name a format, so the victims are named that way.
    model = tmp_path / "m.dot" if victim == "model" else tiny
    if victim == "model":
        model.write_bytes(tiny.read_bytes())
    weights = tmp_path / "w.svg"
    weights.write_bytes(tiny.with_suffix(".bin").read_bytes())
    target = model if victim == "model" else weights
    before = _fingerprints(tmp_path)
    expect(
        invoke("graph", model, "--weights", weights, "-o", target),
        2,
        f"-o '{target}' is the {'model' if victim == 'model' else 'weights file'}",
    )
    assert _fingerprints(tmp_path) == before


def test_graph_output_reaching_the_bin_beside_the_model_through_a_link_exits_2(
    tmp_path, tiny, invoke, expect
):
    (tmp_path / "picture.png").symlink_to(tiny.with_suffix(".bin"))
    before = _fingerprints(tmp_path)
    expect(invoke("graph", tiny, "-o", tmp_path / "picture.png"), 2, "is the weights file")
    assert _fingerprints(tmp_path) == before


def test_graph_output_empty_exits_2(tiny, invoke, expect):
    expect(invoke("graph", tiny, "-o", ""), 2, "the path is empty")


# -- why a place cannot be written ---------------------------------------------------------------
@pytest.mark.parametrize(
    "target, kind",
    [("/proc/out.npz", "proc"), ("/proc/self/out.npz", "proc"), ("/sys/out.npz", "sysfs")],
)
def test_output_in_a_kernel_file_system_says_it_is_not_a_regular_folder(
    tiny, target, kind, invoke, expect
):
    text = expect(
        invoke("execute", tiny, "--inputs", tiny.with_name(INPUTS), "--output", target), 2
    )
    assert "No such file or directory" not in text
    assert f"is not a regular folder but part of the kernel's {kind} file system" in text


@pytest.mark.parametrize(
    "error, says",
    [
        (PermissionError(13, "Permission denied"), "is not writable (permission denied)"),
        (OSError(30, "Read-only file system"), "is on a read-only file system"),
    ],
)
def test_output_in_a_folder_that_refuses_files_says_why(
    tmp_path, tiny, error, says, monkeypatch, invoke, expect
):
    import tempfile

    def refuse(*args, **kwargs):
        raise error

    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    expect(
        invoke("execute", tiny, "--inputs", tiny.with_name(INPUTS), "--output", tmp_path / "o.npz"),
        2,
        f"folder '{tmp_path}' {says}",
    )
