"""Intersection over union of rotated boxes, vectorised over pairs, as OpenVINO's
``nms_rotated_util.hpp`` (after detectron2's ``box_iou_rotated``) computes it in f32.

A box is ``[x_center, y_center, width, height, angle]`` (radians, clockwise). The
intersection of two boxes is the convex polygon spanned by the crossings of their edges and
the corners of each inside the other (at most 24 points, duplicates included); its area is
the shoelace sum over those points ordered by angle around their centroid (OpenVINO orders
them by a Graham scan: the same polygon, areas equal up to f32 rounding).

>>> import numpy as np
>>> a = np.array([[0, 0, 2, 2, 0]], np.float32)
>>> b = np.array([[1, 0, 2, 2, 0], [0, 0, 2, 2, np.pi / 4]], np.float32)
>>> [round(float(v), 4) for v in rotated_iou(a, b)]
[0.3333, 0.7071]
"""

from __future__ import annotations

import numpy as np

__all__ = ["rotated_vertices", "rotated_iou"]


def rotated_vertices(boxes: np.ndarray) -> np.ndarray:
    """The four corners ``[..., 4, 2]`` of boxes ``[..., 5]``, in OpenVINO's order
    (left-down, left-top, right-top, right-down)."""
    x, y, w, h, angle = (boxes[..., i] for i in range(5))
    half = np.float32(0.5)
    cos, sin = np.cos(angle) * half, np.sin(angle) * half
    x0 = x - sin * h - cos * w
    y0 = y + cos * h - sin * w
    x1 = x + sin * h - cos * w
    y1 = y - cos * h - sin * w
    two = np.float32(2)
    corners = [(x0, y0), (x1, y1), (two * x - x0, two * y - y0), (two * x - x1, two * y - y1)]
    return np.stack([np.stack(c, axis=-1) for c in corners], axis=-2)


def _cross(a, b):
    return a[..., 0] * b[..., 1] - b[..., 0] * a[..., 1]


def _dot(a, b):
    return a[..., 0] * b[..., 0] + a[..., 1] * b[..., 1]


def _inside(points, corners, edges):
    """Which of ``points [..., 4, 2]`` lie in the rectangles of ``corners`` (projections on
    two sides within those sides)."""
    side_ab, side_da = edges[..., 0:1, :], edges[..., 3:4, :]
    offset = points - corners[..., 0:1, :]
    along_ab = _dot(offset, side_ab)
    along_ad = -_dot(offset, side_da)
    return ((along_ab >= 0) & (along_ad >= 0) & (along_ab <= _dot(side_ab, side_ab))
            & (along_ad <= _dot(side_da, side_da)))  # fmt: skip


def intersection_area(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """The areas of the intersections of boxes ``first [..., 5]`` and ``second [..., 5]``
    (broadcast against each other)."""
    first, second = np.broadcast_arrays(first, second)
    pts1, pts2 = rotated_vertices(first), rotated_vertices(second)
    vec1 = np.roll(pts1, -1, axis=-2) - pts1
    vec2 = np.roll(pts2, -1, axis=-2) - pts2
    # every edge i of the first box against every edge j of the second: [..., 4, 4]
    e1, e2 = vec1[..., :, None, :], vec2[..., None, :, :]
    det = _cross(e2, e1)
    between = pts2[..., None, :, :] - pts1[..., :, None, :]
    parallel = np.abs(det) <= np.float32(1e-14)
    safe = np.where(parallel, np.float32(1), det)
    t1 = _cross(e2, between) / safe
    t2 = _cross(e1, between) / safe
    crossing = ~parallel & (t1 >= 0) & (t1 <= 1) & (t2 >= 0) & (t2 <= 1)
    crossings = pts1[..., :, None, :] + e1 * t1[..., None]
    shape = crossings.shape[:-3]
    points = np.concatenate([crossings.reshape(*shape, 16, 2), pts1, pts2], axis=-2)
    valid = np.concatenate([crossing.reshape(*shape, 16), _inside(pts1, pts2, vec2),
                            _inside(pts2, pts1, vec1)], axis=-1)  # fmt: skip
    count = valid.sum(axis=-1)
    weights = valid.astype(np.float32)
    centre = (points * weights[..., None]).sum(axis=-2) / np.maximum(count, 1)[..., None]
    relative = points - centre[..., None, :]
    angle = np.where(valid, np.arctan2(relative[..., 1], relative[..., 0]), np.inf)
    order = np.argsort(angle, axis=-1, kind="stable")
    ordered = np.take_along_axis(relative, order[..., None], axis=-2)
    ordered_valid = np.take_along_axis(valid, order, axis=-1)
    # the invalid points (sorted last) become copies of the first one: zero-length edges
    ordered = np.where(ordered_valid[..., None], ordered, ordered[..., 0:1, :])
    area = np.abs(_cross(ordered, np.roll(ordered, -1, axis=-2)).sum(axis=-1)) / np.float32(2)
    return np.where(count > 2, area, np.float32(0)).astype(np.float32)


def rotated_iou(box: np.ndarray, others: np.ndarray) -> np.ndarray:
    """IoU of ``box`` with each of ``others`` (broadcast), 0 when either area is not
    positive, as OpenVINO's NMSRotated reference."""
    box = np.asarray(box, np.float32)
    others = np.asarray(others, np.float32)
    inter = intersection_area(box, others)
    area_a = box[..., 2] * box[..., 3]
    area_b = others[..., 2] * others[..., 3]
    with np.errstate(divide="ignore", invalid="ignore"):
        iou = inter / (area_a + area_b - inter)
    return np.where((area_a <= 0) | (area_b <= 0), np.float32(0), iou).astype(np.float32)
