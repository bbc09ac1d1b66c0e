"""NonMaxSuppression-1/3/4/5/9: shapes against OpenVINO (static, interval and dynamic dims,
constant and unknown max_output_boxes_per_class, layers with fewer inputs), kernel against the
CPU plugin (every encoding, sorting, soft NMS), the reference's ties, reported errors."""

from __future__ import annotations

import re
import tempfile

import numpy as np
import openvino as ov
import openvino.opset1 as opset1
import openvino.opset3 as opset3
import openvino.opset4 as opset4
import openvino.opset5 as opset5
import openvino.opset9 as opset9
import pytest
from hypothesis import given
from hypothesis import strategies as st

import irrun
from irrun.element_types import element_type
from irrun.errors import IRError
from irrun.ops.base import TensorInfo
from irrun.ops.non_max_suppression import NonMaxSuppression5, NonMaxSuppression9
from irrun.shape import Shape
from tests.helpers.openvino_oracle import (
    check_rejected,
    check_shapes,
    constant,
    model_of,
    parameter,
    run_irrun,
    run_openvino,
    save,
)
from tests.helpers.strategies import (
    bare_op,
    built,
    const_info,
    diagnostic,
    edited_report,
    first_line_with,
    op_settings,
    shape_around,
)

OPSETS = {1: opset1, 3: opset3, 4: opset4, 5: opset5, 9: opset9}


def _nms(version, boxes, scores, *optional, encoding="corner", descending=True,
         output_type="i64"):  # fmt: skip
    op = OPSETS[version].non_max_suppression
    keywords = {"box_encoding": encoding, "sort_result_descending": descending}
    if version > 1:
        keywords["output_type"] = output_type
    return op(boxes, scores, *optional[: 4 if version >= 5 else 3], **keywords)


@op_settings(40)
@given(
    st.sampled_from([1, 3, 4, 5, 9]),
    st.data(),
    st.one_of(st.integers(-3, 12), st.just(2**40), st.none()),
    st.sampled_from(["i32", "i64"]),
    st.sampled_from(["f32", "f16"]),
)
def test_nms_shapes_match_openvino(version, data, maximum, output_type, etype):
    batches, classes, count = (data.draw(st.integers(0, 4)) for _ in range(3))
    boxes = parameter(data.draw(shape_around([batches, count, 4])), etype, name="b")
    scores = parameter(data.draw(shape_around([batches, classes, count])), etype, name="s")
    max_node = parameter([], "i64", name="m") if maximum is None else constant(np.int64(maximum))
    node = built(lambda: _nms(version, boxes, scores, max_node, output_type=output_type))
    check_shapes(node)


@pytest.mark.parametrize("version", [1, 3, 4, 5, 9])
@pytest.mark.parametrize(
    "boxes, scores",
    [
        ("[?,10,4]", "[?,3,10]"),
        ("[2..4,10,4]", "[1..3,2..5,10]"),
        ("[2,5..10,4]", "[2,3,5..10]"),
        ("[2,..10,4]", "[2,3..,?]"),
        ("[0,10,4]", "[0,3,10]"),
        ("[2,10,4]", "[2,0,10]"),
        ("[2,10,4]", "[...]"),
        ("[...]", "[2,3,10]"),
    ],
)
@pytest.mark.parametrize("maximum", [0, -1, -3, 4, 2**40])
def test_nms_interval_arithmetic_matches_openvino(version, boxes, scores, maximum):
    """OpenVINO's Dimension arithmetic: unbounded maxima are -1, negative sizes clip or give
    an empty interval, 0 wins over infinity."""
    node = _nms(version, parameter(boxes, name="b"), parameter(scores, name="s"),
                constant(np.int64(maximum)))  # fmt: skip
    check_shapes(node)


@pytest.mark.parametrize("measured", ["[3]", "[2..5]", "[?]"])
def test_nms_max_from_shape_of_matches_openvino(measured):
    """max_output_boxes_per_class read by ShapeOf: a static size is a constant to OpenVINO."""
    limit = opset1.squeeze(opset3.shape_of(parameter(measured, name="z")), constant(np.int64(0)))
    for version in (1, 4, 5, 9):
        node = _nms(version, parameter([2, 10, 4], name="b"), parameter([2, 3, 10], name="s"),
                    limit)  # fmt: skip
        check_shapes(node)


