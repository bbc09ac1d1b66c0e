"""NV12toRGB-8, NV12toBGR-8, I420toRGB-8, I420toBGR-8: YUV 4:2:0 images to interleaved RGB/BGR.

Spec facts: NHWC images, u8 or a float type. NV12 takes one plane ``[N, H*3/2, W, 1]`` (the
Y rows, then H/2 rows of interleaved U,V) or two, Y ``[N, H, W, 1]`` and UV
``[N, H/2, W/2, 2]``; I420 one plane ``[N, H*3/2, W, 1]`` (Y, then the U and V quarter
planes) or three, Y, U ``[N, H/2, W/2, 1]`` and V of U's shape. Output ``[N, H, W, 3]`` of the
input type. No attributes.

Shape rule (``nv12_shape_inference.hpp``, ``i420_shape_inference.hpp``): Y of rank 4 (a
dynamic rank is ``[?,?,?,?]``) with 1 channel. One plane: height ``h * 2 / 3`` in OpenVINO's
Dimension arithmetic (an interval ``a..b`` is ``ceil(2a/3)..floor(2b/3)``; **quirk**: an
unbounded one keeps ``floor(2^63 / 3)`` as its upper bound, ``1..`` becomes
``1..3074457345618258432``; an empty result is "Image height shall be divisible by 3").
Several planes: UV (or U merged with V) of rank 4 with 2 (1) channels, its H and W doubled and
merged into Y's. Then the height and width must be divisible by 2 (an interval must contain
an even size); the output keeps the dims as merged, with 3 channels. Types: the planes'
types merge; u8 or a float type.

Kernel (``reference/convert_color_nv12.hpp``): per pixel in f32, ``c = y - 16``,
``d = u - 128``, ``e = v - 128``; ``r = 1.164c + 1.596e``, ``g = 1.164c - 0.391d - 0.813e``,
``b = 1.164c + 2.018d``, clipped to [0, 255] (u8: rounded half away from zero first). U and V
of a pixel are those of its 2x2 block. Tolerance: u8 exact against the CPU plugin except at
exact .5 ties, which its vectorised path (rows of 16 pixels and more) rounds to even while
the reference rounds away from zero (irrun follows the reference); floats
``rtol=1e-5, atol=1e-4`` against the CPU plugin (its own order of operations). OpenVINO's
core has no evaluate for these ops.
"""

from __future__ import annotations

import numpy as np

from irrun.ops._ov_dims import S_MAX
from irrun.ops.base import DYNAMIC_TYPE, Op, TensorInfo, lazy_text
from irrun.ops.registry import register
from irrun.shape import Dim, Shape, static_dim


