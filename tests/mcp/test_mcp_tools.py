"""The seven tools through tools/call: shapes, limits, supersession, provenance, graph and profile."""

import json
from datetime import datetime, timedelta, timezone

import pytest

from agentctx.base.ids import to_iso
from agentctx.mcp.handlers import age, index_entry
from agentctx.base.models import NewRecord
from agentctx.store import graph, records, sessions
from agentctx.base.tokens import estimate


def ok(result):
    assert result["isError"] is False, result
    assert json.loads(result["content"][0]["text"]) == result["structuredContent"]
    return result["structuredContent"]


def err(result):
    assert result["isError"] is True, result
    return result["structuredContent"]["error"]


def record(ctx, h, **kw):
    args = {"type": "decision", "title": "Use SQLite for storage", "body": "One file, WAL mode."} | kw
    return ok(h.call(ctx, "ctx_record", args))


def test_record_is_explicit_mcp_tool(ctx_a, helpers):
    out = record(ctx_a, helpers)
    stored = records.get(ctx_a.conn, out["id"])
    assert (stored.source, stored.confidence, stored.valid_from) == ("mcp_tool", "explicit", stored.recorded_at)
    assert out["superseded"] == []


def test_record_scrubs_secrets(ctx_a, helpers):
    out = record(ctx_a, helpers, body="deploy with key sk-ant-api03-" + "A" * 40)
    assert "sk-ant-api03" not in records.get(ctx_a.conn, out["id"]).body


def test_record_validation_errors(ctx_a, helpers):
    assert "type must be one of" in err(helpers.call(ctx_a, "ctx_record", {"type": "memo", "title": "t", "body": "b"}))
    assert "title is 121 characters" in err(helpers.call(
        ctx_a, "ctx_record", {"type": "decision", "title": "t" * 121, "body": "b"}))
    assert "body is required" in err(helpers.call(ctx_a, "ctx_record", {"type": "decision", "title": "t"}))


def test_record_supersedes_atomically(ctx_a, helpers):
    first = record(ctx_a, helpers)
    second = record(ctx_a, helpers, body="Postgres after all.", supersedes=first["id"])
    assert second["superseded"] == [first["id"]]
    assert "already superseded" in err(helpers.call(ctx_a, "ctx_record", {
        "type": "decision", "title": "x", "body": "y", "supersedes": first["id"]}))
    assert records.counts_by_type(ctx_a.conn, ctx_a.project.id) == {"decision": 1}


def test_supersede_keeps_title_and_names_head(ctx_a, helpers):
    first = record(ctx_a, helpers)
    out = ok(helpers.call(ctx_a, "ctx_supersede", {"old_id": first["id"], "new_body": "Use Postgres.",
                                                   "rationale": "needs concurrent writers"}))
    new = records.get(ctx_a.conn, out["new_id"])
    assert new.title == "Use SQLite for storage" and new.body == "Use Postgres.\n\nRationale: needs concurrent writers"
    message = err(helpers.call(ctx_a, "ctx_supersede", {"old_id": first["id"], "new_body": "x", "rationale": "y"}))
    assert "already superseded" in message and out["new_id"] in message
    assert "no record" in err(helpers.call(ctx_a, "ctx_supersede", {"old_id": "nope", "new_body": "x", "rationale": "y"}))


def test_supersede_refuses_a_kept_title_the_new_body_contradicts(ctx_a, helpers):
    first = record(ctx_a, helpers, type="convention", title="Minimum supported Python is 3.7",
                   body='attrs supports Python 3.7 and later (requires-python = ">=3.7").')
    args = {"old_id": first["id"], "new_body": 'attrs requires Python 3.8 or later (requires-python = ">=3.8").',
            "rationale": "24.1.0 dropped 3.7"}
    message = err(helpers.call(ctx_a, "ctx_supersede", args))
    assert "'7'" in message and "title" in message and "\n" not in message
    assert records.get(ctx_a.conn, first["id"]).is_current
    out = ok(helpers.call(ctx_a, "ctx_supersede", {**args, "title": "Minimum supported Python is 3.8"}))
    assert out["title"] == "Minimum supported Python is 3.8" and not records.get(ctx_a.conn, first["id"]).is_current