def _drop_inputs(text: str, keep: int) -> str:
    """The saved IR with the NonMaxSuppression layer's inputs from ``keep`` on removed."""
    start = text.index('type="NonMaxSuppression"')
    layer_id = re.findall(r'<layer id="(\d+)"', text[:start])[-1]
    head, body = text[:start], text[start:]
    end = body.index("</input>")
    ports = body[:end]
    for port in range(keep, 6):
        ports = re.sub(rf'\s*<port id="{port}" precision="[A-Z0-9]+"\s*(/>|>.*?</port>)', "",
                       ports, flags=re.S)  # fmt: skip
    text = head + ports + body[end:]

    def kept(match):
        dropped = match.group(1) == layer_id and int(match.group(2)) >= keep
        return "" if dropped else match.group(0)

    edge = r'\s*<edge from-layer="\d+" from-port="\d+" to-layer="(\d+)" to-port="(\d+)"\s*/>'
    text = re.sub(edge, kept, text)
    # the [count, 3] outputs (and the Results after them) declared dynamic: the count changes
    outputs = text.index("<output>", text.index('type="NonMaxSuppression"'))
    rows = r"<dim>\d+</dim>(\s*)<dim>3</dim>(\s*)</port>"
    return text[:outputs] + re.sub(rows, r"<dim>-1</dim>\1<dim>3</dim>\2</port>", text[outputs:])


@pytest.mark.parametrize("version", [1, 3, 4, 5, 9])
@pytest.mark.parametrize("keep", [2, 3, 4])
def test_nms_with_fewer_inputs_matches_openvino(version, keep):
    """Versions 1-4 read as if the default inputs were there (max 0: no box); 5 and 9 keep
    the inputs given, so that two inputs give ``[?,3]``."""
    node = _nms(version, parameter([2, 10, 4], name="b"), parameter([2, 3, 10], name="s"),
                constant(np.int64(4)), constant(np.float32(0.5)))  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        path = save(model_of(node), tmp)
        path.write_text(_drop_inputs(path.read_text(), keep))
        read = ov.Core().read_model(str(path))
        (expected,) = [
            n for n in read.get_ordered_ops() if n.get_type_name() == node.get_type_name()
        ]
        loaded = irrun.load(path)
        report = loaded.validate()
        assert not report.errors, report.to_text()
        (layer,) = [x for x in loaded.layers if x.type == "NonMaxSuppression"]
        for port, output in zip(layer.outputs, expected.outputs()):
            assert str(port.inferred_shape) == str(output.get_partial_shape())
        boxes, scores = _clustered(2, 3, 10, seed=5)
        outputs = loaded.run({"b": boxes, "s": scores})
        if keep == 2:  # no max input: nothing selected
            assert outputs[loaded.outputs[0].name].shape == (0, 3)


def _clustered(batches, classes, count, seed=0, spread=6.0):
    """Boxes in a few clusters (so that many overlap) as [y1, x1, y2, x2], and scores."""
    rng = np.random.default_rng(seed)
    centers = rng.uniform(0, spread, (batches, 4, 2))
    picks = rng.integers(0, 4, (batches, count))
    middle = np.take_along_axis(centers, picks[..., None], axis=1)
    middle = middle + rng.normal(0, 0.6, (batches, count, 2))
    size = rng.uniform(1, 3, (batches, count, 2))
    boxes = np.concatenate([middle - size / 2, middle + size / 2], axis=-1).astype(np.float32)
    scores = rng.uniform(0, 1, (batches, classes, count)).astype(np.float32)
    return boxes, scores


