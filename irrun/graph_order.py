"""Topological order of a graph's layers, iteratively (no recursion limit on long chains).

Algorithms over the index of :class:`irrun.model.Graph` (its layers by id and its producers);
they belong to the data model, below the reader and the walks.
"""

from __future__ import annotations

from irrun.errors import IRFormatError

__all__ = ["topological_layers", "acyclic_order", "find_cycle"]


def topological_layers(graph) -> list:
    """Kahn's algorithm over the graph's well-formed edges; document order breaks ties.

    Raises :class:`~irrun.errors.IRFormatError` naming the layers of a cycle.
    """
    order = acyclic_order(graph)
    if len(order) != len(graph._by_id):
        cycle = find_cycle(graph)
        names = " -> ".join(graph._by_id[i].describe() for i in cycle)
        raise IRFormatError(f"the graph has a cycle: {names}", file=graph.file)
    return order


def acyclic_order(graph) -> list:
    """The layers Kahn's algorithm can order: all of them for an acyclic graph; otherwise
    those not on (or downstream of) a cycle."""
    layers = list(graph._by_id.values())
    position = {layer.id: index for index, layer in enumerate(layers)}
    # Serializers write layers in topological order: when every edge goes forward in the
    # document, that order is the answer (one pass instead of a heap).
    for edge, _, _ in graph._producers.values():
        if position[edge.from_layer] >= position[edge.to_layer]:
            break
    else:
        return layers
    indegree = dict.fromkeys(position, 0)
    successors: dict[int, list[int]] = {layer_id: [] for layer_id in position}
    for edge, _, _ in graph._producers.values():
        successors[edge.from_layer].append(edge.to_layer)
        indegree[edge.to_layer] += 1
    import heapq

    ready = [position[layer_id] for layer_id, degree in indegree.items() if degree == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        layer = layers[heapq.heappop(ready)]
        order.append(layer)
        for successor in successors[layer.id]:
            indegree[successor] -= 1
            if indegree[successor] == 0:
                heapq.heappush(ready, position[successor])
    return order


def find_cycle(graph) -> list[int]:
    """Layer ids along one cycle (first id repeated at the end), or ``[]`` if acyclic."""
    successors: dict[int, list[int]] = {}
    for edge, _, _ in graph._producers.values():
        successors.setdefault(edge.from_layer, []).append(edge.to_layer)
    state: dict[int, int] = {}  # 1 = on the current path, 2 = finished
    for start in graph._by_id:
        if state.get(start):
            continue
        path = [start]
        iterators = [iter(successors.get(start, ()))]
        state[start] = 1
        while iterators:
            nxt = next(iterators[-1], None)
            if nxt is None:
                state[path.pop()] = 2
                iterators.pop()
            elif state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            elif not state.get(nxt):
                state[nxt] = 1
                path.append(nxt)
                iterators.append(iter(successors.get(nxt, ())))
    return []
