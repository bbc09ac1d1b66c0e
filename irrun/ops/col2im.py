"""Col2Im-15: sliding blocks (columns) summed back into an image (PyTorch's ``fold``).

Spec facts: inputs data ``[N, C * kh * kw, L]`` or ``[C * kh * kw, L]`` (any element type),
output_size ``[H, W]`` and kernel_size ``[kh, kw]`` (1-D of 2 elements, both i32 or both i64).
Attributes ``strides``, ``dilations`` (default 1,1; > 0), ``pads_begin``, ``pads_end``
(default 0,0). Output ``[N, C, H, W]`` (``[C, H, W]`` unbatched), the data's type: block ``l``
(row-major over the ``Lh x Lw`` positions) puts its channel ``(c * kh + i) * kw + j`` at
``(bh * sh - ph + i * dh, bw * sw - pw + j * dw)`` of channel ``c``; overlapping values add,
values in the padding are dropped.

Shape rule (``col2im_shape_inference.hpp``): C is known when the kernel is constant and the
channel dim static (it must divide by ``kh * kw``); H and W come from output_size read as a
shape (a constant, or ShapeOf elements: intervals; -1 is ``?``), else ``?``. With everything
static, L must be ``prod((size + pads - dilation * (k - 1) - 1) // stride + 1)``.

Kernel: one strided ``+=`` per kernel position into a padded image (the positions of one kernel
pixel never collide), then the padding cut off. Exact for integers; floats add in kernel-pixel
order (``rtol=1e-6`` against the CPU plugin in f32).
"""

from __future__ import annotations

import numpy as np

from irrun.ops._values import signed_elements, signed_ints
from irrun.ops.base import Attribute, Op, TensorInfo
from irrun.ops.registry import register
from irrun.shape import Dim, Shape, static_dim


def _as_dim(element) -> Dim:
    if isinstance(element, Dim):
        return element
    if element is None or element < 0:
        return Dim.dynamic()
    return static_dim(element)