def test_search_index_only(ctx_a, helpers):
    rid = record(ctx_a, helpers, body="B" * 1500)["id"]
    out = ok(helpers.call(ctx_a, "ctx_search", {"query": "sqlite storage"}))
    assert out["degraded"] is None
    (hit,) = out["results"]
    assert set(hit) == {"id", "type", "title", "age", "confidence", "score"}
    assert hit["id"] == rid and "B" * 20 not in json.dumps(out)


def test_search_limit_capped_and_long_titles_fit(ctx_a, helpers):
    for i in range(20):
        record(ctx_a, helpers, title=(f"Storage rule {i} " + "about sqlite storage " * 6)[:118])
    out = ok(helpers.call(ctx_a, "ctx_search", {"query": "sqlite storage", "limit": 50}))
    assert len(out["results"]) == 15
    for hit in out["results"]:
        assert estimate(json.dumps(hit, separators=(",", ":"), ensure_ascii=False)) <= 50
        assert hit["title"].endswith("…")


def test_search_type_scope_and_superseded(ctx_a, helpers):
    old = record(ctx_a, helpers)
    record(ctx_a, helpers, body="Postgres.", supersedes=old["id"])
    record(ctx_a, helpers, type="convention", title="SQLite migrations are appended")
    record(ctx_a, helpers, type="preference", title="Prefers sqlite tooling", scope="global")
    ids = lambda args: [h["id"] for h in ok(helpers.call(ctx_a, "ctx_search", args))["results"]]
    assert old["id"] not in ids({"query": "sqlite"})
    assert len(ids({"query": "sqlite"})) == 3
    assert len(ids({"query": "sqlite", "type": "convention"})) == 1
    globals_ = ok(helpers.call(ctx_a, "ctx_search", {"query": "sqlite", "scope": "global"}))["results"]
    assert [h["type"] for h in globals_] == ["preference"]
    assert "preference" not in {h["type"] for h in ok(helpers.call(
        ctx_a, "ctx_search", {"query": "sqlite", "scope": "project"}))["results"]}


def test_search_file_narrows(ctx_a, helpers):
    linked = record(ctx_a, helpers, title="Auth tokens rotate hourly")["id"]
    record(ctx_a, helpers, title="Auth tokens live in the keychain")
    node = graph.upsert_node(ctx_a.conn, ctx_a.project.id, "file", str(ctx_a.project.root / "src" / "auth.py"))
    graph.link(ctx_a.conn, linked, [node])
    out = ok(helpers.call(ctx_a, "ctx_search", {"query": "auth tokens", "file": "src/auth.py"}))
    assert [h["id"] for h in out["results"]] == [linked]
    assert ok(helpers.call(ctx_a, "ctx_search", {"query": "auth tokens", "file": "src/other.py"}))["results"] == []


def test_search_degraded_like(ctx_a, helpers):
    record(ctx_a, helpers)
    ctx_a.conn.execute("DROP TABLE records_fts_vocab")
    ctx_a.conn.execute("DROP TABLE records_fts")
    out = ok(helpers.call(ctx_a, "ctx_search", {"query": "sqlite"}))
    assert out["degraded"] == "like-search" and len(out["results"]) == 1


def test_get_full_records_missing_heads_and_counters(ctx_a, helpers):
    a = record(ctx_a, helpers)
    b = record(ctx_a, helpers, title="Use pytest", body="plain functions")
    c = record(ctx_a, helpers, body="Postgres.", supersedes=a["id"])
    out = ok(helpers.call(ctx_a, "ctx_get", {"ids": [b["id"], "nope", b["id"], a["id"]]}))
    assert [r["id"] for r in out["records"]] == [b["id"]]
    got = out["records"][0]
    assert got["body"] == "plain functions" and got["access_count"] == 1
    assert {"valid_from", "recorded_at", "superseded_at", "source", "session_id"} <= set(got)
    assert out["missing"] == ["nope", a["id"]] and out["heads"] == {a["id"]: c["id"]}
    assert records.get(ctx_a.conn, b["id"]).access_count == 1
    for bad in ([], ["x"] * 11, "abc"):
        assert "ids" in err(helpers.call(ctx_a, "ctx_get", {"ids": bad}))


