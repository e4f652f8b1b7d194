"""Tests for diff_recordings: identity alignment, JSON paths, first divergence."""

from __future__ import annotations

from agentctx.stash import create_stash, diff_recordings
from agentctx.stash.diff import format_diff


def _rec(calls):
    stash = create_stash()
    for channel, key, value in calls:
        stash.value(channel, key, value)
    return stash.recording()


def test_changed_added_and_interleaving_ignored():
    a = _rec([("llm", "plan", 1), ("tool", "search", {"hits": ["a"]}), ("llm", "plan", 2)])
    b = _rec([("tool", "search", {"hits": ["b"]}), ("llm", "plan", 1), ("llm", "plan", 2), ("llm", "plan", 3)])
    result = diff_recordings(a, b)
    assert [c.name for c in result.changed] == ["tool/search#0"]
    assert [e.name for e in result.added] == ["llm/plan#2"]
    assert result.removed == ()
    assert result.first_divergence == "tool/search#0"
    assert result.changed[0].paths == ('$.hits[0]: "a" → "b"',)
    text = format_diff(result)
    assert "first divergence: tool/search#0" in text and "+ llm/plan#2" in text


def test_identical():
    a = _rec([("llm", "plan", 1)])
    result = diff_recordings(a, a)
    assert result.same and result.first_divergence is None
    assert result.added == result.removed == result.changed == ()
    assert format_diff(result) == "recordings are identical\n"


def test_removed_and_outcome_change():
    a = _rec([("a", "x", 1), ("a", "y", 2)])
    b = _rec([("a", "x", 1)])
    result = diff_recordings(a, b)
    assert [e.name for e in result.removed] == ["a/y#0"] and result.first_divergence == "a/y#0"
    c = create_stash()
    try:
        c.intercept("a", "x", lambda: (_ for _ in ()).throw(ValueError("v")))
    except ValueError:
        pass
    changed = diff_recordings(_rec([("a", "x", 1)]), c.recording()).changed[0]
    assert "outcome" in changed.fields
    assert diff_recordings(a, b).to_json()["removed"][0]["name"] == "a/y#0"
