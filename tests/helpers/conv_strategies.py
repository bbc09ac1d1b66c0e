"""Hypothesis strategies shared by the forward and backward-data convolution tests: the
spatial attributes, the data shape and the filter dims of one case."""

from __future__ import annotations

from hypothesis import strategies as st

from tests.helpers.strategies import shape_around

AUTO_PADS = ["explicit", "explicit", "valid", "same_upper", "same_lower"]


@st.composite
def convolution_geometry(draw, grouped: bool, transposed: bool, max_size: int, pads):
    """``(data, filters, strides, pads_begin, pads_end, dilations, auto_pad)`` of a
    convolution with 1 to 3 spatial axes: ``data`` a shape text around ``[2, C, *sizes]``
    (sizes 1 to ``max_size``), ``filters`` a list of static dims or a shape text around them
    (``[C_out, C_in, *k]``, ``[C_in, C_out, *k]`` when ``transposed``, with a leading ``G``
    when ``grouped``); pads drawn from ``pads`` (a strategy of ``(low, high)``)."""
    spatial = draw(st.integers(1, 3))
    kernel = [draw(st.integers(1, 3)) for _ in range(spatial)]
    sizes = [draw(st.integers(1, max_size)) for _ in range(spatial)]
    strides = [draw(st.integers(1, 3)) for _ in range(spatial)]
    dilations = [draw(st.integers(1, 2)) for _ in range(spatial)]
    low, high = draw(pads)
    pads_begin = [draw(st.integers(low, high)) for _ in range(spatial)]
    pads_end = [draw(st.integers(low, high)) for _ in range(spatial)]
    auto_pad = draw(st.sampled_from(AUTO_PADS))
    groups, per_group, out_per_group = (draw(st.integers(1, 3)) for _ in range(3))
    channels = groups * per_group if grouped else per_group
    data = draw(shape_around([2, channels, *sizes]))
    channel_dims = [per_group, out_per_group] if transposed else [out_per_group, per_group]
    filter_dims = [groups] * grouped + channel_dims + kernel
    filters = filter_dims if draw(st.booleans()) else draw(shape_around(filter_dims))
    return data, filters, strides, pads_begin, pads_end, dilations, auto_pad