def test_project_profile_counts_and_last_session(ctx_a, helpers):
    out = ok(helpers.call(ctx_a, "ctx_project"))
    assert out["name"] == "repo-a" and out["stack"] is None and out["record_counts_by_type"] == {}
    pid = ctx_a.project.id
    records.insert(ctx_a.conn, NewRecord("profile", "Stack", "- Language: Python\n- Database: SQLite", pid))
    records.insert(ctx_a.conn, NewRecord("profile", "Commands", "- pytest -q", pid))
    record(ctx_a, helpers)
    sessions.end(ctx_a.conn, "s1", pid)
    out = ok(helpers.call(ctx_a, "ctx_project", {}))
    assert out["stack"] == ["Language: Python", "Database: SQLite"] and out["commands"] == ["pytest -q"]
    assert out["entry_points"] is None
    assert out["record_counts_by_type"] == {"profile": 2, "decision": 1}
    assert out["last_session_at"]
    assert "not a known field" in err(helpers.call(ctx_a, "ctx_project", {"x": 1}))


def test_related_follows_entities_and_edges(ctx_a, helpers):
    conn, pid = ctx_a.conn, ctx_a.project.id
    direct = record(ctx_a, helpers, title="Auth module uses JWT")["id"]
    via_edge = record(ctx_a, helpers, title="JWT secret rotation")["id"]
    old = record(ctx_a, helpers, title="Auth used sessions")["id"]
    head = record(ctx_a, helpers, title="Auth moved to JWT", body="x", supersedes=old)["id"]
    path = ctx_a.project.root / "src" / "auth.py"
    node = graph.upsert_node(conn, pid, "file", str(path))
    graph.link(conn, direct, [node])
    graph.link(conn, old, [node])
    graph.add_edge(conn, via_edge, direct, "derives_from")
    graph.add_edge(conn, node, node, "scoped_to")  # a cycle must not hang the walk
    out = ok(helpers.call(ctx_a, "ctx_related", {"file": "src/auth.py"}))
    ids = [h["id"] for h in out["results"]]
    assert out["file"] == str(path.resolve())
    # The superseded record's link is its head's (issue 42, item 2): both linked records first, then the neighbour.
    assert set(ids[:2]) == {direct, head} and via_edge in ids and old not in ids
    assert all(set(h) == {"id", "type", "title", "age", "confidence", "score"} for h in out["results"])
    assert ok(helpers.call(ctx_a, "ctx_related", {"file": str(path)}))["results"] == out["results"]
    assert ok(helpers.call(ctx_a, "ctx_related", {"file": "nowhere.py"}))["results"] == []


def test_sync_claudemd_read_only(ctx_a, helpers):
    record(ctx_a, helpers, title="Use gRPC for internal services", body="Protobuf contracts in proto/.")
    (ctx_a.project.root / "CLAUDE.md").write_text("# Project\n\n- Run tests with pytest\n", encoding="utf-8")
    before = (ctx_a.project.root / "CLAUDE.md").read_bytes()
    out = ok(helpers.call(ctx_a, "ctx_sync_claudemd"))
    assert [m["title"] for m in out["missing"]] == ["Use gRPC for internal services"]
    assert out["missing"][0]["id"] in out["proposed_diff"]
    assert (ctx_a.project.root / "CLAUDE.md").read_bytes() == before
    assert all(r.claudemd_drift_score == 0 for r in records.current(ctx_a.conn, ctx_a.project.id))


def test_store_failure_is_a_tool_error(ctx_a, helpers, monkeypatch):
    import sqlite3

    from agentctx.store import records as recs

    def broken(*a, **k):
        raise sqlite3.DatabaseError("database disk image is malformed")

    monkeypatch.setattr(recs, "counts_by_type", broken)
    out = helpers.call(ctx_a, "ctx_project")
    assert out["isError"] and out["structuredContent"]["degraded"] == "store-unavailable"
    assert "agentctx doctor" in out["structuredContent"]["error"]


@pytest.mark.parametrize("delta,expected", [
    (timedelta(seconds=30), "0m"), (timedelta(minutes=5), "5m"), (timedelta(hours=23), "23h"),
    (timedelta(hours=30), "1d"), (timedelta(hours=48), "2d"), (timedelta(days=30), "1mo"),
    (timedelta(days=400), "13mo"),
])
def test_age(delta, expected):
    now = datetime(2026, 11, 30, tzinfo=timezone.utc)
    assert age(to_iso(now - delta), now) == expected


def test_index_entry_budget(ctx_a):
    rec, _ = records.insert(ctx_a.conn, NewRecord("decision", "é" * 120, "b", ctx_a.project.id))
    entry = index_entry(rec, 0.5, datetime.now(timezone.utc))
    assert estimate(json.dumps(entry, separators=(",", ":"), ensure_ascii=False)) <= 50
