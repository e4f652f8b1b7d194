"""The MCP tools show what can be trusted (SPEC §3.9): flags in ctx_search titles, marks in ctx_get, and a
returned record counts as used."""

from __future__ import annotations

import json

from agentctx.store import records, trust


def _ok(result):
    assert result["isError"] is False, result
    return json.loads(result["content"][0]["text"])


def test_search_flags_and_get_marks_and_both_count_as_use(ctx_a, helpers):
    rid = _ok(helpers.call(ctx_a, "ctx_record", {"type": "decision", "title": "Use SQLite for storage",
                                                 "body": "One file (src/store.py)."}))["id"]
    trust.set_mark(ctx_a.conn, rid, "unverified", "src/store.py: deleted")
    out = _ok(helpers.call(ctx_a, "ctx_search", {"query": "sqlite storage"}))
    assert out["results"][0]["title"] == "Use SQLite for storage (code changed since: src/store.py)"
    assert records.get(ctx_a.conn, rid).last_accessed is not None  # a search that returns it uses it
    got = _ok(helpers.call(ctx_a, "ctx_get", {"ids": [rid]}))
    assert got["records"][0]["marks"] == {"unverified": "src/store.py: deleted"}
    assert got["records"][0]["title"] == "Use SQLite for storage"
