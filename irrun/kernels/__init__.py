"""NumPy kernels of the Concat and Gather ops, free of any IR knowledge.

Each kernel is a plain function on numpy arrays: attributes come in already parsed, the
result is a new array of the data's dtype. Gather-family kernels copy data elements bit for
bit (NaN payloads and ``-0.0`` survive) and never do arithmetic on data values.

Indices may be negative (``[-s, s-1]`` wraps, as in Gather-8). For indices outside that
range each gather kernel takes an ``out_of_range`` policy from :data:`OUT_OF_RANGE_POLICIES`:
``"zero"`` writes the dtype's zero, ``"error"`` raises
:class:`~irrun.errors.IndexOutOfRangeError`, ``"clip"`` clamps into ``[0, s-1]``.

Examples
--------
>>> import numpy as np
>>> from irrun.kernels import gather
>>> gather(np.array([10, 20, 30]), np.array([2, -3, 7]), axis=0)
array([30, 10,  0])
"""

from irrun.kernels._indices import OUT_OF_RANGE_POLICIES
from irrun.kernels.concat import concat
from irrun.kernels.gather import gather, trt_gather
from irrun.kernels.gather_elements import gather_elements
from irrun.kernels.gather_nd import gather_nd

__all__ = [
    "OUT_OF_RANGE_POLICIES",
    "concat",
    "gather",
    "gather_elements",
    "gather_nd",
    "trt_gather",
]
