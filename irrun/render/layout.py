"""A layered (Sugiyama-style) layout of a directed graph, in NumPy, for the graph page.

Nodes come in ranks (the topological generations :mod:`irrun.render.draw` gives); an edge that
spans several ranks gets a point on each rank it crosses, so that the ordering sees it and the
drawing routes it between boxes rather than through them. The order within each rank is
improved by barycentre sweeps, and x positions by alternating sweeps in which each node goes as
near the mean of its neighbours as the boxes beside it allow (a weighted isotonic regression
per rank). Ranks are stacked top to bottom. Everything is linear in the nodes and edge points
except the per-rank loops, which run over NumPy arrays: a 3,000-layer model lays out in well
under a second.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Layout", "layered_layout"]

#: Most edge points added for long edges; past it the longest edges are drawn straight.
POINT_BUDGET = 60_000
_POINT_WIDTH = 12.0  # room a long edge takes on a rank it crosses
_LONG_EDGE_WEIGHT = 4.0  # how much a point of a long edge wants to line up with its neighbours


@dataclass
class Layout:
    """Where :func:`layered_layout` put things (pixels, y growing downwards).

    Attributes
    ----------
    x, y : numpy.ndarray
        Centre of each node.
    width, height : float
        The extent of the drawing (every box lies within ``[0, width] x [0, height]``).
    routes : list of list of float
        For each edge, the flat list ``[x0, y0, x1, y1, ...]`` of the points it passes: the
        bottom of its tail's box, one point per rank it crosses, the top of its head's box.
    """

    x: np.ndarray
    y: np.ndarray
    width: float
    height: float
    routes: list


def layered_layout(
    sizes,
    edges,
    ranks,
    order=None,
    *,
    tail_slots=None,
    head_slots=None,
    gap_x: float = 28.0,
    gap_y: float = 46.0,
    margin: float = 20.0,
    sweeps: int = 4,
) -> Layout:
    """Lay out boxes of the given sizes in ranks, top to bottom, with few edge crossings.

    Parameters
    ----------
    sizes : array_like, shape (n, 2)
        Width and height of each node's box.
    edges : array_like, shape (m, 2)
        ``(tail, head)`` node indices. Edges may go down several ranks; edges within a rank
        or upwards (a cycle's) are drawn straight and do not take part in the ordering.
    ranks : array_like of int, shape (n,)
        The rank of each node, 0 at the top.
    order : array_like, shape (n,), optional
        The initial left-to-right order within ranks (any sortable keys; default: the index).
    tail_slots, head_slots : array_like, shape (m,), optional
        Where along its box's width (0 left, 1 right) each edge leaves its tail and enters its
        head (default 0.5, the middle), so that a layer's ports are told apart.
    gap_x, gap_y, margin : float
        Space between boxes of one rank, between ranks, and around the drawing.
    sweeps : int
        Rounds of ordering and of positioning (each one down and one up).

    Returns
    -------
    Layout

    Examples
    --------
    >>> layout = layered_layout([[60, 30], [60, 30], [60, 30]], [[0, 1], [0, 2]], [0, 1, 1])
    >>> [float(v) for v in layout.y]
    [35.0, 111.0, 111.0]
    >>> bool(layout.x[1] + 30 + 28 <= layout.x[2] - 30)
    True
    """
    sizes = np.asarray(sizes, dtype=float).reshape(-1, 2)
    count = len(sizes)
    edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    ranks = np.asarray(ranks, dtype=np.int64).reshape(count)
    order = np.arange(count) if order is None else np.asarray(order)
    tail_slots = np.full(len(edges), 0.5) if tail_slots is None else np.asarray(tail_slots, float)
    head_slots = np.full(len(edges), 0.5) if head_slots is None else np.asarray(head_slots, float)
    if count == 0:
        return Layout(np.zeros(0), np.zeros(0), 2 * margin, 2 * margin, [[] for _ in edges])

    # -- points on the ranks long edges cross -------------------------------------------------
    tails, heads = edges[:, 0], edges[:, 1]
    spans = ranks[heads] - ranks[tails]
    points_of = np.where(spans > 1, spans - 1, 0)
    if points_of.sum() > POINT_BUDGET:  # keep the shorter long edges within the budget
        by_span = np.argsort(points_of, kind="stable")
        kept = np.cumsum(points_of[by_span]) <= POINT_BUDGET
        points_of[by_span[~kept]] = 0
    first_point = count + np.cumsum(points_of) - points_of  # where each edge's points begin
    total = count + int(points_of.sum())
    routed = np.flatnonzero((spans == 1) | (points_of > 0))  # edges that join the ordering
    pieces = points_of[routed] + 1
    piece_edge = np.repeat(routed, pieces)
    step = np.arange(pieces.sum()) - np.repeat(np.cumsum(pieces) - pieces, pieces)
    start = first_point[piece_edge]
    upper = np.where(step == 0, tails[piece_edge], start + step - 1)
    lower = np.where(step == points_of[piece_edge], heads[piece_edge], start + step)
    all_ranks = np.empty(total, dtype=np.int64)
    all_ranks[:count] = ranks
    point_edge = np.repeat(np.arange(len(edges)), points_of)
    point_step = np.arange(total - count) - np.repeat(first_point - count, points_of)
    all_ranks[count:] = ranks[tails[point_edge]] + point_step + 1
    # A long edge's points share their tail's place in the initial order.
    keys = np.empty(total)
    keys[:count] = np.argsort(np.argsort(order, kind="stable"), kind="stable")
    keys[count:] = keys[tails[point_edge]] + 0.5
    widths = np.full(total, _POINT_WIDTH)
    widths[:count] = sizes[:, 0]
    weights = np.full(total, _LONG_EDGE_WEIGHT)
    weights[:count] = 1.0

    # -- order within ranks: barycentre rounds ------------------------------------------------
    # Every rank at once (a Jacobi round, not a rank-by-rank sweep): a model has thousands of
    # small ranks, and NumPy calls per rank would cost more than the whole layout.
    # A source (a Const, a Parameter) sits wherever its consumer wants it and should hardly
    # pull that consumer towards itself: else each weight nudges the chain below it sideways
    # and a long model drifts across the page.
    fed = np.zeros(total, dtype=bool)
    fed[lower] = True
    pull_down = np.where(fed[upper], 1.0, 0.05)  # how much an upper end pulls its lower end
    pull_up = np.ones(len(upper))
    # A link of a chain (the only edge out of its upper end and into its lower end) pulls
    # harder: chains of layers are read best as straight columns.
    link = (np.bincount(upper, minlength=total)[upper] == 1) & (
        np.bincount(lower, minlength=total)[lower] == 1
    )
    pull_down = np.where(link, 8.0 * pull_down, pull_down)
    pull_up = np.where(link, 8.0, pull_up)
    place = _places(keys, all_ranks)
    for _ in range(sweeps):
        for near, far, pulls in ((lower, upper, pull_down), (upper, lower, pull_up)):
            sums = np.bincount(near, weights=place[far] * pulls, minlength=total)
            counts = np.bincount(near, weights=pulls, minlength=total)
            wanted = np.where(counts > 0, sums / np.where(counts > 0, counts, 1), place)
            place = _places(wanted + place * 1e-6, all_ranks)  # ties keep the current order

    # -- x: each node near its neighbours' mean, boxes kept apart -----------------------------
    by_place = np.lexsort((place, all_ranks))
    sorted_ranks = all_ranks[by_place]
    room = widths[by_place] + gap_x
    before = np.cumsum(room) - room  # room of every node sorted before this one
    rank_start = np.searchsorted(sorted_ranks, sorted_ranks)
    offsets = before - before[rank_start] + room / 2  # from the rank's left end to the centre
    x = np.empty(total)
    x[by_place] = offsets - np.bincount(sorted_ranks, weights=room)[sorted_ranks] / 2
    for _ in range(10 * sweeps):
        sums = np.bincount(lower, weights=x[upper] * pull_down, minlength=total)
        sums += np.bincount(upper, weights=x[lower] * pull_up, minlength=total)
        counts = np.bincount(lower, weights=pull_down, minlength=total)
        counts += np.bincount(upper, weights=pull_up, minlength=total)
        wanted = np.where(counts > 0, sums / np.where(counts > 0, counts, 1), x)
        wanted = (wanted * weights + x) / (weights + 1)  # damped: no see-sawing pairs
        x[by_place] = _apart(wanted[by_place] - offsets, sorted_ranks) + offsets
    left = float(np.min(x - widths / 2))
    x += margin - left
    right = float(np.max(x + widths / 2))

    # -- y: ranks stacked, each as tall as its tallest box ------------------------------------
    rank_count = int(all_ranks.max()) + 1
    rank_height = np.zeros(rank_count)
    np.maximum.at(rank_height, ranks, sizes[:, 1])
    tops = margin + np.concatenate([[0], np.cumsum(rank_height + gap_y)[:-1]])
    y = tops[all_ranks] + rank_height[all_ranks] / 2
    height = float(tops[-1] + rank_height[-1] + margin)

    # -- routes -------------------------------------------------------------------------------
    half_w, half_h = sizes[:, 0] / 2, sizes[:, 1] / 2
    start_x = x[tails] - half_w[tails] + 2 * half_w[tails] * tail_slots
    end_x = x[heads] - half_w[heads] + 2 * half_w[heads] * head_slots
    downward = spans > 0
    start_y = np.where(downward, y[tails] + half_h[tails], y[tails])
    end_y = np.where(downward, y[heads] - half_h[heads], y[heads])
    ends = np.round(np.stack([start_x, start_y, end_x, end_y], axis=1), 1).tolist()
    middle = np.round(np.stack([x[count:], y[count:]], axis=1), 1).ravel().tolist()
    offsets = (2 * (first_point - count)).tolist()
    routes = []
    for index, (x0, y0, x1, y1) in enumerate(ends):
        inner = points_of[index]
        if inner:
            at = offsets[index]
            routes.append([x0, y0, *middle[at : at + 2 * inner], x1, y1])
        else:
            routes.append([x0, y0, x1, y1])
    return Layout(x[:count], y[:count], right + margin, height, routes)


def _places(keys, ranks):
    """Each node's index within its rank when every rank is sorted by ``keys``."""
    by_key = np.lexsort((keys, ranks))
    sorted_ranks = ranks[by_key]
    place = np.empty(len(keys))
    place[by_key] = np.arange(len(keys)) - np.searchsorted(sorted_ranks, sorted_ranks)
    return place


def _apart(values, ranks):
    """A non-decreasing sequence within each run of equal ``ranks``, near ``values``.

    ``values`` are positions less each node's offset from its rank's left end, so a
    non-decreasing sequence keeps every box clear of the one before it. The pushes right
    (a running maximum) and left (a running minimum from the end) are averaged: the result
    stays in order, and neither side is favoured.
    """
    if len(values) == 0:
        return values
    span = float(values.max() - values.min()) + 1.0
    lift = ranks * (2 * span)  # runs of one rank never reach the next: one pass does all
    pushed_right = np.maximum.accumulate(values + lift) - lift
    pushed_left = np.minimum.accumulate((values + lift)[::-1])[::-1] - lift
    return (pushed_right + pushed_left) / 2
