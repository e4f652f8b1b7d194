"""The pre-action hook: records whose anchors match an edit, a command or a tool reach the model before it runs, once
per session, within budget; guards ask or deny; nothing at all when nothing matches."""

import json

from agentctx.base import guards, paths
from agentctx.base.project import detect
from agentctx.hooks import action
from agentctx.memory import anchormap, consolidate
from agentctx.store import records


def _payload(repo, tool, tool_input, session="s1", **kw):
    return {"session_id": session, "cwd": str(repo), "hook_event_name": "PreToolUse", "tool_name": tool,
            "tool_input": tool_input, **kw}


def _pending():
    try:
        with open(paths.pending_ledger_file(), encoding="utf-8") as fh:
            return [json.loads(line) for line in fh]
    except FileNotFoundError:
        return []


def test_no_anchored_record_means_no_map_and_no_output(add, repo, hook):
    add("Plain", "Nothing governed.")
    assert not (paths.state_dir_str() and __import__("os").path.exists(paths.anchor_map_file(detect(repo).id)))
    assert hook("pre-tool-use", _payload(repo, "Edit", {"file_path": str(repo / "src/x.py")})) is None


def test_an_anchored_edit_gets_the_record_once_per_session(add, repo, hook):
    rec = add("Payments use integer cents", "Amounts in src/payments are integer cents, never floats.",
              anchors=("path:src/payments/**",))
    consolidate.run(detect(repo))  # the root cache the hooks read
    out = hook("pre-tool-use", _payload(repo, "Edit", {"file_path": str(repo / "src/payments/charge.py"),
                                                       "old_string": "a", "new_string": "b"}))
    text = out["hookSpecificOutput"]["additionalContext"]
    assert out["hookSpecificOutput"]["hookEventName"] == "PreToolUse"
    assert "Payments use integer cents" in text and rec.id in text and "integer cents, never floats" in text
    assert "permissionDecision" not in out["hookSpecificOutput"]
    assert action.ACTION_BUDGET * 4 >= len(text)
    row = [r for r in _pending() if r["event"] == "PreToolUse"][-1]
    assert row["record_ids"] == [rec.id] and row["tokens"] > 0
    # once per session; another session gets it again; an unanchored file gets nothing
    assert hook("pre-tool-use", _payload(repo, "Edit", {"file_path": str(repo / "src/payments/refund.py")})) is None
    assert hook("pre-tool-use", _payload(repo, "Write", {"file_path": "src/payments/x.py"}, session="s2"))
    assert hook("pre-tool-use", _payload(repo, "Edit", {"file_path": str(repo / "src/other.py")}, session="s3")) is None


def test_commands_tools_and_symbols(add, repo, hook):
    add("Migrations through alembic", "Run alembic upgrade head only after a backup.", anchors=("command:alembic upgrade",))
    add("No web fetches", "Docs are vendored under docs/vendor.", anchors=("tool:WebFetch",))
    add("Client.send retries", "send() retries three times; do not add another loop.", anchors=("symbol:Client.send",))
    consolidate.run(detect(repo))
    out = hook("pre-tool-use", _payload(repo, "Bash", {"command": "cd app && sudo alembic upgrade head"}))
    assert "Migrations through alembic" in out["hookSpecificOutput"]["additionalContext"]
    assert hook("pre-tool-use", _payload(repo, "Bash", {"command": "alembic history"}, session="t")) is None
    assert "No web fetches" in hook("pre-tool-use", _payload(repo, "WebFetch", {"url": "x"}))["hookSpecificOutput"][
        "additionalContext"]
    out = hook("pre-tool-use", _payload(repo, "Edit", {"file_path": "a.py", "new_string": "client.send(msg)"}))
    assert "Client.send retries" in out["hookSpecificOutput"]["additionalContext"]
    assert hook("pre-tool-use", _payload(repo, "Edit", {"file_path": "a.py", "new_string": "resend()"}, session="u")) is None


