"""PriorBox-1 and PriorBox-8: the SSD prior (anchor) boxes of a feature map, with their
variances.

Spec facts: inputs output_size (the feature map's ``[H, W]``) and image_size (``[IH, IW]``),
1-D integer tensors. Attributes ``min_size``, ``max_size``, ``aspect_ratio``, ``density``,
``fixed_ratio``, ``fixed_size``, ``variance`` (0, 1 or 4 values), ``flip``, ``clip``,
``step``, ``offset``, ``scale_all_sizes`` (default true) and, in PriorBox-8,
``min_max_aspect_ratios_order`` (default true; PriorBox-1 always puts the max-size box right
after the min-size one). Output f32 ``[2, H * W * priors * 4]``: row 0 the boxes
``[xmin, ymin, xmax, ymax]`` normalised by the image size, location by location; row 1 their
variances. ``priors`` is OpenVINO's ``number_of_priors``: with ``r`` the distinct aspect ratios
(1, the given ones rounded to 1e-6 and, with ``flip``, their inverses), ``r * len(min_size) +
len(max_size)`` (``scale_all_sizes``) or ``r + len(min_size) - 1``; ``r * len(fixed_size)``
when fixed sizes are given; plus ``(d * d - 1)`` times ``r`` (or ``len(fixed_ratio)``) per
density ``d``.

Kernel (OpenVINO's reference ``prior_box.hpp``): the boxes of one location are built once as
offsets and half sizes, in the reference's order (fixed sizes with their densities and
ratios, then per min size: the min box, the max box ``sqrt(min * max)`` and the aspect-ratio
boxes, in the order ``min_max_aspect_ratios_order`` says), and evaluated for every location
at once in float32 with the reference's operation order (density boxes clipped to [0, 1],
everything clipped with ``clip``). Without ``scale_all_sizes`` (MXNet), step and min sizes
are scaled by the image height. Attributes whose boxes OpenVINO miscounts (fixed ratios
with densities, as many of them as aspect ratios aside) are an error when run (the reference
writes past its output). Exact against the reference (OpenVINO's constant folding); the CPU
plugin fails on PriorBox-8 whose inputs are not constants.
"""

from __future__ import annotations

import math

import numpy as np

from irrun.ops._priors import feature_size, prior_boxes_shape
from irrun.ops.base import Attribute, Op
from irrun.ops.registry import register


def number_of_priors(op) -> int:
    """OpenVINO's ``PriorBox::number_of_priors``."""
    ratios = {round(r * 1e6) / 1e6 for r in op.aspect_ratio}
    if op.flip:
        ratios |= {round(1 / r * 1e6) / 1e6 for r in op.aspect_ratio if r != 0}
    total = len(ratios | {1.0})
    if op.scale_all_sizes:
        priors = total * len(op.min_size) + len(op.max_size)
    else:
        priors = total + len(op.min_size) - 1
    if op.fixed_size:
        priors = total * len(op.fixed_size)
    for density in op.density:
        extra = int(density) * int(density) - 1
        priors += (len(op.fixed_ratio) if op.fixed_ratio else total) * extra
    return priors


