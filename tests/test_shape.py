"""Dim and Shape: parsing, printing and the interval arithmetic inference relies on."""

import pytest

from irrun.shape import Dim, Shape, parse_dim


@pytest.mark.parametrize(
    ("text", "lower", "upper", "printed"),
    [
        ("5", 5, 5, "5"),
        ("0", 0, 0, "0"),
        ("?", 0, None, "?"),
        ("-1", 0, None, "?"),
        ("1..10", 1, 10, "1..10"),
        ("..10", 0, 10, "..10"),
        ("2..", 2, None, "2.."),
    ],
)
def test_parse_dim_spellings(text, lower, upper, printed):
    dim = parse_dim(text)
    assert (dim.lower, dim.upper, str(dim)) == (lower, upper, printed)


@pytest.mark.parametrize("text", ["5abc", "-5", "1e30", "", "..", "3..1", "2;3"])
def test_parse_dim_rejects_garbage(text):
    with pytest.raises(ValueError):
        parse_dim(text)


def test_shape_parse_and_repr_round_trip_openvino_spelling():
    assert str(Shape.parse("1..10,?,3,..5,2..,?")) == "[1..10,?,3,..5,2..,?]"
    assert repr(Shape.parse("1,?,2..8")) == "Shape('[1,?,2..8]')"
    assert Shape.parse("") == Shape([])
    assert Shape.parse("...").rank is None
    assert str(Shape.parse("[2, 3]")) == "[2,3]"


def test_dim_sum_adds_bounds():
    assert Dim(8) + Dim(16) + Dim(32) == Dim(56)
    assert Dim.interval(1, 5) + Dim.interval(3, 8) == Dim.interval(4, 13)
    assert Dim.dynamic() + Dim(3) == Dim.interval(3, None)


def test_dim_compatibility_is_interval_intersection():
    assert Dim.dynamic().compatible(Dim(5))
    assert not Dim(5).compatible(Dim(6))
    assert not Dim.interval(1, 5).compatible(Dim.interval(6, 9))
    assert Dim.interval(1, 5).merge(Dim.interval(3, 8)) == Dim.interval(3, 5)
    assert Dim.interval(1, 5).merge(Dim(7)) is None


def test_shape_compatible_and_merge():
    a, b = Shape.parse("?,3"), Shape.parse("2,1..4")
    assert a.compatible(b)
    assert a.merge(b) == Shape.parse("2,3")
    assert not Shape([2, 3]).compatible(Shape([2, 3, 1]))
    assert Shape.dynamic_rank().compatible(Shape([4]))


def test_static_shape_equals_int_tuple_and_counts_elements():
    shape = Shape([2, 3, 4])
    assert shape == (2, 3, 4)
    assert shape.to_tuple() == (2, 3, 4)
    assert shape.element_count() == 24
    assert Shape([2**40, 2**40]).element_count() == 2**80


def test_dim_and_shape_are_immutable_and_hashable():
    with pytest.raises(AttributeError):
        Dim(3).lower = 4
    assert len({Shape([1, 2]), Shape([1, 2])}) == 1


@pytest.mark.parametrize("text", ["", "1,?,2..8", "...", "3..", "0,..5", "4,5"])
def test_shapes_pickle_and_copy(text):
    import copy
    import pickle

    shape = Shape.parse(text)
    assert shape.is_static == (text in ("", "4,5"))  # (fills the cached sizes)
    for clone in (pickle.loads(pickle.dumps(shape)), copy.deepcopy(shape), copy.copy(shape)):
        assert clone == shape and str(clone) == str(shape) and clone.is_static == shape.is_static
    dim = Dim.interval(2, None)
    assert pickle.loads(pickle.dumps(dim)) == dim
