"""`ctx_record` takes a rationale, as `ctx_supersede` does, and says when the record will be found by its own words
only (issue 42 items 7, 8)."""

from __future__ import annotations

from agentctx.memory.history import chain
from agentctx.store import records


def test_ctx_record_takes_a_rationale_and_says_when_it_will_not_be_expanded(ctx_a, helpers, monkeypatch,
                                                                           fake_expansion_start):
    started = fake_expansion_start
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setenv("PATH", "/nonexistent")  # no `claude` CLI: no backend
    result = helpers.call(ctx_a, "ctx_record", {"type": "decision", "title": "Ruff replaces flake8",
                                                "body": "CI runs ruff.", "rationale": "one tool, faster"})
    assert result["isError"] is False, result
    out = result["structuredContent"]
    stored = records.get(ctx_a.conn, out["id"])
    assert stored.body == "CI runs ruff.\n\nRationale: one tool, faster" and "own words" in out["note"]
    assert [s.rationale for s in chain(ctx_a.conn, stored.id, ctx_a.project.id)] == [None] and started == []
    asked = helpers.call(ctx_a, "ctx_record", {"type": "decision", "title": "Pin pyflakes", "body": "3.2.0.",
                                               "aliases": ["pyflakes pin"]})
    assert "note" not in asked["structuredContent"]
    bad = helpers.call(ctx_a, "ctx_record", {"type": "decision", "title": "T", "body": "B", "rationale": ""})
    assert bad["isError"] is True and "rationale" in bad["structuredContent"]["error"]