class _PriorBox(Op):
    inputs = (2, 2)
    attributes = (
        Attribute("min_size", "floats", []),
        Attribute("max_size", "floats", []),
        Attribute("aspect_ratio", "floats", []),
        Attribute("density", "floats", []),
        Attribute("fixed_ratio", "floats", []),
        Attribute("fixed_size", "floats", []),
        Attribute("clip", "bool", False),
        Attribute("flip", "bool", False),
        Attribute("step", "float", 0.0),
        Attribute("offset", "float", 0.0, required=True),
        Attribute("variance", "floats", []),
        Attribute("scale_all_sizes", "bool", True),
        Attribute("min_max_aspect_ratios_order", "bool", True, since=8),
    )
    min_max_aspect_ratios_order = True

    def infer(self, inputs):
        """``[2, H * W * priors * 4]``."""
        return prior_boxes_shape(self, inputs, number_of_priors(self))

    def evaluate(self, inputs):
        """Every location's prior boxes at once, then the variances."""
        height, width = feature_size(np.asarray(inputs[0]))
        image_h, image_w = feature_size(np.asarray(inputs[1]))
        if len(self.variance) not in (0, 1, 4):
            raise ValueError(f"{self.describe()}: variance {self.variance} must have 0, 1 or 4 "
                             "values")  # fmt: skip
        f32 = np.float32
        step = f32(self.step)
        min_sizes = [f32(s) for s in self.min_size]
        if not self.scale_all_sizes:  # MXNet-like
            step = f32(f32(image_h) / f32(height)) if step == -1 else f32(step * f32(image_h))
            min_sizes = [f32(s * f32(image_h)) for s in min_sizes]
        if step == 0:
            step_x, step_y = f32(image_w) / f32(width), f32(image_h) / f32(height)
            center_x = (np.arange(width, dtype=f32) + f32(0.5)) * step_x
            center_y = (np.arange(height, dtype=f32) + f32(0.5)) * step_y
        else:
            center_x = (f32(self.offset) + np.arange(width, dtype=f32)) * step
            center_y = (f32(self.offset) + np.arange(height, dtype=f32)) * step
        templates = self._templates(min_sizes)
        if len(templates) != number_of_priors(self):
            raise ValueError(
                f"{self.describe()}: the attributes make {len(templates)} boxes per location, "
                f"but OpenVINO counts {number_of_priors(self)} (fixed_ratio with density needs "
                "as many fixed ratios as aspect ratios); the reference writes out of bounds"
            )
        inverse_w, inverse_h = f32(1) / f32(image_w), f32(1) / f32(image_h)
        boxes = np.empty((height, width, len(templates), 4), f32)
        for index, (shift, half_w, half_h, clipped) in enumerate(templates):
            xs, ys = center_x, center_y
            if shift is not None:  # ((center - size // 2) + shift / 2) + step * shift
                base, half_shift, column, row = shift
                xs = ((center_x - base) + half_shift) + column
                ys = ((center_y - base) + half_shift) + row
            corners = [(xs - half_w) * inverse_w, (ys - half_h) * inverse_h,
                       (xs + half_w) * inverse_w, (ys + half_h) * inverse_h]  # fmt: skip
            if clipped:
                corners = [np.maximum(corners[0], 0), np.maximum(corners[1], 0),
                           np.minimum(corners[2], 1), np.minimum(corners[3], 1)]  # fmt: skip
            boxes[:, :, index, 0] = corners[0][None, :]
            boxes[:, :, index, 1] = corners[1][:, None]
            boxes[:, :, index, 2] = corners[2][None, :]
            boxes[:, :, index, 3] = corners[3][:, None]
        flat = boxes.reshape(-1)
        if self.clip:
            flat = np.minimum(np.maximum(flat, f32(0)), f32(1))
        variance = [f32(v) for v in self.variance] or [f32(0.1)]
        variances = np.resize(np.array(variance if len(variance) == 4 else variance * 4, f32),
                              flat.size)  # fmt: skip
        return [np.stack([flat, variances]).astype(f32)]

    def _ratios(self) -> list:
        """The reference's aspect ratios: 1, then each new one (and its inverse with flip)."""
        f32 = np.float32
        ratios = [f32(1)]
        for ratio in (f32(r) for r in self.aspect_ratio):
            if any(abs(float(ratio) - float(known)) < 1e-6 for known in ratios):
                continue
            ratios.append(ratio)
            if self.flip:
                ratios.append(f32(1) / ratio)
        return ratios

    def _templates(self, min_sizes) -> list:
        """``(shift, half_width, half_height, clipped)`` of each box of one location."""
        f32 = np.float32
        half = f32(0.5)
        ratios = self._ratios()
        others = [r for r in ratios if abs(float(r) - 1.0) >= 1e-6]
        out = []

        def dense(size_value, density_value, half_w, half_h):
            size_int = int(size_value)  # the reference's size_t
            density = int(density_value)
            shift = int(f32(size_value) / f32(density))
            base, half_shift = f32(size_int // 2), f32(shift) / f32(2)
            for row in range(density):
                for column in range(density):
                    offsets = (base, half_shift, f32(column * shift), f32(row * shift))
                    out.append((offsets, half_w, half_h, True))

        for index, size in enumerate(self.fixed_size):
            size32 = f32(size)
            if self.fixed_ratio:
                for ratio in self.fixed_ratio:
                    root = f32(math.sqrt(f32(ratio)))
                    dense(size, self.density[index], size32 * half * root, size32 * half / root)
                continue
            box = f32(int(size)) * half
            if self.density:
                dense(size, self.density[index], box, box)
            for ratio in others:
                root = np.sqrt(ratio).astype(f32)
                dense(size, self.density[index], size32 * half * root, size32 * half / root)
        for index, size in enumerate(min_sizes):
            out.append((None, size * half, size * half, False))
            has_max = len(self.max_size) > index
            maximum = []
            if has_max:
                side = f32(np.sqrt(size * f32(self.max_size[index]))) * half
                maximum = [(None, side, side, False)]
            scaled = []
            if self.scale_all_sizes or index == len(min_sizes) - 1:
                base = min_sizes[index if self.scale_all_sizes else 0]
                for ratio in others:
                    root = np.sqrt(ratio).astype(f32)
                    scaled.append((None, base * half * root, base * half / root, False))
            out.extend(maximum + scaled if self.min_max_aspect_ratios_order else scaled + maximum)
        return out


@register
class PriorBox1(_PriorBox):
    """PriorBox-1."""

    type, version = "PriorBox", 1


@register
class PriorBox8(_PriorBox):
    """PriorBox-8: adds ``min_max_aspect_ratios_order``."""

    type, version = "PriorBox", 8