class _ColorConversion(Op):
    attributes = ()
    #: ``"nv12"`` or ``"i420"``.
    layout = ""
    #: ``"rgb"`` or ``"bgr"``.
    order = ""

    def _fail(self, index, code, message, hint):
        self.context.error(code, f"{self.describe()}: {message}", port=self.input_port(index),
                           hint=hint)  # fmt: skip

    def infer(self, inputs):
        """``[N, H, W, 3]`` from the Y plane (and the chroma planes), as OpenVINO infers it."""
        if self.layout == "i420" and len(inputs) == 2:
            self._fail(1, "input-count", "takes one plane or three (Y, U, V), but it has two",
                       "give U and V as two inputs, or the single I420 plane")  # fmt: skip
            return None
        etype = self._element_type(inputs)
        if etype is None:
            return None
        y_shape = inputs[0].shape
        if y_shape.rank not in (None, 4):
            self._fail(0, "input-rank", f"Y must be 4-D [N, H, W, 1], but its shape is {y_shape}",
                       "give the image as NHWC with 1 channel")  # fmt: skip
            return None
        dims = list(y_shape) if y_shape.rank == 4 else [Dim.dynamic()] * 4
        if not dims[3].compatible(static_dim(1)):
            self._fail(0, "input-shape", f"Y must have 1 channel, but its shape is {y_shape}",
                       "give the luma plane as [N, H, W, 1]")  # fmt: skip
            return None
        if len(inputs) == 1:
            height = _div(_times(dims[1], 2), 3)
            if height is None:
                self._fail(0, "input-shape", f"the single plane's height {dims[1]} is not 3/2 of "
                           "an image height (2/3 of it is no size)",
                           "give [N, H*3/2, W, 1] with an even H")  # fmt: skip
                return None
            dims[1] = height
        else:
            dims = self._merge_chroma(inputs, dims)
            if dims is None:
                return None
        for axis, what in ((1, "height"), (2, "width")):
            if _div(dims[axis], 2) is None:
                self._fail(0, "input-shape", f"the image {what} {dims[axis]} must be even",
                           f"crop or pad the image to an even {what}")  # fmt: skip
                return None
        dims[3] = static_dim(3)
        why = lazy_text("a {}x{} image of batch {}, 3 channels", dims[1], dims[2], dims[0])
        return [TensorInfo(Shape(dims), etype, why=why)]

    def _element_type(self, inputs):
        etype = DYNAMIC_TYPE
        for index, info in enumerate(inputs):
            other = info.element_type
            if other.name == "dynamic":
                continue
            if etype.name != "dynamic" and other is not etype:
                self._fail(index, "input-type", f"the planes must be of one type, but input 0 "
                           f"is {etype} and input {index} {other}",
                           "Convert the planes to one type")  # fmt: skip
                return None
            etype = other
        if etype.name not in ("dynamic", "u8") and etype.kind != "float":
            self._fail(0, "input-type", f"the image must be u8 or floating-point, but it is "
                       f"{etype}", "Convert the image to u8 or f32")  # fmt: skip
            return None
        return etype

    def _merge_chroma(self, inputs, dims):
        channels = 2 if self.layout == "nv12" else 1
        chroma = inputs[1].shape
        if self.layout == "i420":
            merged = chroma.merge(inputs[2].shape)
            if merged is None:
                self._fail(2, "input-shape", f"U {chroma} and V {inputs[2].shape} must have one "
                           "shape", "give U and V as [N, H/2, W/2, 1] each")  # fmt: skip
                return None
            chroma = merged
        name = "UV" if self.layout == "nv12" else "U and V"
        if chroma.rank is not None:
            if chroma.rank != 4 or not chroma[3].compatible(static_dim(channels)):
                self._fail(1, "input-shape", f"{name} must be [N, H/2, W/2, {channels}], but "
                           f"the shape is {chroma}", f"give {name} with {channels} "
                           "channel(s)")  # fmt: skip
                return None
            expected = [chroma[0], _times(chroma[1], 2), _times(chroma[2], 2)]
            for axis, dim in enumerate(expected):
                merged = dims[axis].merge(dim)
                if merged is None:
                    self._fail(1, "input-shape", f"Y {inputs[0].shape} does not match {name} "
                               f"{chroma}: axis {axis} is {dims[axis]} in Y and {dim} from "
                               f"{name}", "give chroma planes of half the height and "
                               "width of Y")  # fmt: skip
                    return None
                dims[axis] = merged
        return dims

    def evaluate(self, inputs):
        """BT.601 YUV to RGB (or BGR) per pixel, chroma shared by 2x2 blocks."""
        y_plane = np.asarray(inputs[0])
        batch, rows, width = y_plane.shape[:3]
        if len(inputs) == 1:
            height = rows * 2 // 3
            flat = y_plane.reshape(batch, -1)
            luma = flat[:, : height * width].reshape(batch, height, width)
            rest = flat[:, height * width :]
            if self.layout == "nv12":
                pairs = rest.reshape(batch, height // 2, width // 2, 2)
                u, v = pairs[..., 0], pairs[..., 1]
            else:
                quarter = (height // 2) * (width // 2)
                u = rest[:, :quarter].reshape(batch, height // 2, width // 2)
                v = rest[:, quarter : 2 * quarter].reshape(batch, height // 2, width // 2)
        else:
            height = rows
            luma = y_plane[..., 0]
            if self.layout == "nv12":
                u, v = inputs[1][..., 0], inputs[1][..., 1]
            else:
                u, v = inputs[1][..., 0], inputs[2][..., 0]
        u = np.repeat(np.repeat(np.asarray(u), 2, axis=1), 2, axis=2)
        v = np.repeat(np.repeat(np.asarray(v), 2, axis=1), 2, axis=2)
        c = luma.astype(np.float32) - np.float32(16)
        d = u.astype(np.float32) - np.float32(128)
        e = v.astype(np.float32) - np.float32(128)
        scaled = np.float32(1.164) * c
        red = scaled + np.float32(1.596) * e
        green = scaled - np.float32(0.391) * d - np.float32(0.813) * e
        blue = scaled + np.float32(2.018) * d
        channels = [red, green, blue] if self.order == "rgb" else [blue, green, red]
        out = np.stack(channels, axis=-1)
        if y_plane.dtype == np.uint8:
            out = np.floor(out + np.float32(0.5))  # std::round, half away from zero (>= 0 here)
        return [np.clip(out, 0, 255).astype(y_plane.dtype)]


def _times(dim: Dim, factor: int) -> Dim:
    """``dim * factor`` as OpenVINO multiplies a Dimension."""
    return Dim(dim.lower * factor, None if dim.upper is None else dim.upper * factor)


def _div(dim: Dim, divisor: int) -> Dim | None:
    """``dim / divisor`` as OpenVINO divides a Dimension (``ceil`` of the lower bound,
    ``floor`` of the upper), ``None`` when empty; ``?`` stays ``?``."""
    if dim.lower == 0 and dim.upper is None:
        return Dim.dynamic()
    lower = -(-dim.lower // divisor)
    # OpenVINO divides its infinity (2^63 - 1) like a number, in double precision
    upper = int(S_MAX / divisor) if dim.upper is None else dim.upper // divisor
    if upper < lower:
        return None
    return Dim(lower, upper)


@register
class NV12toRGB(_ColorConversion):
    """NV12toRGB-8 (one or two planes)."""

    type, version, inputs = "NV12toRGB", 8, (1, 2)
    layout, order = "nv12", "rgb"


@register
class NV12toBGR(_ColorConversion):
    """NV12toBGR-8 (one or two planes)."""

    type, version, inputs = "NV12toBGR", 8, (1, 2)
    layout, order = "nv12", "bgr"


@register
class I420toRGB(_ColorConversion):
    """I420toRGB-8 (one or three planes)."""

    type, version, inputs = "I420toRGB", 8, (1, 3)
    layout, order = "i420", "rgb"


@register
class I420toBGR(_ColorConversion):
    """I420toBGR-8 (one or three planes)."""

    type, version, inputs = "I420toBGR", 8, (1, 3)
    layout, order = "i420", "bgr"
