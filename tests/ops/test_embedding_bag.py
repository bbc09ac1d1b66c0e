"""EmbeddingBagOffsetsSum-3, EmbeddingBagOffsets-15, EmbeddingBagPackedSum-3,
EmbeddingBagPacked-15, EmbeddingSegmentsSum-3: shapes against OpenVINO, values against the
CPU plugin (f32 to the module's tolerance, integers exactly), reported errors."""

from __future__ import annotations

import numpy as np
import openvino as ov
import openvino.opset1 as opset1
import openvino.opset3 as opset3
import openvino.opset15 as opset15
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irrun.element_types import element_type
from irrun.errors import IRError
from irrun.ops.base import TensorInfo
from irrun.ops.embedding_bag import EmbeddingSegmentsSum
from irrun.shape import Shape
from tests.helpers.openvino_oracle import (
    check_rejected,
    check_shapes,
    constant,
    model_of,
    parameter,
    run_irrun,
    run_openvino,
)
from tests.helpers.strategies import (
    bare_op,
    built,
    const_info,
    dim_around,
    edited_report,
    op_settings,
    shape_text,
)

TOL = {"rtol": 1e-6, "atol": 1e-6}


@op_settings(40)
@given(st.data(), st.sampled_from(["offsets3", "offsets15", "packed3", "packed15", "segments"]),
       st.sampled_from(["i32", "i64"]), st.integers(2, 5))  # fmt: skip
def test_embedding_shapes_match_openvino(data, kind, itype, count):
    table = parameter(data.draw(shape_text(min_rank=1, max_rank=3)), name="t")
    params = [table]
    draw = data.draw

    def p(shape, etype=itype, name=None):
        node = parameter(shape, etype, name=name or f"p{len(params)}")
        params.append(node)
        return node

    weights = draw(st.booleans())
    if kind.startswith("offsets"):
        indices = p(f"[{draw(dim_around(count))}]")
        offsets = p(f"[{draw(dim_around(3))}]")
        default = constant(np.array(0), itype) if weights or draw(st.booleans()) else None
        w = p(f"[{draw(dim_around(count))}]", "f32") if weights else None
        if kind == "offsets3":
            node = built(
                lambda: opset3.embedding_bag_offsets_sum(table, indices, offsets, default, w)
            )
        else:
            reduction = "sum" if weights else draw(st.sampled_from(["sum", "mean"]))
            node = built(lambda: opset15.embedding_bag_offsets(table, indices, offsets, default, w,
                                                               reduction))  # fmt: skip
    elif kind.startswith("packed"):
        indices = p(draw(st.sampled_from(["[...]", f"[{draw(dim_around(3))},{count}]"])))
        w = p(f"[{draw(dim_around(3))},{draw(dim_around(count))}]", "f32") if weights else None
        if kind == "packed3":
            node = built(lambda: opset3.embedding_bag_packed_sum(table, indices, w))
        else:
            reduction = "sum" if weights else draw(st.sampled_from(["sum", "mean"]))
            node = built(lambda: opset15.embedding_bag_packed(table, indices, w, reduction))
    else:
        indices = p(f"[{draw(dim_around(count))}]")
        segment_ids = p(f"[{draw(dim_around(count))}]")
        how = draw(st.sampled_from(["constant", "unknown", "shape_of"]))
        if how == "constant":
            segments = constant(np.array(draw(st.integers(0, 6))), itype)
        elif how == "unknown":
            segments = p([])
        else:
            segments = opset1.squeeze(opset3.shape_of(p(f"[{draw(dim_around(4))}]", "f32"), itype),
                                      constant(np.int64(0)))  # fmt: skip
        default = constant(np.array(1), itype) if weights or draw(st.booleans()) else None
        w = p(f"[{draw(dim_around(count))}]", "f32") if weights else None
        node = built(lambda: opset3.embedding_segments_sum(table, indices, segment_ids, segments,
                                                           default, w))  # fmt: skip
    check_shapes(ov.Model(node.outputs(), params, "oracle"))


def _table(shape, etype="f32"):
    values = np.random.default_rng(0).uniform(-2, 2, shape)
    return values.astype(np.float32) if etype == "f32" else np.rint(values * 10).astype(np.int32)


def _compare(model, feed, etype):
    expected = run_openvino(model, feed)[0]
    got = run_irrun(model, feed)[0]
    assert got.dtype == expected.dtype and got.shape == expected.shape
    if etype == "f32":
        np.testing.assert_allclose(got, expected, **TOL)
    else:
        np.testing.assert_array_equal(got, expected)
    return got


@pytest.mark.parametrize("etype", ["f32", "i32"])
@pytest.mark.parametrize(
    "version, reduction, default, weighted",
    [
        (3, "sum", None, False),
        (3, "sum", 2, True),
        (3, "sum", -1, False),
        (15, "mean", 4, False),
        (15, "mean", None, False),
        (15, "sum", 1, True),
    ],  # fmt: skip
)
def test_embedding_bag_offsets_matches_cpu_plugin(version, reduction, default, weighted, etype):
    """Bags of 2, 0 (empty: the default row or zeros), 3 and 1 indices."""
    table = _table([6, 2, 3], etype)
    indices = np.array([0, 5, 2, 2, 4, 1], np.int32)
    offsets = np.array([0, 2, 2, 5], np.int32)
    weights = _table([6], etype) if weighted else None
    args = [parameter([6, 2, 3], etype, name="t"), parameter([6], "i32", name="i"),
            parameter([4], "i32", name="o"),
            None if default is None else constant(np.int32(default)),
            parameter([6], etype, name="w") if weighted else None]  # fmt: skip
    if version == 3:
        node = opset3.embedding_bag_offsets_sum(*args)
    else:
        node = opset15.embedding_bag_offsets(*args, reduction)
    feed = {"t": table, "i": indices, "o": offsets}
    if weighted:
        feed["w"] = weights
    got = _compare(model_of(node), feed, etype)
    if default is None or default < 0:
        assert not got[1].any()