def _as_center(boxes):
    y1, x1, y2, x2 = np.moveaxis(boxes, -1, 0)
    return np.stack([(x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1], axis=-1).astype(np.float32)


def _run_both(node, feed):
    model = model_of(node)
    return run_irrun(model, feed), run_openvino(model, feed)


@pytest.mark.parametrize("version", [1, 3, 4, 5, 9])
@pytest.mark.parametrize("encoding", ["corner", "center"])
@pytest.mark.parametrize("descending", [True, False])
@pytest.mark.parametrize("maximum, iou, score", [(5, 0.4, 0.2), (100, 0.6, 0.0), (2, 0.1, 0.5)])
def test_nms_matches_cpu_plugin(version, encoding, descending, maximum, iou, score):
    """Indices exactly; versions 1-4 pad with -1 after the CPU plugin's rows (which it
    returns alone) and versions 1 and 3 cut them at their output size."""
    boxes, scores = _clustered(2, 3, 30, seed=maximum)
    if encoding == "center":
        boxes = _as_center(boxes)
    b, s = parameter([2, 30, 4], name="b"), parameter([2, 3, 30], name="s")
    node = _nms(version, b, s, constant(np.int64(maximum)), constant(np.float32(iou)),
                constant(np.float32(score)), encoding=encoding, descending=descending,
                output_type="i32" if version == 9 else "i64")  # fmt: skip
    got, expected = _run_both(node, {"b": boxes, "s": scores})
    assert got[0].dtype == expected[0].dtype
    used = min(len(got[0]), len(expected[0]))
    np.testing.assert_array_equal(got[0][:used], expected[0][:used])
    if version < 5:
        assert (got[0][used:] == -1).all()
        assert used == len(expected[0]) or version in (1, 3)
    else:
        assert got[0].shape == expected[0].shape
        np.testing.assert_array_equal(got[1], expected[1])  # hard NMS: scores exact
        np.testing.assert_array_equal(got[2], expected[2])


SOFT_CASES = [(0.5, 0.5, 0.1), (0.2, 1.0, 0.3), (1.0, 0.3, 0.0)]


@pytest.mark.parametrize("sigma, iou, score", SOFT_CASES)
def test_soft_nms_9_matches_cpu_plugin(sigma, iou, score):
    """Soft NMS: indices exactly, decayed scores within rtol 1e-6 (``exp``, compounded). The
    CPU plugin runs NMS-5's soft NMS like this too (without its iou_threshold limit)."""
    boxes, scores = _clustered(2, 2, 25, seed=7, spread=3.0)
    for version in (9, 5):
        b, s = parameter([2, 25, 4], name="b"), parameter([2, 2, 25], name="s")
        node = _nms(version, b, s, constant(np.int64(12)), constant(np.float32(iou)),
                    constant(np.float32(score)), constant(np.float32(sigma)))  # fmt: skip
        got, expected = _run_both(node, {"b": boxes, "s": scores})
        if version == 5:
            got = bare_op(NonMaxSuppression9, {}).evaluate(
                [boxes, scores, np.int64(12), np.float32(iou), np.float32(score),
                 np.float32(sigma)])  # fmt: skip
        np.testing.assert_array_equal(got[0], expected[0])
        np.testing.assert_array_equal(got[2], expected[2])
        np.testing.assert_allclose(got[1], expected[1], rtol=1e-6, atol=0)
        assert (got[1][:, 2] < scores.max()).any()  # some scores decayed


def _reference_nms(boxes, scores, maximum, iou_threshold, score_threshold, sigma, version):
    """OpenVINO's reference (``non_max_suppression.cpp``) transcribed box by box with a heap,
    then sorted by decreasing score as the spec says."""
    import heapq
    import math

    from irrun.ops._boxes import iou_one_to_many, normalize_corners

    f32 = np.float32
    boxes = normalize_corners(boxes)
    scale = f32(-0.5) / f32(sigma) if sigma > 0 else f32(0)
    rows = []
    for batch in range(scores.shape[0]):
        for klass in range(scores.shape[1]):
            heap = [(-scores[batch, klass, i], i, 0) for i in range(scores.shape[2])
                    if scores[batch, klass, i] > score_threshold]  # fmt: skip
            heapq.heapify(heap)
            selected = []
            while heap and len(selected) < maximum:
                negative, index, begin = heapq.heappop(heap)
                score = original = f32(-negative)
                suppressed = False
                for j in range(len(selected) - 1, begin - 1, -1):
                    iou = iou_one_to_many(boxes[batch, index], boxes[batch, [selected[j][0]]])[0]
                    weight = f32(math.exp(float(scale * iou * iou)))
                    if version == 5 or sigma <= 0:
                        weight = weight if iou <= iou_threshold else f32(0)
                    score = f32(score * weight)
                    hard = iou >= iou_threshold if version == 5 else iou > iou_threshold
                    if hard and (version == 5 or sigma <= 0):
                        suppressed = True
                        break
                    if score <= score_threshold:
                        break
                if suppressed:
                    continue
                if score == original:
                    selected.append((index, score))
                elif score > score_threshold:
                    heapq.heappush(heap, (-score, index, len(selected)))
            rows.extend((-score, batch, klass, index) for index, score in selected)
    rows.sort()
    return [[b, k, i] for _, b, k, i in rows], [float(-s) for s, *_ in rows]


@pytest.mark.parametrize("version", [5, 9])
@pytest.mark.parametrize("sigma, iou, score", [*SOFT_CASES, (0.0, 0.5, 0.1), (0.3, 0.0, 0.0)])
@pytest.mark.parametrize("seed", [1, 2])
def test_nms_matches_the_reference_algorithm(version, sigma, iou, score, seed):
    """Against the reference transcribed (NMS-5's soft NMS keeps its iou_threshold limit,
    which the CPU plugin drops)."""
    boxes, scores = _clustered(2, 3, 20, seed=seed, spread=3.0)
    op = bare_op(NonMaxSuppression5 if version == 5 else NonMaxSuppression9, {})
    got = op.evaluate([boxes, scores, np.int64(8), np.float32(iou), np.float32(score),
                       np.float32(sigma)])  # fmt: skip
    indices, kept = _reference_nms(boxes, scores, 8, np.float32(iou), np.float32(score),
                                   sigma, version)  # fmt: skip
    assert got[0].tolist() == indices
    assert got[1][:, 2].tolist() == kept
    assert got[2].tolist() == [len(indices)]


def test_nms_ties_and_flipped_corners_match_cpu_plugin():
    """Equal scores are taken in box order; corners are read as any diagonal pair."""
    boxes = np.array([[[0, 0, 2, 2], [2, 2, 0, 0], [0, 0, 2, 2], [5, 5, 7, 7], [7, 5, 5, 7],
                       [10, 10, 11, 11]]], np.float32)  # fmt: skip
    scores = np.array([[[0.5, 0.5, 0.5, 0.5, 0.9, 0.5], [0.7, 0.7, 0.1, 0.1, 0.1, 0.7]]],
                      np.float32)  # fmt: skip
    for version in (4, 5, 9):
        for descending in (True, False):
            node = _nms(version, parameter([1, 6, 4], name="b"), parameter([1, 2, 6], name="s"),
                        constant(np.int64(6)), constant(np.float32(0.5)),
                        constant(np.float32(0.0)), descending=descending)  # fmt: skip
            got, expected = _run_both(node, {"b": boxes, "s": scores})
            count = len(expected[0])
            np.testing.assert_array_equal(got[0][:count], expected[0])
    rows = got[0].tolist()
    assert rows == [[0, 0, 4], [0, 0, 0], [0, 0, 5], [0, 1, 0], [0, 1, 5], [0, 1, 3]]


def test_nms_iou_at_the_threshold_follows_the_reference():
    """IoU exactly 0.5 (boxes of area 1 and 2 sharing 1): NMS-5's reference suppresses at
    equality, NMS-9's (and its spec) only above; the CPU plugin suppresses in both."""
    boxes = np.array([[[0, 0, 1, 1], [0, 0, 1, 2]]], np.float32)
    scores = np.array([[[0.5, 0.9]]], np.float32)
    results = {}
    for op_class in (NonMaxSuppression5, NonMaxSuppression9):
        op = bare_op(op_class, {"sort_result_descending": "false"})
        outputs = op.evaluate([boxes, scores, np.int64(5), np.float32(0.5), np.float32(0)])
        results[op_class.version] = outputs[0].tolist()
    assert results == {5: [[0, 0, 1]], 9: [[0, 0, 1], [0, 0, 0]]}


def test_nms_of_f16_inputs_matches_cpu_plugin():
    boxes, scores = _clustered(1, 2, 20, seed=3)
    node = _nms(
        9,
        parameter([1, 20, 4], "f16", name="b"),
        parameter([1, 2, 20], "f16", name="s"),
        constant(np.int64(4)),
        constant(np.float16(0.4)),
        constant(np.float16(0.1)),
    )
    feed = {"b": boxes.astype(np.float16), "s": scores.astype(np.float16)}
    got, expected = _run_both(node, feed)
    for g, e in zip(got, expected):
        assert g.dtype == e.dtype
        np.testing.assert_array_equal(g, e)


def test_nms_with_max_from_an_input_runs_and_refuses_a_negative_one():
    boxes, scores = _clustered(1, 1, 10)
    node = _nms(5, parameter([1, 10, 4], name="b"), parameter([1, 1, 10], name="s"),
                parameter([], "i64", name="m"), constant(np.float32(0.5)))  # fmt: skip
    model = model_of(node)
    feed = {"b": boxes, "s": scores, "m": np.array(3)}
    got, expected = run_irrun(model, feed), run_openvino(model, feed)
    np.testing.assert_array_equal(got[0], expected[0])
    with pytest.raises(Exception, match="max_output_boxes_per_class is -1; it must be >= 0"):
        run_irrun(model, {**feed, "m": np.array(-1)})


def test_nms_large_input_is_quick():
    """2000 boxes, 80 classes' worth of greedy loops (one per kept box), in well under 2 s."""
    import time

    boxes, scores = _clustered(1, 20, 2000, seed=9, spread=200.0)
    op = bare_op(NonMaxSuppression9, {})
    start = time.perf_counter()
    indices, _, count = op.evaluate([boxes, scores, np.int64(100), np.float32(0.5),
                                     np.float32(0.05)])  # fmt: skip
    assert time.perf_counter() - start < 2.0
    assert count[0] == len(indices) == 2000


def _valid_model(version=9):
    node = _nms(version, parameter([1, 6, 4], name="b"), parameter([1, 2, 6], name="s"),
                constant(np.int64(3)), constant(np.float32(0.5)), constant(np.float32(0.1)),
                output_type="i32")  # fmt: skip
    return model_of(node)


def test_nms_invalid_inputs_are_rejected_by_openvino_and_reported():
    b, s = parameter([1, 6, 4], name="b"), parameter([1, 2, 6], name="s")
    check_rejected(lambda: _nms(9, parameter([1, 6], name="b"), s, constant(np.int64(3))))
    check_rejected(lambda: _nms(9, b, parameter([2, 2, 6], name="s"), constant(np.int64(3))))
    check_rejected(lambda: _nms(9, b, parameter([1, 2, 5], name="s"), constant(np.int64(3))))
    check_rejected(lambda: _nms(9, parameter([1, 6, 5], name="b"), s, constant(np.int64(3))))
    check_rejected(lambda: _nms(4, b, s, constant(np.array([3]))))
    check_rejected(lambda: _nms(9, b, s, constant(np.array([3, 4]))))
    check_rejected(lambda: _nms(9, parameter([1, 6, 4], "i32", name="b"), s, constant(3)))
    check_rejected(lambda: _nms(9, b, s, constant(np.int64(3)), output_type="u8"))

    op = bare_op(NonMaxSuppression9, {})
    f32 = element_type("f32")
    with pytest.raises(IRError, match=r"boxes must have rank 3 .* but its shape is \[1,6\]"):
        op.infer([TensorInfo(Shape([1, 6]), f32), TensorInfo(Shape([1, 2, 6]), f32)])
    with pytest.raises(
        IRError, match=r"must have one num_batches \(dim 0\), but they have 1 and 2"
    ):
        op.infer([TensorInfo(Shape([1, 6, 4]), f32), TensorInfo(Shape([2, 2, 6]), f32)])
    with pytest.raises(IRError, match="dim 1 and scores .* dim 2 must both be num_boxes"):
        op.infer([TensorInfo(Shape([1, 6, 4]), f32), TensorInfo(Shape([1, 2, 5]), f32)])
    with pytest.raises(IRError, match=r"the last dim of boxes \[1,6,5\] must be 4"):
        op.infer([TensorInfo(Shape([1, 6, 5]), f32), TensorInfo(Shape([1, 2, 6]), f32)])
    with pytest.raises(IRError, match=r"max_output_boxes_per_class must be a scalar or a "
                                      r"1-element vector, but its shape is \[2\]"):  # fmt: skip
        op.infer([TensorInfo(Shape([1, 6, 4]), f32), TensorInfo(Shape([1, 2, 6]), f32),
                  const_info([3, 4])])  # fmt: skip
    with pytest.raises(IRError, match="boxes must be bf16, f16 or f32, but input 0 is i32"):
        op.infer([TensorInfo(Shape([1, 6, 4]), element_type("i32")),
                  TensorInfo(Shape([1, 2, 6]), f32)])  # fmt: skip


def test_nms_reported_errors_name_the_line():
    report, text = edited_report(
        _valid_model(), lambda t: t.replace('output_type="i32"', 'output_type="u8"')
    )
    found = diagnostic(report, "attribute-value")
    assert "output_type u8 is not i32 or i64" in found.message
    assert found.line == first_line_with(text, 'output_type="u8"')

    report, text = edited_report(
        _valid_model(), lambda t: t.replace('box_encoding="corner"', 'box_encoding="corners"')
    )
    found = diagnostic(report, "attribute-value")
    assert "box_encoding='corners' is not one of corner, center" in found.message

    report, _ = edited_report(
        _valid_model(1),
        lambda t: t.replace(
            'sort_result_descending="true"', 'sort_result_descending="true" output_type="i32"'
        ),
    )
    found = diagnostic(report, "unknown-attribute")
    assert "output_type exists only in NonMaxSuppression-3 and later" in found.message
