"""Hostile files: missing, directories, FIFOs, devices, symlinks (to secrets, in loops), files
/proc serves, and .bin files whose Const ranges, sizes and element types do not add up.

A file irrun cannot use at all is exit 2 (README "Exit codes"); a Const whose bytes cannot be
read is a model problem reported by validate (exit 1, ``bin-range`` / ``const-size`` /
``attribute-value``, with the layer and the line), while inspect still describes the model.
"""

from __future__ import annotations

import os
import stat

import numpy as np
import pytest

import irrun

INPUTS = "tiny_inputs.npz"


def args_for(command, tiny):
    return ["--inputs", tiny.with_name(INPUTS)] if command == "execute" else []


# -- missing, directory, FIFO, devices, loops --------------------------------------------------
@pytest.mark.parametrize("command", ["validate", "inspect", "execute"])
def test_missing_model_and_missing_weights_exit_2(tmp_path, tiny, command, invoke, expect):
    extra = args_for(command, tiny)
    missing = tmp_path / "nope.xml"
    expect(invoke(command, missing, *extra), 2, f"irrun: error: {missing}", "does not exist")
    bin_missing = tmp_path / "nope.bin"
    expect(
        invoke(command, tiny, "--weights", bin_missing, *extra),
        2,
        str(bin_missing),
        "weights file",
        "does not exist",
    )


@pytest.mark.parametrize("command", ["validate", "inspect", "execute"])
def test_directories_exit_2(tmp_path, tiny, command, invoke, expect):
    extra = args_for(command, tiny)
    folder = tmp_path / "folder.xml"
    folder.mkdir()
    expect(invoke(command, folder, *extra), 2, str(folder), "is a directory")
    expect(invoke(command, tiny, "--weights", tmp_path, *extra), 2, str(tmp_path), "is a directory")


def test_directory_as_inputs_exits_2(tmp_path, tiny, invoke, expect):
    expect(invoke("execute", tiny, "--inputs", tmp_path), 2, str(tmp_path), "is a directory")


@pytest.mark.parametrize("role", ["model", "weights", "inputs", "bin-beside-model"])
def test_fifo_never_blocks(tmp_path, tiny, role, isolated, expect):
    fifo = tmp_path / ("tiny.bin" if role == "bin-beside-model" else "pipe")
    if role == "bin-beside-model":
        fifo.unlink()
    os.mkfifo(fifo)
    inputs = tiny.with_name(INPUTS)
    args = {
        "model": ("execute", fifo, "--inputs", inputs),
        "weights": ("execute", tiny, "--weights", fifo, "--inputs", inputs),
        "inputs": ("execute", tiny, "--inputs", fifo),
        "bin-beside-model": ("validate", tiny),
    }[role]
    outcome = isolated(*args, timeout=30)
    expect(outcome, 2, str(fifo), "FIFO")


@pytest.mark.parametrize(
    "device, role",
    [
        ("/dev/zero", "model"),
        ("/dev/zero", "weights"),
        ("/dev/zero", "inputs"),
        ("/dev/urandom", "model"),
        ("/dev/null", "model"),
        ("/dev/null", "weights"),
        ("/dev/null", "inputs"),
    ],
)
def test_devices_are_refused_without_reading(tiny, role, device, isolated, invoke, expect):
    inputs = tiny.with_name(INPUTS)
    args = {
        "model": ("validate", device),
        "weights": ("execute", tiny, "--weights", device, "--inputs", inputs),
        "inputs": ("execute", tiny, "--inputs", device),
    }[role]
    if device == "/dev/null":  # reads nothing even if the check were gone: in-process is safe
        outcome = invoke(*args)
    else:  # an endless device: a subprocess with a memory cap and a timeout
        outcome = isolated(*args, limit_as=1 << 30, timeout=30)
    expect(outcome, 2, device, "not a regular file")


