"""Rules fresh from the first session: every write that changes what governs what rewrites the anchor map, a removed
rule file is never delivered again, `init` reads the rule files, SessionStart notices a changed one."""

from __future__ import annotations

import os

import pytest

from agentctx.base.models import NewRecord
from agentctx.base.project import detect
from agentctx.hooks.action import Target, select
from agentctx.memory import anchormap, keep_digests_fresh
from agentctx.outside import rulestamp
from agentctx.outside import rulefiles
from agentctx.store import records

API = "---\ndescription: API errors\nglobs: src/api/**\n---\nReturn ApiError, never a bare string.\n"


def _write(root, rel, text):
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _map_ids(pid):
    return {e["id"] for e in anchormap.read(pid)}


def _map(pid):
    return {e["id"]: e for e in anchormap.read(pid)}


@pytest.fixture
def pid(repo, conn):
    keep_digests_fresh()
    return detect(str(repo)).id


def _anchored(conn, pid, title="Use the pool", anchors=("path:src/db/",)):
    return records.insert(conn, NewRecord(type="convention", title=title, body="Open connections from the pool.",
                                          project_id=pid, confidence="explicit", anchors=anchors))[0]


def test_insert_rewrites_the_map(conn, pid):
    rec = _anchored(conn, pid)
    assert rec.id in _map_ids(pid)


def test_supersede_rewrites_the_map(conn, pid):
    rec = _anchored(conn, pid)
    old, new = records.supersede(conn, rec.id, pid, body="Open connections from the shared pool only.")
    ids = _map_ids(pid)
    assert new.id in ids and old.id not in ids
    assert "shared pool" in _map(pid)[new.id]["text"]


def test_retire_rewrites_the_map(conn, pid):
    keep = _anchored(conn, pid, "Keep", ("path:src/keep/",))
    rec = _anchored(conn, pid)
    records.retire(conn, rec.id, pid)
    assert _map_ids(pid) == {keep.id}


def test_delete_rewrites_the_map(conn, pid):
    rec = _anchored(conn, pid)
    records.delete(conn, rec.id, pid)
    assert rec.id not in _map_ids(pid)


def test_a_guard_change_rewrites_the_map(conn, pid):
    rec = _anchored(conn, pid)
    records.set_guard(conn, rec.id, pid, "never deny\ncommand:rm -rf")
    assert _map(pid)[rec.id]["guard"] == "never deny\ncommand:rm -rf"
    records.set_guard(conn, rec.id, pid, "")
    assert _map(pid)[rec.id]["guard"] == ""


def test_a_rules_sync_rewrites_the_map_and_a_removed_rule_file_is_never_delivered_again(repo, conn, pid):
    path = _write(repo, ".cursor/rules/api.mdc", API)
    project = detect(str(repo))
    rulefiles.sync(conn, project)
    entries = anchormap.read(pid)
    edit = Target("Edit", ("src/api/users.ts",))
    assert [p.entry["title"] for p in select(entries, edit, "claude", set())] == ["API errors"]
    os.unlink(path)
    report = rulefiles.sync(conn, project)
    assert report["retired"] == 1
    assert select(anchormap.read(pid), edit, "claude", set()) == []
    assert select(anchormap.read(pid), edit, "codex", set()) == []


def test_init_reads_the_rule_files_for_the_first_session(repo, monkeypatch, capsys):
    from agentctx import cli
    from agentctx.hooks.action import pre_tool_use
    from agentctx.hooks import Payload

    _write(repo, ".cursor/rules/api.mdc", API)
    _write(repo, ".cursor/rules/always.mdc", "---\nalwaysApply: true\n---\n# Style\nNo print() in library code.")
    assert cli.main(["-C", str(repo), "init", "--agent", "codex", "--force"]) == 0
    assert "rule files: 2 found" in capsys.readouterr().out
    pid = detect(str(repo)).id
    from agentctx.memory import digest

    assert "No print() in library code." in digest.for_agent(digest.read(pid), "codex")["text"]
    out = pre_tool_use(Payload(session_id="f1", cwd=str(repo), tool_name="Edit", agent="codex",
                               tool_input={"file_path": str(repo / "src/api/x.ts"), "new_string": "x"}))
    assert "Return ApiError" in out["hookSpecificOutput"]["additionalContext"]


def test_session_start_notices_a_changed_rule_file_and_syncs_it_in_the_background(repo, conn, monkeypatch):
    from agentctx.hooks import session

    path = _write(repo, ".cursor/rules/api.mdc", API)
    project = detect(str(repo))
    rulefiles.sync(conn, project)
    root = os.path.realpath(str(repo))
    assert not rulestamp.changed(root, project.id)
    started = []
    monkeypatch.setattr(rulestamp, "start_sync", lambda r, p: started.append((r, p)) or True)
    session._rules_check(str(repo), project.id)
    assert started == []
    path.write_text(API + "Also log it.\n", encoding="utf-8")
    assert rulestamp.changed(root, project.id)
    session._rules_check(str(repo), project.id)
    assert started == [(root, project.id)]
    _write(repo, ".claude/rules/new.md", "# New\nA new rule.")  # a file added to a rule folder
    rulefiles.sync(conn, project)
    assert not rulestamp.changed(root, project.id)
    _write(repo, ".claude/rules/other.md", "# Other\nAnother.")
    assert rulestamp.changed(root, project.id)


