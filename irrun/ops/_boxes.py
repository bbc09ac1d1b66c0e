"""Box arithmetic shared by the detection ops (NonMaxSuppression, MulticlassNms, MatrixNms,
DetectionOutput): corner normalisation and intersection over union, in float32 and in the
order of operations of OpenVINO's reference kernels, so that thresholds compare the same
values bit for bit.

Boxes are ``[..., 4]`` float32 arrays; the order of the four coordinates is the caller's
(``[y1, x1, y2, x2]`` for NonMaxSuppression, ``[x1, y1, x2, y2]`` for the others: IoU does not
care as long as both boxes use the same one).

>>> import numpy as np
>>> a = np.array([0, 0, 1, 1], np.float32)
>>> b = np.array([[0, 0, 1, 2], [2, 2, 3, 3]], np.float32)
>>> iou_one_to_many(a, b).tolist()
[0.5, 0.0]
"""

from __future__ import annotations

import numpy as np

__all__ = ["normalize_corners", "center_to_corners", "iou_one_to_many", "areas"]


def normalize_corners(boxes: np.ndarray) -> np.ndarray:
    """``[a1, b1, a2, b2]`` boxes with each pair ordered (``min, min, max, max``), as
    OpenVINO's NonMaxSuppression reads corners given as any diagonal pair."""
    low = np.minimum(boxes[..., 0:2], boxes[..., 2:4])
    high = np.maximum(boxes[..., 0:2], boxes[..., 2:4])
    return np.concatenate([low, high], axis=-1)


def center_to_corners(boxes: np.ndarray) -> np.ndarray:
    """``[x_center, y_center, width, height]`` boxes as ``[y1, x1, y2, x2]`` corners
    (``y1 = y_center - height / 2``, in float32 as the reference computes them)."""
    half = np.float32(2)
    x_center, y_center = boxes[..., 0], boxes[..., 1]
    width, height = boxes[..., 2], boxes[..., 3]
    return np.stack([y_center - height / half, x_center - width / half,
                     y_center + height / half, x_center + width / half], axis=-1)  # fmt: skip


def areas(boxes: np.ndarray, offset: float = 0.0) -> np.ndarray:
    """``(c2 - c0 + offset) * (c3 - c1 + offset)`` of each box, in float32."""
    offset = np.float32(offset)
    return (boxes[..., 2] - boxes[..., 0] + offset) * (boxes[..., 3] - boxes[..., 1] + offset)


def iou_one_to_many(box: np.ndarray, others: np.ndarray) -> np.ndarray:
    """Intersection over union of one box ``[4]`` with each of ``others`` ``[n, 4]``, as
    OpenVINO's NonMaxSuppression reference computes it: 0 when either area is <= 0, else
    ``inter / (area_a + area_b - inter)`` with every step rounded to float32."""
    area_box = areas(box)
    area_others = areas(others)
    zero = np.float32(0)
    low = np.maximum(box[:2], others[:, :2])
    high = np.minimum(box[2:], others[:, 2:])
    extent = np.maximum(high - low, zero)
    inter = extent[:, 0] * extent[:, 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        iou = inter / (area_box + area_others - inter)
    return np.where((area_box <= zero) | (area_others <= zero), zero, iou).astype(np.float32)