@pytest.mark.parametrize("etype", ["f32", "i32"])
@pytest.mark.parametrize("version, reduction, weighted",
                         [(3, "sum", False), (3, "sum", True), (15, "mean", False)])  # fmt: skip
def test_embedding_bag_packed_matches_cpu_plugin(version, reduction, weighted, etype):
    table = _table([7, 4], etype)
    indices = np.array([[0, 6, 2], [3, 3, 1]], np.int64)
    args = [parameter([7, 4], etype, name="t"), parameter([2, 3], "i64", name="i"),
            parameter([2, 3], etype, name="w") if weighted else None]  # fmt: skip
    if version == 3:
        node = opset3.embedding_bag_packed_sum(*args)
    else:
        node = opset15.embedding_bag_packed(*args, reduction)
    feed = {"t": table, "i": indices}
    if weighted:
        feed["w"] = _table([2, 3], etype)
    _compare(model_of(node), feed, etype)


@pytest.mark.parametrize("etype", ["f32", "i32"])
@pytest.mark.parametrize("default, weighted", [(None, False), (3, False), (0, True)])
def test_embedding_segments_sum_matches_cpu_plugin(default, weighted, etype):
    """Five segments, segment 1 and 4 empty."""
    table = _table([5, 3], etype)
    args = [parameter([5, 3], etype, name="t"), parameter([6], "i32", name="i"),
            parameter([6], "i32", name="s"), constant(np.int32(5)),
            None if default is None else constant(np.int32(default)),
            parameter([6], etype, name="w") if weighted else None]  # fmt: skip
    feed = {"t": table, "i": np.array([4, 0, 1, 1, 2, 3], np.int32),
            "s": np.array([0, 0, 2, 2, 3, 3], np.int32)}  # fmt: skip
    if weighted:
        feed["w"] = _table([6], etype)
    _compare(model_of(opset3.embedding_segments_sum(*args)), feed, etype)


def test_embedding_errors_are_reported():
    t, i32 = parameter([10, 3]), "i32"
    check_rejected(lambda: opset3.embedding_bag_offsets_sum(t, parameter([5], i32),
                                                            parameter([4], "i64")))  # fmt: skip
    check_rejected(lambda: opset3.embedding_bag_offsets_sum(t, parameter([5, 1], i32),
                                                            parameter([4], i32)))  # fmt: skip
    check_rejected(
        lambda: opset3.embedding_bag_offsets_sum(
            t, parameter([5], i32), parameter([4], i32), constant(np.int32(0)), parameter([6])
        )
    )
    check_rejected(lambda: opset15.embedding_bag_packed(t, parameter([4, 2], i32),
                                                        parameter([4, 2]), "mean"))  # fmt: skip
    check_rejected(lambda: opset3.embedding_segments_sum(t, parameter([5], i32),
                                                         parameter([6], i32),
                                                         constant(np.int32(7))))  # fmt: skip
    model = model_of(
        opset3.embedding_bag_offsets_sum(
            parameter([10, 3], name="t"),
            parameter([5], i32, name="i"),
            parameter([4], i32, name="o"),
        )
    )

    def offsets_i64(text):
        return text.replace('shape="4" element_type="i32"', 'shape="4" element_type="i64"')

    # The edit makes the Parameter's attribute disagree with its port: that is the one error,
    # and the op's refusal of mixed index types follows from it (a note).
    report, _ = edited_report(model, offsets_i64)
    (error,) = report.errors
    assert error.code == "type-mismatch"
    assert any("offsets (input 2) (i64) must have the indices' type (i32)" in note
               for note in error.notes)  # fmt: skip
    op = bare_op(EmbeddingSegmentsSum)
    f32, i32_type = element_type("f32"), element_type("i32")
    ids = TensorInfo(Shape([5]), i32_type)
    with pytest.raises(IRError, match="num_segments must be >= 0, but it is -2"):
        op.infer([TensorInfo(Shape([10, 3]), f32), ids, ids, const_info(-2, "i32")])


def test_embedding_bad_indices_fail_when_run():
    model = model_of(opset3.embedding_bag_offsets_sum(
        parameter([4, 2], name="t"), parameter([3], "i32", name="i"),
        parameter([2], "i32", name="o")))  # fmt: skip
    table = _table([4, 2])
    with pytest.raises(Exception, match="index 9 is outside the table's 4 rows"):
        run_irrun(model, {"t": table, "i": np.array([0, 9, 1], np.int32),
                          "o": np.array([0, 1], np.int32)})  # fmt: skip
    with pytest.raises(Exception, match=r"offsets \[0, 3\] must rise from 0 and stay below"):
        run_irrun(model, {"t": table, "i": np.array([0, 2, 1], np.int32),
                          "o": np.array([0, 3], np.int32)})  # fmt: skip
