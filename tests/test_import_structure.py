"""The package's layering: every import (module-level and inside functions) read with ``ast``,
as a graph of modules that must have no cycle.

``from x import y`` counts as importing ``x.y`` when that is a module, else ``x``; relative
imports are resolved; importing ``a.b`` does not count as importing the package ``a`` (its
``__init__`` runs, but that is not a dependency of the importing module's code).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# cli/ installs as irrun.cli (see pyproject.toml).
SOURCES = {"irrun": ROOT / "irrun", "irrun.cli": ROOT / "cli"}
# Op modules and the registry that imports them, being redesigned; see test_no_cycles_in_ops.
OPS = "irrun.ops"


def _module_files() -> dict[str, Path]:
    files = {}
    for package, folder in SOURCES.items():
        for path in sorted(folder.rglob("*.py")):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            files[".".join([package, *parts])] = path
    return files


def _extension_modules() -> set[str]:
    """The C extensions setup.py builds (``Extension("irrun.ir._walk", ...)``): modules too,
    importing nothing of irrun."""
    tree = ast.parse((ROOT / "setup.py").read_text(encoding="utf-8"))
    return {
        node.args[0].value
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and getattr(node.func, "id", None) == "Extension"
        and node.args
        and isinstance(node.args[0], ast.Constant)
    }


MODULES = _module_files()
EXTENSIONS = _extension_modules()


def _is_package(name: str) -> bool:
    return MODULES.get(name, Path()).name == "__init__.py"


def _imports(name: str, path: Path) -> set[str]:
    """The irrun modules ``name`` imports anywhere in its code."""
    package = name if _is_package(name) else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                found.add(submodule if submodule in MODULES or submodule in EXTENSIONS else source)
    return {imported for imported in found if imported in MODULES and imported != name}


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle (first module repeated at the end) per strongly connected component."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components = []

    def connect(start):
        # Tarjan's algorithm, iteratively.
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            for successor in successors:
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(graph[successor]))))
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1 or node in graph[node]:
                        components.append(set(component))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return [_cycle_within(graph, component) for component in components]


def _cycle_within(graph, component: set[str]) -> list[str]:
    """A shortest cycle through the component's first module, by breadth-first search."""
    start = min(component)
    came_from = {start: None}
    queue = [start]
    for node in queue:
        for successor in sorted(graph[node] & component):
            if successor == start:
                path = [node]
                while came_from[path[-1]] is not None:
                    path.append(came_from[path[-1]])
                return [start, *reversed(path[:-1]), start] if len(path) > 1 else [start, start]
            if successor not in came_from:
                came_from[successor] = node
                queue.append(successor)
    raise AssertionError(f"{component} is not a cycle")


def _describe(cycles) -> str:
    return "\n".join(" -> ".join(cycle) for cycle in cycles)


def test_the_graph_covers_the_package():
    assert {"irrun.ir._walk"} == EXTENSIONS
    assert {"irrun.model", "irrun.api", "irrun.cli.main", "irrun.ops.registry"} <= set(GRAPH)
    assert "irrun.model" in GRAPH["irrun.ir.reader"]
    # function-level imports count
    assert "irrun.validation" in GRAPH["irrun.api"]


def test_no_import_cycles():
    cycles = _cycles(GRAPH)
    assert not cycles, f"import cycles:\n{_describe(cycles)}"


def test_op_modules_import_no_other_op_module():
    """An op is one module: it may use the shared helpers (``_``-modules, base, registry) and
    the big kernels, never another op's module."""
    ops = {m for m in GRAPH if m.startswith(OPS + ".") and not m.rsplit(".", 1)[1].startswith("_")}
    shared = {f"{OPS}.base", f"{OPS}.registry", f"{OPS}.opsets"}
    for module in sorted(ops - shared):
        others = sorted(m for m in GRAPH[module] if m in ops - shared)
        assert not others, f"{module} imports {others}"


def test_model_imports_nothing_above_the_data_model():
    above = ("irrun.validation", "irrun.execution", "irrun.compare", "irrun.render", "irrun.ir")
    upward = sorted(m for m in GRAPH["irrun.model"] if m.startswith(above))
    assert not upward, f"irrun.model imports {upward}"


def test_irrun_never_imports_click():
    importers = []
    for name, path in MODULES.items():
        if name == "irrun.cli" or name.startswith("irrun.cli."):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module or ""]
            if any(n == "click" or n.startswith("click.") for n in names):
                importers.append(name)
    assert not importers, f"{importers} import click; only irrun.cli may"
