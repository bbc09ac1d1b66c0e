"""GridSample-9: sample an image at the points of a grid (PyTorch's ``grid_sample``, with
OpenVINO's padding of tap indices).

Spec facts: inputs data ``[N, C, H, W]`` (any element type) and grid ``[N, H_out, W_out, 2]``
(a floating-point type; ``(x, y)`` in ``[-1, 1]`` across the image). Attributes
``align_corners`` (default false: -1 and 1 are the outer edges of the corner pixels; true:
their centres), ``mode`` (bilinear, bicubic, nearest; default bilinear) and ``padding_mode``
(zeros, border, reflection; default zeros). Output ``[N, C, H_out, W_out]``, the data's type.

Shape rule (``grid_sample_shape_inference.hpp``): N is the data's merged with the grid's;
the grid must be 4-D with a last dim compatible with 2, the data 4-D.

Kernel (OpenVINO's reference, vectorised): a point is ``x = ((g + 1) * W - 1) / 2``
(``(g + 1) * (W - 1) / 2`` with align_corners); nearest rounds half to even, bilinear reads
the 2 x 2 taps from ``floor(x)``, bicubic the 4 x 4 taps from ``floor(x) - 1`` (cubic
convolution with A = -0.75). Padding acts on each tap's integer index: zeros reads 0 outside,
border clamps, reflection mirrors the index (about the edges, or with align_corners about the
corner centres); this differs from PyTorch, which reflects the coordinate. Coordinates in
float64, cast back to the data's type (integers truncated). Tolerance against the CPU plugin in
f32: ``rtol=1e-5, atol=1e-5`` for data in [-1, 1], grids away from pixel boundaries (a point
within f32 rounding of an integer may pick another tap).
"""

from __future__ import annotations

import numpy as np

from irrun.ops.base import Attribute, Op, TensorInfo
from irrun.ops.registry import register
from irrun.shape import Dim, Shape, static_dim


def _padded(index, size, padding, align_corners):
    """Integer tap indices made valid by the padding mode, and the mask of taps read as 0."""
    if padding == "zeros":
        inside = (index >= 0) & (index < size)
        return np.clip(index, 0, size - 1), inside
    if padding == "border":
        return np.clip(index, 0, size - 1), None
    if align_corners:
        period = 1 if size == 1 else 2 * (size - 1)
        folded = np.abs(index) % period
        return np.where(folded >= size, period - folded, folded), None
    period = 2 * size
    folded = np.mod(index, period)
    return np.where(folded >= size, period - 1 - folded, folded), None


def _cubic(r, a=-0.75):
    """The four cubic-convolution weights of a fraction ``r`` (taps at -1, 0, 1, 2)."""
    return [
        ((a * (r + 1) - 5 * a) * (r + 1) + 8 * a) * (r + 1) - 4 * a,
        ((a + 2) * r - (a + 3)) * r * r + 1,
        ((a + 2) * (1 - r) - (a + 3)) * (1 - r) * (1 - r) + 1,
        ((a * (2 - r) - 5 * a) * (2 - r) + 8 * a) * (2 - r) - 4 * a,
    ]


@register
class GridSample(Op):
    """GridSample-9 (align_corners, mode, padding_mode)."""

    type, version, inputs = "GridSample", 9, (2, 2)
    attributes = (
        Attribute("align_corners", "bool", False),
        Attribute("mode", "enum", "bilinear", choices=("bilinear", "bicubic", "nearest")),
        Attribute("padding_mode", "enum", "zeros", choices=("zeros", "border", "reflection")),
    )

    def infer(self, inputs):
        """``[N, C, H_out, W_out]``."""
        data, grid = inputs
        if grid.element_type.name not in ("f16", "bf16", "f32", "f64", "dynamic"):
            self.context.error(
                "input-type",
                f"{self.describe()}: grid must be a floating-point tensor, but input 1 is "
                f"{grid.element_type}",
                port=self.input_port(1),
                hint="insert a Convert to f32 before the grid",
            )
            return None
        for index, info, what in ((0, data, "data [N, C, H, W]"), (1, grid, "grid [N, H, W, 2]")):
            if info.shape.rank is not None and info.shape.rank != 4:
                self.context.error(
                    "input-rank",
                    f"{self.describe()}: {what} must be 4-D, but its shape is {info.shape}",
                    port=self.input_port(index),
                    hint=f"give the {what.split()[0]} as {what.split(' ', 1)[1]}",
                )
                return None
        dims = [Dim.dynamic()] * 4
        if grid.shape.rank == 4:
            if not grid.shape[3].compatible(static_dim(2)):
                self.context.error(
                    "input-dims",
                    f"{self.describe()}: the grid's last dim must be 2 (x, y), but the grid is "
                    f"{grid.shape}",
                    port=self.input_port(1),
                    hint="give each grid point as (x, y)",
                )
                return None
            dims[0], dims[2], dims[3] = grid.shape[0], grid.shape[1], grid.shape[2]
        if data.shape.rank == 4:
            batch = data.shape[0].merge(dims[0])
            if batch is None:
                self.context.error(
                    "input-dims",
                    f"{self.describe()}: the data's batch {data.shape[0]} and the grid's "
                    f"{grid.shape[0]} differ (data {data.shape}, grid {grid.shape})",
                    port=self.input_port(1),
                    hint="give one grid per image",
                )
                return None
            dims[0], dims[1] = batch, data.shape[1]
        return [
            TensorInfo(Shape(dims), data.element_type, why="[N, C] of the data, the grid's H, W")
        ]

    def evaluate(self, inputs):
        """Taps gathered for every point at once, weighted and summed."""
        data, grid = inputs
        n, _, height, width = data.shape
        wide = data.astype(np.float64)
        gx, gy = grid[..., 0].astype(np.float64), grid[..., 1].astype(np.float64)
        if self.align_corners:
            x, y = (gx + 1) * (width - 1) / 2, (gy + 1) * (height - 1) / 2
        else:
            x, y = ((gx + 1) * width - 1) / 2, ((gy + 1) * height - 1) / 2
        batch = np.arange(n).reshape(n, 1, 1)

        def tap(yi, xi):
            """The data at integer taps ``[N, H_out, W_out]`` -> ``[N, C, H_out, W_out]``."""
            yi, y_inside = _padded(yi, height, self.padding_mode, self.align_corners)
            xi, x_inside = _padded(xi, width, self.padding_mode, self.align_corners)
            values = wide[batch, :, yi, xi]  # [N, H_out, W_out, C]
            if y_inside is not None:
                values = values * (y_inside & x_inside)[..., None]
            return np.moveaxis(values, -1, 1)

        if self.mode == "nearest":
            out = tap(np.rint(y).astype(np.int64), np.rint(x).astype(np.int64))
        else:
            y0, x0 = np.floor(y), np.floor(x)
            dy, dx = (y - y0)[:, None], (x - x0)[:, None]
            y0, x0 = y0.astype(np.int64), x0.astype(np.int64)
            if self.mode == "bilinear":
                top = (1 - dx) * tap(y0, x0) + dx * tap(y0, x0 + 1)
                bottom = (1 - dx) * tap(y0 + 1, x0) + dx * tap(y0 + 1, x0 + 1)
                out = dy * bottom + (1 - dy) * top
            else:
                wy, wx = _cubic(dy), _cubic(dx)
                out = sum(wy[j] * sum(wx[i] * tap(y0 - 1 + j, x0 - 1 + i) for i in range(4))
                          for j in range(4))  # fmt: skip
        return [out.astype(data.dtype)]