def test_start_sync_runs_at_most_once_a_minute(repo, monkeypatch):
    from agentctx.base import spawn

    calls = []
    monkeypatch.setattr(spawn, "detached", lambda argv, cwd=None: calls.append(argv) or 1)
    assert rulestamp.start_sync(str(repo), "p1") is True
    assert rulestamp.start_sync(str(repo), "p1") is False
    assert calls and calls[0][-3:] == [str(repo), "rules", "sync"] or calls[0][-2:] == ["rules", "sync"]


def test_a_removed_always_rule_leaves_every_digest_view_after_the_next_sync(repo, conn, pid):
    from agentctx.memory import digest

    path = _write(repo, ".cursor/rules/style.mdc", "---\nalwaysApply: true\n---\n# Style\nNo print() in library code.")
    project = detect(str(repo))
    rulefiles.sync(conn, project)
    assert "No print()" in digest.for_agent(digest.read(pid), "codex")["text"]
    os.unlink(path)
    rulefiles.sync(conn, project)
    data = digest.read(pid)
    assert all("No print()" not in digest.for_agent(data, a)["text"] for a in ("claude", "codex", "gemini"))


def test_the_first_action_delivers_the_rules_the_digest_had_no_room_for_when_no_prompt_came_first(repo, conn, pid):
    from agentctx.hooks import Payload
    from agentctx.hooks.action import pre_tool_use
    from agentctx.hooks.session import session_start
    from agentctx.memory import digest

    for n in range(4):
        body = "\n".join(f"Rule {n} step {i}: keep every handler small and named by what it does." for i in range(24))
        _write(repo, f".cursor/rules/r{n}.mdc", f"---\nalwaysApply: true\n---\n# Rule {n}\n{body}")
    project = detect(str(repo))
    rulefiles.sync(conn, project)
    digest.refresh(conn, pid, project=project)
    later = digest.for_agent(digest.read(pid), "gemini")["later"]
    assert later["ids"]
    session_start(Payload(session_id="a1", cwd=str(repo), source="startup", agent="codex"))
    edit = {"file_path": str(repo / "README.md"), "new_string": "x"}
    first = pre_tool_use(Payload(session_id="a1", cwd=str(repo), tool_name="Edit", agent="codex", tool_input=edit))
    text = first["hookSpecificOutput"]["additionalContext"]
    assert "no room at start" in text and all(f"Rule {n} step 23" in text or f"Rule {n} step 23"
                                               in digest.for_agent(digest.read(pid), "codex")["text"]
                                               for n in range(4))
    assert pre_tool_use(Payload(session_id="a1", cwd=str(repo), tool_name="Edit", agent="codex",
                                tool_input=edit)) is None  # once


def test_drift_leaves_rule_files_out(repo, conn, pid):
    from agentctx.outside import drift

    _write(repo, "CLAUDE.md", "# Project\nUse pytest.\n")
    _write(repo, ".cursor/rules/style.mdc", "---\nalwaysApply: true\n---\n# Style\nNo print() in library code.")
    project = detect(str(repo))
    rulefiles.sync(conn, project)
    report = drift.scan(conn, project)
    assert not any(".cursor/rules" in m["title"] for m in report.missing)


def test_gemini_gets_the_later_rules_only_where_after_tool_shows_them(repo, conn, pid, capsys, monkeypatch):
    # Gemini shows hook context only from AfterTool (Bash, Write, Edit, Read): the rules left for later are neither
    # printed nor logged at a web_fetch, where they would be dropped, and go out with the next read instead.
    import io
    import json
    import sys

    from agentctx.hooks import run
    from agentctx.hooks.action import delivered_ids
    from agentctx.memory import digest

    for n in range(4):
        body = "\n".join(f"Rule {n} step {i}: keep every handler small and named by what it does." for i in range(24))
        _write(repo, f".cursor/rules/r{n}.mdc", f"---\nalwaysApply: true\n---\n# Rule {n}\n{body}")
    _write(repo, "README.md", "# x\n")
    project = detect(str(repo))
    rulefiles.sync(conn, project)
    digest.refresh(conn, pid, project=project)
    ids = digest.for_agent(digest.read(pid), "gemini")["later"]["ids"]
    assert ids

    def gemini(event, data):
        monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps({"session_id": "g9", "cwd": str(repo), **data})))
        assert run([event, "--agent", "gemini"]) == 0
        out = capsys.readouterr().out
        return json.loads(out) if out.strip() else None

    gemini("session-start", {"hook_event_name": "SessionStart", "source": "startup"})
    fetch = {"tool_name": "web_fetch", "tool_input": {"prompt": "x"}}
    assert gemini("pre-tool-use", {**fetch, "hook_event_name": "BeforeTool"}) is None
    assert delivered_ids("g9") == set() and not [r for r in _ledger() if r["event"] == "PreToolUse"]
    read = {"tool_name": "read_file", "tool_input": {"file_path": str(repo / "README.md")}}
    assert gemini("pre-tool-use", {**read, "hook_event_name": "BeforeTool"}) is None  # BeforeTool shows no context
    out = gemini("post-tool-use", {**read, "hook_event_name": "AfterTool",
                                   "tool_response": {"llmContent": "# x", "returnDisplay": ""}})
    assert "no room at start" in out["hookSpecificOutput"]["additionalContext"]
    assert [r["record_ids"] for r in _ledger() if r["event"] == "PreToolUse"] == [ids]


def _ledger():
    import json

    from agentctx.base import paths

    try:
        with open(paths.pending_ledger_file(), encoding="utf-8") as fh:
            return [json.loads(line) for line in fh]
    except FileNotFoundError:
        return []
