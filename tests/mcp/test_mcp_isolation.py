"""A server for project A never shows project B's records, through any tool; global-scope records are shared."""

import json

from agentctx.store import graph


def test_no_tool_leaks_another_project(ctx_a, ctx_b, helpers):
    def rec(ctx, **kw):
        args = {"type": "decision", "title": "Secret beta storage plan", "body": "Beta uses Cassandra."} | kw
        return helpers.call(ctx, "ctx_record", args)["structuredContent"]["id"]

    b_id = rec(ctx_b)
    b_old = rec(ctx_b, title="Beta old storage plan")
    helpers.call(ctx_b, "ctx_supersede", {"old_id": b_old, "new_body": "Beta storage v2", "rationale": "scale"})
    shared = rec(ctx_b, type="preference", title="Prefers storage plans written down", body="Write plans.",
                 scope="global")
    b_file = ctx_b.project.root / "src" / "store.py"
    graph.link(ctx_a.conn, b_id, [graph.upsert_node(ctx_b.conn, ctx_b.project.id, "file", str(b_file))])
    (ctx_a.project.root / "CLAUDE.md").write_text("# A\n\n- Beta old storage plan\n", encoding="utf-8")
    a_id = rec(ctx_a, title="Alpha storage plan", body="Alpha uses SQLite.")

    seen = []
    for name, args in [
        ("ctx_search", {"query": "storage plan beta cassandra"}),
        ("ctx_search", {"query": "storage plan", "scope": "project"}),
        ("ctx_search", {"query": "storage", "file": str(b_file)}),
        ("ctx_get", {"ids": [b_id, b_old, a_id, shared]}),
        ("ctx_project", {}),
        ("ctx_related", {"file": str(b_file)}),
        ("ctx_sync_claudemd", {}),
    ]:
        seen.append(json.dumps(helpers.call(ctx_a, name, args)["structuredContent"]))
    text = "\n".join(seen)
    assert b_id not in "\n".join(seen[:3] + seen[4:])  # ctx_get may only echo it back as missing
    assert "Cassandra" not in text and "Secret beta" not in text and "Beta storage v2" not in text
    got = json.loads(seen[3])
    assert {r["id"] for r in got["records"]} == {a_id, shared} and b_id in got["missing"] and b_old in got["missing"]
    assert got["heads"] == {}  # not even the id of B's successor
    assert json.loads(seen[4])["record_counts_by_type"] == {"decision": 1}
    assert shared in seen[0]  # global scope is visible to every project

    for name, args in [("ctx_supersede", {"old_id": b_id, "new_body": "x", "rationale": "y"}),
                       ("ctx_record", {"type": "decision", "title": "t", "body": "b", "supersedes": b_id})]:
        out = helpers.call(ctx_a, name, args)
        assert out["isError"] and "no record" in out["structuredContent"]["error"]
