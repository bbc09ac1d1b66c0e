"""A 1x1 convolution of unpadded, unstrided data takes a short path to the pointwise kernel's
np.matmul: the same values as the general path, bit for bit, into a new array or a given one."""

import numpy as np
import pytest

from irrun.ops._conv_kernel import convolve

RNG = np.random.default_rng(9)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
@pytest.mark.parametrize("groups", [1, 3])
@pytest.mark.parametrize("layout", ["contiguous", "view"])
def test_the_short_path_equals_the_pointwise_kernel(dtype, groups, layout):
    wide = (RNG.standard_normal((2, 6 * 2, 5, 7)) * 4).astype(dtype)
    data = wide[:, ::2] if layout == "view" else np.ascontiguousarray(wide[:, ::2])
    filters = (RNG.standard_normal((groups, 4, 6 // groups, 1, 1)) * 4).astype(dtype)
    arguments = (data, filters, groups, [0, 0], [0, 0], [1, 1], [1, 1])
    expected = convolve(*arguments, method="pointwise")
    got = convolve(*arguments)
    assert got.dtype == expected.dtype and got.shape == expected.shape == (2, 4 * groups, 5, 7)
    assert got.tobytes() == expected.tobytes()
    out = np.empty_like(expected)
    assert convolve(*arguments, out=out) is out and out.tobytes() == expected.tobytes()
    strided = np.zeros((2, 4 * groups, 5, 14), dtype)
    convolve(*arguments, out=strided[..., ::2])
    assert strided[..., ::2].tobytes() == expected.tobytes() and not strided[..., 1::2].any()


def test_the_short_path_matches_a_direct_sum():
    data = np.arange(24, dtype=np.float32).reshape(1, 2, 3, 4)
    filters = np.array([[[[[2.0]], [[-1.0]]]]], np.float32)  # [G=1, Og=1, Cg=2, 1, 1]
    got = convolve(data, filters, 1, [0, 0], [0, 0], [1, 1], [1, 1])
    assert got.tolist() == (2 * data[:, :1] - data[:, 1:]).tolist()
