"""Only the user lifts a guard (issue 41): superseding a guarded record through MCP or extraction keeps the guard on
the new head with its anchors (its scope) unchanged; the CLI and the dashboard change it, and `history` says who."""

from agentctx.base import guards
from agentctx.hooks import action
from agentctx.memory import anchormap
from agentctx.store import guardlog, records


def _ok(result):
    assert result["isError"] is False, result
    return result["structuredContent"]


def _guarded(ctx, helpers, mode="never", anchors=()):
    rec = _ok(helpers.call(ctx, "ctx_record", {"type": "decision", "title": "No force pushes",
                                               "body": "Never force-push main; open a PR.", "anchors": list(anchors)}))
    stored = guards.make(mode, ["command:make test"] if mode == "always" else ["command:git push --force"],
                         record_anchors=records.get(ctx.conn, rec["id"]).anchors)
    records.set_guard(ctx.conn, rec["id"], ctx.project.id, stored)
    return rec["id"], stored


def _stops(ctx, line):
    entries = anchormap.read(ctx.project.id)
    target = action.target_of("Bash", {"command": line}, str(ctx.project.root), str(ctx.project.root))
    return [p.entry["id"] for p in action.select(entries, target, "claude", set()) if p.decision]


def test_ctx_supersede_keeps_the_guard_and_its_scope(ctx_a, helpers):
    rid, stored = _guarded(ctx_a, helpers, "always", anchors=["command:git push"])
    out = _ok(helpers.call(ctx_a, "ctx_supersede", {"old_id": rid, "new_body": "Force pushes are fine now.",
                                                    "rationale": "the agent says so", "anchors": ["command:ls"]}))
    new = records.get(ctx_a.conn, out["new_id"])
    assert new.guard == stored and new.anchors == ("command:git push",)  # the scope did not move
    assert "kept" in out["guard"] and f"agentctx guard {new.id} --off" in out["guard"]
    assert _stops(ctx_a, "git push") == [new.id]  # the anchor map has the new head, still a guard
    assert _stops(ctx_a, "make test && git push") == []


def test_ctx_record_superseding_a_guard_keeps_it(ctx_a, helpers):
    rid, stored = _guarded(ctx_a, helpers)
    out = _ok(helpers.call(ctx_a, "ctx_record", {"type": "decision", "title": "Force pushes allowed",
                                                 "body": "Force-push whenever.", "supersedes": rid}))
    assert out["superseded"] == [rid] and "guard" in out
    assert records.get(ctx_a.conn, out["id"]).guard == stored
    assert _stops(ctx_a, "git push -f") == [out["id"]]
    assert _stops(ctx_a, 'bash -c "git push --force"') == [out["id"]]


def test_an_unguarded_supersede_says_nothing_of_guards(ctx_a, helpers):
    rec = _ok(helpers.call(ctx_a, "ctx_record", {"type": "decision", "title": "Tabs", "body": "Use tabs."}))
    out = _ok(helpers.call(ctx_a, "ctx_supersede", {"old_id": rec["id"], "new_body": "Use spaces.",
                                                    "rationale": "changed", "title": "Spaces"}))
    assert "guard" not in out and records.get(ctx_a.conn, out["new_id"]).guard == ""


def test_the_user_lifts_it_and_history_says_who(ctx_a, helpers, capsys):
    from agentctx import cli

    rid, stored = _guarded(ctx_a, helpers)
    out = _ok(helpers.call(ctx_a, "ctx_supersede", {"old_id": rid, "new_body": "Never force-push main or dev.",
                                                    "rationale": "dev too"}))
    new_id = out["new_id"]
    records.set_guard(ctx_a.conn, new_id, ctx_a.project.id, "", by="dashboard")
    log = guardlog.changes(ctx_a.conn, [rid, new_id])
    assert [(c["by"], bool(c["guard"])) for c in log[rid]] == [("cli", True)]
    assert [(c["by"], bool(c["guard"])) for c in log[new_id]] == [("mcp_tool", True), ("dashboard", False)]
    assert "kept from " + rid in log[new_id][0]["note"]
    capsys.readouterr()
    assert cli.main(["-C", str(ctx_a.project.root), "history", new_id]) == 0
    text = capsys.readouterr().out
    assert "by cli" in text and "by mcp_tool" in text and "by dashboard" in text and "lifted" in text


def test_agents_cannot_move_a_guard_through_anchors_or_a_merge(ctx_a, helpers):
    from agentctx.store import trust

    rid, _ = _guarded(ctx_a, helpers, "always", anchors=["command:git push"])
    rec = records.get(ctx_a.conn, rid)
    assert records.set_anchors(ctx_a.conn, rid, None, ["command:ls"], by="llm_extraction").anchors == rec.anchors
    other = _ok(helpers.call(ctx_a, "ctx_record", {"type": "decision", "title": "No force pushes ever",
                                                   "body": "Never force-push main; open a PR!"}))
    assert trust.merge(ctx_a.conn, records.get(ctx_a.conn, other["id"]), rec, "near-duplicate") is False
    assert records.get(ctx_a.conn, rid).is_current
