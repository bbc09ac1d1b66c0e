"""Fixtures shared by every test folder; plain helper functions are in ``tests/helpers``."""

from __future__ import annotations

import pytest


def _snapshot(model) -> tuple:
    """Everything the reader produces, as plain values (attribute order included)."""

    def port(p):
        return (p.id, p.direction, p.index, p.precision, p.element_type, str(p.declared_shape),
                p.names, p.line, dict(p.rt_info))  # fmt: skip

    def layer(x):
        bodies = {tag: graph_of(body) for tag, body in x.bodies.items()}
        ports = [port(p) for p in (*x.inputs, *x.outputs)]
        return (x.id, x.name, x.type, x.version, list(x.attributes.items()), x.line,
                x.data_line, x.output_names, dict(x.rt_info), ports, bodies, dict(x.port_maps),
                list(x.back_edges))  # fmt: skip

    def graph_of(graph):
        edges = [(e.from_layer, e.from_port, e.to_layer, e.to_port, e.line) for e in graph.edges]
        return [layer(x) for x in graph.layers], edges

    inputs = [(i.name, i.names) for i in model.inputs]
    outputs = [(o.name, o.names) for o in model.outputs]
    return (model.name, model.ir_version, model.rt_info, graph_of(model), inputs, outputs)


@pytest.fixture(scope="session")
def snapshot():
    """``snapshot(model)``: every layer, port, edge, name and line of a loaded model as plain
    values, for comparing two ways of reading the same IR."""
    return _snapshot


@pytest.fixture(scope="session")
def python_reader():
    """A context manager: inside it, IR is read without the C accelerator (pure Python)."""
    from contextlib import contextmanager

    from irrun.ir import reader

    @contextmanager
    def without_accelerator():
        saved = reader._walk
        reader._walk = None
        try:
            yield
        finally:
            reader._walk = saved

    return without_accelerator


@pytest.fixture
def erf_without_kernel():
    """Erf-1 registered as a shape-only op (its rule, no kernel) for the test's duration: a
    model with a layer irrun cannot run."""
    from irrun.ops.base import Op
    from irrun.ops.registry import register, resolve

    original = resolve("Erf", 1)

    class ShapeOnlyErf(original):
        evaluate = Op.evaluate

    register(ShapeOnlyErf, replace=True)
    yield
    register(original, replace=True)
