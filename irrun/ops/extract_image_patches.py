"""ExtractImagePatches-3: the patches of an image, laid out along the channels.

Spec facts: input data ``[N, C, H, W]`` (any element type); attributes ``sizes`` ``[rows,
cols]`` of a patch, ``strides`` (between patch starts), ``rates`` (between the pixels of a
patch; all three required, each two values > 0) and ``auto_pad`` (``valid``: patches inside
the image; ``same_upper`` / ``same_lower``: ``ceil(H / stride)`` patches, the image padded with
zeros, the odd pixel at the end / at the start). Output ``[N, C * rows * cols, out_H,
out_W]``, the data's type; its channel ``(i * cols + j) * C + c`` holds pixel ``(i, j)`` of
channel ``c`` of each patch (TensorFlow's layout).

Shape rule (``extract_image_patches_shape_inference.hpp``): ``valid`` gives
``ceil((H - rate * (size - 1)) / stride)`` bound-wise, the difference clamped at 0 (an image
smaller than a patch has no patches); ``same_*`` give ``ceil(H / stride)``. OpenVINO accepts
a size of 0 (with wrapped-around arithmetic); irrun refuses it.

Kernel: pad, then one strided slice per patch pixel (``rows * cols`` slices of the whole
batch), stacked; exact.
"""

from __future__ import annotations

import numpy as np

from irrun.ops.base import Attribute, Op, TensorInfo, lazy_text
from irrun.ops.registry import register
from irrun.shape import Dim, Shape, static_dim

_PADS = ("valid", "same_upper", "same_lower")


def _ceil_div(dim: Dim, by: int) -> Dim:
    upper = None if dim.upper is None else -(-dim.upper // by)
    return Dim(-(-dim.lower // by), upper)


def _minus(dim: Dim, amount: int) -> Dim:
    upper = None if dim.upper is None else max(dim.upper - amount, 0)
    return Dim(max(dim.lower - amount, 0), upper)


@register
class ExtractImagePatches(Op):
    """ExtractImagePatches-3 (sizes, strides, rates, auto_pad)."""

    type, version, inputs = "ExtractImagePatches", 3, (1, 1)
    rounds = False
    attributes = (
        Attribute("sizes", "ints", [1, 1], required=True),
        Attribute("strides", "ints", [1, 1], required=True),
        Attribute("rates", "ints", [1, 1], required=True),
        Attribute("auto_pad", "enum", "valid", required=True, choices=_PADS),
    )

    def setup(self):
        for name in ("sizes", "strides", "rates"):
            values = getattr(self, name)
            if len(values) != 2 or min(values) < 1:
                self.context.error(
                    "attribute-value",
                    f"{self.describe()}: {name}={','.join(map(str, values))} must be two values "
                    "> 0 (rows, cols)",
                    hint=f'write {name}="rows,cols", e.g. {name}="1,1"',
                    line=self.layer.data_line,
                )
                self.incomplete = True

    def infer(self, inputs):
        """``[N, C * rows * cols, out_H, out_W]``."""
        (data,) = inputs
        shape = data.shape
        if shape.rank is None:
            return [TensorInfo(Shape([Dim.dynamic()] * 4), data.element_type,
                               why="the data rank is not known")]  # fmt: skip
        if shape.rank != 4:
            self.context.error(
                "input-rank",
                f"{self.describe()}: data must be 4-D [N, C, H, W], but its shape is {shape}",
                port=self.input_port(0),
                hint="give the image as [N, C, H, W]",
            )
            return None
        (rows, cols), strides, rates = self.sizes, self.strides, self.rates
        spatial = []
        for dim, size, stride, rate in zip(list(shape)[2:], self.sizes, strides, rates):
            if self.auto_pad == "valid":
                dim = _minus(dim, rate * (size - 1))
            spatial.append(_ceil_div(dim, stride))
        out = Shape([shape[0], shape[1] * static_dim(rows * cols)] + spatial)
        why = lazy_text("{} patches of {}x{} every {} ({})", shape, rows, cols, strides,
                        self.auto_pad)  # fmt: skip
        return [TensorInfo(out, data.element_type, why=why)]

    def evaluate(self, inputs):
        """One strided slice per patch pixel, stacked along the channels."""
        (data,) = inputs
        n, c, height, width = data.shape
        (rows, cols), strides, rates = self.sizes, self.strides, self.rates
        outs, pads = [], []
        for length, size, stride, rate in zip((height, width), self.sizes, strides, rates):
            span = rate * (size - 1) + 1
            if self.auto_pad == "valid":
                outs.append(-(-max(length - span + 1, 0) // stride))
                pads.append((0, 0))
            else:
                out = -(-length // stride)
                total = max((out - 1) * stride + span - length, 0)
                before = total // 2 if self.auto_pad == "same_upper" else (total + 1) // 2
                outs.append(out)
                pads.append((before, total - before))
        padded = np.pad(data, [(0, 0), (0, 0)] + pads)
        out_h, out_w = outs
        pieces = [
            padded[:, :, i * rates[0] : i * rates[0] + (out_h - 1) * strides[0] + 1 : strides[0],
                   j * rates[1] : j * rates[1] + (out_w - 1) * strides[1] + 1 : strides[1]]
            for i in range(rows) for j in range(cols)
        ]  # fmt: skip
        if out_h == 0 or out_w == 0:
            return [np.zeros((n, c * rows * cols, out_h, out_w), data.dtype)]
        stacked = np.stack(pieces, axis=1)  # [N, rows * cols, C, out_H, out_W]
        return [np.ascontiguousarray(stacked.reshape(n, rows * cols * c, out_h, out_w))]
