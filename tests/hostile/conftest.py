"""Shared fixtures of the hostile-input tests.

Every test here feeds irrun something bad and checks the answer the issue asks for: the documented
exit code (2 unusable input or usage, 1 the model has problems, 0 ok, never 3), one clear message
naming the file (and the line and layer where there is one), no traceback, bounded time and
memory, and never the contents of a file irrun was tricked into opening.

The helpers (running irrun, checking its answer, finding lines) live in ``tests/helpers``;
the fixtures below hand them to the tests under the names these tests use (session-scoped, so
hypothesis tests may use them too).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests.helpers import cli, ir_text

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "ir"
GiB = 1 << 30


@pytest.fixture(scope="session")
def invoke():
    """``invoke(*args)``: run ``irrun ARGS`` in-process with CliRunner; an ``Outcome``."""
    return cli.outcome


@pytest.fixture(scope="session")
def isolated():
    """``isolated(*args, limit_as=None, timeout=60, cwd=None, env=None)``: irrun in a subprocess."""
    return cli.isolated


@pytest.fixture(scope="session")
def expect():
    """``expect(outcome, code, *needles, max_chars=10_000)``: the clean-answer assertions."""
    return cli.expect


@pytest.fixture(scope="session")
def line_of():
    return ir_text.line_of


@pytest.fixture(scope="session")
def passwd_markers():
    return cli.passwd_markers()


@pytest.fixture(scope="session")
def tiny_text() -> str:
    return (EXAMPLES / "tiny.xml").read_text()


@pytest.fixture
def tiny(tmp_path) -> Path:
    """A private copy of examples/ir/tiny.xml with its tiny.bin and tiny_inputs.npz."""
    for name in ("tiny.xml", "tiny.bin", "tiny_inputs.npz"):
        shutil.copy(EXAMPLES / name, tmp_path / name)
    return tmp_path / "tiny.xml"


def _line_pattern(path) -> re.Pattern:
    return re.compile(re.escape(str(path)) + r":(\d+)")


@pytest.fixture(scope="session")
def line_in():
    """``line_in(path, text)``: the line number printed as ``path:LINE`` in text, or None."""

    def find(path, text):
        found = _line_pattern(path).search(text)
        return int(found.group(1)) if found else None

    return find


# -- models written by OpenVINO ----------------------------------------------------------------
@pytest.fixture(scope="session")
def ov_models(tmp_path_factory) -> dict[str, Path]:
    """Small IR written by ``openvino.save_model`` (FP32 kept), keyed by name.

    ``g8`` / ``g7``: data f32 [2,?] and idx i64 [?] as Parameters, Gather (axis 1) then Concat
    with data. ``gbig``: data f32 [?,?], idx i64 [?], Gather-8 axis 0 alone (a small input can
    ask for a huge output). ``rich``: one Parameter feeding Gather-7/8, GatherND, GatherElements
    and Concat, plus u4 and string Consts, six Results.
    """
    ov = pytest.importorskip("openvino")
    import numpy as np
    import openvino.opset1 as o1
    import openvino.opset6 as o6
    import openvino.opset7 as o7
    import openvino.opset8 as o8
    from openvino import op

    folder = tmp_path_factory.mktemp("ov_models")
    paths = {}

    def save(model, name):
        path = folder / f"{name}.xml"
        ov.save_model(model, str(path), compress_to_fp16=False)
        paths[name] = path

    def parameter(shape, ov_type, name):
        node = o1.parameter(shape, ov_type, name=name)
        node.output(0).get_tensor().set_names({name})
        return node

    for name, gather in (("g8", o8.gather), ("g7", o7.gather)):
        data = parameter([2, -1], ov.Type.f32, "data")
        idx = parameter([-1], ov.Type.i64, "idx")
        g = gather(data, idx, o1.constant(np.int64(1)))
        g.set_friendly_name("g")
        cat = o1.concat([g, data], 1)
        cat.set_friendly_name("cat")
        cat.output(0).get_tensor().set_names({"out"})
        save(ov.Model([o1.result(cat)], [data, idx], name), name)

    data = parameter([-1, -1], ov.Type.f32, "data")
    idx = parameter([-1], ov.Type.i64, "idx")
    g = o8.gather(data, idx, o1.constant(np.int64(0)))
    g.set_friendly_name("g")
    g.output(0).get_tensor().set_names({"out"})
    save(ov.Model([o1.result(g)], [data, idx], "gbig"), "gbig")

    data = parameter([2, 3, 4], ov.Type.f32, "data")
    g8 = o8.gather(data, o1.constant(np.array([2, 0], np.int32)), o1.constant(np.int64(1)), 0)
    g8.set_friendly_name("g8")
    g7 = o7.gather(
        data, o1.constant(np.array([[1], [0]], np.int64)), o1.constant(np.array([0], np.int64)), 0
    )
    g7.set_friendly_name("g7")
    nd = o8.gather_nd(data, o1.constant(np.array([[0, 1], [1, 2]], np.int64)), 0)
    nd.set_friendly_name("nd")
    ge = o6.gather_elements(data, o1.constant(np.zeros((2, 3, 4), np.int64)), 2)
    ge.set_friendly_name("ge")
    weights = o1.constant(np.arange(16, dtype=np.float32).reshape(2, 2, 4))
    cat = o1.concat([g8, weights], 1)
    cat.set_friendly_name("cat")
    u4 = op.Constant(ov.Type.u4, ov.Shape([5]), [1, 2, 3, 15, 4])
    u4.set_friendly_name("u4")
    strings = op.Constant(ov.Tensor(np.array(["ab", "h\u00e9llo"])))
    strings.set_friendly_name("s")
    results = [o1.result(x) for x in (cat, g7, nd, ge, u4, strings)]
    save(ov.Model(results, [data], "rich"), "rich")
    return paths


@pytest.fixture
def ov_copy(ov_models, tmp_path):
    """``ov_copy(name)``: a private copy of one of :func:`ov_models` (xml + bin) in tmp_path."""

    def copy(name: str) -> Path:
        source = ov_models[name]
        shutil.copy(source, tmp_path / source.name)
        shutil.copy(source.with_suffix(".bin"), tmp_path / f"{source.stem}.bin")
        return tmp_path / source.name

    return copy
