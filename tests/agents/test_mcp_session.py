"""An MCP server that no one told its session (Codex and Gemini CLI give it none) finds it: the open session its own
agent process started, so a record written through it says which agent's session it came from."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from agentctx.mcp.handlers import ctx_record
from agentctx.mcp.server import make_context
from agentctx.store import records

ROOT = str(Path(__file__).resolve().parents[2])


def _child(code: str) -> str:
    """A process started by this one, as a hook or an MCP server is started by the agent."""
    done = subprocess.run([sys.executable, "-c", f"import sys; sys.path.insert(0, {ROOT!r}); {code}"],
                          capture_output=True, text=True, env=dict(os.environ), check=True, timeout=60)
    return done.stdout.strip()


def test_a_server_finds_the_session_its_agent_process_opened():
    _child("from agentctx.memory.open_sessions import mark_open; mark_open('s-old', 'P', '/r', '')")
    _child("from agentctx.memory.open_sessions import mark_open; mark_open('s-codex', 'P', '/r', '')")
    _child("from agentctx.memory.open_sessions import mark_open; mark_open('s-other', 'Q', '/q', '')")
    find = "from agentctx.memory.open_sessions import session_of_client as f; print(f({!r}))"
    assert _child(find.format("P")) == "s-codex"  # the newest of this agent process's sessions in the project
    assert _child(find.format("Q")) == "s-other" and _child(find.format("R")) == "None"


def test_a_record_written_through_the_server_carries_that_session(conn, repo, monkeypatch):
    monkeypatch.setattr("agentctx.memory.open_sessions.session_of_client", lambda project_id: "s-gemini")
    ctx = make_context({}, str(repo))
    out = ctx_record(ctx, {"type": "decision", "title": "Use Redis streams", "body": "For the job queue."})
    assert records.get(conn, out["id"]).session_id == "s-gemini"
    named = make_context({"CLAUDE_CODE_SESSION_ID": "s-claude"}, str(repo))
    assert named.session() == "s-claude"  # Claude Code says which: no lookup
    ctx.close()
    named.close()