def test_a_never_guard_asks_every_time_and_deny_denies(add, conn, repo, hook):
    rec = add("No force pushes", "Never force-push shared branches; open a PR instead.")
    pid = detect(repo).id
    records.set_guard(conn, rec.id, pid, guards.make("never", ["command:git push --force"]))
    consolidate.run(detect(repo))
    for _ in range(2):  # a guard is not once per session
        out = hook("pre-tool-use", _payload(repo, "Bash", {"command": "git fetch && git push --force origin main"}))
        specific = out["hookSpecificOutput"]
        assert specific["permissionDecision"] == "ask"
        assert "No force pushes" in specific["permissionDecisionReason"] and rec.id in specific["permissionDecisionReason"]
    assert hook("pre-tool-use", _payload(repo, "Bash", {"command": "git push origin topic"})) is None
    records.set_guard(conn, rec.id, pid, guards.make("never", ["command:git push --force"], "deny"))
    out = hook("pre-tool-use", _payload(repo, "Bash", {"command": "git push --force"}))
    assert out["hookSpecificOutput"]["permissionDecision"] == "deny"
    records.set_guard(conn, rec.id, pid, "")
    assert hook("pre-tool-use", _payload(repo, "Bash", {"command": "git push --force"}, session="z")) is None


def test_an_always_guard_stops_actions_in_scope_that_miss_the_pattern(add, conn, repo, hook):
    rec = add("Test before pushing", "Run make test in the same command before any git push.",
              anchors=("command:git push",))
    pid = detect(repo).id
    records.set_guard(conn, rec.id, pid, guards.make("always", ["command:make test"], record_anchors=rec.anchors))
    consolidate.run(detect(repo))
    assert hook("pre-tool-use", _payload(repo, "Bash", {"command": "git push"}))["hookSpecificOutput"][
        "permissionDecision"] == "ask"
    out = hook("pre-tool-use", _payload(repo, "Bash", {"command": "make test && git push"}))
    assert out is None or "permissionDecision" not in out["hookSpecificOutput"]


def test_guards_refuse_inferred_records_and_bad_patterns(add, conn, repo):
    import pytest

    from agentctx.base.errors import ValidationError

    rec = add("Seen once", "inferred", confidence="inferred")
    with pytest.raises(ValidationError):
        records.set_guard(conn, rec.id, detect(repo).id, guards.make("never", ["command:rm -rf"]))
    for bad in (["command:/.*(a+)+$/"], ["**"], ["/etc/passwd"], [], ["symbol:X.y"]):
        with pytest.raises(guards.GuardError):
            guards.make("never", bad)
    with pytest.raises(guards.GuardError):
        guards.make("always", ["command:make test"])  # no anchors: no scope


def test_select_keeps_within_budget_and_skips_native_agents():
    entries = [{"id": f"r{i}", "type": "rule", "title": f"Rule {i}", "text": "x " * 110,
                "anchors": ["path:src/**"], "guard": "", "skip_agents": ["codex"] if i == 0 else []}
               for i in range(10)]
    target = action.Target("Edit", ("src/a.py",), "", "")
    picks = action.select(entries, target, "claude", set())
    assert 0 < len(picks) < 10
    assert (len(action.render(picks)) + 3) // 4 <= action.ACTION_BUDGET
    assert "r0" not in [p.entry["id"] for p in action.select(entries, target, "codex", set())]
    assert action.select(entries, target, "claude", {e["id"] for e in entries}) == []


def test_the_map_indexes_so_an_unrelated_target_checks_nothing(add, conn, repo):
    add("Docs", "d", anchors=("path:docs/**", "*.md"))
    add("Npm", "n", anchors=("command:npm",))
    data = anchormap.build(conn, detect(repo).id)
    root = str(repo)
    assert action.candidates(data, action.target_of("Edit", {"file_path": "src/x.py"}, root, root)) == []
    assert len(action.candidates(data, action.target_of("Edit", {"file_path": "README.md"}, root, root))) == 1
    assert len(action.candidates(data, action.target_of("Bash", {"command": "cd x; ./node_modules/.bin/npm i"},
                                                        root, root))) == 1


def test_a_broken_map_or_payload_never_breaks_the_hook(add, repo, hook):
    add("A", "b", anchors=("src/**",))
    consolidate.run(detect(repo))
    with open(paths.anchor_map_file(detect(repo).id), "w") as fh:
        fh.write("{not json")
    assert hook("pre-tool-use", _payload(repo, "Edit", {"file_path": "src/a.py"})) is None
    assert hook("pre-tool-use", _payload(repo, "Edit", ["junk"])) is None
    assert hook("pre-tool-use", "not json") is None
