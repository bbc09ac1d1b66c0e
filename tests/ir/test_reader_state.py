"""The reader keeps no state between loads: everything a load remembers is in its own
``ReadState``, so loads in several threads at once read what each reads alone."""

from __future__ import annotations

import ast
import threading
from pathlib import Path

import irrun
from irrun.ir import layers
from tests.helpers.ir_text import Net

READER_MODULES = ["reader", "layers", "ports", "edges", "lines", "document", "model_io",
                  "rt_info", "ids", "accelerator"]  # fmt: skip
FOLDER = Path(layers.__file__).parent


def mutable_globals(path: Path) -> list[str]:
    """Module-level names bound to a dict, list or set display or constructor call."""
    found = []
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        targets, value = [], None
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        mutable = isinstance(value, (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp,
                                     ast.SetComp)) or (
            isinstance(value, ast.Call) and getattr(value.func, "id", "") in ("dict", "list", "set")
        )  # fmt: skip
        names = [t.id for t in targets if isinstance(t, ast.Name) and t.id != "__all__"]
        if mutable and names:
            found += names
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            found += [d.id for d in node.decorator_list if isinstance(d, ast.Call)
                      and getattr(d.func, "id", "") == "lru_cache"]  # fmt: skip
    return found


def test_no_reader_module_holds_mutable_state():
    assert {name: mutable_globals(FOLDER / f"{name}.py") for name in READER_MODULES} == {
        name: [] for name in READER_MODULES
    }


def test_a_load_in_a_thread_reads_what_it_reads_alone(snapshot, reader_kind):
    texts = []
    for variant in range(4):  # different signatures, same ids: a shared cache would mix them
        net = Net()
        x = net.param("x", f"1,{variant + 2}")
        for i in range(300):
            x = net.op(f"relu{i}", "Relu", "opset1", None, [x], [1, variant + 2])
        net.result(x, "out")
        texts.append(net.text())
    alone = [snapshot(irrun.load(text)) for text in texts]
    results = {}

    def load(index):
        for _ in range(3):
            results.setdefault(index, []).append(snapshot(irrun.load(texts[index % 4])))

    threads = [threading.Thread(target=load, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(result == alone[i % 4] for i, runs in results.items() for result in runs)
    assert sum(len(runs) for runs in results.values()) == 24