@pytest.mark.parametrize("role", ["model", "weights", "inputs"])
def test_symlink_loop_exits_2(tmp_path, tiny, role, invoke, expect):
    loop = tmp_path / "loop"
    other = tmp_path / "other"
    loop.symlink_to(other)
    other.symlink_to(loop)
    inputs = tiny.with_name(INPUTS)
    args = {
        "model": ("inspect", loop),
        "weights": ("execute", tiny, "--weights", loop, "--inputs", inputs),
        "inputs": ("execute", tiny, "--inputs", loop),
    }[role]
    expect(invoke(*args), 2, str(loop), "symbolic link loop")


def test_dangling_symlink_as_bin_beside_the_model_exits_2(tmp_path, tiny, invoke, expect):
    weights = tiny.with_suffix(".bin")
    weights.unlink()
    weights.symlink_to(tmp_path / "gone.bin")
    expect(invoke("validate", tiny), 2, str(weights), "does not exist")


# -- symlinks to files that are not the user's model -------------------------------------------
@pytest.mark.parametrize("command", ["validate", "inspect", "execute"])
def test_symlink_to_etc_passwd_as_model_shows_none_of_it(
    tmp_path, tiny, command, invoke, expect, passwd_markers
):
    link = tmp_path / "model.xml"
    link.symlink_to("/etc/passwd")
    out = expect(invoke(command, link, *args_for(command, tiny)), 2, f"irrun: error: {link}")
    for leaked in passwd_markers:
        assert leaked not in out


@pytest.mark.parametrize(
    "secret",
    [
        "hunter2-SECRET-TOKEN\n",
        "<config><password>hunter2-SECRET-TOKEN</password></config>\n",
        "<layer id='0'>hunter2-SECRET-TOKEN</layer>\n",
        "<net version='11'><layers><layer id='0' name='n' type='t' version='v'>"
        "hunter2-SECRET-TOKEN</layer></layers></net>",
        '<?xml version="1.0"?>\n<a><b>hunter2-SECRET-TOKEN</a>\n',
    ],
    ids=["plain", "foreign-xml", "fragment", "net", "mismatched-tags"],
)
@pytest.mark.parametrize("command", ["validate", "inspect"])
def test_symlink_to_a_secret_file_never_shows_its_text(tmp_path, secret, command, invoke):
    target = tmp_path / "secret.txt"
    target.write_text(secret)
    link = tmp_path / "model.xml"
    link.symlink_to(target)
    outcome = invoke(command, link)
    assert outcome.exit_code in (0, 1, 2), outcome.output
    assert "Traceback" not in outcome.output
    assert "hunter2" not in outcome.output, outcome.output


def test_symlinked_inputs_to_etc_passwd_shows_none_of_it(
    tmp_path, tiny, invoke, expect, passwd_markers
):
    link = tmp_path / "in.npz"
    link.symlink_to("/etc/passwd")
    out = expect(invoke("execute", tiny, "--inputs", link), 2, str(link), ".npz")
    for leaked in passwd_markers:
        assert leaked not in out


def test_proc_self_environ_as_model_shows_no_environment(tmp_path, isolated, expect):
    link = tmp_path / "model.xml"
    link.symlink_to("/proc/self/environ")
    outcome = isolated("validate", link, env={"HOSTILE_MARKER": "hunter2-ENV-SECRET"})
    out = expect(outcome, 2, str(link))
    assert "hunter2" not in out


@pytest.mark.parametrize("proc_file", ["/proc/self/mem", "/proc/self/pagemap"])
def test_proc_files_that_fail_on_read_exit_2(proc_file, isolated, expect):
    """BUG (irrun/ir/files.py read_regular_file): /proc files pass the S_ISREG check (size 0)
    but ``handle.read()`` raises OSError (EIO for /proc/self/mem, EINVAL for pagemap), which
    nothing catches: "irrun: internal error: OSError: [Errno 5] Input/output error", exit 3.
    Expected: exit 2, "cannot read model file '/proc/self/mem': Input/output error". Fix: wrap
    the read in ``try/except OSError`` and raise InputFileError (and cap the bytes read)."""
    outcome = isolated("validate", proc_file, limit_as=2 << 30, timeout=30)
    expect(outcome, 2, f"irrun: error: {proc_file}")


