"""CTCLoss-4: shapes against OpenVINO, losses against the CPU plugin in f32 for every
attribute combination (repeated labels, blanks, short sequences), reported errors."""

from __future__ import annotations

import numpy as np
import openvino.opset4 as opset4
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.helpers.openvino_oracle import (
    check_rejected,
    check_shapes,
    constant,
    model_of,
    parameter,
    run_irrun,
    run_openvino,
)
from tests.helpers.strategies import built, dim_around, edited_report, op_settings

TOL = {"rtol": 1e-5, "atol": 1e-5}


@op_settings(30)
@given(st.data(), st.integers(1, 3), st.integers(1, 6), st.booleans())
def test_ctc_loss_shapes_match_openvino(data, n, t, blank):
    d = lambda size: data.draw(dim_around(size))  # noqa: E731
    shapes = [f"[{d(n)},{d(t)},{d(4)}]", f"[{d(n)}]", f"[{d(n)},{d(t)}]", f"[{d(n)}]"]
    shapes = [data.draw(st.sampled_from([s, s, s, "[...]"])) for s in shapes]
    itype = data.draw(st.sampled_from(["i32", "i64"]))
    args = [parameter(shapes[0], "f32")] + [parameter(s, itype) for s in shapes[1:]]
    if blank:
        args.append(constant(np.array(0), itype))
    check_shapes(built(lambda: opset4.ctc_loss(*args)))


CASES = [
    # logit lengths, labels, label lengths
    ([6, 4], [[0, 1, 1, 2, 0, 0], [2, 2, 0, 0, 0, 0]], [4, 2]),
    ([5, 5], [[1, 0, 1, 0, 0], [0, 0, 0, 0, 0]], [3, 1]),
    ([6, 3], [[2, 2, 2, 1, 0, 0], [1, 2, 1, 0, 0, 0]], [4, 3]),
]


@pytest.mark.parametrize("blank", [None, 0])
@pytest.mark.parametrize("collapse, merge, unique",
                         [(False, True, False), (True, True, False), (False, False, False),
                          (False, True, True), (True, False, True)])  # fmt: skip
@pytest.mark.parametrize("case", range(len(CASES)))
def test_ctc_loss_matches_cpu_plugin(case, collapse, merge, unique, blank):
    logit_lengths, labels, label_lengths = CASES[case]
    n, t = len(labels), len(labels[0])
    logits = np.random.default_rng(case).uniform(-2, 2, (n, t, 4)).astype(np.float32)
    args = [parameter([n, t, 4], name="logits"), parameter([n], "i32", name="ll"),
            parameter([n, t], "i32", name="labels"), parameter([n], "i32", name="tl")]  # fmt: skip
    blank_node = None if blank is None else constant(np.int32(blank))
    model = model_of(opset4.ctc_loss(*args, blank_node, collapse, merge, unique))
    feed = {"logits": logits, "ll": np.array(logit_lengths, np.int32),
            "labels": np.array(labels, np.int32),
            "tl": np.array(label_lengths, np.int32)}  # fmt: skip
    if blank == 0:  # labels never hold the blank
        feed["labels"] = feed["labels"] + 1
    expected = run_openvino(model, feed)[0]
    got = run_irrun(model, feed)[0]
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_allclose(got, expected, **TOL)


def test_ctc_loss_of_no_labels_is_all_blanks():
    """A label length of 0 (the CPU plugin crashes on it): the loss is ``-sum log p(blank)``
    over the logit steps."""
    logits = np.random.default_rng(4).uniform(-2, 2, (1, 5, 3)).astype(np.float32)
    args = [parameter([1, 5, 3], name="x"), parameter([1], "i32", name="a"),
            parameter([1, 5], "i32", name="b"), parameter([1], "i32", name="c")]  # fmt: skip
    model = model_of(opset4.ctc_loss(*args))
    feed = {"x": logits, "a": np.array([4], np.int32), "b": np.zeros((1, 5), np.int32),
            "c": np.array([0], np.int32)}  # fmt: skip
    log_probs = logits[0, :4].astype(np.float64)
    log_probs = log_probs - np.log(np.exp(log_probs).sum(axis=1, keepdims=True))
    np.testing.assert_allclose(run_irrun(model, feed)[0], [-log_probs[:, 2].sum()], rtol=1e-6)


def test_ctc_loss_errors_are_reported():
    i = "i32"
    check_rejected(lambda: opset4.ctc_loss(parameter([2, 5, 4]), parameter([3], i),
                                           parameter([2, 5], i), parameter([2], i)))  # fmt: skip
    check_rejected(lambda: opset4.ctc_loss(parameter([2, 5, 4]), parameter([2], i),
                                           parameter([2, 6], i), parameter([2], i)))  # fmt: skip
    check_rejected(lambda: opset4.ctc_loss(parameter([2, 5, 4], i), parameter([2], i),
                                           parameter([2, 5], i), parameter([2], i)))  # fmt: skip
    check_rejected(lambda: opset4.ctc_loss(parameter([2, 5]), parameter([2], i),
                                           parameter([2, 5], i), parameter([2], i)))  # fmt: skip
    x, a = parameter([2, 5, 4], name="x"), parameter([2], i, name="a")
    b, c = parameter([2, 5], i, name="b"), parameter([2], i, name="c")
    model = model_of(opset4.ctc_loss(x, a, b, c))

    def three_lengths(text):
        return text.replace(
            '<data shape="2" element_type="i32" />', '<data shape="3" element_type="i32" />', 1
        )

    # The edit makes the Parameter's attribute disagree with its port: that is the one error,
    # and CTCLoss's refusal of three lengths for a batch of 2 follows from it (a note).
    report, _ = edited_report(model, three_lengths)
    (error,) = report.errors
    assert error.code == "shape-mismatch" and error.layer_name == "a"
    assert any("must have the batch 2 of the logits [2,5,4]" in note for note in error.notes)
    with pytest.raises(Exception, match="sequence 1 has logit length 3 and label length 4"):
        run_irrun(model, {"x": np.zeros((2, 5, 4), np.float32), "a": np.array([5, 3], np.int32),
                          "b": np.zeros((2, 5), np.int32),
                          "c": np.array([2, 4], np.int32)})  # fmt: skip
