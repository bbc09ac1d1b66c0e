"""Outputs nothing reads are not computed by a plain run (MaxPool's indices, which the
converter gives every MaxPool), and every other kind of run still sees them."""

from __future__ import annotations

import numpy as np
import openvino.opset8 as ops
import pytest

import irrun
from tests.helpers.openvino_oracle import model_of, parameter, run_openvino, save

KERNEL = dict(strides=[2, 2], pads_begin=[1, 1], pads_end=[1, 1], kernel_shape=[3, 3])


def _pool_model(read_indices: bool):
    x = parameter([2, 3, 9, 9], "f32", "x")
    pool = ops.max_pool(x, dilations=[1, 1], index_element_type="i64", **KERNEL)
    relu = ops.relu(pool.output(0))
    if read_indices:
        return model_of(relu, ops.convert(pool.output(1), "f32"))
    return model_of(relu)


@pytest.fixture
def feeds():
    data = np.random.default_rng(3).standard_normal((2, 3, 9, 9)).astype(np.float32)
    data[0, 0, :3, :3] = -np.inf  # (a window of only -inf and pads gives f32 lowest)
    data[1, 2, 4, 4] = np.nan
    return {"x": data}


def test_a_plain_run_skips_the_unread_indices_and_matches_openvino(tmp_path, feeds):
    model = _pool_model(read_indices=False)
    loaded = irrun.load(save(model, tmp_path))
    compiled = loaded.compile()
    (pool,) = [n for n in compiled.program.fast if n.layer.type == "MaxPool"]
    assert pool.evaluate.keywords == {"needed": (True, False)}
    (got,) = loaded.run(feeds).values()
    np.testing.assert_array_equal(got, run_openvino(model, feeds)[0])
    # a stepping run computes the indices all the same (a caller may look at them)
    steps = [s for s in loaded.steps(feeds) if s.layer.type == "MaxPool"]
    values, indices = steps[0].outputs
    assert indices.flags.writeable and indices.dtype == np.int64
    assert indices.strides != (0,) * indices.ndim
    openvino_indices = run_openvino(_pool_model(read_indices=True), feeds)[1]
    np.testing.assert_array_equal(indices, openvino_indices.astype(np.int64))


def test_read_indices_are_computed_in_a_plain_run(tmp_path, feeds):
    model = _pool_model(read_indices=True)
    loaded = irrun.load(save(model, tmp_path))
    (pool,) = [n for n in loaded.compile().program.fast if n.layer.type == "MaxPool"]
    assert not hasattr(pool.evaluate, "keywords")
    got = list(loaded.run(feeds).values())
    expected = run_openvino(model, feeds)
    for mine, theirs in zip(got, expected):
        np.testing.assert_array_equal(mine, theirs)