def test_proc_self_mem_through_the_api_is_an_input_file_error():
    with pytest.raises(irrun.InputFileError) as caught:
        irrun.load("/proc/self/mem")
    assert caught.value.file == "/proc/self/mem"


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads chmod 000 files, nothing to refuse")
@pytest.mark.parametrize("role", ["model", "weights", "inputs"])
def test_unreadable_file_exits_2(tmp_path, tiny, role, invoke, expect):
    target = {"model": tiny, "weights": tiny.with_suffix(".bin"), "inputs": tiny.with_name(INPUTS)}
    path = target[role]
    path.chmod(0)
    try:
        outcome = invoke("execute", tiny, "--inputs", tiny.with_name(INPUTS))
        expect(outcome, 2, str(path), "not readable")
    finally:
        path.chmod(stat.S_IRUSR | stat.S_IWUSR)


# -- Const byte ranges -------------------------------------------------------------------------
def _const_case(tiny, tiny_text, old, new):
    """Write tiny with one edit; return the line of the edited text (the Const's <data>)."""
    assert old in tiny_text
    text = tiny_text.replace(old, new, 1)
    tiny.write_text(text)
    return text[: text.index(new)].count("\n") + 1


CONST_CASES = {
    # name: (old, new, diagnostic code, words)
    "bin-shorter": ('offset="16" size="8"', 'offset="20" size="8"', "bin-range", ["24 bytes"]),
    "offset-2**63": ('offset="16"', f'offset="{2**63}"', "attribute-value", [str(2**63)]),
    "offset-2**64+5": ('offset="16"', f'offset="{2**64 + 5}"', "attribute-value", [str(2**64 + 5)]),
    "size-2**64+5": ('size="8"', f'size="{2**64 + 5}"', "attribute-value", [str(2**64 + 5)]),
    "negative-offset": ('offset="16"', 'offset="-8"', "bin-range", ["-8"]),
    "negative-size": ('size="8"', 'size="-8"', "bin-range", ["-8"]),
    "empty-size": ('size="8"', 'size=""', "attribute-value", ["size=''"]),
    "empty-offset": ('offset="16"', 'offset=""', "attribute-value", ["offset=''"]),
    "wrap-around": (
        'offset="16" size="8"',
        f'offset="{2**63 - 1}" size="{2**63 - 1}"',
        "bin-range",
        ["24 bytes"],
    ),
    "wrap-to-zero": (
        'offset="16" size="8"',
        f'offset="{2**63 - 8}" size="{2**63 - 1}"',
        "bin-range",
        ["24 bytes"],
    ),
    "size-too-small": ('offset="16" size="8"', 'offset="16" size="4"', "const-size", ["8 bytes"]),
    "shape-too-big": ('shape="" offset="16"', 'shape="3" offset="16"', "const-size", ["24 bytes"]),
    "shape-2**40-squared": (
        'shape="" offset="16"',
        f'shape="{2**40},{2**40}" offset="16"',
        "const-size",
        [str(2**40)],
    ),
    "unknown-element-type": (
        'element_type="i64" shape=""',
        'element_type="f128" shape=""',
        "attribute-value",
        ["f128"],
    ),
    "port-style-element-type": (
        'element_type="i64" shape=""',
        'element_type="FP32" shape=""',
        "attribute-value",
        ["FP32"],
    ),
    "dynamic-element-type": (
        'element_type="i64" shape=""',
        'element_type="dynamic" shape=""',
        None,
        ["dynamic"],
    ),
    "dynamic-shape": ('shape="" offset="16"', 'shape="?" offset="16"', "attribute-value", ["?"]),
    "string-header": (
        'element_type="i64" shape=""',
        'element_type="string" shape=""',
        "const-size",
        ["string"],
    ),
}


