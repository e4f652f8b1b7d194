"""ctx_search `as_of` and ctx_get `history` through tools/call (SPEC §3.5, §5)."""

import json

from agentctx.store import records


def _ok(result):
    assert result["isError"] is False, result
    return result["structuredContent"]


def test_ctx_search_as_of_and_ctx_get_history(ctx_a, helpers):
    v1 = _ok(helpers.call(ctx_a, "ctx_record", {"type": "decision", "title": "Database choice",
                                                "body": "Use MySQL for the orders service."}))
    v2 = _ok(helpers.call(ctx_a, "ctx_supersede", {"old_id": v1["id"], "new_body": "Use Postgres for orders.",
                                                   "rationale": "JSONB columns"}))
    conn = ctx_a.conn
    conn.execute("UPDATE records SET recorded_at = '2026-01-10T09:00:00.000Z', "
                 "superseded_at = '2026-02-10T09:00:00.000Z' WHERE id = ?", (v1["id"],))
    conn.execute("UPDATE records SET recorded_at = '2026-02-10T09:00:00.000Z' WHERE id = ?", (v2["new_id"],))
    conn.commit()
    then = _ok(helpers.call(ctx_a, "ctx_search", {"query": "orders database", "as_of": "2026-01-20"}))
    assert [r["id"] for r in then["results"]] == [v1["id"]]
    now = _ok(helpers.call(ctx_a, "ctx_search", {"query": "orders database"}))
    assert [r["id"] for r in now["results"]] == [v2["new_id"]]
    got = _ok(helpers.call(ctx_a, "ctx_get", {"ids": [v1["id"]], "history": True}))
    assert got["missing"] == [v1["id"]]  # still not served as current
    steps = got["chains"][v1["id"]]
    assert [s["id"] for s in steps] == [v1["id"], v2["new_id"]]
    assert steps[1]["rationale"] == "JSONB columns" and steps[0]["superseded_at"] == "2026-02-10T09:00:00.000Z"
    plain = _ok(helpers.call(ctx_a, "ctx_get", {"ids": [v2["new_id"]]}))
    assert "chains" not in plain
    bad = helpers.call(ctx_a, "ctx_search", {"query": "orders", "as_of": "whenever"})
    assert bad["isError"] is True and "as_of" in json.dumps(bad["structuredContent"])
    assert records.get(conn, v1["id"]).superseded_by == v2["new_id"]


def test_ctx_get_takes_the_short_ids_people_use(ctx_a, helpers):
    """The same id rule as the CLI and the dashboard (issue 26, item 7): the end of an id is enough."""
    rec = _ok(helpers.call(ctx_a, "ctx_record", {"type": "decision", "title": "Queue choice",
                                                 "body": "A plain table is the queue."}))
    got = _ok(helpers.call(ctx_a, "ctx_get", {"ids": [rec["id"][-8:], "ZZ"]}))
    assert [r["id"] for r in got["records"]] == [rec["id"]] and got["missing"] == ["ZZ"]