@register
class Col2Im(Op):
    """Col2Im-15 (strides, dilations, pads_begin, pads_end)."""

    type, version, inputs = "Col2Im", 15, (3, 3)
    attributes = (
        Attribute("strides", "ints", [1, 1]),
        Attribute("dilations", "ints", [1, 1]),
        Attribute("pads_begin", "ints", [0, 0]),
        Attribute("pads_end", "ints", [0, 0]),
    )

    def setup(self):
        for name in ("strides", "dilations", "pads_begin", "pads_end"):
            values = getattr(self, name)
            least = 1 if name in ("strides", "dilations") else 0
            if len(values) != 2 or min(values) < least:
                self.context.error(
                    "attribute-value",
                    f"{self.describe()}: {name}={','.join(map(str, values))} must be two values "
                    f">= {least}",
                    hint=f'write {name}="{least},{least}" or other values >= {least}',
                    line=self.layer.data_line,
                )
                self.incomplete = True

    def infer(self, inputs):
        """``[N, C, H, W]``: C from the kernel, H and W from output_size."""
        data, size_info, kernel_info = inputs
        shape = data.shape
        if not self._check_inputs(inputs):
            return None
        if shape.rank is None:
            return [TensorInfo(shape, data.element_type, why="the data rank is not known")]
        batched = shape.rank == 3
        dims = [shape[0]] if batched else []
        channels, blocks = shape[1 if batched else 0], shape[-1]
        kernel = signed_ints(kernel_info)
        out_c = Dim.dynamic()
        if kernel is not None and len(kernel) == 2 and channels.is_static:
            divisor = kernel[0] * kernel[1]
            if divisor <= 0 or channels.value % divisor:
                self.context.error(
                    "input-dims",
                    f"{self.describe()}: the data's {channels} channels are not a multiple of "
                    f"the kernel's {kernel[0]} x {kernel[1]} = {divisor}",
                    port=self.input_port(0),
                    hint="give C * kh * kw channels (C channels of the image)",
                )
                return None
            out_c = static_dim(channels.value // divisor)
        elements = signed_elements(size_info)
        spatial = [Dim.dynamic(), Dim.dynamic()]
        if elements is not None and len(elements) == 2:
            spatial = [_as_dim(e) for e in elements]
            sizes = [e for e in elements if isinstance(e, int) and e >= 0]
            if kernel is not None and len(sizes) == 2 and blocks.is_static:
                expected = 1
                for d in range(2):
                    span = self.dilations[d] * (kernel[d] - 1) + 1
                    padded = sizes[d] + self.pads_begin[d] + self.pads_end[d]
                    expected *= int((padded - span) / self.strides[d]) + 1
                if blocks.value != expected:
                    self.context.error(
                        "input-dims",
                        f"{self.describe()}: output_size {sizes}, kernel {kernel}, strides "
                        f"{self.strides}, dilations {self.dilations} and pads make {expected} "
                        f"blocks, but the data has {blocks.value} (its last dim)",
                        port=self.input_port(0),
                        hint="give one column per block position",
                    )
                    return None
        out = Shape(dims + [out_c] + spatial)
        return [TensorInfo(out, data.element_type, why="C from the kernel, H and W given")]

    def _check_inputs(self, inputs) -> bool:
        data, size_info, kernel_info = inputs
        if data.shape.rank is not None and data.shape.rank not in (2, 3):
            self.context.error(
                "input-rank",
                f"{self.describe()}: data must be 2-D [C * kh * kw, L] or 3-D [N, C * kh * kw, "
                f"L], but its shape is {data.shape}",
                port=self.input_port(0),
                hint="give the columns as [N, C * kh * kw, L]",
            )
            return False
        types = [size_info.element_type.name, kernel_info.element_type.name]
        known = [t for t in types if t != "dynamic"]
        if any(t not in ("i32", "i64") for t in known) or len(set(known)) > 1:
            self.context.error(
                "index-type",
                f"{self.describe()}: output_size and kernel_size must both be i32 or both i64, "
                f"but they are {types[0]} and {types[1]}",
                port=self.input_port(1),
                hint="insert a Convert to i64 before each",
            )
            return False
        for index, name in ((1, "output_size"), (2, "kernel_size")):
            shape = inputs[index].shape
            if shape.rank is not None and not (shape.rank == 1 and shape[0] == 2):
                self.context.error(
                    "input-rank",
                    f"{self.describe()}: {name} must be a 1-D tensor of 2 elements, but its "
                    f"shape is {shape}",
                    port=self.input_port(index),
                    hint=f"give the {name} as [height, width]",
                )
                return False
        return True

    def evaluate(self, inputs):
        """Each kernel pixel's columns added, strided, into the padded image."""
        data, output_size, kernel_size = inputs
        (height, width), (kh, kw) = output_size.tolist(), kernel_size.tolist()
        batched = data if data.ndim == 3 else data[None]
        n, channels, _ = batched.shape
        (sh, sw), (dh, dw) = self.strides, self.dilations
        (pt, pl), (pb, pr) = self.pads_begin, self.pads_end
        lh = (height + pt + pb - dh * (kh - 1) - 1) // sh + 1
        lw = (width + pl + pr - dw * (kw - 1) - 1) // sw + 1
        c = channels // (kh * kw)
        if c * kh * kw != channels or lh * lw != batched.shape[2]:
            raise ValueError(
                f"{self.describe()}: data {list(data.shape)} does not hold {kh} x {kw} kernels "
                f"of {lh} x {lw} blocks for an image of {height} x {width}"
            )
        columns = batched.reshape(n, c, kh, kw, lh, lw)
        image = np.zeros((n, c, height + pt + pb, width + pl + pr), data.dtype)
        for i in range(kh):
            for j in range(kw):
                rows = slice(i * dh, i * dh + sh * (lh - 1) + 1, sh)
                cols = slice(j * dw, j * dw + sw * (lw - 1) + 1, sw)
                image[:, :, rows, cols] += columns[:, :, i, j]
        out = image[:, :, pt : pt + height, pl : pl + width]
        return [np.ascontiguousarray(out if data.ndim == 3 else out[0])]