@pytest.mark.parametrize("case", CONST_CASES)
def test_const_whose_bytes_cannot_be_read_is_a_validation_error_on_its_layer(
    tiny, tiny_text, case, invoke, expect
):
    old, new, code, words = CONST_CASES[case]
    data_line = _const_case(tiny, tiny_text, old, new)
    out = expect(invoke("validate", tiny), 1, "'ax'", *words)
    first = out.splitlines()[0]
    assert first.startswith(f"{tiny}:"), out
    # the <layer> line (one above <data>) or the <data> line itself
    assert int(first.split(":")[1]) in (data_line - 1, data_line), out
    if code:
        assert f"error[{code}]" in first, out
    expect(invoke("inspect", tiny), 0, "weights:")
    expect(invoke("execute", tiny, "--inputs", tiny.with_name(INPUTS)), 1, f"{tiny}:", "'ax'")


def test_const_offsets_and_sizes_through_the_api_raise_weights_errors(tiny, tiny_text):
    tiny.write_text(tiny_text.replace('offset="16" size="8"', f'offset="{2**63 - 1}" size="8"'))
    model = irrun.load(tiny)
    with pytest.raises(irrun.WeightsError) as caught:
        _ = model.layer("ax").value
    assert caught.value.file == str(tiny) and caught.value.line is not None
    assert "'ax'" in str(caught.value)


def test_zero_size_const_with_huge_other_dims_is_not_an_internal_error(tiny, tiny_text, invoke):
    """BUG (irrun/ir/weights.py decode_const, reached from validation): a Const with
    ``shape="4611686018427387904,4611686018427387904,0"`` has zero elements, so the size check
    passes, then ``array.reshape(shape)`` raises ValueError ("cannot reshape array of size 0
    into shape ..."): validate prints ``error[internal]`` ("a bug in irrun"). Expected: an
    ``attribute-value``/``const-size`` error saying the shape's dims exceed what numpy (and
    OpenVINO, whose shape_size overflows) can address, or a zero-size value."""
    huge = 2**62
    tiny.write_text(
        tiny_text.replace('shape="" offset="16"', f'shape="{huge},{huge},0" offset="16"')
    )
    outcome = invoke("validate", tiny)
    assert outcome.exit_code == 1, outcome.output
    assert "Traceback" not in outcome.output
    assert "error[internal]" not in outcome.output, outcome.output


def test_truncated_bin_beside_the_model_names_every_unreadable_const(tiny, invoke, expect):
    weights = tiny.with_suffix(".bin")
    weights.write_bytes(weights.read_bytes()[:10])
    out = expect(invoke("validate", tiny), 1, "'idx'", "'ax'", "10 bytes")
    assert out.count("error[bin-range]") == 2, out
    expect(invoke("execute", tiny, "--inputs", tiny.with_name(INPUTS)), 1, str(tiny))


def test_empty_bin_and_no_bin(tiny, invoke, expect):
    weights = tiny.with_suffix(".bin")
    weights.write_bytes(b"")
    expect(invoke("validate", tiny), 1, "error[bin-range]", "'idx'")
    weights.unlink()
    expect(invoke("validate", tiny), 1, "error[bin-range]", "no weights file")


def test_const_values_decoded_from_a_random_bin_never_crash(tiny, invoke):
    rng = np.random.default_rng(7)
    weights = tiny.with_suffix(".bin")
    for _ in range(20):
        weights.write_bytes(rng.integers(0, 256, 24, dtype=np.uint8).tobytes())
        outcome = invoke("validate", tiny)
        assert outcome.exit_code in (0, 1), outcome.output
        assert "Traceback" not in outcome.output and "internal" not in outcome.output
