"""Which agent's session a record came from: recorded from the hooks' ledger rows (migration 13), shown by `show`,
`why`, `status` and the dashboard."""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime, timezone

from agentctx import cli
from agentctx.base import paths
from agentctx.base.project import detect
from agentctx.memory import pending
from agentctx.store import db, migrations, sessions

PROMPT = "sqlite storage decision: WAL and busy timeout"


def _sessions(agent_hook, hook, repo):
    """One session per agent, each starting and asking the same question (Claude Code's without --agent)."""
    for agent, event in (("codex", "UserPromptSubmit"), ("gemini", "BeforeAgent")):
        agent_hook(agent, "session-start", {"session_id": f"s-{agent}", "cwd": str(repo), "source": "startup"})
        agent_hook(agent, "user-prompt-submit", {"session_id": f"s-{agent}", "cwd": str(repo),
                                                  "hook_event_name": event, "prompt": PROMPT})
    hook("session-start", {"session_id": "s-claude", "cwd": str(repo), "source": "startup"})
    hook("user-prompt-submit", {"session_id": "s-claude", "cwd": str(repo), "prompt": PROMPT})


def test_each_session_records_its_agent(agent_hook, hook, add, conn, repo):
    add("Storage decision", "We keep records in sqlite with WAL and a busy timeout.")
    _sessions(agent_hook, hook, repo)
    pending.drain_pending(conn)
    assert sessions.agents_of(conn, ["s-codex", "s-gemini", "s-claude", "nope"]) == {
        "s-codex": "codex", "s-gemini": "gemini", "s-claude": "claude"}
    assert sessions.by_agent(conn, detect(repo).id) == {"codex": 1, "gemini": 1, "claude": 1}


def test_a_session_end_names_its_agent_too(agent_hook, conn, repo, monkeypatch):
    monkeypatch.setattr("agentctx.base.spawn.detached", lambda argv, cwd=None: 1)
    agent_hook("codex", "session-end", {"session_id": "s-end", "cwd": str(repo), "reason": "other"})
    pending.drain_pending(conn)
    assert sessions.agents_of(conn, ["s-end"]) == {"s-end": "codex"}


def test_show_why_and_status_say_which_agent(agent_hook, hook, add, conn, repo, capsys):
    stub = add("Error observed: make", "Command: make\nObserved: error: boom", type_="bugfix", session_id="s-gemini")
    add("Storage decision", "We keep records in sqlite with WAL and a busy timeout.")
    _sessions(agent_hook, hook, repo)
    capsys.readouterr()
    assert cli.main(["-C", str(repo), "show", stub.id]) == 0
    assert "source      cli, session s-gemini (Gemini CLI)" in capsys.readouterr().out
    assert cli.main(["-C", str(repo), "show", stub.id, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["agent"] == "gemini"
    assert cli.main(["-C", str(repo), "why"]) == 0
    out = capsys.readouterr().out
    assert "session s-codex (Codex CLI)" in out and "session s-gemini (Gemini CLI)" in out
    assert "session s-claude (Claude Code)" in out
    assert cli.main(["-C", str(repo), "why", "--json"]) == 0
    assert {i["agent"] for i in json.loads(capsys.readouterr().out)["injections"]} == {"codex", "gemini", "claude"}
    assert cli.main(["-C", str(repo), "status", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["sessions_by_agent"] == {"codex": 1, "gemini": 1, "claude": 1}
    assert cli.main(["-C", str(repo), "status"]) == 0
    assert "sessions  3" in capsys.readouterr().out


def test_sessions_of_an_older_store_were_claude_codes(tmp_path):
    path = paths.db_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = sqlite3.connect(path, isolation_level=None)
    raw.execute("CREATE TABLE _agentctx_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, "
                "applied_at TEXT NOT NULL)")
    for m in migrations.MIGRATIONS:
        if m.version > 10:
            break
        m.apply(raw)
        raw.execute("INSERT INTO _agentctx_migrations VALUES (?, ?, ?)",
                    (m.version, m.name, datetime.now(timezone.utc).isoformat()))
    raw.execute("PRAGMA user_version=10")
    raw.execute("INSERT INTO sessions (session_id, project_id, started_at) VALUES ('old', 'P', '2026-01-01')")
    raw.close()
    conn = db.connect(path)
    try:
        assert sessions.agents_of(conn, ["old"]) == {"old": "claude"}
    finally:
        conn.close()
