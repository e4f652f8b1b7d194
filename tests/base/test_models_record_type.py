"""frozen.record_type: the namedtuple behaviours the code relies on, without namedtuple's cost."""

from __future__ import annotations

import pickle

import pytest

from agentctx.base.models import record_type

Point = record_type("Point", "x y label", defaults=("none",))


def test_positional_keyword_and_default_construction():
    assert Point(1, 2) == Point(x=1, y=2) == Point(1, y=2, label="none") == (1, 2, "none")
    assert Point(1, 2).label == "none" and Point(1, 2, "a").label == "a"


def test_missing_extra_and_unknown_arguments_are_refused():
    with pytest.raises(TypeError):
        Point(1)
    with pytest.raises(TypeError):
        Point(1, 2, "a", "b")
    with pytest.raises(TypeError):
        Point(1, 2, colour="red")
    with pytest.raises(TypeError):
        Point(1, 2, x=3)


def test_immutable_replace_asdict_repr_pickle_and_subclassing():
    p = Point(1, 2)
    with pytest.raises(AttributeError):
        p.x = 5  # type: ignore[misc]
    assert p._replace(y=9) == Point(1, 9) and p == Point(1, 2)
    with pytest.raises(ValueError):
        p._replace(z=1)
    assert p._asdict() == {"x": 1, "y": 2, "label": "none"}
    assert repr(p) == "Point(x=1, y=2, label='none')"
    from agentctx.base.models import SearchResult

    assert pickle.loads(pickle.dumps(SearchResult((), "like-search"))) == SearchResult((), "like-search")

    class Named(Point):
        __slots__ = ()

        @property
        def norm(self) -> int:
            return self.x + self.y

    n = Named(3, 4)
    assert n.norm == 7 and isinstance(n._replace(x=1), Named) and repr(n).startswith("Named(")
    assert Point._fields == ("x", "y", "label")
